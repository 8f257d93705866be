"""Reading a stored world after the agent ran: its files, SQL tables, ledgers and calls.

>>> from agentworld_plugins.worlds import load_world          # doctest: +SKIP
>>> view = load_world("demo")                                 # doctest: +SKIP
>>> view.files()["/app/notes.txt"]                            # doctest: +SKIP
'hello\\n'
>>> [c.tool for c in view.calls]                              # doctest: +SKIP
['write_file', 'run_shell_command']
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..store import SessionStore
from .shared import GUARD_KEY, MACHINE_KEY, STATE_FORMAT, check_world_name

__all__ = [
    "WorldCall",
    "WorldView",
    "list_worlds",
    "load_world",
    "remove_world",
    "reset_world",
    "state_contents",
    "world_store",
]

#: characters of a file shown by ``world show`` (``export`` writes them whole)
SHOW_FILE_CHARS = 2000


def world_store(home: str | os.PathLike[str] | None = None) -> SessionStore:
    """The world store of ``home`` (default: the settings' ``AGENTWORLD_HOME``)."""
    if home is None:
        from ..config import load_settings

        home = load_settings().home
    return SessionStore.at_home(home)


@dataclass
class WorldCall:
    """One call a front made on the world, in the order they happened across fronts."""

    seq: int
    front: str
    domain: str
    number: int
    action: Any
    text: str
    is_error: bool
    #: the observation's metadata (backend, perturbations, what a consistency guard found, ...)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def tool(self) -> str | None:
        """The tool called (tool-call domains), else None."""
        if isinstance(self.action, dict):
            name = self.action.get("tool_name") or self.action.get("name")
            return str(name) if name is not None else None
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "front": self.front,
            "domain": self.domain,
            "turn": self.number,
            "action": self.action,
            "observation": self.text,
            "is_error": self.is_error,
        }


def _text(content: Any) -> str:
    return content.decode("utf-8", "replace") if isinstance(content, bytes) else str(content)


def state_contents(states: dict[str, Any]) -> tuple[dict[str, str], dict[str, list[dict[str, Any]]], Any]:
    """Files (``{path: text}``, directories left out), the MCP ledger (``{resource: [items]}``)
    and the MCP SQL database (its dump) of offline states: a world's (its fronts' states and
    the shared machine) or one session's."""
    files: dict[str, str] = {}
    ledger: dict[str, list[dict[str, Any]]] = {}
    database: Any = None
    seen: set[int] = set()
    for state in states.values():
        if isinstance(state, dict) and "applied" in state and isinstance(state.get("state"), dict):
            state = state["state"]  # a session's offline record: its world state, turns applied
        if not isinstance(state, dict):
            continue
        for holder in (state.get("vm"), state, (state.get("mcp_world") or {}).get("files")):
            fs = holder.get("fs") if isinstance(holder, dict) else getattr(holder, "fs", None)
            if fs is None or id(fs) in seen or not hasattr(fs, "snapshot"):
                continue
            seen.add(id(fs))
            for path, content in fs.snapshot().items():
                if not path.endswith("/") and isinstance(content, (str, bytes)):
                    files.setdefault(path, _text(content))
        world = state.get("mcp_world")
        if not isinstance(world, dict):
            continue
        for resource, bucket in (world.get("resources") or {}).items():
            items = bucket.get("items") if isinstance(bucket, dict) else None
            if isinstance(items, dict):
                rows = [dict(item) for item in items.values() if isinstance(item, dict)]
                kept = ledger.setdefault(str(resource), [])
                kept.extend(rows)
                for alias in bucket.get("aliases") or ():  # a noun filed under a shared one
                    ledger.setdefault(str(alias), kept)
        # the sql family's database, or a known server's (mcp-server-sqlite's engine holds one)
        engine = world.get("sql") or getattr(world.get("server:sqlite"), "db", None)
        if engine is not None and database is None:
            database = engine.dump()
    return files, ledger, database


def _base_files(states: dict[str, Any]) -> dict[str, str]:
    """The base system's files of the filesystem class the world's machine uses (empty when it
    has no base system)."""
    machine = states.get(MACHINE_KEY)
    fs = machine.get("fs") if isinstance(machine, dict) else None
    base = getattr(type(fs), "base", None) if fs is not None else None
    if base is None:
        return {}
    return {p: _text(c) for p, c in base().snapshot().items() if isinstance(c, (str, bytes))}


def _tables(database: Any) -> dict[str, dict[str, Any]]:
    """The tables of an MCP SQL database dump: ``{table: {"columns": [...], "rows": [[...]]}}``."""
    if database is None:
        return {}
    db = sqlite3.connect(":memory:")
    try:
        if isinstance(database, bytes):
            db.deserialize(database)  # type: ignore[attr-defined,unused-ignore]
        else:
            db.executescript(str(database))
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            cursor = db.execute(f'SELECT * FROM "{name.replace(chr(34), chr(34) * 2)}"')
            columns = [d[0] for d in cursor.description or ()]
            out[name] = {"columns": columns, "rows": [list(row) for row in cursor.fetchall()]}
        return out
    finally:
        db.close()


@dataclass
class WorldView:
    """A stored world as it is now (read once; load again to see later changes)."""

    name: str
    created: float
    updated: float
    version: int
    machine: dict[str, Any]
    fronts: dict[str, str]
    calls: list[WorldCall] = field(default_factory=list)
    #: the offline states (None: the world ran on a model only, or another version wrote them)
    states: dict[str, Any] | None = None
    system_prompts: dict[str, str] = field(default_factory=dict)

    def files(self, *, changed: bool = False) -> dict[str, str]:
        """Every file of the world's filesystem, ``{path: text}``; with ``changed`` only those
        not in the base system as it is (``/etc``, ``/usr/bin``, ...): what the machine's seed and
        the agent made."""
        files = state_contents(self.states or {})[0]
        if not changed:
            return files
        base = _base_files(self.states or {})
        return {p: c for p, c in files.items() if base.get(p) != c}

    def ledger(self) -> dict[str, list[dict[str, Any]]]:
        """The records the MCP tools created, by resource."""
        return state_contents(self.states or {})[1]

    def tables(self) -> dict[str, dict[str, Any]]:
        """The MCP SQL database's tables: ``{table: {"columns": [...], "rows": [...]}}``."""
        return _tables(state_contents(self.states or {})[2])

    def history(self, front: str) -> list[WorldCall]:
        """One front's calls, in order."""
        return [c for c in self.calls if c.front == front]

    def to_json(self, *, file_chars: int | None = None) -> dict[str, Any]:
        """Everything, as JSON: files (cut to ``file_chars`` each when given), tables, ledger,
        each front's domain and calls, the calls in order."""
        files = self.files(changed=True)
        if file_chars is not None:
            files = {p: c if len(c) <= file_chars else c[:file_chars] + "..." for p, c in files.items()}
        return {
            "name": self.name,
            "created": _iso(self.created),
            "updated": _iso(self.updated),
            "version": self.version,
            "machine": self.machine,
            "fronts": {f: {"domain": d, "calls": len(self.history(f))} for f, d in self.fronts.items()},
            "state": "stored" if self.states is not None else "none (model backend, or another version)",
            "files": files,  # the base system's own files left out
            "tables": self.tables(),
            "ledger": self.ledger(),
            "calls": [c.to_json() for c in self.calls],
        }

    def render(self, *, file_chars: int = SHOW_FILE_CHARS, calls: int = 50) -> str:
        """A text report: fronts, the file tree with contents, tables, ledger, the last calls."""
        lines = [f"world {self.name}  (version {self.version}, updated {_iso(self.updated)})"]
        lines.append("fronts: " + (", ".join(f"{f} ({d})" for f, d in self.fronts.items()) or "none yet"))
        files = self.files(changed=True)
        lines.append(f"files ({len(files)} beyond the base system):")
        for path, content in sorted(files.items()):
            lines.append(f"  {path}  ({len(content)} chars)")
            shown = content if len(content) <= file_chars else content[:file_chars] + "..."
            lines.extend(f"    | {line}" for line in shown.splitlines())
        for table, data in self.tables().items():
            lines.append(f"table {table} ({len(data['rows'])} rows): {', '.join(data['columns'])}")
            lines.extend(f"    {json.dumps(row, default=str)}" for row in data["rows"][:20])
        for resource, items in self.ledger().items():
            lines.append(f"ledger {resource} ({len(items)}):")
            lines.extend(f"    {json.dumps(item, default=str, sort_keys=True)}" for item in items[:20])
        lines.append(f"calls ({len(self.calls)}):")
        for call in self.calls[-calls:]:
            action = json.dumps(call.action, default=str)
            first = call.text.splitlines()[0] if call.text else ""
            mark = " [error]" if call.is_error else ""
            lines.append(f"  #{call.seq} {call.front}: {action[:120]} -> {first[:120]}{mark}")
        return "\n".join(lines)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _states(blob: bytes | None, tag: str | None) -> dict[str, Any] | None:
    from ..backends.offline import snapshot_tag

    if blob is None or tag != f"{snapshot_tag()}|w{STATE_FORMAT}":
        return None
    try:
        states = pickle.loads(blob)
    except Exception:
        return None
    if not isinstance(states, dict):
        return None
    states.pop(GUARD_KEY, None)  # the consistency guard's facts: not the world's own state
    machine = states.pop(MACHINE_KEY, None)
    if machine:
        states = {MACHINE_KEY: machine, **states}
    return states


def load_world(name: str, home: str | os.PathLike[str] | None = None) -> WorldView:
    """The stored world ``name`` of ``home``; a :class:`ConfigError` naming the worlds there
    when there is none of that name."""
    store = world_store(home)
    try:
        record = store.load(check_world_name(name))
    finally:
        store.close()
    if record is None:
        known = [w["name"] for w in list_worlds(home)]
        raise ConfigError(
            f"There is no world {name!r} in {Path(store.path).parent}",
            hint=f"worlds there: {', '.join(known)}"
            if known
            else "a front makes it: e.g. agentworld mcp serve --world NAME",
        )
    fronts_meta = record.meta.get("fronts") or {}
    fronts = {str(f): str(d.get("domain")) for f, d in fronts_meta.items()}
    if not fronts and record.meta.get("domains"):  # written before worlds had fronts of any kind
        fronts = {str(f): str(d) for f, d in record.meta["domains"].items()}
    calls = [
        WorldCall(
            row.seq,
            row.front,
            fronts.get(row.front, "?"),
            row.number,
            row.action,
            str(row.observation.get("text", "")),
            bool(row.observation.get("is_error")),
            dict(row.observation.get("metadata") or {}),
        )
        for row in record.turns
    ]
    return WorldView(
        record.id,
        record.created,
        record.updated,
        record.version,
        dict(record.config.get("machine") or {}),
        fronts,
        calls,
        _states(record.snapshot, record.snapshot_tag),
        {str(f): str(d.get("system_prompt") or "") for f, d in fronts_meta.items()},
    )


def list_worlds(home: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """A summary of every stored world of ``home``, most recently used first."""
    store = world_store(home)
    try:
        rows = store.sessions()
    finally:
        store.close()
    return [
        {
            "name": row["id"],
            "calls": row["turns"],
            "version": row["version"],
            "created": _iso(row["created"]),
            "updated": _iso(row["updated"]),
            "machine": row["machine"],
        }
        for row in rows
    ]


def remove_world(name: str, home: str | os.PathLike[str] | None = None) -> bool:
    """Delete world ``name`` (state, calls, machine); True when it existed."""
    store = world_store(home)
    try:
        with store.lock(check_world_name(name)):
            return store.delete(name)
    finally:
        store.close()


def reset_world(name: str, home: str | os.PathLike[str] | None = None) -> bool:
    """Empty world ``name``: its state and calls are forgotten, its machine kept, so the next
    front to attach finds it as it started. True when it existed."""
    store = world_store(home)
    try:
        with store.lock(check_world_name(name)):
            record = store.load(name, with_turns=False)
            if record is None:
                return False
            store.delete(name)
            store.create(name, record.config, {}, version=record.version + 1)
            return True
    finally:
        store.close()
