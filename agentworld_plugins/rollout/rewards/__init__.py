"""Rewards: checks registered through the ``register_rewards`` hook, combined per episode.

A reward check is a function ``check(episode, **params)`` returning a score in [0, 1] (a float,
a bool, or a :class:`RewardResult` with a detail line), or an awaitable of one. ``params`` are
the keys of the task's reward entry besides ``type``, ``weight`` and ``name``. The episode's
reward is the weighted mean of its checks; the breakdown keeps each one.

>>> from agentworld_plugins import hookimpl
>>> @hookimpl
... def register_rewards(register):
...     register("short_answer", lambda episode, limit=80: len(episode.final_answer or "") <= limit)
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import BackendError, ConfigError
from ..state import world_state
from .builtin import BUILTIN, STATE_CHECKS, builtin_param_problem
from .result import RewardResult

if TYPE_CHECKING:
    from ...plugins import Registry
    from ..episode import Episode

RewardCheck = Callable[..., Any]


def reward_registry(registry: Registry) -> dict[str, RewardCheck]:
    """The reward checks by name: the built-ins, then what plugins registered through
    ``register_rewards`` (a plugin's check replaces a built-in of the same name)."""
    return {**BUILTIN, **registry.rewards}


def reward_problem(name: str, check: RewardCheck, params: dict[str, Any]) -> tuple[str, str, str] | None:
    """What keeps a task's reward entry from calling ``check`` (None: nothing):
    ``(field suffix, message, hint)``. Parameters must fit the check's signature; the built-ins'
    values are checked too (strings, regexes that compile, SQL that parses)."""
    try:
        signature = inspect.signature(check)
    except (TypeError, ValueError):  # a callable without a signature: nothing to check
        return None
    takes = [p for p in list(signature.parameters.values())[1:] if p.kind is not p.VAR_KEYWORD]
    shown = ", ".join(p.name + ("" if p.default is p.empty else " (optional)") for p in takes)
    hint = f"{name} takes {shown or 'no parameters'}"
    try:
        signature.bind(None, **params)
    except TypeError as exc:
        return "", f"{name}: {exc}", hint
    if check is BUILTIN.get(name):
        found = builtin_param_problem(params)
        if found is not None:
            key, message = found
            return f".{key}", message, hint
    return None


def _result(value: Any, label: str) -> RewardResult:
    if isinstance(value, RewardResult):
        result = value
    elif isinstance(value, bool):
        result = RewardResult(1.0 if value else 0.0)
    elif isinstance(value, (int, float)):
        result = RewardResult(float(value))
    else:
        raise ConfigError(
            f"Reward {label!r} returned {type(value).__name__}, not a score",
            hint="return a float in [0, 1], a bool or a RewardResult",
        )
    return RewardResult(min(1.0, max(0.0, result.score)), result.detail)


async def score_episode(episode: Episode, registry: Registry) -> tuple[float, list[dict[str, Any]]]:
    """The episode's reward (weighted mean of its task's checks) and the breakdown, one entry per
    check: name, type, weight, score, detail. A check that raises scores 0 with the error as
    its detail (one broken check does not lose the episode), except for a setup error
    (:class:`ConfigError`: the run stops) and a server's failure (:class:`BackendError`, a
    judge that did not answer: the episode fails and is played again on the next run)."""
    checks = reward_registry(registry)
    if "world_state" not in episode.cache and any(
        checks.get(spec.type) is BUILTIN.get(spec.type) and spec.type in STATE_CHECKS
        for spec in episode.task.reward
    ):
        # the final state is read (or the actions replayed offline) once, on a worker thread: the
        # event loop keeps every other episode's requests going meanwhile
        episode.cache["world_state"] = await asyncio.to_thread(world_state, episode.session)
    breakdown: list[dict[str, Any]] = []
    total = weights = 0.0
    for spec in episode.task.reward:
        check = checks.get(spec.type)
        try:
            if check is None:
                raise ConfigError(f"unknown reward {spec.type!r}", hint="register it with register_rewards")
            value = check(episode, **spec.params)
            if inspect.isawaitable(value):
                value = await value
            result = _result(value, spec.label)
        except (ConfigError, BackendError):
            raise
        except Exception as exc:  # the episode keeps its other checks
            result = RewardResult(0.0, f"error: {type(exc).__name__}: {exc}")
        breakdown.append(
            {
                "name": spec.label,
                "type": spec.type,
                "weight": spec.weight,
                "score": round(result.score, 6),
                "detail": result.detail,
            }
        )
        total += spec.weight * result.score
        weights += spec.weight
    return (round(total / weights, 6) if weights else 0.0), breakdown


def score_sync(episode: Episode, registry: Registry) -> tuple[float, list[dict[str, Any]]]:
    """:func:`score_episode` from synchronous code (inside a running event loop too: then on a
    thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(score_episode(episode, registry))
    result: list[tuple[float, list[dict[str, Any]]]] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(score_episode(episode, registry))))
    thread.start()
    thread.join()
    return result[0]


__all__ = [
    "RewardCheck",
    "RewardResult",
    "reward_problem",
    "reward_registry",
    "score_episode",
    "score_sync",
]
