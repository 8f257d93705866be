"""``examples/simrl/run.py`` runs offline with one command and writes scored episodes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "simrl" / "run.py"


def test_the_example_runs_offline(tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--output", str(out), "--group-size", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 6 and all("reward" in line for line in lines)
    assert "issue-bug" in done.stdout and "pass@2 1.00" in done.stdout
    assert out.with_suffix(".png").exists()


def test_the_example_plays_against_two_endpoints(tmp_path: Path) -> None:
    """With two URLs (here fake servers on 127.0.0.1: an agent that calls tools, a world model that
    answers) the example plays through both, into its own file (not the offline run's)."""
    from agentworld_plugins.fake_server import FakeWorldModelServer

    def agent(body: dict) -> object:
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        if any(m["role"] == "assistant" for m in body["messages"]):
            return "done" if tools else "<answer>done</answer>"
        if "create_issue" in tools:
            arguments = {"owner": "acme", "repo": "api", "title": "Crash on start", "labels": ["bug"]}
        elif "write_file" in tools:
            arguments = {"file_path": "/app/TODO.md", "content": "- ship it\n"}
        else:
            return '```\n[{"keystrokes": "echo \'hello world\' > /app/hello.txt\\n", "duration": 0.1}]\n```'
        name = "create_issue" if "create_issue" in tools else "write_file"
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return {"content": "", "tool_calls": [call]}

    with (
        FakeWorldModelServer(model="policy", responder=agent) as agent_server,
        FakeWorldModelServer(model="world") as world_server,
    ):
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), "--agent-base-url", agent_server.url,
             "--world-base-url", world_server.url, "--group-size", "1"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        world_calls = len(world_server.chat_requests)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (tmp_path / "simrl-episodes-live.jsonl").read_text().splitlines()]
    assert not (tmp_path / "simrl-episodes.jsonl").exists()
    assert [line["rollout"]["status"] for line in lines] == ["ok"] * 3
    assert all(line["agent"].endswith("model=policy)") and "openai(" in line["world"] for line in lines)
    assert world_calls == 3  # one world step per task, answered by the world model's server
    assert {line["task_id"]: line["reward"] for line in lines}["notes-swe"] == 1.0  # state replayed offline
