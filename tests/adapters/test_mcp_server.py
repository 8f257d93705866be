"""The fake MCP server, driven by the MCP SDK's own client: in-process, over stdio and over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import mcp_types as types
import pytest
from agentworld_plugins.adapters.mcp_catalog import Catalog
from agentworld_plugins.adapters.mcp_server import RETRY_NOTE, FakeMcpServer
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import BackendError
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.http_guard import serving

TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_issue",
        "description": "Open an issue in a repository.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "title": {"type": "string", "minLength": 1},
                "priority": {"type": "integer", "minimum": 1, "maximum": 5},
                "labels": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["repo", "title"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "number": {"type": "integer"},
                "title": {"type": "string"},
                "state": {"type": "string", "enum": ["open", "closed"]},
            },
            "required": ["number", "title", "state"],
        },
        "annotations": {"title": "Create issue", "openWorldHint": True},
    },
    {
        "name": "list_issues",
        "description": "List the issues of a repository.",
        "inputSchema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "state": {"enum": ["open", "closed", "all"]}},
            "required": ["repo"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "ping",
        "description": "Check that the service is up.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]

BAD_ARGS_HEADER = "Error calling tool 'create_issue': 3 validation errors for call[create_issue]"


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _fake(backend: Any = "offline", **kwargs: Any) -> FakeMcpServer:
    return FakeMcpServer(World(backend=backend), Catalog.from_tools(TOOLS), **kwargs)


def _wire(tools: list[types.Tool]) -> list[dict[str, Any]]:
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]


# -- in-process (legacy mode: every message goes through JSON) --------------------------------------


async def test_lists_the_tool_definitions_unchanged() -> None:
    fake = _fake()
    async with Client(fake.server, mode="legacy") as client:
        listed = await client.list_tools()
        assert client.server_info is not None and client.server_info.name == "agentworld"
    assert _wire(listed.tools) == _wire(Catalog.from_tools(TOOLS).tools)
    assert listed.tools[0].output_schema == TOOLS[0]["outputSchema"]


async def test_structured_result_validates_and_state_carries_across_calls() -> None:
    fake = _fake()
    async with Client(fake.server, mode="legacy") as client:
        created = await client.call_tool("create_issue", {"repo": "acme/api", "title": "Login fails"})
        assert not created.is_error
        jsonschema.validate(created.structured_content, TOOLS[0]["outputSchema"])
        assert created.structured_content["title"] == "Login fails"
        assert json.loads(_text(created)) == created.structured_content
        listed = await client.call_tool("list_issues", {"repo": "acme/api"})
        assert not listed.is_error and listed.structured_content is None
        assert "Login fails" in _text(listed)
    (conn,) = fake.sessions.all()
    assert conn.calls == 2 and [t.number for t in conn.session.trajectory.turns] == [1, 2]
    assert conn.session.domain.name == "mcp"
    assert "create_issue" in conn.session.system_prompt  # the tools are the session's context


async def test_bad_arguments_get_fastmcp_text_without_asking_the_model() -> None:
    backend = FakeBackend()
    fake = _fake(backend)
    async with Client(fake.server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"title": "", "priority": "high", "extra": 1})
    assert result.is_error and result.structured_content is None
    text = _text(result)
    lines = text.splitlines()
    assert lines[0] == "Error calling tool 'create_issue': 4 validation errors for call[create_issue]"
    fields = [line for line in lines[1:] if not line.startswith(" ")]
    assert fields == ["repo", "title", "priority", "extra"]  # each field named, in schema order
    assert "Field required [type=missing" in text
    assert "String should have at least 1 character [type=string_too_short" in text
    assert "Input should be a valid integer, unable to parse string as an integer [type=int_parsing" in text
    assert "Unexpected keyword argument [type=unexpected_keyword_argument" in text
    assert backend.history == []
    (conn,) = fake.sessions.all()
    (turn,) = conn.session.trajectory.turns  # the agent saw it, so the world model will too
    assert turn.observation.text == text and turn.observation.is_error


async def test_three_errors_in_one_call() -> None:
    async with Client(_fake().server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"repo": 1, "priority": 9})
    assert _text(result).splitlines()[0] == BAD_ARGS_HEADER


async def test_unknown_tool_names_the_available_ones() -> None:
    backend = FakeBackend()
    async with Client(_fake(backend).server, mode="legacy") as client:
        result = await client.call_tool("delete_repo", {"repo": "acme/api"})
        empty = await client.call_tool("", {})
    assert result.is_error
    assert _text(result) == "Unknown tool: delete_repo\nAvailable tools: create_issue, list_issues, ping"
    assert empty.is_error and "Available tools: create_issue" in _text(empty)
    assert backend.history == []


async def test_domain_decides_is_error_and_skips_structured_content() -> None:
    backend = FakeBackend().enqueue("Error executing tool create_issue: repository acme/gone not found")
    async with Client(_fake(backend).server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"repo": "acme/gone", "title": "x"})
    assert result.is_error and result.structured_content is None
    assert "acme/gone not found" in _text(result)


async def test_invalid_structured_output_is_asked_again_once() -> None:
    good = {"number": 7, "title": "Crash", "state": "open"}
    backend = FakeBackend().enqueue(
        '{"number": "seven"', f"<predicted_observation>{json.dumps(good)}</predicted_observation>"
    )
    fake = _fake(backend)
    async with Client(fake.server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"repo": "acme/api", "title": "Crash"})
    assert not result.is_error and result.structured_content == good
    first, second = (messages for messages, _ in backend.history)
    assert first[:-1] == second[:-1]  # same history: only the current turn's request changed
    assert second[-1]["content"].startswith(first[-1]["content"])
    assert "outputSchema" in second[-1]["content"] and "**Note:**" in second[-1]["content"]
    assert RETRY_NOTE.split("(")[0] in second[-1]["content"]
    (conn,) = fake.sessions.all()
    (turn,) = conn.session.trajectory.turns  # one clean turn: the rejected answer left the history
    assert "**Note:**" not in turn.prompt
    assert json.loads(turn.observation.text) == good
    assert turn.observation.metadata["output_retry"]["rejected"] == '{"number": "seven"'


async def test_output_that_stays_invalid_becomes_is_error() -> None:
    backend = FakeBackend().enqueue("Issue created!", '{"number": 3, "title": "Crash", "state": "merged"}')
    fake = _fake(backend)
    async with Client(fake.server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"repo": "acme/api", "title": "Crash"})
        after = await client.call_tool("ping", {})
    assert result.is_error and result.structured_content is None
    assert _text(result).startswith("Output validation error: the result of create_issue does not match")
    assert "'merged' is not one of ['open', 'closed']" in _text(result)
    assert len(backend.history) == 3 and not after.is_error
    turns = fake.sessions.all()[0].session.trajectory.turns
    assert [t.number for t in turns] == [1, 2]
    assert turns[0].observation.is_error and turns[0].observation.text == _text(result)


async def test_backend_failure_is_an_error_result_not_a_crash() -> None:
    backend = FakeBackend().enqueue(BackendError("world model unreachable", hint="start vLLM"))
    async with Client(_fake(backend).server, mode="legacy") as client:
        result = await client.call_tool("ping", {})
        again = await client.call_tool("ping", {})
    assert result.is_error and "world model unreachable" in _text(result)
    assert not again.is_error


async def test_fifty_concurrent_calls_in_one_client(tmp_path: Path) -> None:
    record = tmp_path / "run.jsonl"
    fake = _fake(record=record)
    results: dict[int, types.CallToolResult] = {}

    async def one(i: int) -> None:
        results[i] = await client.call_tool("create_issue", {"repo": "acme/api", "title": f"issue {i}"})

    async with Client(fake.server, mode="legacy") as client, anyio.create_task_group() as tg:
        for i in range(50):
            tg.start_soon(one, i)
    assert len(results) == 50 and not any(r.is_error for r in results.values())
    assert {r.structured_content["title"] for r in results.values()} == {f"issue {i}" for i in range(50)}
    numbers = sorted(r.structured_content["number"] for r in results.values())
    assert numbers == list(range(1, 51))  # one session: each call saw the ones before
    (conn,) = fake.sessions.all()
    turns = conn.session.trajectory.turns
    assert [t.number for t in turns] == list(range(1, 51))
    assert all(t.prompt.startswith(f"### Turn {t.number}\n") for t in turns)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [row["turn_idx"] for row in lines] == list(range(1, 51))


async def test_record_appends_each_turn_as_it_happens(tmp_path: Path) -> None:
    record = tmp_path / "run.jsonl"
    record.write_text('{"earlier": "run"}\n')
    fake = _fake(record=record)
    async with Client(fake.server, mode="legacy") as client:
        await client.call_tool("create_issue", {"repo": "acme/api", "title": "One"})
        assert len(record.read_text().splitlines()) == 2  # flushed before the next call
        await client.call_tool("nope", {})
        await client.call_tool("list_issues", {"repo": "acme/api"})
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    assert rows[0] == {"earlier": "run"}
    assert [r["turn_idx"] for r in rows[1:]] == [1, 2, 3]
    assert rows[2]["is_error"] and rows[3]["action"]["tool_name"] == "list_issues"
    assert {r["task"] for r in rows[1:]} == {"mcp"} and len({r["id"] for r in rows[1:]}) == 1


async def test_every_connection_shares_the_servers_world() -> None:
    """As a real server keeps its state across clients: what one connection wrote, the next sees."""
    fake = _fake()
    async with Client(fake.server, mode="legacy") as first:
        await first.call_tool("create_issue", {"repo": "acme/api", "title": "Kept for the next"})
    async with Client(fake.server, mode="legacy") as second:
        seen = _text(await second.call_tool("list_issues", {"repo": "acme/api"}))
    assert "Kept for the next" in seen and fake.sessions.opened == 1


async def test_isolated_connections_each_get_their_own_world() -> None:
    fake = _fake(isolate="connection")
    async with Client(fake.server, mode="legacy") as first, Client(fake.server, mode="legacy") as second:
        await first.call_tool("create_issue", {"repo": "acme/api", "title": "Only in the first"})
        seen_by_first = _text(await first.call_tool("list_issues", {"repo": "acme/api"}))
        seen_by_second = _text(await second.call_tool("list_issues", {"repo": "acme/api"}))
    assert "Only in the first" in seen_by_first and "Only in the first" not in seen_by_second
    assert fake.sessions.opened == 2 and not fake.sessions.active  # closed with their connections


async def test_modern_protocol_in_process_shares_one_session() -> None:
    fake = _fake(isolate="connection")
    async with Client(fake.server) as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool("create_issue", {"repo": "acme/api", "title": "Modern"})
        listed = await client.call_tool("list_issues", {"repo": "acme/api"})
    assert "Modern" in _text(listed) and fake.sessions.opened == 1


# -- stdio: the command a client config launches ---------------------------------------------------


def _serve_args(*extra: str) -> list[str]:
    return ["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline", *extra]


async def test_stdio_subprocess(tmp_path: Path) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": TOOLS}))
    record = tmp_path / "run.jsonl"
    params = StdioServerParameters(
        command=sys.executable, args=_serve_args("--tools", str(tools_file), "--record", str(record))
    )
    async with Client(params) as client:
        assert _wire((await client.list_tools()).tools) == _wire(Catalog.from_tools(TOOLS).tools)
        created = await client.call_tool("create_issue", {"repo": "acme/api", "title": "Over stdio"})
        bad = await client.call_tool("create_issue", {"repo": 1, "priority": 9})
        unknown = await client.call_tool("nope", {})
    assert not created.is_error and created.structured_content["title"] == "Over stdio"
    assert bad.is_error and _text(bad).splitlines()[0] == BAD_ARGS_HEADER
    assert unknown.is_error and "Available tools:" in _text(unknown)
    assert len(record.read_text().splitlines()) == 3


async def test_stdio_text_results_keep_the_world_models_final_newline(tmp_path: Path) -> None:
    """A tool without an outputSchema returns the world's text byte for byte, as a real MCP server
    returns its text: only the newlines just inside the ``<predicted_observation>`` tags are
    format. Each request names the client's conversation (``X-Agentworld-Conversation``)."""
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": TOOLS}))
    listing = "#1 Fix the login page\n#2 Ship the release\n"
    with FakeWorldModelServer() as world_model:
        world_model.enqueue(
            f"<predicted_observation>\n{listing}\n</predicted_observation>",
            "<think>a bare answer</think>\n\npong\n\n",
        )
        args = ["-m", "agentworld_plugins", "mcp", "serve", "--tools", str(tools_file)]
        args += ["--base-url", world_model.url, "--model", world_model.model]
        async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
            listed = await client.call_tool("list_issues", {"repo": "acme/api"})
            pong = await client.call_tool("ping", {})
        requests = world_model.chat_requests
    assert not listed.is_error and listed.structured_content is None
    assert _text(listed) == listing
    assert _text(pong) == "pong\n\n"
    names = {r.headers.get("x-agentworld-conversation") for r in requests}
    assert len(requests) == 2 and len(names) == 1 and next(iter(names)).startswith("mcp/")


def test_stdio_survives_malformed_requests(tmp_path: Path) -> None:
    """An old (2025-06-18) client speaking raw JSON-RPC, with garbage in between."""
    proc = subprocess.Popen(
        [sys.executable, *_serve_args("--pack", "sql-database")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: Any) -> None:
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def answer() -> dict[str, Any]:
        return json.loads(proc.stdout.readline())  # type: ignore[union-attr]

    try:
        send("this is not JSON {")
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "old", "version": "1"},
                },
            }
        )
        init = answer()
        assert init["result"]["protocolVersion"] == "2025-06-18"
        assert init["result"]["serverInfo"]["name"] == "sql-database"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "read_query", "arguments": "x"},
            }
        )
        assert answer()["error"]["code"] == -32602
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}})
        assert answer()["error"]["code"] == -32602
        send({"jsonrpc": "2.0", "id": 4, "method": "no/such/method"})
        assert answer()["error"]["code"] == -32601
        send(
            '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "read_query", "arguments": {"query": 7}}}'
        )
        assert answer()["result"]["isError"] is True
        send(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "tools/call",
                "params": {"name": "read_query", "arguments": {"query": "SELECT 'ada' AS name"}},
            }
        )
        result = answer()["result"]
        assert result["isError"] is False and {"columns", "rows", "row_count"} <= set(
            result["structuredContent"]
        )
        assert result["structuredContent"]["rows"] == [["ada"]]  # a real SQLite answer
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        proc.stdout.close()
        if proc.stderr is not None:
            proc.stderr.close()


# -- streamable HTTP ---------------------------------------------------------------------------------


@contextmanager
def _http(fake: FakeMcpServer, token: str | None = None) -> Iterator[str]:
    with serving(fake.http_app(token=token), lifespan="on") as base:
        yield f"{base}/mcp"


def _authorized_client(url: str, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http))


async def test_http_clients_share_the_servers_world() -> None:
    """A reconnect over HTTP (a new Mcp-Session-Id) finds what the last client wrote."""
    fake = _fake()
    with _http(fake) as url:
        async with Client(url) as first:
            await first.call_tool("create_issue", {"repo": "acme/api", "title": "Before reconnecting"})
        async with Client(url) as again:
            listed = _text(await again.call_tool("list_issues", {"repo": "acme/api"}))
    assert "Before reconnecting" in listed


async def test_isolated_http_clients_each_get_their_own_session() -> None:
    fake = _fake(isolate="connection")
    with _http(fake) as url:
        async with Client(url) as first, Client(url) as second, Client(url, mode="legacy") as third:
            assert first.protocol_version in types.version.HANDSHAKE_PROTOCOL_VERSIONS  # steered to sessions
            await first.call_tool("create_issue", {"repo": "acme/api", "title": "First's issue"})
            assert "First's issue" in _text(await first.call_tool("list_issues", {"repo": "acme/api"}))
            for other in (second, third):
                assert "First's issue" not in _text(
                    await other.call_tool("list_issues", {"repo": "acme/api"})
                )
            results = await _many(second, 10)
            assert all(not r.is_error for r in results)
    assert fake.sessions.opened == 3


async def _many(client: Client, n: int) -> list[types.CallToolResult]:
    out: list[types.CallToolResult] = []

    async def one(i: int) -> None:
        out.append(await client.call_tool("create_issue", {"repo": "acme/api", "title": f"t{i}"}))

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return out


async def test_http_with_a_token() -> None:
    fake = _fake()
    with _http(fake, token="s3cret") as url:
        async with _authorized_client(url, "s3cret") as client:
            result = await client.call_tool("create_issue", {"repo": "acme/api", "title": "Authorized"})
            assert not result.is_error and result.structured_content["title"] == "Authorized"
        async with httpx2.AsyncClient(timeout=30) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            missing = await http.post(url, json=body)
            wrong = await http.post(url, json=body, headers={"Authorization": "Bearer guess"})
        assert missing.status_code == 401 and wrong.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        with pytest.raises(Exception) as refused:
            async with Client(url) as client:
                await client.list_tools()
        assert "MCPError" in repr(refused.value)
    assert fake.sessions.opened == 1


# -- the example ------------------------------------------------------------------------------------


async def test_example_agent_runs_offline() -> None:
    import importlib.util

    from agentworld_plugins.adapters.mcp_catalog import pack_catalog

    path = Path(__file__).resolve().parents[2] / "examples" / "mcp" / "agent.py"
    spec = importlib.util.spec_from_file_location("mcp_example_agent", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    world = World(backend="offline")
    fake = FakeMcpServer(world, pack_catalog("github-issues", world.pm.registry))
    async with Client(fake.server, mode="legacy") as client:
        log = await module.triage(client)
    assert "ERROR Error calling tool 'create_issue': 2 validation errors" in log[2]
    assert log[-1].strip() == "structuredContent validated; issue #1 is now closed"
