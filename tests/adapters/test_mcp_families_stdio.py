"""The offline world's tool families through a real MCP client over stdio (``agentworld mcp serve``).

One connection per server: what a call wrote, the next calls read back (files, SQL, mail,
issues, events), for the built-in packs and for a mirrored ``server-filesystem`` snapshot.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
from mcp import Client, StdioServerParameters

PACKS = ("filesystem", "sql-database", "calendar-email", "github-issues")


def _params(*extra: str) -> StdioServerParameters:
    args = ["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline", *extra]
    return StdioServerParameters(command=sys.executable, args=args)


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def _ok(client: Client, name: str, arguments: dict[str, Any], schemas: dict[str, Any]) -> Any:
    """Call a tool; assert success and, with an outputSchema, a valid structuredContent."""
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {_text(result)}"
    if schemas.get(name) is not None:
        jsonschema.validate(result.structured_content, schemas[name])
        return result.structured_content
    return _text(result)


async def test_the_packs_remember_what_the_agent_did() -> None:
    pack_args = [arg for pack in PACKS for arg in ("--pack", pack)]
    async with Client(_params(*pack_args)) as client:
        listed = (await client.list_tools()).tools
        schemas = {t.name: t.output_schema for t in listed}

        # files: write, then read, list and info agree with it
        wrote = await _ok(
            client, "write_file", {"path": "/app/notes.md", "content": "# Notes\nship it\n"}, schemas
        )
        assert wrote == "Successfully wrote to /app/notes.md"
        # the file's bytes, final newline included, as a real filesystem server returns them
        assert await _ok(client, "read_text_file", {"path": "/app/notes.md"}, schemas) == "# Notes\nship it\n"
        listing = await _ok(client, "list_directory", {"path": "/app"}, schemas)
        assert "[FILE] notes.md" in listing.splitlines()
        info = await _ok(client, "get_file_info", {"path": "/app/notes.md"}, schemas)
        assert (info["size"], info["type"]) == (16, "file")
        big = "x" * 600_000
        echoed = await _ok(client, "write_file", {"path": "/app/big.txt", "content": big}, schemas)
        assert len(echoed) < 100  # a short confirmation, not the content
        assert (await _ok(client, "get_file_info", {"path": "/app/big.txt"}, schemas))["size"] == 600_000

        # SQL: the schema, the writes and the reads are SQLite's own
        await _ok(
            client, "create_table", {"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"}, schemas
        )
        written = await _ok(
            client, "write_query", {"query": "INSERT INTO t (name) VALUES ('ada'), ('bo')"}, schemas
        )
        assert written["rows_affected"] == 2
        read = await _ok(client, "read_query", {"query": "SELECT name FROM t ORDER BY id"}, schemas)
        assert read["columns"] == ["name"] and read["rows"] == [["ada"], ["bo"]] and read["row_count"] == 2
        bad = await client.call_tool("read_query", {"query": "SELECT nope FROM t"})
        assert bad.is_error and "no such column: nope" in _text(bad)

        # mail: what was sent is found again
        sent = await _ok(
            client,
            "send_email",
            {"to": ["bo@example.org"], "subject": "Q3 budget", "body": "Numbers attached."},
            schemas,
        )
        found = json.loads(
            await _ok(client, "search_emails", {"query": "subject:budget to:bo@example.org"}, schemas)
        )
        assert [m["id"] for m in found] == [sent["id"]] and found[0]["subject"] == "Q3 budget"
        assert json.loads(await _ok(client, "search_emails", {"query": "subject:holiday"}, schemas)) == []
        message = json.loads(await _ok(client, "read_email", {"message_id": sent["id"]}, schemas))
        assert message["body"] == "Numbers attached."

        # issues: the given fields come back, a new issue has no comments
        created = await _ok(
            client,
            "create_issue",
            {"owner": "acme", "repo": "api", "title": "Crash", "labels": ["bug"]},
            schemas,
        )
        number = created["number"]
        issue = await _ok(
            client, "get_issue", {"owner": "acme", "repo": "api", "issue_number": number}, schemas
        )
        assert issue["title"] == "Crash" and [label["name"] for label in issue["labels"]] == ["bug"]
        assert issue["comments"] == 0 and issue["state"] == "open"
        await _ok(
            client,
            "add_issue_comment",
            {"owner": "acme", "repo": "api", "issue_number": number, "body": "+1"},
            schemas,
        )
        issue = await _ok(
            client, "get_issue", {"owner": "acme", "repo": "api", "issue_number": number}, schemas
        )
        assert issue["comments"] == 1
        issues = json.loads(await _ok(client, "list_issues", {"owner": "acme", "repo": "api"}, schemas))
        assert [i["title"] for i in issues] == ["Crash"]

        # events: created, then got and listed in their time window
        event = await _ok(
            client,
            "create_event",
            {"summary": "Standup", "start": "2026-02-02T09:00:00Z", "end": "2026-02-02T09:15:00Z"},
            schemas,
        )
        got = json.loads(await _ok(client, "get_event", {"event_id": str(event["id"])}, schemas))
        assert (got["summary"], got["start"]) == ("Standup", "2026-02-02T09:00:00Z")
        window = {"time_min": "2026-02-02T00:00:00Z", "time_max": "2026-02-03T00:00:00Z"}
        assert [e["summary"] for e in json.loads(await _ok(client, "list_events", window, schemas))] == [
            "Standup"
        ]
        later = {"time_min": "2026-03-01T00:00:00Z", "time_max": "2026-03-02T00:00:00Z"}
        assert json.loads(await _ok(client, "list_events", later, schemas)) == []


def _filesystem_snapshot() -> dict[str, Any]:
    """What ``--save-snapshot`` writes for ``@modelcontextprotocol/server-filesystem`` (its tool
    names, argument names and the ``{content: string}`` output schema it declares)."""
    path = {"type": "string"}
    out = {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}

    def tool(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
        schema = {"type": "object", "properties": props, "required": required}
        return {"name": name, "description": description, "inputSchema": schema, "outputSchema": out}

    tools = [
        tool("read_text_file", "Read the complete contents of a file as text.", {"path": path, "head": {"type": "number"}, "tail": {"type": "number"}}, ["path"]),
        tool("read_file", "Read the complete contents of a file. DEPRECATED.", {"path": path}, ["path"]),
        tool("read_multiple_files", "Read several files at once.", {"paths": {"type": "array", "items": path}}, ["paths"]),
        tool("write_file", "Create a new file or overwrite an existing file.", {"path": path, "content": path}, ["path", "content"]),
        tool("edit_file", "Make line-based edits to a text file.", {"path": path, "edits": {"type": "array", "items": {"type": "object", "properties": {"oldText": path, "newText": path}, "required": ["oldText", "newText"]}}, "dryRun": {"type": "boolean", "default": False}}, ["path", "edits"]),
        tool("create_directory", "Create a new directory or ensure it exists.", {"path": path}, ["path"]),
        tool("list_directory", "List files and directories with [FILE] and [DIR] prefixes.", {"path": path}, ["path"]),
        tool("list_directory_with_sizes", "List a directory with sizes.", {"path": path, "sortBy": {"type": "string", "enum": ["name", "size"]}}, ["path"]),
        tool("directory_tree", "A recursive tree of files and directories as JSON.", {"path": path, "excludePatterns": {"type": "array", "items": path}}, ["path"]),
        tool("move_file", "Move or rename files and directories.", {"source": path, "destination": path}, ["source", "destination"]),
        tool("search_files", "Recursively search for files matching a glob pattern.", {"path": path, "pattern": path, "excludePatterns": {"type": "array", "items": path}}, ["path", "pattern"]),
        tool("get_file_info", "Retrieve metadata about a file or directory.", {"path": path}, ["path"]),
        tool("list_allowed_directories", "List the directories this server may access.", {}, []),
    ]  # fmt: skip
    return {
        "agentworld_mcp_snapshot": 1,
        "source": "npx -y @modelcontextprotocol/server-filesystem /app",
        "server": {"name": "secure-filesystem-server", "version": "0.2.0"},
        "tools": tools,
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
    }


async def test_a_mirrored_filesystem_server_keeps_its_files(tmp_path: Path) -> None:
    snapshot = tmp_path / "filesystem.json"
    snapshot.write_text(json.dumps(_filesystem_snapshot()))
    async with Client(_params("--snapshot", str(snapshot))) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}

        async def content(name: str, arguments: dict[str, Any]) -> str:
            return (await _ok(client, name, arguments, schemas))["content"]  # type: ignore[no-any-return]

        assert (
            await content("create_directory", {"path": "/app/docs"})
            == "Successfully created directory /app/docs"
        )
        assert await content("write_file", {"path": "/app/docs/a.txt", "content": "one\ntwo\n"}) == (
            "Successfully wrote to /app/docs/a.txt"
        )
        assert await content("read_text_file", {"path": "/app/docs/a.txt", "head": 1}) == "one"
        assert await content("read_file", {"path": "/app/docs/a.txt"}) == "one\ntwo\n"
        assert await content("list_directory", {"path": "/app/docs"}) == "[FILE] a.txt"
        info = dict(
            line.split(": ", 1)
            for line in (await content("get_file_info", {"path": "/app/docs/a.txt"})).splitlines()
        )
        assert (info["size"], info["isDirectory"], info["isFile"]) == ("8", "false", "true")
        dir_info = await content("get_file_info", {"path": "/app/docs"})
        assert "isDirectory: true" in dir_info.splitlines()
        diff = await content(
            "edit_file", {"path": "/app/docs/a.txt", "edits": [{"oldText": "two", "newText": "2"}]}
        )
        assert "-two" in diff and "+2" in diff
        assert await content(
            "move_file", {"source": "/app/docs/a.txt", "destination": "/app/docs/b.txt"}
        ) == ("Successfully moved /app/docs/a.txt to /app/docs/b.txt")
        # minimatch on the path from the root: *.txt is top-level only, **/*.txt any depth
        assert await content("search_files", {"path": "/app", "pattern": "*.txt"}) == "/app/requirements.txt"
        assert (
            await content("search_files", {"path": "/app", "pattern": "**/*.txt"})
            == "/app/docs/b.txt\n/app/requirements.txt"
        )
        both = await content("read_multiple_files", {"paths": ["/app/docs/b.txt", "/app/docs/a.txt"]})
        assert both.startswith("/app/docs/b.txt:\none\n2\n") and "/app/docs/a.txt: Error - ENOENT" in both
        tree = json.loads(await content("directory_tree", {"path": "/app/docs"}))
        assert tree == [{"name": "b.txt", "type": "file"}]
        sized = await content("list_directory_with_sizes", {"path": "/app/docs"})
        assert "Total: 1 files, 0 directories" in sized and "6 B" in sized
        missing = await client.call_tool("read_text_file", {"path": "/app/docs/a.txt"})
        assert missing.is_error and "ENOENT: no such file or directory" in _text(missing)
