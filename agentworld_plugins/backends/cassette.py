"""Cassettes: record what a backend answers in a SQLite file and replay it later, VCR style.

>>> from agentworld_plugins.backends.fake import FakeBackend              # doctest: +SKIP
>>> recorder = CassetteBackend("run.db", FakeBackend(), mode="new_episodes")  # doctest: +SKIP
>>> replayer = CassetteBackend("run.db", None, mode="none")               # doctest: +SKIP

A request is keyed by the sha256 of the canonical JSON (sorted keys, no whitespace) of
``{model, messages, sampling}``, so the order of keys in messages or sampling dicts does not
matter. The Nth identical request seen by one backend instance replays the Nth recorded answer.

Record modes (``?mode=`` in ``cassette:PATH?mode=none``, else ``AGENTWORLD_CASSETTE_MODE``, else
``once``):

- ``none``: replay only; a request with no recorded answer raises :class:`BackendError`.
- ``once``: record when the file was new or empty when opened, else behave like ``none``.
- ``new_episodes``: replay what is recorded, record what is not.
- ``all``: always ask the wrapped backend and record its answer anew.

What is stored: the request (model, messages, sampling) and the response (text, reasoning,
usage, model, finish_reason, metadata). API keys never reach the cassette: requests hold no
credentials, and in the stored copy of a request, strings that look like secrets (``sk-...``,
``Bearer ...``, ``hf_...``, ``ghp_...``) and the values of keys named like ``api_key`` or
``authorization`` are replaced by ``***REDACTED***``. The key is computed from the request before
redaction, so matching is unaffected. Responses are redacted the same way when they are recorded,
and the answer a recording run hands back is that redacted answer too: a model that wrote a secret
(``"password": "hunter2"``, a configured API key) gives ``***REDACTED***`` in its place, live and
on replay alike, so a replayed run sees exactly what the recorded one saw.

The file is shared safely between threads (one connection per thread) and processes (WAL
journal, a busy timeout, writes in ``BEGIN IMMEDIATE`` transactions); a write interrupted by a
kill loses at most that entry.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from ..errors import BackendError, ConfigError
from ..files import create_private
from ..redaction import REDACTED, redact, redact_text  # noqa: F401 (REDACTED: part of this module's API)
from .base import Backend, Completion, Sampling

MODES = ("none", "once", "new_episodes", "all")
MODE_ENV = "AGENTWORLD_CASSETTE_MODE"
DEFAULT_MODE = "once"
BUSY_TIMEOUT_MS = 30_000

_TABLE = "cassette"
_COLUMNS = ("key", "seq", "model", "request", "response", "created", "meta")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {_TABLE} (
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    model TEXT,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL,
    meta TEXT,
    PRIMARY KEY (key, seq)
)
"""
_SQLITE_HEADER = b"SQLite format 3\x00"

# -- keys and redaction ------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal data gives equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _sampling_fields(sampling: Sampling | dict[str, Any] | None) -> dict[str, Any]:
    if sampling is None:
        return {}
    if isinstance(sampling, dict):
        sampling = Sampling.model_validate(sampling)
    return sampling.model_dump(mode="json", exclude_none=True)


def request_payload(
    model: str | None, messages: list[dict[str, Any]], sampling: Sampling | dict[str, Any] | None
) -> dict[str, Any]:
    """What a cassette key is computed from (and, redacted, what is stored)."""
    return {"model": model, "messages": list(messages), "sampling": _sampling_fields(sampling)}


def request_key(
    model: str | None, messages: list[dict[str, Any]], sampling: Sampling | dict[str, Any] | None
) -> str:
    """The cassette key of a request: sha256 of its canonical JSON, in hex."""
    text = canonical_json(request_payload(model, messages, sampling))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def turn_label(messages: list[dict[str, Any]]) -> str:
    """The first line of the last user message (``### Turn 3``), for messages and listings."""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # OpenAI content parts
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            for line in str(content or "").splitlines():
                if line.strip():
                    return line.strip()[:120]
            return "(empty user message)"
    return "(no user message)"


# -- spec strings and paths --------------------------------------------------------------------


def parse_cassette_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"run.db?mode=none"`` -> ``("run.db", {"mode": "none"})``."""
    path, sep, query = spec.strip().partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if sep else {}
    unknown = sorted(set(options) - {"mode"})
    if unknown:
        raise ConfigError(
            f"Unknown cassette option(s) {', '.join(unknown)} in {spec!r}",
            hint="the only option is mode, e.g. cassette:run.db?mode=none",
        )
    return path.strip(), options


def resolve_mode(mode: str | None) -> str:
    """``mode``, else ``AGENTWORLD_CASSETTE_MODE``, else ``once``; checked against :data:`MODES`."""
    chosen = (mode or os.environ.get(MODE_ENV) or DEFAULT_MODE).strip().lower()
    if chosen not in MODES:
        raise ConfigError(
            f"Unknown cassette mode {chosen!r}",
            hint=f"use one of {', '.join(MODES)} (?mode= in the backend string or {MODE_ENV})",
        )
    return chosen


def default_cassette_dir(home: Path) -> Path:
    """Where cassettes named without a path are kept: ``<home>/cassettes``."""
    return Path(home).expanduser() / "cassettes"


# -- the database --------------------------------------------------------------------------------


def _not_a_cassette(path: Path, why: str) -> BackendError:
    return BackendError(
        f"{path} is not a cassette (SQLite) file: {why}",
        hint="delete it or record anew to another path",
    )


def _connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with WAL and a busy timeout."""
    try:
        create_private(path)  # prompts and answers: readable by the owner only
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise BackendError(
            f"Cannot open cassette {path}: {exc}", hint="check the path and permissions"
        ) from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _enable_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _not_a_cassette(path, str(exc)) from None
    return conn


def _enable_wal(conn: sqlite3.Connection) -> None:
    # Switching to WAL takes a lock that the busy handler does not always wait for; retry briefly.
    for attempt in range(200):
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            time.sleep(min(0.005 * (attempt + 1), 0.1))
    conn.execute("PRAGMA journal_mode = WAL").fetchone()


def _check_header(path: Path) -> None:
    """Fail early and clearly on a file that is not SQLite at all."""
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise BackendError(
            f"Cannot read cassette {path}: {exc}", hint="check the path and permissions"
        ) from None
    if head and head != _SQLITE_HEADER:
        raise _not_a_cassette(path, "it does not start with the SQLite header")


def _ensure_schema(conn: sqlite3.Connection, path: Path) -> None:
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if _TABLE in tables:
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({_TABLE})")}
            missing = [c for c in _COLUMNS if c not in columns]
            if missing:
                raise _not_a_cassette(path, f"its {_TABLE!r} table lacks {', '.join(missing)}")
            return
        if tables:
            raise _not_a_cassette(path, f"it holds other tables ({', '.join(sorted(tables))})")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(_SCHEMA)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as exc:
        raise _not_a_cassette(path, str(exc)) from None


def _open_existing(path: str | Path) -> tuple[Path, sqlite3.Connection]:
    """A connection to an existing cassette (for listing and deleting); never creates a file."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise BackendError(
            f"No cassette at {path}", hint="check the path; `agentworld cassette ls` lists cassettes"
        )
    _check_header(path)
    conn = _connect(path)
    try:
        _ensure_schema(conn, path)
    except BaseException:
        conn.close()
        raise
    return path, conn


def _completion_to_json(completion: Completion) -> dict[str, Any]:
    return {
        "text": completion.text,
        "reasoning": completion.reasoning,
        "usage": completion.usage,
        "model": completion.model,
        "finish_reason": completion.finish_reason,
        "metadata": json.loads(json.dumps(completion.metadata or {}, default=str)),
    }


def _completion_from_json(data: dict[str, Any], status: str) -> Completion:
    return Completion(
        text=data.get("text") or "",
        reasoning=data.get("reasoning"),
        usage=data.get("usage"),
        model=data.get("model"),
        finish_reason=data.get("finish_reason"),
        metadata={**(data.get("metadata") or {}), "cassette": status},
    )


def _recorded(completion: Completion, stored: dict[str, Any]) -> Completion:
    """The answer a recording run returns: what was stored (redacted), so replay gives the same."""
    metadata = redact(completion.metadata or {})[0]
    return dataclasses.replace(
        completion,
        text=stored.get("text") or "",
        reasoning=stored.get("reasoning"),
        metadata={**metadata, "cassette": "recorded"},
    )


def _row_to_entry(row: tuple[Any, ...]) -> dict[str, Any]:
    key, seq, model, request, response, created, meta = row
    request_data = json.loads(request)
    meta_data = json.loads(meta) if meta else {}
    return {
        "key": key,
        "seq": seq,
        "model": model,
        "created": created,
        "turn": meta_data.get("turn") or turn_label(request_data.get("messages") or []),
        "request": request_data,
        "response": json.loads(response),
        "meta": meta_data,
    }


def list_entries(path: str | Path, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The entries of a cassette in recording order: key, seq, model, created, turn, request,
    response, meta."""
    path, conn = _open_existing(path)
    try:
        sql = f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE} ORDER BY created, key, seq"
        rows = conn.execute(
            sql + (" LIMIT ?" if limit is not None else ""), (limit,) if limit is not None else ()
        )
        return [_row_to_entry(row) for row in rows.fetchall()]
    except sqlite3.DatabaseError as exc:
        raise _not_a_cassette(path, str(exc)) from None
    finally:
        conn.close()


def count_entries(path: str | Path) -> int:
    """How many answers a cassette holds."""
    path, conn = _open_existing(path)
    try:
        return int(conn.execute(f"SELECT COUNT(*) FROM {_TABLE}").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise _not_a_cassette(path, str(exc)) from None
    finally:
        conn.close()


def delete_entries(path: str | Path, key: str | None = None) -> int:
    """Delete the answers recorded for ``key`` (a whole key or an unambiguous prefix), or every
    answer when ``key`` is None; returns how many rows went."""
    path, conn = _open_existing(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if key is None:
                deleted = conn.execute(f"DELETE FROM {_TABLE}").rowcount
            else:
                prefix = key.strip().lower()
                if not prefix or not re.fullmatch(r"[0-9a-f]+", prefix):
                    raise BackendError(
                        f"{key!r} is not a cassette key", hint="keys are hex; see `cassette ls`"
                    )
                keys = [
                    row[0]
                    for row in conn.execute(
                        f"SELECT DISTINCT key FROM {_TABLE} WHERE substr(key, 1, ?) = ?",
                        (len(prefix), prefix),
                    )
                ]
                if not keys:
                    raise BackendError(
                        f"No entry with key {key!r} in {path}", hint="`cassette ls` shows the keys"
                    )
                if len(keys) > 1:
                    raise BackendError(
                        f"Key prefix {key!r} matches {len(keys)} keys in {path}",
                        hint="give more characters of the key",
                    )
                deleted = conn.execute(f"DELETE FROM {_TABLE} WHERE key = ?", (keys[0],)).rowcount
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return int(deleted)
    except sqlite3.DatabaseError as exc:
        raise _not_a_cassette(path, str(exc)) from None
    finally:
        conn.close()


# -- the backend ---------------------------------------------------------------------------------


class CassetteBackend(Backend):
    """Replays recorded answers of ``inner`` from a SQLite cassette and records the new ones.

    ``model`` takes part in the key; the factory passes ``settings.model`` so that a cassette
    recorded against a server replays without one. With no ``inner`` a cassette can only replay.
    """

    name = "cassette"

    def __init__(
        self,
        path: str | Path,
        inner: Backend | None = None,
        mode: str | None = None,
        *,
        model: str | None = None,
    ) -> None:
        self.path = Path(path).expanduser()
        self.inner = inner
        self.mode = resolve_mode(mode)
        self.model = model
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._seen: dict[str, int] = defaultdict(int)
        self._closed = False
        existed = self.path.exists() and self.path.stat().st_size > 0
        if not existed and (self.mode == "none" or inner is None):
            why = "mode none only replays" if self.mode == "none" else "there is no backend to record from"
            raise BackendError(
                f"Cassette {self.path} is missing or empty ({why})",
                hint=f"record it first: {self._record_hint()}",
            )
        if existed:
            _check_header(self.path)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = self._conn()
        self._was_empty = not existed or self._count(conn) == 0

    # -- connections -------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise BackendError(f"Cassette {self.path} is closed", hint="create a new backend")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path)
            try:
                _ensure_schema(conn, self.path)
            except BaseException:
                conn.close()
                raise
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _count(self, conn: sqlite3.Connection) -> int:
        try:
            return int(conn.execute(f"SELECT COUNT(*) FROM {_TABLE}").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise _not_a_cassette(self.path, str(exc)) from None

    # -- modes -------------------------------------------------------------------------------

    @property
    def records(self) -> bool:
        """Whether misses are recorded (``once`` only while the cassette started empty)."""
        if self.inner is None or self.mode == "none":
            return False
        return self.mode != "once" or self._was_empty

    def _record_hint(self) -> str:
        return (
            f"put a backend after the cassette and allow recording, e.g. "
            f"--backend 'cassette:{self.path}?mode=new_episodes,openai' (mode=once records into a new "
            f"or empty cassette), or set {MODE_ENV}=new_episodes"
        )

    def describe(self) -> str:
        inner = f" -> {self.inner.describe()}" if self.inner is not None else ""
        return f"cassette({self.path}, mode={self.mode}){inner}"

    # -- lookups and records -----------------------------------------------------------------

    def _next_seq(self, key: str) -> int:
        with self._lock:
            self._seen[key] += 1
            return self._seen[key]

    def _lookup(self, key: str, seq: int) -> Completion | None:
        conn = self._conn()
        try:
            row = conn.execute(
                f"SELECT response FROM {_TABLE} WHERE key = ? AND seq = ?", (key, seq)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise _not_a_cassette(self.path, str(exc)) from None
        if row is None:
            return None
        return _completion_from_json(json.loads(row[0]), "hit")

    def _recorded_count(self, key: str) -> int:
        conn = self._conn()
        return int(conn.execute(f"SELECT COUNT(*) FROM {_TABLE} WHERE key = ?", (key,)).fetchone()[0])

    def _store(
        self, key: str, seq: int, payload: dict[str, Any], completion: Completion, turn: str
    ) -> Completion:
        """Record ``completion`` (redacted) for ``key``/``seq``; returns the answer as recorded."""
        stored_request, redactions = redact(payload)
        stored_response, response_redactions = redact(_completion_to_json(completion))
        meta = {
            "turn": redact_text(turn),
            "redacted": redactions,
            "response_redacted": response_redactions,
            "response_model": completion.model,
        }
        row = (
            key,
            seq,
            payload.get("model"),
            canonical_json(stored_request),
            json.dumps(stored_response, ensure_ascii=False, default=str),
            time.time(),
            json.dumps(meta, ensure_ascii=False),
        )
        # new_episodes keeps an answer another process recorded first; all replaces it.
        verb = "INSERT OR REPLACE" if self.mode == "all" else "INSERT OR IGNORE"
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    f"{verb} INTO {_TABLE} ({', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)", row
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            raise BackendError(f"Could not write to cassette {self.path}: {exc}") from None
        return _recorded(completion, stored_response)

    def _miss_error(self, key: str, seq: int, turn: str) -> BackendError:
        recorded = self._recorded_count(key)
        if recorded:
            what = f"only {recorded} recorded answer(s) for this request and this is repeat {seq}"
        else:
            what = "no recorded answer for this request"
        if self.mode == "none":
            why = "mode none replays only"
        elif self.inner is None:
            why = "there is no backend after the cassette to record from"
        else:
            why = "mode once records only into a cassette that was new or empty when opened"
        return BackendError(
            f"Cassette {self.path} has {what}: {turn} (key {key[:12]}, {why})",
            hint=f"to record it, {self._record_hint()}",
        )

    def _prepare(
        self, messages: list[dict[str, Any]], sampling: Sampling
    ) -> tuple[str, int, dict[str, Any], str]:
        payload = request_payload(self.model, messages, sampling)
        key = hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()
        return key, self._next_seq(key), payload, turn_label(messages)

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        key, seq, payload, turn = self._prepare(messages, sampling)
        if self.mode != "all":
            hit = self._lookup(key, seq)
            if hit is not None:
                return hit
        if not self.records or self.inner is None:
            raise self._miss_error(key, seq, turn)
        return self._store(key, seq, payload, self.inner.complete(messages, sampling), turn)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        key, seq, payload, turn = self._prepare(messages, sampling)
        if self.mode != "all":
            hit = await asyncio.to_thread(self._lookup, key, seq)
            if hit is not None:
                return hit
        if not self.records or self.inner is None:
            raise await asyncio.to_thread(self._miss_error, key, seq, turn)
        completion = await self.inner.acomplete(messages, sampling)
        return await asyncio.to_thread(self._store, key, seq, payload, completion, turn)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for conn in connections:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        if self.inner is not None:
            self.inner.close()
