"""Which family a tool belongs to, read from its name, description and input schema.

A family names the engine that answers the tool in the offline world:

- ``files``: a virtual filesystem (:mod:`.families.files`), e.g. ``read_text_file``,
  ``write_file``, ``list_directory``, ``get_file_info``;
- ``sql``: an in-memory SQLite database (:mod:`.families.sql`), e.g. ``read_query``,
  ``write_query``, ``create_table``, ``list_tables``, ``execute_sql``;
- ``messages``, ``events``, ``issues``, ``kv`` and ``records``: the typed record store
  (:mod:`.ledger` with :mod:`.families.records`), e.g. ``send_email``, ``create_event``,
  ``create_issue``, ``set_value``, ``create_invoice``;
- ``ledger``: everything else, acknowledged from what the session already holds.

>>> family_of({"name": "read_text_file", "inputSchema": {"properties": {"path": {}}}})
('files', 'read')
>>> family_of({"name": "write_query", "description": "Run an INSERT statement"})
('sql', 'write')
>>> family_of({"name": "send_email"})
('messages', 'create')
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .naming import classify_tool

FAMILIES = ("files", "sql", "messages", "events", "issues", "kv", "records", "ledger")

_FILE_NOUNS = {"file", "files", "directory", "directories", "dir", "dirs", "folder", "folders", "tree"}
_PATH_ARGS = {
    "path",
    "paths",
    "source",
    "destination",
    "file_path",
    "filepath",
    "filename",
    "dir",
    "directory",
}
_SQL_NOUNS = {"sql", "table", "tables", "database", "databases", "db", "sqlite"}
_SQL_VERBS = {"query", "execute", "exec", "run", "select", "insert"}
_SQL_WORDS = re.compile(r"\b(sql|sqlite|select|insert|table|tables|database|postgres|mysql)\b", re.I)
_MESSAGE_NOUNS = {"email", "emails", "mail", "mails", "message", "messages", "inbox", "draft", "drafts"}
_EVENT_NOUNS = {
    "event",
    "events",
    "calendar",
    "calendars",
    "meeting",
    "meetings",
    "appointment",
    "appointments",
}
_ISSUE_NOUNS = {"issue", "issues", "ticket", "tickets", "bug", "bugs"}
_KV_NOUNS = {"key", "keys", "value", "values", "kv", "memory", "cache", "setting", "settings"}
_MESSAGE_CREATE = {"send", "reply", "forward", "compose", "draft"}
_EVENT_CREATE = {"schedule", "book", "invite"}


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def _props(tool: dict[str, Any]) -> set[str]:
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return {str(k).lower() for k in props} if isinstance(props, dict) else set()


def family_of(tool: dict[str, Any]) -> tuple[str, str]:
    """``(family, operation)`` of a tool definition (``name``, ``description``, ``inputSchema``)."""
    name = str(tool.get("name") or "")
    description = str(tool.get("description") or "")
    return _family(name, description[:400], frozenset(_props(tool)))


@lru_cache(maxsize=4096)
def _family(name: str, description: str, props: frozenset[str]) -> tuple[str, str]:
    tokens = _tokens(name)
    words = set(tokens)
    files = _files_op(words, props, description)
    if files:
        return "files", files
    sql = _sql_op(words, props, description)
    if sql:
        return "sql", sql
    kind, _resource, _ = classify_tool(name)
    verb_create = kind == "create"
    if words & _MESSAGE_NOUNS or (words & _MESSAGE_CREATE and "to" in props):
        op = "create" if words & _MESSAGE_CREATE or verb_create else _record_op(kind, words)
        return "messages", op
    if words & _EVENT_NOUNS:
        op = "create" if words & _EVENT_CREATE or verb_create else _record_op(kind, words)
        return "events", op
    if words & _ISSUE_NOUNS:
        return "issues", _record_op(kind, words)
    if "key" in props and (words & _KV_NOUNS or words & {"set", "put", "store", "save"}):
        return "kv", _kv_op(words, kind)
    if kind is not None and _resource is not None:
        return "records", kind
    return "ledger", kind or "other"


def _record_op(kind: str | None, words: set[str]) -> str:
    if kind is None:
        return "list" if words & {"search", "find"} else "other"
    return kind


def _kv_op(words: set[str], kind: str | None) -> str:
    if words & {"set", "put", "store", "save", "write", "add", "create", "update", "upsert"}:
        return "put"
    if words & {"delete", "remove", "del", "unset", "clear"}:
        return "delete"
    if words & {"list", "keys", "all", "search", "find"} and not words & {"get", "read"}:
        return "list"
    return "get" if kind in (None, "get") else kind


def _files_op(words: set[str], props: frozenset[str], description: str) -> str | None:
    if "allowed" in words and words & {"directory", "directories", "dirs"}:
        return "allowed"
    if not words & _FILE_NOUNS:
        # a terse name (``cat``, ``ls``) with a path argument and a files description
        if not (props & _PATH_ARGS and re.search(r"\b(file|directory|folder)\b", description, re.I)):
            return None
    elif props and not props & _PATH_ARGS and not props & {"content", "pattern"}:
        return None
    if "tree" in words:
        return "tree"
    if words & {"info", "stat", "stats", "metadata"}:
        return "info"
    if words & {"move", "rename", "mv"}:
        return "move"
    if words & {"copy", "cp"}:
        return "copy"
    if words & {"search", "find", "glob"}:
        return "search"
    if words & {"edit", "replace", "patch"}:
        return "edit"
    if words & {"append"}:
        return "append"
    if words & {"delete", "remove", "rm", "unlink"}:
        return "delete"
    dir_noun = bool(words & {"directory", "directories", "dir", "dirs", "folder", "folders"})
    if words & {"list", "ls"} or (dir_noun and words & {"get", "read", "show"}):
        return "list_sizes" if words & {"size", "sizes"} else "list"
    if words & {"mkdir"} or (dir_noun and words & {"create", "make", "new", "add"}):
        return "mkdir"
    if words & {"write", "save", "create", "put", "upload", "new"}:
        return "write"
    if words & {"multiple", "many", "batch"}:
        return "read_many"
    if words & {"read", "get", "cat", "open", "view", "show", "fetch", "head", "tail"}:
        return "read"
    return None


def _sql_op(words: set[str], props: frozenset[str], description: str) -> str | None:
    mentions = bool(_SQL_WORDS.search(description))
    if words & {"table", "tables"}:
        if words & {"list", "show", "tables"} and not props & {"query", "sql", "table_name", "table"}:
            return "list_tables"
        if words & {"describe", "schema", "info", "columns"} or (
            "get" in words and props & {"table_name", "table"}
        ):
            return "describe"
        if words & {"create", "make", "new"}:
            return "create_table"
        if words & {"list", "tables"}:
            return "list_tables"
    if "schema" in words and (words & _SQL_NOUNS or mentions):
        return "describe" if props & {"table_name", "table"} else "list_tables"
    if props and not props & {"query", "sql", "statement", "sql_query"}:
        return None  # (a tool known without a schema is judged by its name and description)
    if not (words & _SQL_NOUNS or (words & _SQL_VERBS and mentions)):
        return None
    if words & {"read", "select"}:
        return "read"
    if words & {"write", "insert", "update", "modify"}:
        return "write"
    return "read" if re.search(r"\bread[- ]only\b", description, re.I) else "execute"
