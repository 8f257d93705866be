"""``agentworld bench`` end to end: run, score, compare, convert, sample, and a SIGKILLed run that
resumes to the same file as an uninterrupted one."""

from __future__ import annotations

import itertools
import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins.bench.data import load_dataset, load_results, record_key
from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer, default_responder
from agentworld_plugins.session import World
from agentworld_plugins.testing import kill_cli_midway


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _invoke(runner, args):
    result = runner.invoke(cli, args, catch_exceptions=False)
    return result


def test_bench_run_offline_world_and_fake_judge_server(runner, data_dir, judge_server, tmp_path):
    out = tmp_path / "results"
    args = ["bench", "run", "--data-dir", str(data_dir), "--output-dir", str(out), "--backend", "offline"]
    args += ["--judge-base-url", judge_server.url, "--judge-model", "fake-judge", "--no-progress"]
    args += ["--report", str(out / "report.md"), "--plot", str(out / "scores.png"), "--reference"]
    result = _invoke(runner, args)
    assert result.exit_code == 0, result.output
    records = load_dataset(data_dir).records
    predictions, _ = load_results(out / "predictions.jsonl")
    judgements, _ = load_results(out / "judgements.jsonl")
    assert (
        [record_key(x) for x in predictions]
        == [record_key(x) for x in judgements]
        == [record_key(r) for r in records]
    )
    assert len(judge_server.chat_requests) == len(records)
    assert all(r.body["model"] == "fake-judge" for r in judge_server.chat_requests)
    assert "overall" in result.output and "16/16" in result.output
    assert (out / "scores.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "report.md").read_text()
    assert "![AgentWorldBench scores](scores.png)" in report and "| **overall** | **16/16** |" in report
    # rerun: everything is done, nothing is asked again
    result = _invoke(runner, args)
    assert result.exit_code == 0 and len(judge_server.chat_requests) == len(records)
    assert "16/16 done, 16 from an earlier run" in result.output


EXAMPLE_JUDGE = Path(__file__).resolve().parents[2] / "examples" / "bench" / "judge.yaml"


def test_bench_run_with_the_example_scenario_judge(runner, data_dir, tmp_path):
    out = tmp_path / "results"
    args = ["bench", "run", "--data-dir", str(data_dir), "--output-dir", str(out), "--backend", "offline"]
    result = _invoke(
        runner, [*args, "--judge-backend", f"scenario:{EXAMPLE_JUDGE}", "--domains", "mcp,terminal"]
    )
    assert result.exit_code == 0, result.output
    scored = _invoke(runner, ["bench", "score", str(out / "judgements.jsonl"), "--json"])
    figures = json.loads(scored.output)
    assert list(figures["domains"]) == ["mcp", "terminal"]
    # turns 1-2 of each domain: 5,4,4,4,4 -> 4.2 -> 80; turn 3 fails in reality: 5,2,4,3,2 -> 3.2 -> 55
    assert figures["domains"]["mcp"]["total"] == pytest.approx((80 + 80 + 55) / 3)
    assert figures["overall"]["valid"] == 6
    assert figures["overall"]["total"] == pytest.approx((4 * 80 + 2 * 55) / 6)
    assert figures["overall"]["dimensions"]["factuality"] == pytest.approx((4 * 75 + 2 * 25) / 6)


def test_infer_then_judge_then_score_commands(runner, data_dir, world_server, judge_server, tmp_path):
    pred, judged = tmp_path / "p.jsonl", tmp_path / "j.jsonl"
    result = _invoke(
        runner,
        [
            "bench",
            "infer",
            "--data-dir",
            str(data_dir),
            "--output",
            str(pred),
            "--base-url",
            world_server.url,
            "--temperature",
            "0",
            "--max-tokens",
            "128",
            "--extra-body",
            '{"top_k": 20}',
            "--concurrency",
            "4",
        ],
    )
    assert result.exit_code == 0, result.output
    body = world_server.chat_requests[0].body
    assert (body["temperature"], body["max_tokens"], body["top_k"]) == (0, 128, 20)
    result = _invoke(
        runner,
        [
            "bench",
            "judge",
            "--predictions",
            str(pred),
            "--output",
            str(judged),
            "--base-url",
            judge_server.url,
            "--domains",
            "web",
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(judge_server.chat_requests) == 2
    result = _invoke(runner, ["bench", "score", str(judged)])
    assert result.exit_code == 0 and "web" in result.output and "mcp" not in result.output


def test_compare_two_runs(runner, tmp_path):
    def write(path, value):
        scores = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), value)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"task": "os", "id": "1", "turn_idx": 1, "judge": {"status": "ok", "scores": scores}})
            + "\n"
        )

    write(tmp_path / "a" / "judgements.jsonl", 3)
    write(tmp_path / "b" / "judgements.jsonl", 4)
    args = [
        "bench",
        "compare",
        str(tmp_path / "a" / "judgements.jsonl"),
        str(tmp_path / "b" / "judgements.jsonl"),
    ]
    result = _invoke(
        runner, [*args, "--report", str(tmp_path / "cmp.md"), "--plot", str(tmp_path / "cmp.svg")]
    )
    assert result.exit_code == 0, result.output
    assert "a/judgements" in result.output and "+25.00" in result.output
    assert "| os | 50.00 | 75.00 | +25.00 |" in (tmp_path / "cmp.md").read_text()
    assert "b/judgements" in (tmp_path / "cmp.svg").read_text()
    labelled = _invoke(runner, [*args, "--label", "base", "--label", "tuned", "--json"])
    assert [b["label"] for b in json.loads(labelled.output)] == ["base", "tuned"]
    one = runner.invoke(cli, ["bench", "compare", args[2]])
    assert one.exit_code == 1 and "at least two" in one.output


def test_clear_errors(runner, tmp_path, data_dir):
    result = runner.invoke(
        cli,
        [
            "bench",
            "infer",
            "--data-dir",
            str(tmp_path / "none"),
            "--output",
            str(tmp_path / "p.jsonl"),
            "--backend",
            "offline",
        ],
    )
    assert (
        result.exit_code == 1
        and "Error: No AgentWorldBench data" in result.output
        and "Hint:" in result.output
    )
    result = runner.invoke(
        cli, ["bench", "infer", "--data-dir", str(data_dir), "--output", str(tmp_path / "p.jsonl")]
    )
    assert result.exit_code == 1 and "No world model to evaluate" in result.output
    # run checks the judge before spending time on inference
    result = runner.invoke(
        cli,
        [
            "bench",
            "run",
            "--data-dir",
            str(data_dir),
            "--output-dir",
            str(tmp_path / "o"),
            "--backend",
            "offline",
        ],
    )
    assert result.exit_code == 1 and "No judge" in result.output and not (tmp_path / "o").exists()
    result = runner.invoke(cli, ["bench", "score", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 1 and "No results file" in result.output


def test_a_server_that_goes_away_gives_a_message_and_a_partial_file(runner, data_dir, tmp_path):
    alive = {"left": 3}

    def responder(body):
        if alive["left"] <= 0:
            return FakeWorldModelServer.disconnect()  # gone: no answer at all (a 5xx is an answer)
        alive["left"] -= 1
        return "<predicted_observation>ok</predicted_observation>"

    out = tmp_path / "p.jsonl"
    args = [
        "bench",
        "infer",
        "--data-dir",
        str(data_dir),
        "--output",
        str(out),
        "--concurrency",
        "1",
        "--max-retries",
        "1",
        "--retry-backoff",
        "0",
    ]
    with FakeWorldModelServer(responder=responder) as server:
        result = runner.invoke(cli, [*args, "--base-url", server.url])
        assert result.exit_code == 1
        assert "infer stopped: 5 records in a row failed with the server unreachable" in result.output
        assert "3/16 records are done and kept" in result.output and "rerun" in result.output
        alive["left"] = 100
        result = runner.invoke(cli, [*args, "--base-url", server.url])
    assert result.exit_code == 0 and "16/16 done, 3 from an earlier run" in result.output


def test_convert_recorded_sessions(runner, tmp_path):
    trajectories = tmp_path / "sessions.jsonl"
    with World(backend="offline") as world:
        session = world.session("terminal", initial_state="root@box:/app# ")
        session.step([{"keystrokes": "echo hi\n", "duration": 0.1}])
        session.step([{"keystrokes": "pwd\n", "duration": 0.1}])
        session.trajectory.to_jsonl(trajectories)
        chat = world.session("mcp", tools=[{"name": "ping", "inputSchema": {"type": "object"}}])
        chat.step({"tool_name": "ping", "arguments": {}})
        chat.trajectory.to_jsonl(trajectories, form="chat", append=True)
    out = tmp_path / "mine"
    result = _invoke(runner, ["bench", "convert", str(trajectories), "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    dataset = load_dataset(out)
    assert dataset.problems == [] and dataset.domains == ["mcp", "terminal"]
    terminal = [r for r in dataset.records if r["task"] == "terminal"]
    assert [r["turn_idx"] for r in terminal] == [1, 2] and terminal[1]["response"][
        0
    ] == session.trajectory.turns[0].observation.text


def test_sample_command(runner, tmp_path):
    result = _invoke(runner, ["bench", "sample", str(tmp_path / "s"), "--episodes", "2"])
    assert result.exit_code == 0
    assert len(load_dataset(tmp_path / "s").records) == 32


def test_sigkilled_run_resumes_to_the_same_file(runner, data_dir, tmp_path):
    """A real ``agentworld bench infer`` subprocess killed with SIGKILL mid-run, then rerun,
    ends with exactly the file of an uninterrupted run: no duplicates, no gaps."""
    records = load_dataset(data_dir).records
    release = threading.Event()
    answered = itertools.count(1)

    def responder(body):
        # after the first six answers the server stalls until released, so the kill always lands
        # mid-run however fast or slow the machine is
        if next(answered) > 6 and not release.is_set():
            release.wait(60)
        return default_responder(body)

    with FakeWorldModelServer(responder=responder) as server:

        def args(out: Path) -> list[str]:
            return [
                "bench",
                "infer",
                "--data-dir",
                str(data_dir),
                "--output",
                str(out),
                "--base-url",
                server.url,
                "--model",
                "m",
                "--concurrency",
                "2",
                "--no-progress",
            ]

        reference = tmp_path / "reference.jsonl"
        release.set()
        assert _invoke(runner, args(reference)).exit_code == 0
        release.clear()
        answered = itertools.count(1)

        out = tmp_path / "killed.jsonl"
        kill_cli_midway(args(out), out, lines=5, timeout=30)
        release.set()
        done = [record_key(line) for line in load_results(out)[0]]
        assert 5 <= len(done) < len(records)
        before = len(server.chat_requests)
        result = _invoke(runner, args(out))
        assert result.exit_code == 0, result.output
        asked = len(server.chat_requests) - before
    assert asked == len(records) - len(done)  # nothing done was asked again
    assert out.read_bytes() == reference.read_bytes()
    keys = [record_key(line) for line in load_results(out)[0]]
    assert len(keys) == len(set(keys)) == len(records)


def test_bundled_example_dataset_runs_offline_end_to_end(runner, tmp_path):
    data = EXAMPLE_JUDGE.parent / "data"
    assert sorted(p.name for p in data.glob("*_test.jsonl")) == sorted(
        f"{d}_test.jsonl" for d in ("mcp", "search", "terminal", "swe", "android", "web", "os")
    )
    args = [
        "bench",
        "run",
        "--data-dir",
        str(data),
        "--output-dir",
        str(tmp_path),
        "--backend",
        "offline",
        "--judge-backend",
        f"scenario:{EXAMPLE_JUDGE}",
        "--no-progress",
    ]
    result = _invoke(runner, args)
    assert result.exit_code == 0, result.output
    assert "overall" in result.output
