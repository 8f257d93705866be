"""Mirroring a real MCP server (an MCPServer written here) and round-tripping its snapshot."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from agentworld_plugins.adapters.mcp_catalog import Catalog, load_catalog
from agentworld_plugins.adapters.mcp_mirror import MirrorError, mirror_command
from agentworld_plugins.adapters.mcp_server import FakeMcpServer
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from agentworld_plugins import World
from agentworld_plugins.cli import cli

REAL_SERVER = """
from pydantic import BaseModel
from mcp.server import MCPServer

app = MCPServer("real-notes", instructions="Notes kept by the real server.")


class Note(BaseModel):
    id: int
    title: str
    body: str


@app.tool(description="Add a note and return it.")
def add_note(title: str, body: str = "") -> Note:
    raise RuntimeError("the real server must never be called")


@app.tool(description="Search notes by text.")
def search_notes(query: str, limit: int = 10) -> str:
    raise RuntimeError("the real server must never be called")


@app.tool(description="Delete a note.")
def delete_note(note_id: int) -> str:
    raise RuntimeError("the real server must never be called")


@app.resource("notes://all", description="All notes")
def all_notes() -> str:
    return "[]"


@app.prompt(description="Summarise the notes")
def summarise(style: str = "short") -> str:
    return f"Summarise the notes, {style}."


if __name__ == "__main__":
    app.run()
"""


def _wire(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]


@pytest.fixture
def real_server(tmp_path: Path) -> Path:
    path = tmp_path / "real_server.py"
    path.write_text(REAL_SERVER)
    return path


async def _listing(server: Any) -> dict[str, Any]:
    async with Client(server, mode="legacy") as client:
        return {
            "info": client.server_info.name if client.server_info else None,
            "instructions": client.instructions,
            "tools": _wire((await client.list_tools()).tools),
            "resources": _wire((await client.list_resources()).resources),
            "prompts": _wire((await client.list_prompts()).prompts),
        }


async def _real_listing(path: Path) -> dict[str, Any]:
    """What the real server lists, asked in-process (its tools are never called)."""
    spec = importlib.util.spec_from_file_location("real_notes_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return await _listing(module.app)


async def test_the_drop_in_replacement_mirrors_and_answers(real_server: Path, tmp_path: Path) -> None:
    """What a user's config does: ``agentworld mcp serve --mirror -- <the real server's command>``."""
    snapshot = tmp_path / "notes.json"
    args = ["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline"]
    args += ["--save-snapshot", str(snapshot), "--mirror", "--", sys.executable, str(real_server)]
    real = await _real_listing(real_server)
    assert len(real["tools"]) == 3 and "outputSchema" in real["tools"][0]

    async with Client(StdioServerParameters(command=sys.executable, args=args)) as client:
        assert client.server_info is not None and client.server_info.name == "real-notes"
        assert client.instructions == real["instructions"]
        assert _wire((await client.list_tools()).tools) == real["tools"]
        assert _wire((await client.list_resources()).resources) == real["resources"]
        assert _wire((await client.list_prompts()).prompts) == real["prompts"]
        added = await client.call_tool("add_note", {"title": "Milk", "body": "2 litres"})
        found = await client.call_tool("search_notes", {"query": "Milk"})
        bad = await client.call_tool("delete_note", {"note_id": "first"})
    assert not added.is_error
    jsonschema.validate(added.structured_content, real["tools"][0]["outputSchema"])
    assert added.structured_content["title"] == "Milk"
    assert not found.is_error
    assert bad.is_error and bad.content[0].text.startswith(  # type: ignore[union-attr]
        "Error executing tool delete_note: 1 validation error for delete_noteArguments\nnote_id\n"
    )  # what the real MCPServer answers (its argument model is named after the function)

    # the snapshot round-trips: loaded again it lists exactly what the real server listed
    saved = json.loads(snapshot.read_text())
    assert saved["source"].endswith("real_server.py") and saved["server"]["name"] == "real-notes"
    catalog = load_catalog(snapshot)
    again = tmp_path / "again.json"
    catalog.save_snapshot(again)
    assert {k: v for k, v in json.loads(again.read_text()).items() if k != "captured_at"} == {
        k: v for k, v in saved.items() if k != "captured_at"
    }
    fake = FakeMcpServer(World(backend="offline"), catalog)
    assert await _listing(fake.server) == real


def test_a_snapshot_is_also_a_tools_file(tmp_path: Path) -> None:
    tools = [
        {"name": n, "inputSchema": {"type": "object"}} for n in ("add_note", "search_notes", "delete_note")
    ]
    catalog = Catalog.from_tools(tools, "mirrored", server_name="real-notes")
    path = catalog.save_snapshot(tmp_path / "snap.json")
    runner = CliRunner()
    result = runner.invoke(cli, ["mcp", "serve", "--tools", str(path), "--list"])
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == [
        "add_note",
        "search_notes",
        "delete_note",
    ]
    from agentworld_plugins.tooldefs import load_tools

    assert [t["name"] for t in load_tools(path)] == ["add_note", "search_notes", "delete_note"]


async def test_a_target_that_fails_to_start_gives_one_line_with_its_stderr() -> None:
    crash = "import sys; print('starting', file=sys.stderr); print('GITHUB_TOKEN is not set', file=sys.stderr); sys.exit(3)"
    with pytest.raises(MirrorError) as info:
        await mirror_command([sys.executable, "-c", crash], timeout=60)
    message = info.value.message
    assert "\n" not in message
    assert message.startswith("Mirror target `") and "failed to start" in message
    assert message.endswith("stderr: starting | GITHUB_TOKEN is not set")


async def test_a_missing_command_and_a_silent_hang() -> None:
    with pytest.raises(MirrorError, match=r"command not found \(no-such-mcp-server-xyz\)"):
        await mirror_command(["no-such-mcp-server-xyz", "--stdio"])
    with pytest.raises(MirrorError, match="no answer to the MCP handshake in time; it wrote nothing"):
        await mirror_command([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)


def test_cli_reports_a_failed_mirror_in_one_line() -> None:
    code = "import sys; sys.stderr.write('listen EADDRINUSE\\n'); sys.exit(1)"
    result = CliRunner().invoke(cli, ["mcp", "serve", "--mirror", "--", sys.executable, "-c", code])
    assert result.exit_code == 1
    error = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and error[0].endswith("stderr: listen EADDRINUSE")


def test_snapshot_identity_survives_merge() -> None:
    notes = Catalog.from_tools([{"name": "a"}], "one", server_name="notes", instructions="hi")
    other = Catalog.from_tools([{"name": "b"}], "two")
    merged = Catalog.merge([other, notes])
    assert [t.name for t in merged.tools] == ["b", "a"]
    assert merged.server_name == "notes" and merged.instructions == "hi"
    assert isinstance(merged.tools[0], types.Tool)
