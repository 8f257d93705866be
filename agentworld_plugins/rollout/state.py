"""The world's final state, as reward checks read it: files and the MCP ledger.

When the episode played on the offline world (or a chain holding it), its state is read through
the offline backend's public ``state(session)`` (``World.offline``). When it played on a world
model alone, the same actions are replayed into a fresh offline session with the same context,
through the public :meth:`Session.step`, so state checks mean the same thing on every backend:
"the state these actions lead to in the deterministic world".
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session


@dataclass
class WorldState:
    """Files (``{path: text}``, directories and links left out) and the MCP ledger
    (``{resource: [items]}``) of a finished episode."""

    files: dict[str, str] = field(default_factory=dict)
    ledger: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    source: str = "session"  # "session": read from the played world; "replay": rebuilt offline

    def sql(self, query: str) -> list[tuple[Any, ...]]:
        """Run a read-only SQL query over the ledger: one table per resource, one column per field
        (lists and objects as JSON text)."""
        import json

        db = sqlite3.connect(":memory:")
        try:
            for resource, items in self.ledger.items():
                columns = sorted({key for item in items for key in item})
                if not columns:
                    continue
                quoted = ", ".join(f'"{c}"' for c in columns)
                db.execute(f'CREATE TABLE "{resource}" ({quoted})')
                for item in items:
                    values = [
                        json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else item.get(c)
                        for c in columns
                        for v in [item.get(c)]
                    ]
                    db.execute(f'INSERT INTO "{resource}" VALUES ({", ".join("?" * len(columns))})', values)
            db.execute("PRAGMA query_only = ON")
            return [tuple(row) for row in db.execute(query).fetchall()]
        finally:
            db.close()


def _offline_state(session: Session) -> dict[str, Any] | None:
    """The offline world's state of a session (through the offline backend's public ``state``,
    which brings it up to date with the session's turns), or None when no offline world is in
    the session's backend."""
    offline = session.world.offline
    if offline is None:
        return None
    state = offline.state(session)  # type: ignore[attr-defined]
    return state if isinstance(state, dict) else None


def _from_offline(state: dict[str, Any], source: str) -> WorldState:
    files: dict[str, str] = {}
    vm = state.get("vm")
    fs = getattr(vm, "fs", None)
    if fs is not None:
        for path, content in fs.snapshot().items():
            if path.endswith("/") or not isinstance(content, (str, bytes)):
                continue
            files[path] = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    ledger: dict[str, list[dict[str, Any]]] = {}
    world = state.get("mcp_world")
    if isinstance(world, dict):
        for resource, bucket in (world.get("resources") or {}).items():
            items = bucket.get("items") if isinstance(bucket, dict) else None
            if isinstance(items, dict):
                ledger[str(resource)] = [dict(item) for item in items.values() if isinstance(item, dict)]
    return WorldState(files, ledger, source)


def world_state(session: Session) -> WorldState:
    """The final state of a session's world (see the module docstring)."""
    state = _offline_state(session)
    if state is not None:
        return _from_offline(state, "session")
    from ..session import World

    with World(backend="offline", plugin_manager=session.world.pm, perturbations=[]) as offline:
        replay = offline.session(session.domain.name, seed=session.seed, **dict(session.context))
        for turn in session.trajectory.turns:
            if turn.action is None or turn.observation.metadata.get("short_circuit"):
                continue  # never reached the world (an injected fault)
            replay.step(turn.action)
        state = _offline_state(replay)
    return _from_offline(state or {}, "replay")
