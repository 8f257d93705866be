"""Rollouts end to end: the scripted agent on the offline world, rewards, the training file,
resume after a torn line and after a real SIGKILL (the same file as an uninterrupted run)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer, default_responder
from agentworld_plugins.rollout import RolloutSpec, load_tasks, rollout
from agentworld_plugins.testing import kill_cli_midway


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_scripted_offline_run_scores_every_episode(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    out = tmp_path / "episodes.jsonl"
    summary = rollout(tasks_file, out, scripted, group_size=2, concurrency=3)
    assert summary.ok == 6 and summary.failed == 0
    lines = _lines(out)
    assert [line["id"] for line in lines] == [
        f"{t}#{k}" for t in ("issue-bug", "greeting-file", "notes-swe") for k in (0, 1)
    ]
    by_id = {line["id"]: line for line in lines}
    # the second script of issue-bug only lists issues: every state check fails
    assert by_id["issue-bug#0"]["reward"] == 1.0
    assert by_id["issue-bug#1"]["reward"] == 0.0
    assert [b["score"] for b in by_id["issue-bug#0"]["reward_breakdown"]] == [1.0, 1.0, 1.0]
    assert by_id["greeting-file#0"]["reward"] == 1.0
    assert by_id["greeting-file#0"]["finish"] == "answer"
    assert by_id["notes-swe#1"]["reward"] == 1.0
    first = by_id["issue-bug#0"]
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert first["loss_mask"] == [0, 0, 1, 0, 1]
    assert first["messages"][2]["tool_calls"][0]["function"]["name"] == "create_issue"
    assert '"number": 1' in first["messages"][3]["content"]
    assert (
        first["group_id"] == "issue-bug" and first["seeds"]["world"] != by_id["issue-bug#1"]["seeds"]["world"]
    )
    assert {"agent_s", "world_s", "reward_s", "total_s"} <= set(first["timings"])
    swe_tools = {t["function"]["name"] for t in json.loads(by_id["notes-swe#0"]["tools"])}
    assert {"write_file", "run_shell_command"} <= swe_tools  # a real agent gets the coding tools too
    assert json.loads(by_id["greeting-file#0"]["tools"]) == []  # action-text domain: no tools
    terminal = by_id["greeting-file#0"]["messages"]
    assert terminal[3]["role"] == "user" and "hello world" in terminal[5]["content"]


def test_the_training_file_reads_with_datasets(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    datasets = pytest.importorskip("datasets", reason="the rl extra (datasets) is not installed")
    out = tmp_path / "episodes.jsonl"
    rollout(tasks_file, out, scripted, group_size=2)
    data = datasets.load_dataset("json", data_files=str(out), split="train")
    assert len(data) == 6
    assert data[0]["messages"][2]["tool_calls"][0]["function"]["name"] == "create_issue"
    assert data[0]["loss_mask"] == [0, 0, 1, 0, 1]


def _failed_run(out: Path) -> Result:
    """Every episode of the bundled tasks written as failed (the agent server refuses all)."""
    with FakeWorldModelServer(responder=lambda body: FakeWorldModelServer.error(400, "bad model")) as agent:
        args = ["rollout", "run", "--tasks", "bundled", "--backend", "offline", "--no-progress"]
        args += ["--agent-base-url", agent.url, "--agent-model", "m", "-o", str(out)]
        return CliRunner().invoke(cli, args)


def test_datasets_reads_a_directory_mixing_complete_and_failed_episode_files(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    """Failed lines have the columns of played ones (null), the error inside the ``rollout``
    label both carry: ``load_dataset(data_dir=...)`` casts every file to the first one's schema."""
    datasets = pytest.importorskip("datasets", reason="the rl extra (datasets) is not installed")
    played, failed = tmp_path / "played.jsonl", tmp_path / "failed.jsonl"
    rollout(tasks_file, played, scripted, group_size=2)
    _failed_run(failed)
    ok_line, failed_line = _lines(played)[0], _lines(failed)[0]
    assert list(failed_line) == list(ok_line)
    assert set(failed_line["rollout"]) == set(ok_line["rollout"]) == {"status", "error"}
    complete_then_failed = tmp_path / "one"
    complete_then_failed.mkdir()
    (complete_then_failed / "a.jsonl").write_bytes(played.read_bytes())
    (complete_then_failed / "b.jsonl").write_bytes(failed.read_bytes())
    mixed_first = tmp_path / "two"
    mixed_first.mkdir()
    (mixed_first / "a.jsonl").write_bytes(failed.read_bytes() + played.read_bytes())
    (mixed_first / "b.jsonl").write_bytes(played.read_bytes())
    for folder, total in ((complete_then_failed, 9), (mixed_first, 15)):
        data = datasets.load_dataset("json", data_dir=str(folder), split="train")
        assert len(data) == total
        statuses = [row["status"] for row in data["rollout"]]
        assert statuses.count("failed") == 3
        rows = [row for row in data if row["rollout"]["status"] == "failed"]
        assert all(row["messages"] is None and row["reward"] is None for row in rows)
        assert "HTTP 400" in rows[0]["rollout"]["error"]
        played_rows = [row for row in data if row["rollout"]["status"] == "ok"]
        assert played_rows[0]["messages"][2]["tool_calls"][0]["function"]["name"] == "create_issue"


def test_a_torn_line_is_replayed_and_the_file_ends_the_same(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    scripted.timings = False
    reference = tmp_path / "reference.jsonl"
    rollout(tasks_file, reference, scripted, group_size=2)
    out = tmp_path / "out.jsonl"
    raw = reference.read_bytes().splitlines(keepends=True)
    out.write_bytes(raw[3] + raw[0] + raw[4][: len(raw[4]) // 2])  # out of order, then killed mid-write
    summary = rollout(tasks_file, out, scripted, group_size=2)
    assert summary.skipped == 2 and summary.ok == 4 and summary.dropped_torn == 1
    assert out.read_bytes() == reference.read_bytes()


STALL_AFTER = 8


def _tasks_for_kill(path: Path) -> Path:
    rows = [
        {
            "id": f"t{n}",
            "domain": "mcp",
            "tool_pack": "github-issues",
            "instruction": f"open issue {n}",
            "max_turns": 3,
            "reward": [{"type": "ledger_item", "resource": "issue", "where": {"title": f"bug {n}"}}],
        }
        for n in range(6)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_sigkilled_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    """A real ``agentworld rollout run`` subprocess (world model: a fake server) killed with SIGKILL
    mid-run, then rerun, ends with exactly the file of an uninterrupted run."""
    tasks = _tasks_for_kill(tmp_path / "tasks.jsonl")
    script = tmp_path / "agent.json"
    script.write_text(
        json.dumps(
            {
                f"t{n}": [
                    {"tool": "create_issue", "arguments": {"owner": "a", "repo": "b", "title": f"bug {n}"}},
                    {"tool": "list_issues", "arguments": {"owner": "a", "repo": "b"}},
                    {"answer": "done"},
                ]
                for n in range(6)
            }
        )
    )
    release = threading.Event()
    answered = [0]
    lock = threading.Lock()

    def responder(body: dict) -> str:
        # after a few answers the world stalls until released, so the kill lands mid-run
        with lock:
            answered[0] += 1
            stall = answered[0] > STALL_AFTER
        if stall and not release.is_set():
            release.wait(60)
        return default_responder(body)

    with FakeWorldModelServer(responder=responder) as server:

        def args(out: Path) -> list[str]:
            return [
                "rollout", "run", "--tasks", str(tasks), "--agent", f"scripted:{script}",
                "--base-url", server.url, "--model", "m", "-n", "2", "-c", "2",
                "--no-timings", "--no-progress", "-o", str(out),
            ]  # fmt: skip

        runner = CliRunner()
        reference = tmp_path / "reference.jsonl"
        release.set()
        result = runner.invoke(cli, args(reference))
        assert result.exit_code == 0, result.output
        release.clear()
        answered[0] = 0

        out = tmp_path / "killed.jsonl"
        kill_cli_midway(args(out), out, lines=3)
        release.set()
        done = out.read_bytes().count(b"\n")  # whole lines (a torn last one is dropped by the rerun)
        assert 3 <= done < 12
        result = runner.invoke(cli, args(out))
        assert result.exit_code == 0, result.output
    assert out.read_bytes() == reference.read_bytes()
    ids = [line["id"] for line in _lines(out)]
    assert len(ids) == len(set(ids)) == 12
    assert all(line["reward"] == 1.0 for line in _lines(out))  # state checks replayed offline


def test_a_broken_task_stops_the_run_before_any_episode(tmp_path: Path, scripted: RolloutSpec) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(json.dumps({"id": "x", "domain": "mcp", "instruction": "go", "max_turns": -1}) + "\n")
    result = CliRunner().invoke(
        cli,
        ["rollout", "run", "--tasks", str(tasks), "--agent", "scripted:nope.yaml", "-o", str(tmp_path / "o")],
    )
    assert result.exit_code == 1
    assert "field 'max_turns'" in result.output


def test_stats_prints_pass_at_k_and_draws_a_plot(tmp_path: Path, tasks_file: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    ran = CliRunner().invoke(cli, [*args, "-n", "2", "-o", str(out), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    plot = tmp_path / "rewards.png"
    result = CliRunner().invoke(cli, ["rollout", "stats", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "issue-bug" in result.output and "pass@2" in result.output
    assert plot.read_bytes()[:4] == b"\x89PNG"
    data = json.loads(
        CliRunner().invoke(cli, ["rollout", "stats", str(out), "--json", "-k", "1", "-k", "2"]).output
    )
    group = data["groups"][0]
    assert group["task_id"] == "issue-bug" and group["mean_reward"] == 0.5
    assert group["pass@1"] == 0.5 and group["pass@2"] == 1.0
    assert load_tasks(tasks_file)[0].id == "issue-bug"


def test_pass_at_k() -> None:
    from agentworld_plugins.rollout.stats import pass_at_k

    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(4, 1, 1) == 0.25
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    assert pass_at_k(4, 3, 2) == 1.0
    assert pass_at_k(2, 1, 8) == 1.0


def test_task_perturbations_reach_the_world_and_the_state_checks(
    tmp_path: Path, scripted: RolloutSpec
) -> None:
    """A fault injected on the create call: the agent sees it, the world never got the call, and
    the state check says so."""
    tasks = tmp_path / "t.jsonl"
    row = {
        "id": "issue-bug",
        "domain": "mcp",
        "tool_pack": "github-issues",
        "instruction": "open it",
        "perturbations": ["faults:first=1,kinds=permission_denied,tools=create_*"],
        "reward": [{"type": "ledger_item", "resource": "issue", "where": {"labels": "bug"}}],
    }
    tasks.write_text(json.dumps(row) + "\n")
    out = tmp_path / "e.jsonl"
    rollout(tasks, out, scripted)
    line = _lines(out)[0]
    assert line["world_errors"] == 1
    assert "403 Forbidden" in line["messages"][3]["content"]
    assert line["reward"] == 0.0


def test_cli_perturbations_apply_to_every_episode(tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    fault = "faults:first=1,kinds=permission_denied,tools=create_*"
    ran = CliRunner().invoke(cli, [*args, "--perturb", fault, "-o", str(out), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    by_id = {line["id"]: line for line in _lines(out)}
    assert by_id["issue-bug#0"]["reward"] < 1.0 and by_id["issue-bug#0"]["world_errors"] == 1
    assert by_id["notes-swe#0"]["reward"] == 1.0  # write_file is not a create_* tool


def test_a_run_where_no_episode_could_be_played_exits_1(tmp_path: Path) -> None:
    """An agent server that refuses every request: each episode is written as failed (for the
    next run) and the command fails with the commonest error instead of exiting 0."""
    result = _failed_run(tmp_path / "e.jsonl")
    assert result.exit_code == 1
    assert (
        "rollout: no episode could be made (3 failed; commonest: 3 x agent: The agent server" in result.output
    )
    assert "HTTP 400" in result.output
    assert [line["rollout"]["status"] for line in _lines(tmp_path / "e.jsonl")] == ["failed"] * 3
