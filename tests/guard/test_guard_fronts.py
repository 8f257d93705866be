"""The guard in the fronts that keep records: rollouts (a ``guard`` column, the ``consistent``
reward, ``rollout filter``), trajectory records and ``agentworld report``, the shell CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.cli import cli
from agentworld_plugins.perturbations.report import read_jsonl, scorecard

TASK = {
    "id": "greeting-file",
    "domain": "terminal",
    "instruction": "Create /app/hello.txt containing the line 'hello world'.",
    "initial_state": "root@box:/app# ",
    "max_turns": 3,
    "seed": 2,
    "reward": [
        {"type": "file_contains", "path": "/app/hello.txt", "text": "hello world"},
        {"type": "consistent"},
    ],
}


@pytest.fixture(autouse=True)
def _no_guard_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTWORLD_GUARD", "")  # --guard sets it for the command: restored after


def _run(tmp_path: Path, out: Path, *extra: str) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(TASK) + "\n")
    args = [
        "rollout",
        "run",
        "--tasks",
        str(tasks),
        "--agent",
        "scripted:bundled",
        "-o",
        str(out),
        "--no-progress",
    ]
    result = CliRunner().invoke(cli, [*args, *extra])
    assert result.exit_code == 0, result.output


def test_a_rollout_records_guard_counts_rewards_and_filters_by_them(tmp_path: Path) -> None:
    drifting, steady = tmp_path / "drift.jsonl", tmp_path / "steady.jsonl"
    _run(tmp_path, drifting, "--backend", "drift:1.0", "--guard", "flag")
    _run(tmp_path, steady, "--backend", "offline", "--guard", "flag")
    bad, good = (json.loads(p.read_text().splitlines()[0]) for p in (drifting, steady))
    assert bad["guard"]["contradicted"] >= 1 and bad["guard"]["flagged"] >= 1
    assert good["guard"]["contradicted"] == 0 and good["guard"]["checked"] >= 1
    rewards = {line["reward_breakdown"][1]["type"]: line["reward_breakdown"][1]["score"] for line in (bad,)}
    assert rewards == {"consistent": 0.0}
    assert good["reward_breakdown"][1]["score"] == 1.0
    both = tmp_path / "both.jsonl"
    both.write_text(drifting.read_text() + steady.read_text())
    kept = tmp_path / "kept.jsonl"
    result = CliRunner().invoke(cli, ["rollout", "filter", str(both), "-o", str(kept)])
    assert result.exit_code == 0, result.output
    assert "kept 1, left out 1" in result.output
    assert json.loads(kept.read_text())["guard"]["contradicted"] == 0


def test_trajectory_records_carry_guard_events_and_report_counts_them(tmp_path: Path) -> None:
    world = World(backend="guarded:flag:drift:1.0")
    session = world.session("mcp", tools=world.pm.registry.tool_pack("filesystem"))
    session.step({"tool_name": "write_file", "arguments": {"path": "/app/r.txt", "content": "a\nb\n"}})
    session.step({"tool_name": "read_text_file", "arguments": {"path": "/app/r.txt"}})
    path = session.trajectory.to_jsonl(tmp_path / "run.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[1]["guard"]["contradictions"][0]["subject"] == "/app/r.txt"
    card = scorecard(read_jsonl(path))
    assert card.guard["contradicted"] == 1 and card.guard["kind:content"] == 1
    shown = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "report", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        "Consistency guard: 1 step(s) checked, 1 contradicted (flagged 1); by kind: content 1" in shown.stdout
    )


def test_the_shell_cli_takes_guard(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path)}
    args = ["shell", "--world", "g", "--backend", "drift:1.0", "--guard", "repair", "-c"]
    wrote = CliRunner().invoke(cli, [*args, "printf 'one\\ntwo\\n' > /app/g.txt"], env=env)
    assert wrote.exit_code == 0, wrote.output
    read = CliRunner().invoke(cli, [*args, "cat /app/g.txt"], env=env)
    assert read.exit_code == 0, read.output
    assert read.output == "one\ntwo\n"


def _bash(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_through_the_bash_shim_a_model_that_forgets_is_repaired(tmp_path: Path) -> None:
    """The PATH shim on a model that contradicts every read: what the agent wrote reads back, a
    removed file stays removed in ``ls``."""
    from agentworld_plugins.harness import WorldHarness

    with WorldHarness(tmp_path, name="shim", backend="guarded:repair:drift:1.0") as harness:
        env = harness.shell_env()
        assert _bash(env, "printf 'alpha\\nbeta\\ngamma\\n' > /app/list.txt").returncode == 0
        assert _bash(env, "echo gone > /app/old.txt").returncode == 0
        assert _bash(env, "cat /app/list.txt").stdout == "alpha\nbeta\ngamma\n"
        assert _bash(env, "rm /app/old.txt").returncode == 0
        listing = _bash(env, "ls /app").stdout.split()
        assert "list.txt" in listing and "old.txt" not in listing
        assert _bash(env, "wc -l /app/list.txt").stdout == "3 /app/list.txt\n"
        events = [c.metadata.get("guard") for c in harness.view().calls]
    outcomes = [e["outcome"] for e in events if isinstance(e, dict) and e.get("contradictions")]
    assert outcomes and set(outcomes) <= {"repaired", "substituted"}


def test_sql_and_issues_through_a_real_mcp_client(tmp_path: Path) -> None:
    import asyncio

    from mcp import Client, types

    from agentworld_plugins.harness import WorldHarness

    def text(result: types.CallToolResult) -> str:
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text

    with WorldHarness(tmp_path, name="mcp", backend="guarded:repair:drift:1.0") as harness:
        sql = harness.mcp_stdio(pack="sql-database", name="db")
        issues = harness.mcp_stdio(pack="github-issues", name="gh")

        async def run() -> tuple[str, str, str]:
            async with Client(sql.sdk()) as client:
                await client.call_tool(
                    "create_table", {"query": "CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT)"}
                )
                await client.call_tool(
                    "write_query", {"query": "INSERT INTO pets (name) VALUES ('rex'), ('tom'), ('kit')"}
                )
                await client.call_tool("write_query", {"query": "DELETE FROM pets WHERE name = 'tom'"})
                rows = text(
                    await client.call_tool("read_query", {"query": "SELECT name FROM pets ORDER BY id"})
                )
            async with Client(issues.sdk()) as client:
                repo = {"owner": "acme", "repo": "web"}
                made = json.loads(
                    text(await client.call_tool("create_issue", {**repo, "title": "Login fails"}))
                )
                number = made.get("number", made.get("id"))
                await client.call_tool("update_issue", {**repo, "issue_number": number, "state": "closed"})
                got = text(await client.call_tool("get_issue", {**repo, "issue_number": number}))
                listed = text(await client.call_tool("list_issues", {**repo, "state": "all"}))
            return rows, got, listed

        rows, got, listed = asyncio.run(run())
    names = [r[0] if isinstance(r, list) else r["name"] for r in json.loads(rows)["rows"]]
    assert names == ["rex", "kit"]
    issue = json.loads(got)
    assert issue["title"] == "Login fails" and issue["state"] == "closed"
    shown = json.loads(listed)
    items = shown if isinstance(shown, list) else next(v for v in shown.values() if isinstance(v, list))
    ids = [i.get("number", i.get("id")) for i in items]
    assert len(ids) == len(set(ids)) and issue.get("number", issue.get("id")) in ids


def test_serve_answers_a_conversation_with_what_the_guard_found(tmp_path: Path) -> None:
    """``agentworld serve --guard repair`` in front of a model that forgets: the OpenAI client
    gets the file as written, and the response says what the guard did."""
    import os

    import httpx

    from agentworld_plugins.testing import serve_process
    from agentworld_plugins.turns import build_messages

    played = World(backend="offline").make_session("mcp", tools=World().pm.registry.tool_pack("filesystem"))
    played.step({"tool_name": "write_file", "arguments": {"path": "/app/s.txt", "content": "x\ny\nz\n"}})
    played.step({"tool_name": "read_text_file", "arguments": {"path": "/app/s.txt"}})
    first, second = played.trajectory.turns
    messages = build_messages(played.system_prompt, [(first.prompt, first.observation.text)], second.prompt)
    env = {**os.environ, "AGENTWORLD_HOME": str(tmp_path)}
    env.pop("AGENTWORLD_GUARD", None)
    with serve_process("--backend", "drift:1.0", "--guard", "repair", env=env) as url:
        body = {"model": "agentworld", "messages": messages}
        answer = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60).json()
    assert "guard" in answer, answer
    assert answer["guard"]["outcome"] == "substituted"
    assert answer["guard"]["contradictions"][0]["subject"] == "/app/s.txt"
    assert "x\ny\nz\n" in answer["choices"][0]["message"]["content"]
