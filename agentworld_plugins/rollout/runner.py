"""Many episodes at once, nothing lost: ``rollout()`` / ``arollout()`` under ``rollout run``.

Each task is played ``group_size`` times (a GRPO group; episode ``k`` gets its own seeds) by
``concurrency`` asyncio workers, or by Ray actors with ``ray=``. Every episode is appended to the
output JSONL and flushed as soon as it is scored; rerunning the same command resumes (episodes
already written are skipped, failed ones are played again, a line torn by a kill is dropped), and
the finished file is put in task order, so an interrupted-and-resumed run ends with the same file
as an uninterrupted one (byte for byte with ``timings=False``; otherwise only timings differ).
The resumable file is the bench runner's (:mod:`agentworld_plugins.bench.runner`).

>>> summary = rollout("tasks.jsonl", "episodes.jsonl", RolloutSpec(agent="scripted:agent.yaml"))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bench.runner import JobResult, RunOptions, RunSummary, describe_error, is_transient, run_jobs
from ..errors import BackendError, BackendUnavailableError, ConfigError
from .agent import EpisodeInfo, Policy, act_retrying, make_policy
from .episode import Episode, play
from .ray import RayPool
from .rewards import score_episode
from .tasks import Task, load_tasks

if TYPE_CHECKING:
    from ..session import World

LABEL = "rollout"


@dataclass
class RolloutSpec:
    """Everything needed to build the agent and the world, in plain values (Ray ships it to its
    workers, which build their own). ``agent`` is ``openai`` or ``scripted:FILE``;
    ``world_options`` are :class:`World` keyword arguments plus ``perturb``, ``perturb_file`` and
    ``transport`` (``sdk`` or ``lean`` for the ``openai`` backend)."""

    agent: str = "openai"
    agent_options: dict[str, Any] = field(default_factory=dict)
    world_options: dict[str, Any] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    timings: bool = True
    max_retries: int = 3
    retry_backoff: float = 0.5
    request_timeout: float = 300.0

    def make_policy(self) -> Policy:
        return make_policy(self.agent, **self.agent_options)

    def make_world(self) -> World:
        """The world of ``world_options``: World keyword arguments, plus ``perturb`` (specs) and
        ``perturb_file`` (a YAML list) as ``--perturb``/``--perturb-file`` take them."""
        from ..perturbations.config import perturbations_from_options
        from ..plugins import get_plugin_manager
        from ..session import World

        options = {k: v for k, v in self.world_options.items() if v is not None}
        perturb = tuple(options.pop("perturb", ()) or ())
        perturb_file = options.pop("perturb_file", None)
        transport = options.pop("transport", None)
        perturbations = None
        if perturb or perturb_file:
            registry = get_plugin_manager().registry
            perturbations = perturbations_from_options(perturb, perturb_file, registry)
        world = World(perturbations=perturbations, **options)
        if transport and world.settings.backend in (None, "", "openai") and world.settings.base_urls:
            # the openai backend over the chosen transport (lean: a fraction of the SDK's CPU per
            # request, which decides throughput when many episodes run at once)
            from ..backends.openai import from_settings

            backend = from_settings(world.settings, "", transport=transport)
            world = World(backend=backend, settings=world.settings, perturbations=world.perturbations)
        return world


def episode_id(task: Task, sample: int) -> str:
    return f"{task.id}#{sample}"


def _items(tasks: Sequence[Task], group_size: int) -> list[dict[str, Any]]:
    # "task" holds the domain: the key the resumable results file (shared with bench) reads
    return [{"task": t.domain, "id": episode_id(t, k)} for t in tasks for k in range(group_size)]


def guard_counts(episode: Episode) -> dict[str, int] | None:
    """What a guarded world's consistency guard found over the episode's steps (checked,
    contradicted, contradictions, and each outcome), or None when no step was guarded."""
    from ..guard import guard_summary

    metadata = [obs.metadata for _, _, obs in episode.steps if obs is not None and "guard" in obs.metadata]
    return guard_summary(metadata) if metadata else None


def episode_line(
    episode: Episode, reward: float, breakdown: list[dict[str, Any]], *, agent: str, timings: bool
) -> dict[str, Any]:
    """The episode's JSONL line: chat messages with tool calls, loss mask, reward and breakdown,
    group, seeds and (unless ``timings`` is false) timings. Tools are JSON text (their schemas
    differ from task to task, which a columnar reader cannot hold in one column)."""
    task = episode.task
    line: dict[str, Any] = {
        "id": episode_id(task, episode.sample),
        "task": task.domain,
        "task_id": task.id,
        "group_id": task.id,
        "sample": episode.sample,
        "messages": episode.messages,
        "loss_mask": episode.loss_mask,
        "tools": json.dumps(episode.tools, ensure_ascii=False),
        "reward": reward,
        "reward_breakdown": breakdown,
        "final_answer": episode.final_answer,
        "finish": episode.finish,
        "num_turns": episode.turns,
        "world_steps": episode.world_steps,
        "world_errors": episode.world_errors,
        "seeds": episode.seeds,
        "agent": agent,
        "world": episode.session.backend.describe(),
        "guard": guard_counts(episode),
        "world_turns": world_turns(episode),
    }
    line["timings"] = {k: round(v, 6) for k, v in episode.timings.items()} if timings else None
    line[LABEL] = {"status": "ok", "error": ""}
    return line


# the columns an episode line has beyond its identity: a failed line carries each of them as null,
# so every line of every file has one schema (a columnar reader such as datasets needs that)
_EPISODE_COLUMNS = (
    "messages", "loss_mask", "tools", "reward", "reward_breakdown", "final_answer", "finish",
    "num_turns", "world_steps", "world_errors", "seeds", "agent", "world", "guard", "world_turns",
    "timings",
)  # fmt: skip


def world_turns(episode: Episode) -> list[dict[str, Any]]:
    """Each world step of the episode as ``agentworld report`` reads it: the turn, the action
    (JSON text), whether it failed, the perturbations injected (JSON text: their fields differ
    from kind to kind) and the warnings. One shape on every line, so a columnar reader takes it."""
    rows = []
    for number, (_, action, observation) in enumerate(episode.steps, 1):
        if observation is None:
            continue  # rejected before the world: no turn of the session
        metadata = observation.metadata
        rows.append(
            {
                "turn": int(metadata.get("turn") or number),
                "action": json.dumps(action, ensure_ascii=False, default=str),
                "is_error": bool(observation.is_error),
                "perturbations": json.dumps(metadata.get("perturbations") or [], ensure_ascii=False),
                "warnings": [str(w) for w in metadata.get("warnings") or []],
            }
        )
    return rows


def failed_line(task: Task, sample: int, error: str) -> dict[str, Any]:
    """The line of an episode that could not be played: the same columns as a played one (null
    where there is nothing to say), with the error in the ``rollout`` label."""
    line: dict[str, Any] = {
        "id": episode_id(task, sample),
        "task": task.domain,
        "task_id": task.id,
        "group_id": task.id,
        "sample": sample,
    }
    line.update(dict.fromkeys(_EPISODE_COLUMNS))
    line[LABEL] = {"status": "failed", "error": error}
    return line


class EpisodeRunner:
    """Plays and scores single episodes with one world and one policy (in the driver process, or
    inside a Ray actor)."""

    def __init__(self, spec: RolloutSpec, world: World | None = None, policy: Policy | None = None) -> None:
        self.spec = spec
        self.world = world if world is not None else spec.make_world()
        self.policy = policy if policy is not None else spec.make_policy()

    async def _act(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], info: EpisodeInfo
    ) -> dict[str, Any]:
        spec = self.spec
        outcome = await act_retrying(
            self.policy,
            messages,
            tools,
            info,
            max_retries=spec.max_retries,
            backoff=spec.retry_backoff,
            timeout=spec.request_timeout,
        )
        if not outcome.ok:
            error = BackendUnavailableError if outcome.unavailable else BackendError
            raise error(f"agent: {outcome.error}")
        assert outcome.value is not None
        return outcome.value

    async def run(self, task: Task, sample: int) -> JobResult:
        """One episode's result line (a failed line when the agent or the world gave up)."""
        started = time.perf_counter()
        try:
            episode = await play(task, sample, self.world, self._act)
            episode.judge = {k: v for k, v in self.spec.judge.items() if v}
            scored = time.perf_counter()
            reward, breakdown = await score_episode(episode, self.world.pm.registry)
            episode.timings["reward_s"] = time.perf_counter() - scored
            episode.timings["total_s"] = time.perf_counter() - started
        except ConfigError:
            raise  # a broken task or setup stops the run instead of failing every episode
        except Exception as exc:
            return JobResult(failed_line(task, sample, describe_error(exc)), False, is_transient(exc))
        line = episode_line(
            episode, reward, breakdown, agent=self.policy.describe(), timings=self.spec.timings
        )
        return JobResult(line, True)

    async def run_json(self, task: dict[str, Any], sample: int) -> tuple[dict[str, Any], bool, bool]:
        """:meth:`run` with plain values in and out (what a Ray actor is called with)."""
        result = await self.run(Task.model_validate(task), sample)
        return result.line, result.ok, result.unavailable

    async def aclose(self) -> None:
        await self.policy.aclose()


async def arollout(
    tasks: str | Path | Sequence[Task],
    output: str | Path,
    spec: RolloutSpec | None = None,
    *,
    group_size: int = 1,
    concurrency: int = 8,
    world: World | None = None,
    policy: Policy | None = None,
    ray: str | bool | None = None,
    progress: bool = False,
) -> RunSummary:
    """Play every task ``group_size`` times into ``output`` (resumable). ``world``/``policy``
    default to those ``spec`` describes; ``ray`` (an address, or True for a local instance)
    plays the episodes in Ray actors built from ``spec``."""
    spec = spec or RolloutSpec()
    if group_size < 1:
        raise ConfigError(f"group size {group_size} must be at least 1", hint="pass --group-size 1 or more")
    if spec.max_retries < 0:
        raise ConfigError(
            f"max retries {spec.max_retries} must be 0 or more", hint="pass --max-retries 0 or more"
        )
    task_list = load_tasks(tasks) if isinstance(tasks, (str, Path)) else list(tasks)
    by_id = {(t.id, k): t for t in task_list for k in range(group_size)}
    options = RunOptions(concurrency=concurrency, max_retries=0, progress=progress)
    # what would fail every episode the same way fails now, before any is played
    policy = policy if policy is not None else spec.make_policy()
    policy.check_tasks([t.id for t in task_list])
    _check_judges(task_list, spec.judge, world)

    pool = RayPool.start(ray, partial(EpisodeRunner, spec), "run_json", concurrency)
    if pool is not None:

        async def remote(item: dict[str, Any]) -> JobResult:
            task_id, _, sample = item["id"].rpartition("#")
            task = by_id[(task_id, int(sample))]
            return JobResult(*await pool.call(task.model_dump(mode="json"), int(sample)))

        # more in flight than the actors run at once: the rest wait at the actors, so Ray's round
        # trips overlap the episodes (the servers still see ``concurrency`` at a time)
        options = replace(options, concurrency=pool.capacity)
        try:
            return await run_jobs(_items(task_list, group_size), remote, output, options, label=LABEL)
        finally:
            pool.close()

    runner = EpisodeRunner(spec, world, policy)

    async def local(item: dict[str, Any]) -> JobResult:
        task_id, _, sample = item["id"].rpartition("#")
        return await runner.run(by_id[(task_id, int(sample))], int(sample))

    try:
        return await run_jobs(_items(task_list, group_size), local, output, options, label=LABEL)
    finally:
        await runner.aclose()
        if world is None:
            runner.world.close()


def _check_judges(tasks: Sequence[Task], defaults: dict[str, Any], world: World | None) -> None:
    """Every built-in ``judge`` reward has an endpoint (its own, ``--judge-base-url``/``--judge-model``
    or ``AGENTWORLD_JUDGE_*``)."""
    from ..plugins import get_plugin_manager
    from .rewards.builtin import BUILTIN
    from .rewards.judge import judge_endpoint

    registry = (world.pm if world is not None else get_plugin_manager()).registry
    if registry.rewards.get("judge", BUILTIN["judge"]) is not BUILTIN["judge"]:
        return  # a plugin's judge: its own business
    for task in tasks:
        for index, entry in enumerate(task.reward):
            if entry.type != "judge":
                continue
            params = entry.params
            try:
                judge_endpoint(defaults, params.get("base_url"), params.get("model"))
            except ConfigError as exc:
                raise ConfigError(f"task {task.id!r}: reward.{index}: {exc.message}", hint=exc.hint) from None


def rollout(*args: Any, **kwargs: Any) -> RunSummary:
    """The synchronous twin of :func:`arollout`."""
    return asyncio.run(arollout(*args, **kwargs))
