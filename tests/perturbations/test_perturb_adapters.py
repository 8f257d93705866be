"""Adapters honour perturbations because they live in the session: the MCP server, LangChain tools."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from agentworld_plugins.adapters.langchain import simulate_tools
from agentworld_plugins.adapters.mcp_catalog import Catalog
from agentworld_plugins.adapters.mcp_server import FakeMcpServer
from langchain_core.tools import tool
from mcp import Client

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import Faults

TOOLS: list[dict[str, Any]] = [
    {"name": "create_note", "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}}},
    {"name": "list_notes", "inputSchema": {"type": "object", "properties": {}}},
]


async def test_the_fake_mcp_server_returns_injected_faults_as_is_error() -> None:
    backend = FakeBackend(lambda messages: "[]")
    world = World(backend=backend, perturbations=[Faults(kinds="rate_limit", tools="create_*")])
    fake = FakeMcpServer(world, Catalog.from_tools(TOOLS))
    async with Client(fake.server, mode="legacy") as client:
        created = await client.call_tool("create_note", {"title": "milk"})
        listed = await client.call_tool("list_notes", {})
    block = created.content[0]
    assert isinstance(block, types.TextContent)
    assert created.is_error and block.text.startswith(
        "Error executing tool create_note: 429 Too Many Requests"
    )
    assert not listed.is_error
    assert len(backend.history) == 1  # only list_notes reached the world model
    (conn,) = fake.sessions.all()
    assert conn.session.trajectory.turns[0].observation.metadata["perturbations"][0]["kind"] == "rate_limit"


def test_langchain_tools_raise_the_injected_fault_as_tool_errors() -> None:
    @tool
    def delete_file(path: str) -> str:
        """Delete a file."""
        raise AssertionError("the real tool must never run")

    world = World(backend=FakeBackend(lambda messages: "deleted"))
    (simulated,) = simulate_tools(
        [delete_file], world, perturbations=["faults:kinds=permission_denied,first=1"]
    )
    first = simulated.invoke({"path": "/etc/passwd"})
    second = simulated.invoke({"path": "/etc/passwd"})
    assert first == "Error executing tool delete_file: [Errno 13] Permission denied: '/etc/passwd'"
    assert second == "deleted"


ISSUE_TOOL: dict[str, Any] = {
    "name": "create_issue",
    "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    "outputSchema": {
        "type": "object",
        "properties": {"number": {"type": "integer"}, "title": {"type": "string"}},
        "required": ["number", "title"],
    },
}


async def _create_issue(world: World) -> tuple[types.CallToolResult, FakeMcpServer]:
    fake = FakeMcpServer(world, Catalog.from_tools([ISSUE_TOOL]))
    async with Client(fake.server, mode="legacy") as client:
        result = await client.call_tool("create_issue", {"title": "Login fails"})
    return result, fake


def _body(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("kind", ["truncated_output", "empty_result"])
async def test_output_faults_on_tools_with_an_output_schema_reach_the_agent_as_named_offline(
    kind: str,
) -> None:
    world = World(backend="offline", perturbations=[f"faults:kinds={kind},keep=0.5"])
    result, fake = await _create_issue(world)
    text = _body(result)
    assert result.is_error and result.structured_content is None
    assert "rejected" not in text and "**Note:**" not in text and "validation error" not in text
    if kind == "empty_result":
        assert text == "{}"
    else:
        assert text.startswith("{") and "Login fails" not in text  # cut short
    (turn,) = fake.sessions.all()[0].session.trajectory.turns
    assert turn.observation.is_error and turn.observation.text == text
    assert turn.observation.metadata["perturbations"][0]["kind"] == kind


@pytest.mark.parametrize("kind", ["truncated_output", "empty_result"])
async def test_output_faults_with_a_model_ask_it_once(kind: str, fake_world_server: Any) -> None:
    answer = json.dumps({"number": 12, "title": "Login fails", "labels": ["bug", "auth", "login"]})
    fake_world_server.enqueue(f"<predicted_observation>{answer}</predicted_observation>")
    world = World(base_url=fake_world_server.url, model="wm", perturbations=[f"faults:kinds={kind},keep=0.5"])
    result, _ = await _create_issue(world)
    assert len(fake_world_server.chat_requests) == 1  # never asked twice
    text = _body(result)
    assert result.is_error and "Output validation error" not in text
    if kind == "truncated_output":
        assert answer.startswith(text) and len(text) < len(answer)
    else:
        assert text == "{}"


async def test_the_output_schema_retry_is_not_a_step_of_the_schedule() -> None:
    """Every second call faulted (every=2): calls 2, 4 and 6, though every call's first answer
    misses a required field and the server asks the model once more."""
    answers = iter([])

    def responder(messages: list[dict[str, Any]]) -> str:
        return next(answers)

    good = json.dumps({"number": 1, "title": "Login fails"})
    answers = iter([json.dumps({"title": "no number"}), good] * 6)
    backend = FakeBackend(responder)
    world = World(backend=backend, perturbations=["faults:kinds=server_error,every=2"])
    fake = FakeMcpServer(world, Catalog.from_tools([ISSUE_TOOL]))
    async with Client(fake.server, mode="legacy") as client:
        results = [await client.call_tool("create_issue", {"title": "Login fails"}) for _ in range(6)]
    assert [n for n, r in enumerate(results, 1) if r.is_error] == [2, 4, 6]
    assert all(r.structured_content == {"number": 1, "title": "Login fails"} for r in results[::2])
    turns = fake.sessions.all()[0].session.trajectory.turns
    assert len(turns) == 6 and all("output_retry" in t.observation.metadata for t in turns[::2])
