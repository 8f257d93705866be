"""The session store: where sessions live between processes (DESIGN.md: sessions are persistable).

One SQLite file, ``$AGENTWORLD_HOME/shell.db``, holds sessions by name (for the virtual terminal,
the ``AGENTWORLD_SESSION`` of the shim): its configuration (for a terminal, the machine it started
as), its turns in the order they happened across fronts (action, turn prompt, observation), JSON
front state (perturbation counters, the scrollback of a model-drawn screen) and, for the offline
world, a snapshot of its state (``OfflineBackend.snapshot``) so that a new process need not replay
every turn.

Safe for many processes at once: the file is in WAL mode with a busy timeout, every write is one
``BEGIN IMMEDIATE`` transaction that checks the session's version, and a read-modify-write of one
session (load, step, save) holds a per-session lock file (``fcntl.flock``), so two ``bash -c``
calls of one session never interleave while different sessions run in parallel.

>>> store = SessionStore.at_home("/tmp/aw-home")                    # doctest: +SKIP
>>> with store.lock("demo"):                                         # doctest: +SKIP
...     version = store.create("demo", {"machine": {}})
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.files import create_private

__all__ = [
    "DB_NAME",
    "SessionRecord",
    "SessionStore",
    "StoreConflictError",
    "StoreError",
    "StoreLockedError",
    "TurnRow",
]

DB_NAME = "shell.db"
SCHEMA_VERSION = 1
#: seconds a writer waits for another process before the store counts as locked
DEFAULT_TIMEOUT = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    config TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    snapshot BLOB,
    snapshot_seq INTEGER NOT NULL DEFAULT 0,
    snapshot_tag TEXT
);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    front TEXT NOT NULL,
    number INTEGER NOT NULL,
    action TEXT NOT NULL,
    prompt TEXT NOT NULL,
    observation TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class StoreError(AgentWorldError):
    """The session store cannot be used (missing folder, not writable, corrupt)."""


class StoreLockedError(StoreError):
    """Another process held the store or the session longer than the timeout."""


class StoreConflictError(StoreError):
    """A session changed under a writer that did not hold its lock."""


@dataclass
class TurnRow:
    """One stored turn: ``seq`` orders turns across fronts, ``number`` within its front."""

    seq: int
    front: str
    number: int
    action: Any
    prompt: str
    observation: dict[str, Any]


@dataclass
class SessionRecord:
    """Everything stored about one session."""

    id: str
    version: int
    config: dict[str, Any]
    meta: dict[str, Any]
    created: float
    updated: float
    snapshot: bytes | None = None
    snapshot_seq: int = 0
    snapshot_tag: str | None = None
    turns: list[TurnRow] = field(default_factory=list)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class SessionStore:
    """A SQLite file of shell sessions; safe to share between threads and processes."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = Path(path).expanduser()
        self.timeout = timeout
        self._local = threading.local()
        self._ready = False
        self._ready_lock = threading.Lock()

    @classmethod
    def at_home(cls, home: str | os.PathLike[str], **kwargs: Any) -> SessionStore:
        """The store of an ``AGENTWORLD_HOME`` folder."""
        return cls(Path(home).expanduser() / DB_NAME, **kwargs)

    def __repr__(self) -> str:
        return f"<SessionStore {self.path}>"

    # -- connections -----------------------------------------------------------------------------

    def _unavailable(self, exc: BaseException) -> StoreError:
        reason = getattr(exc, "strerror", None) or str(exc)
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return StoreLockedError(
                f"The session store {self.path} is locked by another process ({exc})",
                hint=f"wait for it to finish, or raise the timeout ({self.timeout:g} s)",
            )
        return StoreError(
            f"Cannot open the session store {self.path} ({reason})",
            hint="set AGENTWORLD_HOME to a writable folder",
        )

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            create_private(self.path)  # commands, outputs and typed secrets: the owner's only
            conn = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA synchronous = NORMAL")
            with self._ready_lock:
                if not self._ready:
                    conn.execute("PRAGMA journal_mode = WAL").fetchone()
                    conn.executescript(_SCHEMA)
                    conn.execute(
                        "INSERT OR IGNORE INTO store_info (key, value) VALUES ('schema', ?)",
                        (str(SCHEMA_VERSION),),
                    )
                    self._ready = True
        except (OSError, sqlite3.Error) as exc:
            raise self._unavailable(exc) from None
        self._local.conn = conn
        return conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from None
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise self._unavailable(exc) from None

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self._conn().execute(sql, args).fetchall())
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from None

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- the per-session lock --------------------------------------------------------------------

    def lock_path(self, session_id: str) -> Path:
        digest = hashlib.blake2b(session_id.encode(), digest_size=10).hexdigest()
        return self.path.parent / "locks" / f"{digest}.lock"

    @contextlib.contextmanager
    def lock(self, session_id: str, timeout: float | None = None) -> Iterator[None]:
        """Hold session ``session_id`` against other processes (a no-op where ``fcntl`` is missing)."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: SQLite transactions only
            yield
            return
        path = self.lock_path(session_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise self._unavailable(exc) from None
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        try:
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise StoreLockedError(
                            f"Session {session_id!r} in {self.path} is busy in another process",
                            hint="wait for its command to finish, or use another AGENTWORLD_SESSION",
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    # -- sessions --------------------------------------------------------------------------------

    def version(self, session_id: str) -> int | None:
        """The session's version (bumped by every write), None when it does not exist."""
        rows = self._read("SELECT version FROM sessions WHERE id = ?", (session_id,))
        return int(rows[0][0]) if rows else None

    def create(
        self, session_id: str, config: dict[str, Any], meta: dict[str, Any] | None = None, *, version: int = 0
    ) -> int:
        """Create the session unless it exists (at ``version``: a session made again after a
        reset continues its old numbering, so no process mistakes it for the one it knew);
        return its version."""
        now = time.time()
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, created, updated, version, config, meta) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, now, now, int(version), _json(config), _json(meta or {})),
            )
            row = conn.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return int(row[0])

    def load(self, session_id: str, *, with_turns: bool = True) -> SessionRecord | None:
        rows = self._read(
            "SELECT version, config, meta, created, updated, snapshot, snapshot_seq, snapshot_tag "
            "FROM sessions WHERE id = ?",
            (session_id,),
        )
        if not rows:
            return None
        version, config, meta, created, updated, snapshot, snapshot_seq, tag = rows[0]
        record = SessionRecord(
            session_id,
            int(version),
            json.loads(config),
            json.loads(meta),
            float(created),
            float(updated),
            bytes(snapshot) if snapshot is not None else None,
            int(snapshot_seq),
            tag,
        )
        if with_turns:
            record.turns = self.turns(session_id)
        return record

    def turns(
        self,
        session_id: str,
        after_seq: int = 0,
        *,
        fronts: list[str] | None = None,
        upto: int | None = None,
    ) -> list[TurnRow]:
        """The session's turns after ``after_seq`` (and up to ``upto``), of ``fronts`` only when
        given, in order."""
        where = "session_id = ? AND seq > ?"
        args: list[Any] = [session_id, after_seq]
        if upto is not None:
            where += " AND seq <= ?"
            args.append(upto)
        if fronts is not None:
            where += f" AND front IN ({', '.join('?' * len(fronts))})"
            args.extend(fronts)
        rows = self._read(
            f"SELECT seq, front, number, action, prompt, observation FROM turns WHERE {where} ORDER BY seq",
            tuple(args),
        )
        return [
            TurnRow(int(seq), front, int(number), json.loads(action), prompt, json.loads(obs))
            for seq, front, number, action, prompt, obs in rows
        ]

    def last_seq(self, session_id: str) -> int:
        """The number of the session's last turn (0 before the first)."""
        rows = self._read("SELECT MAX(seq) FROM turns WHERE session_id = ?", (session_id,))
        return int(rows[0][0] or 0) if rows else 0

    def save(
        self,
        session_id: str,
        expected_version: int,
        turns: list[TurnRow],
        *,
        meta: dict[str, Any] | None = None,
        snapshot: bytes | None = None,
        snapshot_seq: int | None = None,
        snapshot_tag: str | None = None,
    ) -> int:
        """Append ``turns`` (and replace meta / snapshot when given) in one transaction.

        Fails with :class:`StoreConflictError` when the session's version is no longer
        ``expected_version``; returns the new version.
        """
        now = time.time()
        with self._write() as conn:
            row = conn.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None or int(row[0]) != expected_version:
                raise StoreConflictError(
                    f"Session {session_id!r} changed in another process while this one used it "
                    f"(version {row[0] if row else 'gone'}, expected {expected_version})",
                    hint="run the command again; it will continue from the stored session",
                )
            conn.executemany(
                "INSERT INTO turns (session_id, seq, front, number, action, prompt, observation, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session_id,
                        t.seq,
                        t.front,
                        t.number,
                        _json(t.action),
                        t.prompt,
                        _json(t.observation),
                        now,
                    )
                    for t in turns
                ],
            )
            sets = ["version = version + 1", "updated = ?"]
            args: list[Any] = [now]
            if meta is not None:
                sets.append("meta = ?")
                args.append(_json(meta))
            if snapshot is not None:
                sets += ["snapshot = ?", "snapshot_seq = ?", "snapshot_tag = ?"]
                args += [sqlite3.Binary(snapshot), int(snapshot_seq or 0), snapshot_tag]
            conn.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*args, session_id))
        return expected_version + 1

    def sessions(self) -> list[dict[str, Any]]:
        """One summary per session, most recently used first."""
        rows = self._read(
            "SELECT s.id, s.created, s.updated, s.version, s.config, "
            "(SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id) "
            "FROM sessions s ORDER BY s.updated DESC"
        )
        out = []
        for sid, created, updated, version, config, count in rows:
            machine = json.loads(config).get("machine") or {}
            out.append(
                {
                    "id": sid,
                    "turns": int(count),
                    "version": int(version),
                    "created": float(created),
                    "updated": float(updated),
                    "machine": f"{machine.get('user', 'root')}@{machine.get('hostname', 'agentworld')}"
                    f":{machine.get('cwd', '/app')}",
                }
            )
        return out

    def delete(self, session_id: str) -> bool:
        """Forget a session; True when it existed."""
        with self._write() as conn:
            conn.execute("DELETE FROM turns WHERE session_id = ?", (session_id,))
            gone = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount
        return bool(gone)
