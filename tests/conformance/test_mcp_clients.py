"""Real MCP clients against ``agentworld mcp serve``: the MCP SDK client over stdio and HTTP, a
config snippet from ``agentworld mcp config`` started from another directory (as Claude Desktop
and Cursor start it), ``--mirror`` of a server that offers a tool only to clients with the
``roots`` capability, and the MCP Inspector CLI from npm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from agentworld_plugins.adapters.mcp_catalog import Catalog
from agentworld_plugins.adapters.mcp_server import FakeMcpServer
from click.testing import CliRunner
from conformance_support import TOOLS, cache_dir, clean_env, served
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agentworld_plugins import World
from agentworld_plugins.cli import cli

AGENTWORLD = [sys.executable, "-m", "agentworld_plugins"]

# a real server that offers ``get_roots_list`` only to a client declaring ``roots``, as
# @modelcontextprotocol/server-everything does
ROOTS_SERVER = """
import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    tools = [types.Tool(name="echo", description="Echo.", input_schema={"type": "object"})]
    if ctx.session.check_client_capability(types.ClientCapabilities(roots=types.RootsCapability())):
        tools.append(types.Tool(name="get_roots_list", description="The client's roots.",
                                input_schema={"type": "object"}))
    return types.ListToolsResult(tools=tools)

async def call_tool(ctx, params):
    raise RuntimeError("never called")

server = Server("roots-demo", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def _config(*args: str, cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, ["mcp", "config", *args])
    finally:
        os.chdir(old)
    return result


async def test_sdk_client_over_stdio_with_a_config_made_elsewhere(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "client-home"
    project.mkdir()
    elsewhere.mkdir()
    (project / "tools.json").write_text(json.dumps(TOOLS))
    made = _config(
        "--name", "tickets", "--command", sys.executable, "--",
        "--tools", "tools.json", "--record", "runs.jsonl", "--backend", "offline",
        cwd=project,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    entry = json.loads(made.stdout)["mcpServers"]["tickets"]
    args = entry["args"]
    assert args[args.index("--tools") + 1] == str(project / "tools.json")
    # the client starts the server from its own directory; -m stands in for the console script
    params = StdioServerParameters(
        command=entry["command"],
        args=["-m", "agentworld_plugins", *args],
        cwd=str(elsewhere),
        env=clean_env(),
    )
    async with Client(params) as client:
        listed = (await client.list_tools()).tools
        assert [t.name for t in listed] == ["create_ticket"]
        ok = await client.call_tool("create_ticket", {"title": "Printer on fire", "urgent": True})
        bad = await client.call_tool("create_ticket", {"urgent": True})
    assert not ok.is_error and ok.content
    assert bad.is_error and "title\n  Field required" in bad.content[0].text  # type: ignore[union-attr]
    assert (project / "runs.jsonl").read_text().strip()
    assert not (elsewhere / "runs.jsonl").exists()

    missing = _config("--name", "t", "--", "--tools", "nope.json", cwd=project)
    assert missing.exit_code != 0
    assert "nope.json" in missing.output and "no such file" in missing.output


async def test_sdk_client_over_http_with_a_lowercase_bearer_scheme() -> None:
    fake = FakeMcpServer(World(backend="offline"), Catalog.from_tools(TOOLS))
    with served(fake.http_app(token="s3cret")) as base:
        for scheme in ("Bearer", "bearer", "BEARER"):
            http = httpx2.AsyncClient(headers={"Authorization": f"{scheme} s3cret"}, timeout=30)
            async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["create_ticket"]
        refused = httpx2.post(f"{base}/mcp", headers={"Authorization": "bearer wrong"}, json={})
        assert refused.status_code == 401


def test_mirror_declares_roots(tmp_path: Path) -> None:
    server = tmp_path / "roots_server.py"
    server.write_text(ROOTS_SERVER)
    listed = subprocess.run(
        [
            *AGENTWORLD,
            "mcp",
            "serve",
            "--backend",
            "offline",
            "--list",
            "--mirror",
            "--",
            sys.executable,
            str(server),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert "get_roots_list" in listed.stdout and "echo" in listed.stdout


# -- the MCP Inspector CLI (npm) ---------------------------------------------------------------------


def _inspect(inspector: list[str], *args: str) -> Any:
    done = subprocess.run(
        [*inspector, *args], capture_output=True, text=True, env=clean_env(), timeout=180, cwd=cache_dir()
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_inspector_cli_lists_and_calls_over_stdio_and_http(inspector: list[str], tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    stdio = [*AGENTWORLD, "mcp", "serve", "--backend", "offline", "--tools", str(tools)]
    listed = _inspect(inspector, *stdio, "--method", "tools/list")
    assert [t["name"] for t in listed["tools"]] == ["create_ticket"]
    called = _inspect(
        inspector,
        *stdio,
        "--method",
        "tools/call",
        "--tool-name",
        "create_ticket",
        "--tool-arg",
        "title=Fire",
    )
    assert called["content"] and not called.get("isError")
    fake = FakeMcpServer(World(backend="offline"), Catalog.from_tools(TOOLS))
    with served(fake.http_app(token="s3cret")) as base:
        over_http = _inspect(
            inspector, f"{base}/mcp", "--transport", "http", "--header", "Authorization: Bearer s3cret",
            "--method", "tools/list",
        )  # fmt: skip
    assert [t["name"] for t in over_http["tools"]] == ["create_ticket"]


def test_inspector_cli_calls_share_a_named_world(inspector: list[str], tmp_path: Path) -> None:
    """Every Inspector CLI call is a new process and connection: the world must outlive them."""
    home = ["-e", f"AGENTWORLD_HOME={tmp_path / 'home'}"]
    stdio = [
        *home,
        *AGENTWORLD,
        "mcp",
        "serve",
        "--backend",
        "offline",
        "--pack",
        "filesystem",
        "--world",
        "insp",
    ]
    wrote = _inspect(
        inspector, *stdio, "--method", "tools/call", "--tool-name", "write_file",
        "--tool-arg", "path=/app/seen.txt", "--tool-arg", "content=written by call one",
    )  # fmt: skip
    assert not wrote.get("isError"), wrote
    read = _inspect(
        inspector, *stdio, "--method", "tools/call", "--tool-name", "read_text_file",
        "--tool-arg", "path=/app/seen.txt",
    )  # fmt: skip
    assert read["content"][0]["text"] == "written by call one"
