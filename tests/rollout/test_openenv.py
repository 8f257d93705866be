"""``agentworld openenv serve`` (a real subprocess on 127.0.0.1) driven by OpenEnv's own client:
reset, step, state over WebSocket sessions, the reward at the end, isolated concurrent sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentworld_plugins.testing import cli_process

openenv = pytest.importorskip("openenv", reason="the rl extra (openenv-core) is not installed")


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    tasks = Path(__file__).resolve().parents[2] / "agentworld_plugins" / "rollout" / "data" / "tasks.jsonl"
    with cli_process("openenv", "serve", "--tasks", str(tasks), "--backend", "offline") as url:
        yield url


def test_an_openenv_client_resets_steps_and_is_rewarded(server_url: str) -> None:
    with openenv.GenericEnvClient(base_url=server_url).sync() as env:
        first = env.reset(task_id="issue-bug", seed=0)
        assert "Crash on start" in first.observation["instruction"]
        assert "create_issue" in {t["function"]["name"] for t in first.observation["tools"]}
        step = env.step(
            {
                "tool_name": "create_issue",
                "arguments": {"owner": "a", "repo": "b", "title": "Crash on start", "labels": ["bug"]},
            }
        )
        assert '"number": 1' in step.observation["text"] and not step.done
        bad = env.step({"tool_name": "create_issue", "arguments": {"owner": "a"}})
        assert bad.observation["is_error"]
        state = env.state()
        assert state["task_id"] == "issue-bug" and state["step_count"] == 2
        end = env.step({"answer": "Opened #1"})
        assert end.done and end.reward == 1.0
        assert [b["score"] for b in end.observation["reward_breakdown"]] == [1.0, 1.0, 1.0]


def test_sessions_are_isolated_and_end_after_max_turns(server_url: str) -> None:
    with (
        openenv.GenericEnvClient(base_url=server_url).sync() as a,
        openenv.GenericEnvClient(base_url=server_url).sync() as b,
    ):
        a.reset(task_id="greeting-file")
        b.reset(task_id="greeting-file")
        a.step({"action": [{"keystrokes": "echo 'hello world' > /app/hello.txt\n", "duration": 0.1}]})
        seen = b.step({"action": [{"keystrokes": "cat /app/hello.txt\n", "duration": 0.1}]})
        assert "No such file" in seen.observation["text"]
        a.step({"action": [{"keystrokes": "true\n", "duration": 0.1}]})
        last = a.step({"action": [{"keystrokes": "true\n", "duration": 0.1}]})  # max_turns is 3
        assert last.done and last.reward == 1.0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--domain", "chess"], "field 'domain': unknown domain 'chess'"),
        (["--domain", "mcp"], "field 'tools': tasks in the mcp domain need 'tools' or 'tool_pack'"),
        (["--tool-pack", "nope"], "Unknown tool pack 'nope'"),
        (
            ["--domain", "terminal", "--tool-pack", "github-issues"],
            "field 'tools': the terminal domain takes no tools",
        ),
        (["--tool-pack", "github-issues", "--max-turns", "0"], "Invalid value for '--max-turns'"),
    ],
)
def test_bad_arguments_stop_serve_with_one_clear_error(args: list[str], needle: str) -> None:
    """Checked before anything is served: one error line (no traceback), exit 1 (2 for usage)."""
    from click.testing import CliRunner

    from agentworld_plugins.cli import cli

    command = ["openenv", "serve", "--backend", "offline", "--port", "0", *args]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit), result.output
    assert needle in result.output and "Traceback" not in result.output


def test_http_steps_play_the_episode_the_client_reset(server_url: str) -> None:
    """OpenEnv's HTTP routes build a fresh environment per request: /step continues the episode
    named by the episode_id /reset answered with, even with another episode reset in between, and
    a /step naming none is refused with the fix instead of playing the next task of the rotation."""
    import httpx

    with httpx.Client(base_url=server_url, timeout=30) as http:
        bare = http.post("/step", json={"action": {"answer": "done"}})
        assert bare.status_code == 400
        assert "episode_id" in bare.json()["detail"] and "WebSocket" in bare.json()["detail"]
        reset = http.post("/reset", json={"task_id": "issue-bug", "seed": 0}).json()
        episode = reset["observation"]["episode_id"]
        assert episode and "Crash on start" in reset["observation"]["instruction"]
        other = http.post("/reset", json={"task_id": "greeting-file"}).json()["observation"]["episode_id"]
        assert other != episode
        call = {
            "tool_name": "create_issue",
            "arguments": {"owner": "a", "repo": "b", "title": "Crash on start"},
        }
        call["arguments"]["labels"] = ["bug"]
        step = http.post("/step", json={"action": call, "episode_id": episode}).json()
        assert '"number": 1' in step["observation"]["text"] and not step["done"]
        assert step["observation"]["turn"] == 1
        end = http.post("/step", json={"action": {"answer": "Opened #1"}, "episode_id": episode}).json()
        assert end["done"] and end["reward"] == 1.0
        assert [b["score"] for b in end["observation"]["reward_breakdown"]] == [1.0, 1.0, 1.0]
        over = http.post("/step", json={"action": {"answer": "again"}, "episode_id": episode})
        assert over.status_code == 400 and "POST /reset" in over.json()["detail"]
        shell = {"action": [{"keystrokes": "echo 'hello world' > /app/hello.txt\n", "duration": 0.1}]}
        played = http.post("/step", json={"action": shell, "episode_id": other}).json()
        assert not played["done"] and played["observation"]["turn"] == 1
        unknown = http.post("/step", json={"action": shell, "episode_id": "nope"})
        assert unknown.status_code == 400 and "No episode 'nope'" in unknown.json()["detail"]
