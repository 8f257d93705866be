"""``agentworld mcp record``: a transparent proxy in front of a real MCP server (an MCPServer written
here, run as a subprocess) that records the real answers; ``bench convert`` and ``bench run`` then
score a world model on those tools."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from agentworld_plugins.bench.data import load_dataset
from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer

REAL_SERVER = """
from pydantic import BaseModel
from mcp.server import MCPServer

app = MCPServer("real-notes", instructions="Notes kept by the real server.")
NOTES = []


class Note(BaseModel):
    id: int
    title: str


@app.tool(description="Add a note and return it.")
def add_note(title: str) -> Note:
    NOTES.append(title)
    return Note(id=len(NOTES), title=title)


@app.tool(description="List the note titles.")
def list_notes() -> str:
    return "\\n".join(f"{i}. {t}" for i, t in enumerate(NOTES, 1)) or "(no notes)"


@app.tool(description="Delete a note.")
def delete_note(note_id: int) -> str:
    if not 1 <= note_id <= len(NOTES):
        raise ValueError(f"no note {note_id}")
    return f"deleted {NOTES.pop(note_id - 1)}"


@app.resource("notes://count", description="How many notes")
def count() -> str:
    return str(len(NOTES))


if __name__ == "__main__":
    app.run()
"""

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add_note", {"title": "buy milk"}),
    ("add_note", {"title": "call Ann"}),
    ("list_notes", {}),
    ("delete_note", {"note_id": 7}),
    ("delete_note", {"note_id": 1}),
    ("list_notes", {}),
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


def _dump(result: Any) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def _session(params: StdioServerParameters) -> tuple[list[dict[str, Any]], str, Any]:
    async with Client(params) as client:
        results = [_dump(await client.call_tool(name, args)) for name, args in CALLS]
        resource = await client.read_resource("notes://count")
        tools = _dump(await client.list_tools())
        return results, resource.contents[0].text, tools


def test_record_forwards_real_answers_and_makes_a_benchmark(tmp_path: Path) -> None:
    server = tmp_path / "real_server.py"
    server.write_text(REAL_SERVER)
    direct = anyio.run(_session, StdioServerParameters(command=sys.executable, args=[str(server)]))
    calls = tmp_path / "calls.jsonl"
    args = ["-m", "agentworld_plugins", "mcp", "record", "--output", str(calls), "--session-id", "s1"]
    proxied = anyio.run(
        _session,
        StdioServerParameters(command=sys.executable, args=[*args, "--", sys.executable, str(server)]),
    )
    assert proxied == direct  # transparent: the agent sees exactly what the real server answers
    results = direct[0]
    assert results[3]["isError"] is True and "delete_note" in results[3]["content"][0]["text"]

    lines = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [line["turn_idx"] for line in lines] == list(range(1, len(CALLS) + 1))
    last = lines[-1]
    assert last["task"] == "mcp" and last["id"] == "s1"
    assert last["response"] == [r["content"][0]["text"] for r in results]
    assert [line["is_error"] for line in lines] == [r.get("isError", False) for r in results]
    assert '"add_note"' in last["system_str"] and '"tool_name": "delete_note"' in last["prompt"][3]

    runner = CliRunner()
    result = runner.invoke(cli, ["bench", "convert", str(calls), "--output-dir", str(tmp_path / "mine")])
    assert result.exit_code == 0, result.output
    records = load_dataset(tmp_path / "mine").records
    assert len(records) == len(CALLS) and records[2]["response"][2] == "1. buy milk\n2. call Ann"

    verdict = '<final_evaluation>\n{"strengths": [], "weaknesses": [], "scores": {"format": 4, "factuality": 3, "consistency": 4, "realism": 4, "quality": 3}}\n</final_evaluation>'
    with FakeWorldModelServer(model="judge", responder=lambda body: verdict) as judge:
        args = ["bench", "run", "--data-dir", str(tmp_path / "mine"), "--output-dir", str(tmp_path / "out")]
        args += [
            "--backend",
            "offline",
            "--judge-base-url",
            judge.url,
            "--judge-model",
            "judge",
            "--no-progress",
        ]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert len(judge.chat_requests) == len(CALLS)
    assert f"{len(CALLS)}/{len(CALLS)}" in result.output


def test_record_names_a_server_that_does_not_start(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "mcp",
            "record",
            "--output",
            str(tmp_path / "c.jsonl"),
            "--timeout",
            "20",
            "--",
            "no-such-command-xyz",
        ],
    )
    assert result.exit_code != 0 and "no-such-command-xyz" in result.output
