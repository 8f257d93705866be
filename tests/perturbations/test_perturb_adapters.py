"""Adapters honour perturbations because they live in the session: the MCP server, LangChain tools."""

from __future__ import annotations

from typing import Any

import mcp_types as types
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
