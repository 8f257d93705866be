"""SQL facts: a shadow SQLite database of the tables the agent created in the episode.

``facts["sql"]`` holds the database (``db``: SQLite's serialized bytes), the tables it knows
exactly (``tables``: ``{name: [turn, source]}``) and the tables the agent dropped. A SELECT whose
tables are all known is run on the shadow, and its rows are compared with the model's; a write
is applied to the shadow once the agent got its answer. Every statement is bounded by a count of
SQLite VM steps (deterministic), past which it is treated as unknown.
"""

from __future__ import annotations

import ast
import json
import re
import sqlite3
from collections import Counter
from typing import Any

from .core import Contradiction

#: SQLite VM steps (in units of 1,000) one shadow statement may take before it is given up
MAX_STEPS = 20_000
_READ, _INSERT, _UPDATE, _DELETE, _CREATE, _DROP = 20, 18, 23, 9, 2, 11
_ORDERED = re.compile(r"\border\s+by\b", re.I)


def state(facts: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = facts.setdefault("sql", {"db": None, "tables": {}, "dropped": {}})
    return found


class Shadow:
    """The shadow database for one check or commit, with what each statement touched."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.sql = state(facts)
        self.conn = sqlite3.connect(":memory:", check_same_thread=False)
        if self.sql["db"]:
            _load(self.conn, self.sql["db"])
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.created: set[str] = set()
        self.dropped: set[str] = set()
        self._steps = 0
        self.conn.set_authorizer(self._authorize)
        self.conn.set_progress_handler(self._progress, 1000)

    def _authorize(self, action: int, arg1: Any, arg2: Any, db: Any, trigger: Any) -> int:
        name = str(arg1 or "").lower()
        if name.startswith("sqlite_"):
            return sqlite3.SQLITE_OK
        if action == _READ:
            self.reads.add(name)
        elif action in (_INSERT, _UPDATE, _DELETE):
            self.writes.add(name)
        elif action == _CREATE:
            self.created.add(name)
        elif action == _DROP:
            self.dropped.add(name)
        return sqlite3.SQLITE_OK

    def _progress(self) -> int:
        self._steps += 1
        return 1 if self._steps > MAX_STEPS else 0

    def known(self, names: set[str]) -> bool:
        return all(n in self.sql["tables"] for n in names)

    def run(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]], int] | None:
        """Run ``sql`` (one or more statements): the last result's columns and rows and the rows
        changed; None when SQLite refused it or it ran past the step budget."""
        from ..offline.mcp.families.sql import split_statements

        columns: list[str] = []
        rows: list[tuple[Any, ...]] = []
        changed = 0
        try:
            for statement in split_statements(sql):
                cursor = self.conn.execute(statement)
                if cursor.description is not None:
                    columns = [d[0] for d in cursor.description]
                    rows = cursor.fetchmany(10_000)
                elif cursor.rowcount > 0:
                    changed += cursor.rowcount
        except (sqlite3.Error, ValueError):
            return None
        return columns, rows, changed

    def save(self) -> None:
        self.conn.commit()
        self.sql["db"] = _dump(self.conn)

    def close(self) -> None:
        self.conn.close()


def _load(conn: sqlite3.Connection, db: bytes | str) -> None:
    if isinstance(db, bytes) and hasattr(conn, "deserialize"):  # Python 3.11+
        conn.deserialize(db)
    elif isinstance(db, str):
        conn.executescript(db)


def _dump(conn: sqlite3.Connection) -> bytes | str:
    if hasattr(conn, "serialize"):
        return conn.serialize()  # type: ignore[no-any-return]
    return "\n".join(conn.iterdump())


def _canon(value: Any) -> str:
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)):
        number = float(value)
        return str(int(number)) if number.is_integer() else repr(round(number, 9))
    if value is None:
        return "null"
    if isinstance(value, str):
        try:
            return _canon(float(value)) if re.fullmatch(r"-?\d+(\.\d+)?", value.strip()) else value
        except ValueError:
            return value
    return str(value)


def parse_rows(text: str) -> tuple[list[tuple[str, ...]], str] | None:
    """The rows an answer shows, as tuples of canonical values, and its style (``json``,
    ``python``); None when the text shows no rows."""
    body = text.strip()
    body = re.sub(r"\n\(truncated to the first \d+ rows\)$", "", body)
    data: Any = None
    style = "json"
    try:
        data = json.loads(body)
    except ValueError:
        try:
            data = ast.literal_eval(body)
            style = "python"
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(data, dict):
        data = data.get("rows", data.get("results", data.get("data")))
        style = "object"
        if isinstance(data, list) and data and isinstance(data[0], list):
            return [tuple(_canon(v) for v in row) for row in data], style
    if not isinstance(data, list) or not all(isinstance(row, (dict, list)) for row in data):
        return None
    rows = [tuple(_canon(v) for v in (row.values() if isinstance(row, dict) else row)) for row in data]
    return rows, style


def expected_rows(rows: list[tuple[Any, ...]]) -> list[tuple[str, ...]]:
    return [tuple(_canon(v) for v in row) for row in rows]


def same_rows(sql: str, expected: list[tuple[str, ...]], observed: list[tuple[str, ...]]) -> bool:
    if _ORDERED.search(sql):
        return expected == observed
    return Counter(expected) == Counter(observed)


def render(columns: list[str], rows: list[tuple[Any, ...]], style: str, like: str) -> str:
    """Rows in the style of the model's answer ``like``."""
    records = [dict(zip(columns, row)) for row in rows]
    if style == "python":
        return repr(records)
    indent = 2 if "\n" in like.strip() else None
    if style == "object":  # {"columns": [...], "rows": [[...]], "row_count": N, ...}: keep its keys
        data = json.loads(like)
        key = next(k for k in ("rows", "results", "data") if k in data)
        as_lists = bool(data[key]) and isinstance(data[key][0], list)
        data[key] = [list(row) for row in rows] if as_lists else records
        if "row_count" in data:
            data["row_count"] = len(rows)
        return json.dumps(data, indent=indent, ensure_ascii=False, default=str)
    return json.dumps(records, indent=indent, ensure_ascii=False, default=str)


def check_select(
    facts: dict[str, Any], sql: str, text: str, is_error: bool
) -> tuple[list[Contradiction], bool]:
    """(contradictions, whether the answer was compared) for a read query."""
    shadow = Shadow(facts)
    try:
        result = shadow.run(sql)
        dropped = {n: state(facts)["dropped"][n] for n in shadow.reads if n in state(facts)["dropped"]}
        if result is None:
            missing = _missing_tables(sql, state(facts)["dropped"])
            if missing and not is_error:
                name = missing[0]
                turn, source = state(facts)["dropped"][name]
                return [Contradiction("absence", f"table {name}", "dropped", text, turn, source)], True
            return [], False
        if dropped or not shadow.reads or not shadow.known(shadow.reads) or is_error:
            return [], False
        rows = result[1]
        observed = parse_rows(text)
        if observed is None:
            return [], False
        want = expected_rows(rows)
        if same_rows(sql, want, observed[0]):
            return [], True
        turn, source = max(state(facts)["tables"][n] for n in shadow.reads)
        subject = "rows of " + ", ".join(sorted(shadow.reads))
        return [Contradiction("rows", subject, want, observed[0], turn, source)], True
    finally:
        shadow.close()


def _missing_tables(sql: str, dropped: dict[str, Any]) -> list[str]:
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql.lower()))
    return sorted(w for w in words if w in dropped)


def select_answer(facts: dict[str, Any], sql: str, like: str | None = None) -> str | None:
    """The answer of a read query on known tables, in the style of ``like`` (default: JSON)."""
    shadow = Shadow(facts)
    try:
        result = shadow.run(sql)
        if result is None or not shadow.reads or not shadow.known(shadow.reads):
            return None
        columns, rows, _ = result
        style = (parse_rows(like) or ([], "json"))[1] if like else "json"
        return render(columns, rows, style, like or "[\n]")
    finally:
        shadow.close()


def check_write(
    facts: dict[str, Any], sql: str, text: str, is_error: bool
) -> tuple[list[Contradiction], bool]:
    """A write's answer: its count of changed rows, where it shows one and the tables are known."""
    if is_error:
        return [], False
    shadow = Shadow(facts)
    try:
        result = shadow.run(sql)
        if result is None or not shadow.writes or not shadow.known(shadow.writes | shadow.reads):
            return [], False
        shown = _affected(text)
        if shown is None:
            return [], False
        changed = result[2]
        if shown == changed:
            return [], True
        turn, source = max(state(facts)["tables"][n] for n in shadow.writes)
        return [
            Contradiction(
                "count", "rows changed in " + ", ".join(sorted(shadow.writes)), changed, shown, turn, source
            )
        ], True
    finally:
        shadow.close()


_AFFECTED = re.compile(r'"?(?:rows_affected|affected_rows|rowcount|changes|rows)"?\s*[:=]\s*(\d+)', re.I)


def _affected(text: str) -> int | None:
    match = _AFFECTED.search(text[:2000])
    return int(match.group(1)) if match else None


def fixed_write(facts: dict[str, Any], sql: str, text: str) -> str:
    shadow = Shadow(facts)
    try:
        result = shadow.run(sql)
    finally:
        shadow.close()
    if result is None:
        return text
    return _AFFECTED.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + str(result[2]), text, count=1)


def commit(facts: dict[str, Any], sql: str, is_error: bool, turn: int) -> None:
    """Apply the agent's statement to the shadow once its answer was not an error."""
    if is_error:
        return
    shadow = Shadow(facts)
    try:
        result = shadow.run(sql)
        if result is None:
            return
        tables = state(facts)["tables"]
        for name in shadow.created:
            tables[name] = [turn, "agent"]
            state(facts)["dropped"].pop(name, None)
        for name in shadow.dropped:
            tables.pop(name, None)
            state(facts)["dropped"][name] = [turn, "agent"]
        if shadow.writes and not shadow.known(shadow.reads - shadow.created):
            for name in shadow.writes:  # filled from tables nothing established: not known anymore
                tables.pop(name, None)
        else:
            for name in shadow.writes:
                if name in tables:
                    tables[name] = [turn, "agent"]
        shadow.save()
    finally:
        shadow.close()
