"""The ``sql`` family: one in-memory SQLite database per session.

Statements run for real (schema, INSERT/UPDATE/DELETE with their true ``rows_affected``, SELECT
with real rows); errors are SQLite's own words. The database is bounded: no ATTACH (so nothing
reaches the host's files, ``VACUUM INTO`` included), a page cap, a string/blob length cap, a
row cap on results and a progress handler that stops a runaway query. It pickles as the bytes of
``Connection.serialize()``, so the offline backend's snapshots carry it.

>>> db = SqlDatabase()
>>> db.run("execute", {"query": "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)"}).data
{'rows_affected': 2, 'last_insert_id': 2}
>>> db.run("read", {"query": "SELECT sum(a) AS s FROM t"}).data["rows"]
[[3]]
"""

from __future__ import annotations

import base64
import json
import re
import sqlite3
from typing import Any

from . import Answer
from .sql_budget import MAX_WORK, BudgetSpent, StatementBudget

#: bounds of one session's database and of one statement
MAX_PAGES = 16384  # 64 MiB at 4 KiB pages
MAX_LENGTH = 8 * 1024 * 1024  # longest string or blob, and longest SQL text
MAX_ROWS = 1000  # rows returned by one query unless the call asks for fewer
#: VM instructions (or their equivalent in charged function work) per statement
MAX_STEPS = MAX_WORK
_DENIED_PRAGMAS = {
    "max_page_count",
    "page_size",
    "mmap_size",
    "temp_store_directory",
    "data_store_directory",
    "case_sensitive_like",  # it would put back SQLite's uncharged LIKE
}
_READ_START = ("select", "with", "explain", "values", "pragma")


def _first_word(sql: str) -> str:
    text = re.sub(r"^(\s|--[^\n]*\n?|/\*.*?\*/)*", "", sql, flags=re.S)
    match = re.match(r"[A-Za-z]+", text)
    return match.group(0).lower() if match else ""


def split_statements(sql: str) -> list[str]:
    """The complete statements of a script, in order (SQLite decides where each ends)."""
    out: list[str] = []
    buf = ""
    for piece in sql.split(";"):
        buf = f"{buf};{piece}" if buf else piece
        if sqlite3.complete_statement(buf + ";"):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


class SqlDatabase:
    """A session's SQLite database (in memory), answering the ``sql`` family's operations."""

    def __init__(self, script: str | None = None) -> None:
        self._open(None)
        if script:
            try:
                self.conn.executescript(script)
            except sqlite3.Error:
                pass  # a broken seed leaves what it managed to create

    # -- connection, bounds, pickling ------------------------------------------------------------

    def _open(self, blob: bytes | str | None) -> None:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if isinstance(blob, bytes) and blob:
            conn.deserialize(blob)  # type: ignore[attr-defined,unused-ignore]  # Python 3.11+
        elif isinstance(blob, str):  # Python 3.10 has no serialize(): a dump script
            conn.executescript(blob)
        if hasattr(conn, "setlimit"):  # Python 3.11+
            conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)  # type: ignore[attr-defined,unused-ignore]  # VACUUM INTO attaches too
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_LENGTH)  # type: ignore[attr-defined,unused-ignore]
            conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_LENGTH)  # type: ignore[attr-defined,unused-ignore]
        conn.execute(f"PRAGMA max_page_count = {MAX_PAGES}")
        conn.set_authorizer(self._authorize)
        self.budget = StatementBudget(conn, MAX_LENGTH)
        self.conn = conn
        self._read_only = False

    def dump(self) -> bytes | str:
        """The database as SQLite's serialized bytes (a dump script on Python 3.10)."""
        if hasattr(self.conn, "serialize"):
            return self.conn.serialize()
        return "\n".join(self.conn.iterdump())

    def __getstate__(self) -> dict[str, Any]:
        return {"blob": self.dump()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._open(state.get("blob"))

    def _authorize(self, action: int, arg1: Any, arg2: Any, db: Any, trigger: Any) -> int:
        if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_PRAGMA and str(arg1).lower() in _DENIED_PRAGMAS:
            return sqlite3.SQLITE_DENY
        if self._read_only and action not in (
            sqlite3.SQLITE_SELECT,
            sqlite3.SQLITE_READ,
            sqlite3.SQLITE_FUNCTION,
            sqlite3.SQLITE_RECURSIVE,
            sqlite3.SQLITE_PRAGMA,
        ):
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        """One statement on the bounded database (its work and size limits apply)."""
        return self._execute(sql, params)

    def _execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self.budget.start()
        return self.conn.execute(sql, params)

    # -- operations ------------------------------------------------------------------------------

    def run(self, op: str, args: dict[str, Any], out_schema: Any = None) -> Answer:
        """Answer one call of the ``sql`` family (``read``, ``write``, ``execute``,
        ``create_table``, ``list_tables``, ``describe``)."""
        try:
            if op == "list_tables":
                return self._list_tables()
            if op == "describe":
                table = next((args[k] for k in ("table_name", "table", "name") if args.get(k)), "")
                return self._describe(str(table))
            sql = next((args[k] for k in ("query", "sql", "statement", "sql_query") if k in args), "")
            return self._statements(op, str(sql), args, out_schema)
        except (sqlite3.Error, BudgetSpent) as exc:
            return Answer(f"Error: {self.budget.error_text(str(exc))}", is_error=True)
        finally:
            self._read_only = False

    def _statements(self, op: str, sql: str, args: dict[str, Any], out_schema: Any) -> Answer:
        if len(sql) > MAX_LENGTH:
            return Answer("Error: string or blob too big", is_error=True)
        statements = split_statements(sql)
        if not statements:
            return Answer("Error: the query is empty", is_error=True)
        first = _first_word(statements[0])
        # the reference SQLite MCP server's (mcp-server-sqlite) refusals, word for word
        if op == "read" and (first not in _READ_START or len(statements) > 1):
            return Answer("Error: Only SELECT queries are allowed for read_query", is_error=True)
        if op == "write" and first in ("select", "with", "values"):
            return Answer("Error: SELECT queries are not allowed for write_query", is_error=True)
        if op == "create_table" and not re.match(r"create\s+(temp\w*\s+)?table\b", statements[0], re.I):
            return Answer("Error: Only CREATE TABLE statements are allowed", is_error=True)
        params = args.get("params") or args.get("parameters") or ()
        if not isinstance(params, (list, tuple, dict)):
            params = (params,)
        limit = args.get("max_rows") or args.get("limit")
        limit = min(limit, MAX_ROWS) if isinstance(limit, int) and limit > 0 else MAX_ROWS
        self._read_only = op == "read"
        changed = 0
        last_id: int | None = None
        result: dict[str, Any] | None = None
        for i, statement in enumerate(statements):
            cursor = self._execute(statement, params if i == len(statements) - 1 else ())
            if cursor.description is not None:
                columns = [d[0] for d in cursor.description]
                rows = cursor.fetchmany(limit + 1)
                truncated = len(rows) > limit
                rows = [[_json_value(v) for v in row] for row in rows[:limit]]
                result = {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": truncated}
            elif cursor.rowcount > 0:
                changed += cursor.rowcount
                last_id = cursor.lastrowid
        if result is not None:
            return self._rows_answer(result, out_schema)
        if op == "create_table":
            return Answer(
                "Table created successfully", data={"success": True, "message": "Table created successfully"}
            )
        data = {"rows_affected": changed, "last_insert_id": last_id}
        return Answer(json.dumps(data, indent=2), data=data)

    def _rows_answer(self, result: dict[str, Any], out_schema: Any) -> Answer:
        records = [dict(zip(result["columns"], row)) for row in result["rows"]]
        rows_node = (
            (out_schema or {}).get("properties", {}).get("rows", {}) if isinstance(out_schema, dict) else {}
        )
        items = rows_node.get("items") if isinstance(rows_node, dict) else None
        as_objects = isinstance(items, dict) and (items.get("type") == "object" or "properties" in items)
        data = {**result, "rows": records if as_objects else result["rows"], "results": records}
        text = json.dumps(records, indent=2, ensure_ascii=False, default=str)
        if result["truncated"]:
            text += f"\n(truncated to the first {result['row_count']} rows)"
        return Answer(text, data=data)

    def _list_tables(self) -> Answer:
        names = [
            r[0]
            for r in self._execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        tables = []
        for name in names:
            count = self._execute(f'SELECT count(*) FROM "{name.replace(chr(34), chr(34) * 2)}"').fetchone()[
                0
            ]
            tables.append({"name": name, "rows": count})
        data = {"tables": tables}
        return Answer(json.dumps(tables, indent=2), data=data)

    def _describe(self, table: str) -> Answer:
        quoted = table.replace('"', '""')
        exists = self._execute(
            "SELECT 1 FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?", (table,)
        ).fetchone()
        if not exists:
            return Answer(f"Error: no such table: {table}", is_error=True)
        columns = [
            {
                "name": name,
                "type": kind,
                "nullable": not notnull,
                "default": default,
                "primary_key": bool(pk),
            }
            for _cid, name, kind, notnull, default, pk in self._execute(f'PRAGMA table_info("{quoted}")')
        ]
        indexes = [
            {"name": row[1], "unique": bool(row[2])}
            for row in self._execute(f'PRAGMA index_list("{quoted}")')
        ]
        data = {"table": table, "columns": columns, "indexes": indexes}
        return Answer(json.dumps(data, indent=2, default=str), data=data)
