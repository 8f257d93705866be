"""langchain-mcp-adapters' ``MultiServerMCPClient`` against ``agentworld mcp serve`` (stdio and
streamable HTTP). It pins mcp 1.x while we use mcp 2.x, so it runs in a throwaway virtualenv that
the test builds once per version under the conformance cache."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from agentworld_plugins.adapters.mcp_catalog import Catalog
from agentworld_plugins.adapters.mcp_server import FakeMcpServer
from conformance_support import LANGCHAIN_AGENT, TOOLS, clean_env, run_json, served, throwaway_python

from agentworld_plugins import World

# the user's code, run by the throwaway environment's Python
CLIENT = textwrap.dedent(
    """
    import asyncio, json, sys
    from langchain_mcp_adapters.client import MultiServerMCPClient

    async def main():
        connections = json.loads(sys.argv[1])
        client = MultiServerMCPClient(connections)
        out = {}
        for name in connections:
            tools = await client.get_tools(server_name=name)
            by_name = {t.name: t for t in tools}
            text = await by_name["create_ticket"].ainvoke({"title": "Printer on fire", "urgent": True})
            out[name] = {"tools": sorted(by_name), "schema": by_name["create_ticket"].args_schema,
                         "result": str(text)}
        print(json.dumps(out))

    asyncio.run(main())
    """
)


@pytest.fixture(scope="module")
def adapters_python() -> str:
    return throwaway_python(*LANGCHAIN_AGENT)


def test_multi_server_client_lists_and_calls_over_stdio_and_http(
    adapters_python: str, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    fake = FakeMcpServer(World(backend="offline"), Catalog.from_tools(TOOLS))
    with served(fake.http_app(token="s3cret")) as base:
        connections = {
            "local": {
                "transport": "stdio",
                "command": sys.executable,
                "args": [
                    "-m",
                    "agentworld_plugins",
                    "mcp",
                    "serve",
                    "--backend",
                    "offline",
                    "--tools",
                    str(tools),
                ],
                "env": clean_env(),
            },
            "remote": {
                "transport": "streamable_http",
                "url": f"{base}/mcp",
                "headers": {"Authorization": "Bearer s3cret"},
            },
        }
        out = run_json([adapters_python, "-c", CLIENT, json.dumps(connections)])
    for name in ("local", "remote"):
        assert out[name]["tools"] == ["create_ticket"]
        assert out[name]["schema"]["required"] == ["title"]
        assert out[name]["result"].strip()


# each get_tools() tool opens a new MCP session (over stdio: a new server process) per call
SESSION_PER_CALL = textwrap.dedent(
    """
    import asyncio, json, sys
    from langchain_mcp_adapters.client import MultiServerMCPClient

    async def main():
        client = MultiServerMCPClient(json.loads(sys.argv[1]))
        tools = {t.name: t for t in await client.get_tools()}
        out = []
        for name, args in json.loads(sys.argv[2]):
            out.append(str(await tools[name].ainvoke(args)))
        print(json.dumps(out))

    asyncio.run(main())
    """
)


def test_default_get_tools_sees_earlier_writes_in_a_named_world(adapters_python: str, tmp_path: Path) -> None:
    from agentworld_plugins.harness import WorldHarness

    with WorldHarness(tmp_path, name="lc") as harness:
        connections = {"files": harness.mcp_stdio(pack="filesystem", name="files").langchain()}
        calls = [
            ["write_file", {"path": "/app/todo.md", "content": "- ship it\n"}],
            ["edit_file", {"path": "/app/todo.md", "edits": [{"oldText": "ship", "newText": "test"}]}],
            ["read_text_file", {"path": "/app/todo.md"}],
            ["list_directory", {"path": "/app"}],
        ]
        out = run_json([adapters_python, "-c", SESSION_PER_CALL, json.dumps(connections), json.dumps(calls)])
        assert "- test it" in out[2] and "[FILE] todo.md" in out[3]
        assert [c.tool for c in harness.calls()] == [c[0] for c in calls]  # four processes, one world
