"""The world's final state, as reward checks read it: files and the MCP ledger.

When the episode played on the offline world (or a chain holding it), its state is read through
the offline backend's public ``state(session)`` (``World.offline``). When it played on a world
model alone, the same actions are replayed into a fresh offline session with the same context,
through the public :meth:`Session.step`, so state checks mean the same thing on every backend:
"the state these actions lead to in the deterministic world".
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..worlds.view import state_contents

if TYPE_CHECKING:
    from ..plugins import PluginManager, Registry
    from ..session import Session, World


@dataclass
class WorldState:
    """Files (``{path: text}``, directories and links left out) and the MCP ledger
    (``{resource: [items]}``) of a finished episode; ``columns`` are the fields of every resource
    the world's tools act on (the ledger lists those with no item too, as ``[]``), and
    ``database`` the MCP world's own SQL database (its ``sql`` tools'), when it has one."""

    files: dict[str, str] = field(default_factory=dict)
    ledger: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    source: str = "session"  # "session": read from the played world; "replay": rebuilt offline
    columns: dict[str, list[str]] = field(default_factory=dict)
    database: bytes | str | None = None  # SQLite's serialized bytes (a dump script on Python 3.10)

    def sql(self, query: str) -> list[tuple[Any, ...]]:
        """Run a read-only SQL query over the world's SQL database and the ledger: one table per
        resource (also under its plural: ``issue`` and ``issues``), one column per field (lists and
        objects as JSON text). A table the world does not know raises ``sqlite3.OperationalError``
        naming the tables it has."""
        db = self._database()
        try:
            db.execute("PRAGMA query_only = ON")
            try:
                return [tuple(row) for row in db.execute(query).fetchall()]
            except sqlite3.OperationalError as exc:
                if not str(exc).startswith("no such table"):
                    raise
                tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master ORDER BY name")]
                known = ", ".join(tables) or "none"
                raise sqlite3.OperationalError(f"{exc} (the world's tables: {known})") from None
        finally:
            db.close()

    def _database(self) -> sqlite3.Connection:
        db = sqlite3.connect(":memory:")
        if isinstance(self.database, bytes):  # serialize()'s bytes: Python 3.11+, which has deserialize()
            db.deserialize(self.database)  # type: ignore[attr-defined,unused-ignore]
        elif isinstance(self.database, str):
            db.executescript(self.database)
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        for resource in sorted({*self.ledger, *self.columns}):
            if resource in names:
                continue  # the database's own table of that name wins
            names.add(resource)
            items = self.ledger.get(resource) or []
            columns = sorted({*self.columns.get(resource, ()), *(key for item in items for key in item)})
            _create_table(db, resource, columns or ["id"], items)
        for resource in sorted({*self.ledger, *self.columns}):
            plural = _plural(resource)
            if plural not in names:
                names.add(plural)
                db.execute(f"CREATE VIEW {_quote(plural)} AS SELECT * FROM {_quote(resource)}")
        return db


def _plural(noun: str) -> str:
    """English's regular plural (resources are named by the tools' singular noun)."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")


def _create_table(db: sqlite3.Connection, name: str, columns: list[str], items: list[dict[str, Any]]) -> None:
    columns = list({c.lower(): c for c in reversed(columns)}.values())[::-1]  # SQLite ignores case
    quoted = ", ".join(_quote(c) for c in columns)
    db.execute(f"CREATE TABLE {_quote(name)} ({quoted})")
    for item in items:
        values = [
            json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value
            for value in (item.get(c) for c in columns)
        ]
        db.execute(f"INSERT INTO {_quote(name)} VALUES ({', '.join('?' * len(columns))})", values)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


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
    files, ledger, database = state_contents({"session": state})
    return WorldState(files, ledger, source, database=database)


def known_tables(
    registry: Registry, domain: str, context: dict[str, Any]
) -> tuple[dict[str, list[str]], bool]:
    """The tables a ``domain`` world's state has from the start with ``context`` (``{table:
    [columns]}``, from its offline world's ``register_offline_worlds(kind="tables")``), and whether
    its steps can make others."""
    tables = registry.offline_tables.get(domain)
    if tables is None:
        return {}, False
    found, more = tables(context)
    return dict(found), bool(more)


def unknown_table(registry: Registry, domain: str, context: dict[str, Any], query: str) -> str | None:
    """The error of ``query`` (an ``sql`` reward's) when it names a table a ``domain`` world with
    ``context`` never has, whatever the agent does; None when it names none, or when the world's
    steps can make tables of any name (the mcp world's SQL tools)."""
    tables, more = known_tables(registry, domain, context)
    if more:
        return None
    try:
        WorldState(columns=tables).sql(f"EXPLAIN {query}")
    except sqlite3.OperationalError as exc:
        if str(exc).startswith("no such table"):
            return str(exc)
    except sqlite3.Error:
        pass  # the query's other faults are checked with the reward's parameters
    return None


def _with_known(state: WorldState, session: Session) -> WorldState:
    state.columns = known_tables(session.world.pm.registry, session.domain.name, dict(session.context))[0]
    for resource in state.columns:
        state.ledger.setdefault(resource, [])
    return state


def world_state(session: Session) -> WorldState:
    """The final state of a session's world (see the module docstring)."""
    state = _offline_state(session)
    if state is not None:
        return _with_known(_from_offline(state, "session"), session)
    replay = _replay_world(session.world.pm).session(
        session.domain.name, seed=session.seed, **dict(session.context)
    )
    for turn in session.trajectory.turns:
        if turn.action is None or turn.observation.metadata.get("short_circuit"):
            continue  # never reached the world (an injected fault)
        replay.step(turn.action)
    return _with_known(_from_offline(_offline_state(replay) or {}, "replay"), session)


#: one offline world per plugin manager replays every episode of a run (a World's settings cost
#: milliseconds to build; a replay's state lives in its own session, so they share nothing else)
_replay_worlds: dict[int, tuple[PluginManager, World]] = {}
_replay_lock = threading.Lock()


def _replay_world(pm: PluginManager) -> World:
    with _replay_lock:
        found = _replay_worlds.get(id(pm))
        if found is None or found[0] is not pm:
            from ..session import World

            if len(_replay_worlds) >= 8:  # plugin managers come and go in tests, not in a run
                for _, old in _replay_worlds.values():
                    old.close()
                _replay_worlds.clear()
            found = _replay_worlds[id(pm)] = (
                pm,
                World(backend="offline", plugin_manager=pm, perturbations=[]),
            )
        return found[1]
