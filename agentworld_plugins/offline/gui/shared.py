"""What the offline GUI worlds share: the metadata keys, call outcomes and the all-or-nothing call runner."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

UNKNOWN_EFFECT = "offline_unknown_effect"

WEB_STATE_KEY = "web_world"
ANDROID_STATE_KEY = "android_world"
OS_STATE_KEY = "os_world"


class Unknown(Exception):
    """The offline world cannot tell what this call does; the message says why."""


class Failed(Exception):
    """The call fails as the real environment would report it; the message is that report."""


def run_calls(
    world: dict[str, Any], calls: Sequence[Any], apply: Callable[[dict[str, Any], Any], None]
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Apply ``calls`` in order, each on a copy that is kept only when the call succeeds.

    Returns the new world, the metadata (unknown effect, skipped calls) and the error message of
    the call that failed, if one did.
    """
    meta: dict[str, Any] = {UNKNOWN_EFFECT: False}
    error: str | None = None
    for position, (shown, call) in enumerate(calls):
        trial = copy.deepcopy(world)
        try:
            apply(trial, call)
        except Unknown as exc:
            meta.update({UNKNOWN_EFFECT: True, "offline_unknown_action": shown, "offline_reason": str(exc)})
        except Failed as exc:
            meta["offline_failed_action"] = shown
            error = str(exc)
        else:
            world = trial
            continue
        if position + 1 < len(calls):
            meta["offline_skipped_calls"] = len(calls) - position - 1
        break
    return world, meta, error


def initial_text(context: dict[str, Any], default: str) -> str:
    state = context.get("initial_state")
    return default if state is None else str(state)


def lookup(mapping: Any, key: str, *, fold: Callable[[str], str] = lambda s: s) -> str | None:
    """The text ``mapping`` (a user's ``pages`` / ``screens``) gives for ``key``, if any."""
    if not isinstance(mapping, dict):
        return None
    wanted = fold(key)
    for name, text in mapping.items():
        if isinstance(name, str) and fold(name) == wanted and text is not None:
            return str(text)
    return None
