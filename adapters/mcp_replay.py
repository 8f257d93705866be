"""Serving a recording back: the answers a real server gave (``agentworld mcp record``), exact for
the calls recorded, the world (engine or model) for the rest.

``agentworld mcp serve --snapshot server.json --replay calls.jsonl`` answers a ``tools/call`` whose
tool and arguments were recorded with the recorded result (text, ``isError``,
``structuredContent``); identical calls get their recorded answers in recorded order, then the
world answers. A replayed call still happens in the world: the offline engines apply it (so a
later new call sees what it changed), a world model finds it in the session's history.

>>> replay = Replay.load("calls.jsonl")                     # doctest: +SKIP
>>> replay.take("read_graph", {})                           # doctest: +SKIP
Recorded(text='{...}', is_error=False, structured={...})
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentworld_plugins.errors import AgentWorldError, ConfigError
from agentworld_plugins.session import Trajectory

__all__ = ["Recorded", "Replay"]


@dataclass(frozen=True)
class Recorded:
    """One recorded answer."""

    text: str
    is_error: bool
    structured: Any


def _key(name: str, arguments: Any) -> tuple[str, str]:
    return name, json.dumps(arguments if arguments is not None else {}, sort_keys=True, ensure_ascii=False)


class Replay:
    """Recorded answers by call, each used once, in recorded order; thread-safe."""

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str], deque[Recorded]] = defaultdict(deque)
        self._lock = threading.Lock()
        self.recorded = 0

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """The mcp turns of a JSONL recording (``mcp record --output``, ``mcp serve --record``)."""
        try:
            trajectories = Trajectory.from_jsonl(path)
        except (OSError, AgentWorldError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"Cannot read the recording {path}: {exc}",
                hint="pass a file written by `agentworld mcp record`",
            ) from None
        replay = cls()
        for trajectory in trajectories:
            if trajectory.domain != "mcp":
                continue
            for turn in trajectory.turns:
                action = turn.action if isinstance(turn.action, dict) else None
                if action is None or not isinstance(action.get("tool_name"), str):
                    continue
                observation = turn.observation
                recorded = Recorded(
                    observation.text, observation.is_error, observation.metadata.get("structured_content")
                )
                replay._answers[_key(action["tool_name"], action.get("arguments"))].append(recorded)
                replay.recorded += 1
        if not replay.recorded:
            raise ConfigError(
                f"The recording {path} holds no MCP tool call", hint="record one with `agentworld mcp record`"
            )
        return replay

    def take(self, name: str, arguments: Any) -> Recorded | None:
        """The next recorded answer of this call, or None when none is left."""
        with self._lock:
            queue = self._answers.get(_key(name, arguments))
            return queue.popleft() if queue else None
