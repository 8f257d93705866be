"""The offline MCP world's tool families: classification, the engines and their bounds."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import jsonschema
import pytest

from agentworld_plugins import World
from agentworld_plugins.domains.base import OfflineResult
from agentworld_plugins.offline.mcp import family_of, mcp_step
from agentworld_plugins.offline.mcp.families.sql import MAX_ROWS, SqlDatabase

FILESYSTEM_SERVER = [
    "read_text_file",
    "read_file",
    "write_file",
    "edit_file",
    "list_directory",
    "list_directory_with_sizes",
    "directory_tree",
    "move_file",
    "search_files",
    "get_file_info",
    "create_directory",
    "list_allowed_directories",
    "read_multiple_files",
]


def _tool(
    name: str, props: tuple[str, ...] = ("path",), description: str = "", **extra: Any
) -> dict[str, Any]:
    schema = {"type": "object", "properties": {p: {} for p in props}}
    return {"name": name, "description": description, "inputSchema": schema, **extra}


def call(
    state: dict[str, Any], tools: list[dict[str, Any]] | None, name: str, **arguments: Any
) -> OfflineResult:
    return mcp_step(state, name, arguments, {"tools": tools} if tools is not None else {})


def data(result: OfflineResult) -> Any:
    assert result.is_error is False, result.text
    return json.loads(result.text)


# -- classification -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FILESYSTEM_SERVER)
def test_the_filesystem_server_tools_are_files(name: str) -> None:
    props = {"read_multiple_files": ("paths",), "move_file": ("source", "destination")}.get(name, ("path",))
    assert family_of(_tool(name, props if name != "list_allowed_directories" else ()))[0] == "files"


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (_tool("read_query", ("query",), "Run a SELECT query"), ("sql", "read")),
        (_tool("write_query", ("query",), "Run an INSERT, UPDATE or DELETE"), ("sql", "write")),
        (_tool("create_table", ("query",)), ("sql", "create_table")),
        (_tool("list_tables", ()), ("sql", "list_tables")),
        (_tool("describe_table", ("table_name",)), ("sql", "describe")),
        (_tool("execute_sql", ("sql",)), ("sql", "execute")),
        (_tool("query", ("sql",), "Run a SQL statement against the database"), ("sql", "execute")),
        (_tool("query", ("sql",), "Run a read-only SQL query"), ("sql", "read")),
        (_tool("query", ("query",), "Search the web"), ("ledger", "list")),
        (_tool("search_emails", ("query",), "Search the mailbox"), ("messages", "list")),
        (_tool("send_email", ("to", "subject")), ("messages", "create")),
        (_tool("read_email", ("message_id",)), ("messages", "get")),
        (_tool("create_event", ("summary", "start")), ("events", "create")),
        (_tool("list_events", ("time_min", "query")), ("events", "list")),
        (_tool("create_issue", ("title",)), ("issues", "create")),
        (_tool("add_issue_comment", ("issue_number", "body")), ("issues", "create")),
        (_tool("set_value", ("key", "value")), ("kv", "put")),
        (_tool("get_value", ("key",)), ("kv", "get")),
        (_tool("create_invoice", ("customer_id",)), ("records", "create")),
        (_tool("cat", ("path",), "Print a file"), ("files", "read")),
        (_tool("ping", ()), ("ledger", "other")),
    ],
)
def test_families_from_name_description_and_schema(tool: dict[str, Any], expected: tuple[str, str]) -> None:
    assert family_of(tool) == expected


def test_serve_list_shows_the_family_of_each_tool() -> None:
    from click.testing import CliRunner

    from agentworld_plugins.cli import cli

    result = CliRunner().invoke(
        cli, ["mcp", "serve", "--backend", "offline", "--pack", "calendar-email", "--list"]
    )
    assert result.exit_code == 0, result.output
    families = {line.split("\t")[0]: line.split("\t")[1] for line in result.stdout.splitlines()}
    assert families["send_email"] == "messages/create" and families["list_events"] == "events/list"


def test_the_family_is_in_the_metadata() -> None:
    result = call({}, [_tool("write_file", ("path", "content"))], "write_file", path="/tmp/a", content="x")
    assert (result.metadata["offline_family"], result.metadata["offline_operation"]) == ("files", "write")


# -- files ----------------------------------------------------------------------------------------

FILE_TOOLS = [
    _tool("write_file", ("path", "content")),
    _tool("read_text_file", ("path", "head", "tail")),
    _tool("list_directory"),
    _tool("get_file_info"),
    _tool("move_file", ("source", "destination")),
    _tool("delete_file"),
    _tool("search_files", ("path", "pattern")),
    _tool("create_directory"),
    _tool("list_allowed_directories", ()),
]


def test_files_read_after_write_list_move_delete_info() -> None:
    state: dict[str, Any] = {}
    big = "é" * 300_000  # 600 KB of UTF-8
    wrote = call(state, FILE_TOOLS, "write_file", path="/tmp/big.txt", content=big)
    assert wrote.text == "Successfully wrote to /tmp/big.txt"
    assert call(state, FILE_TOOLS, "read_text_file", path="/tmp/big.txt").text == big
    info = call(state, FILE_TOOLS, "get_file_info", path="/tmp/big.txt").text.splitlines()
    assert "size: 600000" in info and "isFile: true" in info and "isDirectory: false" in info
    assert (
        call(state, FILE_TOOLS, "create_directory", path="/tmp/d").text
        == "Successfully created directory /tmp/d"
    )
    assert "isDirectory: true" in call(state, FILE_TOOLS, "get_file_info", path="/tmp/d").text
    moved = call(state, FILE_TOOLS, "move_file", source="/tmp/big.txt", destination="/tmp/d/big.txt")
    assert not moved.is_error
    assert call(state, FILE_TOOLS, "list_directory", path="/tmp").text == "[DIR] d"
    assert call(state, FILE_TOOLS, "search_files", path="/tmp", pattern="**/big*").text == "/tmp/d/big.txt"
    # a glob on the path from the search root, as the server's minimatch: no substring, no basename
    assert call(state, FILE_TOOLS, "search_files", path="/tmp", pattern="big.txt").text == "No matches found"
    assert not call(state, FILE_TOOLS, "delete_file", path="/tmp/d/big.txt").is_error
    gone = call(state, FILE_TOOLS, "read_text_file", path="/tmp/d/big.txt")
    assert gone.is_error and gone.text == "ENOENT: no such file or directory, open '/tmp/d/big.txt'"
    assert call(state, FILE_TOOLS, "search_files", path="/tmp", pattern="**/big*").text == "No matches found"


def test_files_errors_read_like_the_server() -> None:
    state: dict[str, Any] = {}
    call(state, FILE_TOOLS, "write_file", path="/tmp/a", content="1")
    call(state, FILE_TOOLS, "write_file", path="/tmp/b", content="2")
    taken = call(state, FILE_TOOLS, "move_file", source="/tmp/a", destination="/tmp/b")
    assert taken.is_error and taken.text == "Destination already exists: /tmp/b"
    no_parent = call(state, FILE_TOOLS, "write_file", path="/nope/x.txt", content="")
    assert no_parent.is_error and "ENOENT" in no_parent.text


def test_allowed_directories_from_the_context() -> None:
    state: dict[str, Any] = {}
    context = {"tools": FILE_TOOLS, "allowed_directories": ["/srv/data"]}
    listed = mcp_step(state, "list_allowed_directories", {}, context)
    assert listed.text == "Allowed directories:\n/srv/data"
    assert mcp_step(state, "write_file", {"path": "rel.txt", "content": "r"}, context).text == (
        "Successfully wrote to rel.txt"
    )
    assert mcp_step(state, "read_text_file", {"path": "/srv/data/rel.txt"}, context).text == "r"
    denied = mcp_step(state, "read_text_file", {"path": "/etc/passwd"}, context)
    assert denied.is_error and denied.text.startswith("Access denied - path outside allowed directories")


def test_file_info_fills_an_output_schema_with_real_values() -> None:
    out = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "type": {"type": "string", "enum": ["file", "directory", "symlink"]},
            "size": {"type": "integer"},
        },
        "required": ["path", "type", "size"],
    }
    tools = [*FILE_TOOLS[:1], _tool("get_file_info", outputSchema=out)]
    state: dict[str, Any] = {}
    call(state, tools, "write_file", path="/tmp/a.txt", content="four")
    info = data(call(state, tools, "get_file_info", path="/tmp/a.txt"))
    jsonschema.validate(info, out)
    assert info == {"path": "/tmp/a.txt", "type": "file", "size": 4}


# -- SQL ------------------------------------------------------------------------------------------

SQL_TOOLS = [
    _tool("execute_sql", ("sql",)),
    _tool("read_query", ("query", "params", "max_rows"), "Run a SELECT query"),
    _tool("list_tables", ()),
    _tool("describe_table", ("table_name",)),
]


def test_sql_results_and_errors_are_sqlite_s() -> None:
    state: dict[str, Any] = {}
    script = (
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO t (v) VALUES ('a'), ('b');"
    )
    assert data(call(state, SQL_TOOLS, "execute_sql", sql=script)) == {
        "rows_affected": 2,
        "last_insert_id": 2,
    }
    updated = data(call(state, SQL_TOOLS, "execute_sql", sql="UPDATE t SET v = 'z' WHERE id = 2"))
    assert updated["rows_affected"] == 1
    rows = data(call(state, SQL_TOOLS, "read_query", query="SELECT v FROM t WHERE id >= ?", params=[1]))
    assert rows == [{"v": "a"}, {"v": "z"}]
    assert data(call(state, SQL_TOOLS, "list_tables")) == [{"name": "t", "rows": 2}]
    columns = data(call(state, SQL_TOOLS, "describe_table", table_name="t"))["columns"]
    assert [(c["name"], c["nullable"], c["primary_key"]) for c in columns] == [
        ("id", True, True),
        ("v", False, False),
    ]
    null = call(state, SQL_TOOLS, "execute_sql", sql="INSERT INTO t (v) VALUES (NULL)")
    assert null.is_error and null.text == "Error: NOT NULL constraint failed: t.v"
    assert call(state, SQL_TOOLS, "read_query", query="DROP TABLE t").text == (
        "Error: Only SELECT queries are allowed for read_query"
    )
    assert call(state, SQL_TOOLS, "describe_table", table_name="nope").text == "Error: no such table: nope"


def test_sql_is_bounded_and_never_reaches_the_host(tmp_path: Any) -> None:
    db = SqlDatabase()
    runaway = db.run(
        "read",
        {"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c"},
    )
    assert runaway.is_error and runaway.text.startswith("Error: interrupted")
    many = db.run(
        "read",
        {
            "query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT x FROM c"
        },
    )
    assert many.data["row_count"] == MAX_ROWS and many.data["truncated"] is True
    target = tmp_path / "out.db"
    for sql in (f"ATTACH '{target}' AS x", f"VACUUM INTO '{target}'", "PRAGMA max_page_count = 1000000000"):
        assert db.run("execute", {"query": sql}).is_error
    assert not target.exists()
    assert db.run("read", {"query": "SELECT zeroblob(100000000)"}).text == "Error: string or blob too big"


def test_sql_survives_pickle_and_deepcopy() -> None:
    state: dict[str, Any] = {}
    call(state, SQL_TOOLS, "execute_sql", sql="CREATE TABLE t (v); INSERT INTO t VALUES (1), (2)")
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert data(call(copied, SQL_TOOLS, "read_query", query="SELECT sum(v) AS s FROM t")) == [{"s": 3}]
        call(copied, SQL_TOOLS, "execute_sql", sql="DELETE FROM t")
    assert data(call(state, SQL_TOOLS, "read_query", query="SELECT count(*) AS n FROM t")) == [{"n": 2}]


def test_sql_state_rides_the_offline_backend_snapshot() -> None:
    world = World(backend="offline")
    session = world.session("mcp", tools=SQL_TOOLS)
    session.step(
        {"tool_name": "execute_sql", "arguments": {"sql": "CREATE TABLE t (v); INSERT INTO t VALUES (7)"}}
    )
    snapshot = world.offline.snapshot({"s": session})
    fresh = world.session("mcp", tools=SQL_TOOLS)
    assert world.offline.restore({"s": fresh}, snapshot)
    read = fresh.step({"tool_name": "read_query", "arguments": {"query": "SELECT v FROM t"}})
    assert json.loads(read.text) == [{"v": 7}]


# -- records --------------------------------------------------------------------------------------


def test_mail_is_found_by_gmail_terms() -> None:
    tools = [
        _tool("send_email", ("to", "subject", "body")),
        _tool("search_emails", ("query",)),
        _tool("read_email", ("message_id",)),
    ]
    state: dict[str, Any] = {}
    first = data(call(state, tools, "send_email", to=["ana@x.org"], subject="Budget", body="Q3 numbers"))
    call(state, tools, "send_email", to="bo@x.org", subject="Lunch", body="Noon?")
    assert [m["subject"] for m in data(call(state, tools, "search_emails", query="to:ana@x.org"))] == [
        "Budget"
    ]
    assert [m["subject"] for m in data(call(state, tools, "search_emails", query="in:sent noon"))] == [
        "Lunch"
    ]
    assert data(call(state, tools, "search_emails", query='subject:"budget" -to:ana@x.org')) == []
    assert data(call(state, tools, "search_emails", query="is:unread")) == []
    got = data(call(state, tools, "read_email", message_id=first["message_id"]))
    assert (got["to"], got["subject"], got["label_ids"]) == (["ana@x.org"], "Budget", ["SENT"])


def test_issue_counters_and_labels() -> None:
    out = {
        "type": "object",
        "properties": {
            "number": {"type": "integer"},
            "labels": {
                "type": "array",
                "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            },
            "comments": {"type": "integer"},
            "assignees": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["number", "labels", "comments", "assignees"],
    }
    tools = [
        _tool("create_issue", ("title", "labels"), outputSchema=out),
        _tool("get_issue", ("issue_number",), outputSchema=out),
        _tool("add_issue_comment", ("issue_number", "body")),
    ]
    state: dict[str, Any] = {}
    created = data(call(state, tools, "create_issue", title="Crash", labels=["bug", "p1"]))
    assert [label["name"] for label in created["labels"]] == ["bug", "p1"]
    assert (created["comments"], created["assignees"]) == (0, [])
    second = data(call(state, tools, "create_issue", title="Typo"))
    assert second["number"] == created["number"] + 1 and second["labels"] == []
    call(state, tools, "add_issue_comment", issue_number=created["number"], body="+1")
    assert data(call(state, tools, "get_issue", issue_number=created["number"]))["comments"] == 1


def test_records_referenced_by_id_exist() -> None:
    state: dict[str, Any] = {}
    call(state, None, "create_invoice", customer_id="cus_9", customer_name="Acme", total=10)
    call(state, None, "create_invoice", customer_id="cus_9", total=12)
    assert data(call(state, None, "list_customers")) == [{"id": "cus_9", "name": "Acme"}]
    call(state, None, "create_invoice", customer_email="bo@x.org", customer_name="Bo", total=4)
    call(state, None, "create_invoice", customer_email="bo@x.org", customer_name="Bo", total=5)
    customers = data(call(state, None, "list_customers"))
    assert [(c.get("name"), c.get("email")) for c in customers] == [("Acme", None), ("Bo", "bo@x.org")]
    assert data(call(state, None, "get_customer", id="cus_9"))["name"] == "Acme"


def test_free_slots_come_from_the_events() -> None:
    tools = [
        _tool("create_event", ("summary", "start", "end", "attendees")),
        _tool("find_free_slots", ("attendees", "time_min", "time_max", "duration_minutes")),
    ]
    state: dict[str, Any] = {}
    call(
        state,
        tools,
        "create_event",
        summary="A",
        start="2026-02-02T10:00:00Z",
        end="2026-02-02T11:00:00Z",
        attendees=["a@x.org"],
    )
    call(
        state,
        tools,
        "create_event",
        summary="B",
        start="2026-02-02T16:30:00Z",
        end="2026-02-02T18:00:00Z",
        attendees=["b@x.org"],
    )
    window = {"time_min": "2026-02-02T00:00:00Z", "time_max": "2026-02-02T23:00:00Z", "duration_minutes": 60}
    slots = data(call(state, tools, "find_free_slots", attendees=["a@x.org", "b@x.org"], **window))
    assert [(s["start"][11:16], s["end"][11:16]) for s in slots] == [("09:00", "10:00"), ("11:00", "16:30")]
    alone = data(call(state, tools, "find_free_slots", attendees=["c@x.org"], **window))
    assert [(s["start"][11:16], s["end"][11:16]) for s in alone] == [("09:00", "17:00")]


def test_kv_keeps_values() -> None:
    tools = [
        _tool("set_value", ("key", "value")),
        _tool("get_value", ("key",)),
        _tool("list_keys", ("prefix", "key")),
    ]
    state: dict[str, Any] = {}
    call(state, tools, "set_value", key="a:1", value={"x": 1})
    assert data(call(state, tools, "get_value", key="a:1"))["value"] == {"x": 1}
    assert call(state, tools, "get_value", key="b").is_error


def test_long_arguments_are_echoed_as_a_preview() -> None:
    state: dict[str, Any] = {}
    long = "y" * 600_000
    created = call(state, None, "create_note", text=long)
    assert len(created.text) < 1000 and "[600000 characters]" in created.text
    assert data(call(state, None, "get_note", id=1))["text"] == long  # kept whole
    generic = call(state, None, "upload_blob_somewhere_else", payload=long)
    assert len(generic.text) < 1000


@pytest.mark.parametrize("module", ["classify", "families.files", "families.sql", "families.query"])
def test_module_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"agentworld_plugins.offline.mcp.{module}")
    assert doctest.testmod(found).failed == 0
