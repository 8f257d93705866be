"""``mcp-server-sqlite``: SQL on one database, answered in the server's own text forms.

Facts taken from the server (2025.4.25, ``mcp_server_sqlite/server.py``): results are the
``str()`` of a list of row dicts; a statement that starts with INSERT, UPDATE, DELETE, CREATE,
DROP or ALTER answers ``[{'affected_rows': N}]`` (the cursor's ``rowcount``); ``read_query`` takes
only SELECT and ``write_query`` no SELECT; ``create_table`` only CREATE TABLE and answers "Table
created successfully"; ``append_insight`` keeps an insight for the ``memo://insights`` memo;
failures are plain text, not error results: ``Database error: ...`` for SQLite's, ``Error: ...``
for the rest. The database is the offline world's bounded in-memory SQLite (no ATTACH, capped
pages, lengths and work), kept in the session's state.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..families.sql import SqlDatabase

__all__ = ["SqliteServer"]

_WRITES = ("INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER")


class _Refused(Exception):
    pass


class SqliteServer:
    """The server's six tools and its memo; ``call`` answers ``(text, structured, is_error)``."""

    def __init__(self) -> None:
        self.db = SqlDatabase()
        self.insights: list[str] = []

    def _query(self, sql: str) -> list[dict[str, Any]]:
        cursor = self.db.execute(sql)
        if sql.strip().upper().startswith(_WRITES):
            return [{"affected_rows": cursor.rowcount}]
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def memo(self) -> str:
        """The ``memo://insights`` resource's text."""
        if not self.insights:
            return "No business insights have been discovered yet."
        memo = "📊 Business Intelligence Memo 📊\n\nKey Insights Discovered:\n\n"
        memo += "\n".join(f"- {insight}" for insight in self.insights)
        if len(self.insights) > 1:
            memo += (
                f"\nSummary:\nAnalysis has revealed {len(self.insights)} key business insights that "
                "suggest opportunities for strategic optimization and growth."
            )
        return memo

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        try:
            return self._call(name, arguments), None, False
        except sqlite3.Error as exc:
            return f"Database error: {exc}", None, False
        except Exception as exc:  # the server's catch-all: its words, as a plain answer
            return f"Error: {exc}", None, False

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "list_tables":
            return str(self._query("SELECT name FROM sqlite_master WHERE type='table'"))
        if name == "describe_table":
            if not arguments or "table_name" not in arguments:
                raise ValueError("Missing table_name argument")
            return str(self._query(f"PRAGMA table_info({arguments['table_name']})"))
        if name == "append_insight":
            if not arguments or "insight" not in arguments:
                raise ValueError("Missing insight argument")
            self.insights.append(arguments["insight"])
            return "Insight added to memo"
        if not arguments:
            raise ValueError("Missing arguments")
        query = arguments["query"]
        if name == "read_query":
            if not query.strip().upper().startswith("SELECT"):
                raise ValueError("Only SELECT queries are allowed for read_query")
            return str(self._query(query))
        if name == "write_query":
            if query.strip().upper().startswith("SELECT"):
                raise ValueError("SELECT queries are not allowed for write_query")
            return str(self._query(query))
        if name == "create_table":
            if not query.strip().upper().startswith("CREATE TABLE"):
                raise ValueError("Only CREATE TABLE statements are allowed")
            self._query(query)
            return "Table created successfully"
        raise ValueError(f"Unknown tool: {name}")
