"""Comparable with the official script: imported prompts give byte-identical judge requests,
official files in and out, the official score arithmetic, non-zero exits on unusable input, and one
writer per output file (real processes)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean

import pytest
from click.testing import CliRunner
from official_like import judge_system_prompts, load_eval, write_checkout

from agentworld_plugins.bench.data import load_dataset, load_results, record_domain, record_key
from agentworld_plugins.bench.lock import OutputBusyError, OutputLock
from agentworld_plugins.bench.official import extract_prediction
from agentworld_plugins.bench.score import DIMENSIONS, score_file, score_records
from agentworld_plugins.cli import cli
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.turns import OBSERVATION_MARKER


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


def _invoke(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _write_jsonl(path: Path, lines) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


GENERATIONS = [
    "<think>plan</think><predicted_observation>\n{marker}\n{truth}\n</predicted_observation>",
    "<PREDICTED_OBSERVATION>  {truth}  </PREDICTED_OBSERVATION>",
    "{marker} {truth} {marker}",
    "<think>unclosed",
    "   ",
    "",
]


def _official_predictions(data_dir: Path) -> list[dict]:
    """Official-shaped predictions (``gen`` only), over every record of every domain; some
    histories and references carry the observation marker, as real records do."""
    lines = []
    for i, record in enumerate(load_dataset(data_dir).records):
        record = dict(record)
        if i % 2:
            record["response"] = [f"{OBSERVATION_MARKER}\n{r}" for r in record["response"]]
        truth = record["response"][record["turn_idx"] - 1]
        gen = GENERATIONS[i % len(GENERATIONS)].format(marker=OBSERVATION_MARKER, truth=truth)
        lines.append({**record, "gen": gen})
    return lines


# -- prompts imported from an official-like checkout ------------------------------------------------


def test_imported_prompts_make_judge_requests_byte_identical(data_dir, judge_server, tmp_path):
    checkout = write_checkout(tmp_path / "checkout")
    result = _invoke(["bench", "import-prompts", str(checkout), "--to", str(tmp_path / "prompts")])
    assert result.exit_code == 0, result.output
    assert (
        tmp_path / "prompts" / "web" / "judge_system_prompt.txt"
    ).read_text() == "STAND-IN web judge prompt\n"
    lines = _official_predictions(data_dir)
    predictions = _write_jsonl(tmp_path / "predictions.jsonl", lines)
    args = ["bench", "judge", "--predictions", str(predictions), "--output", str(tmp_path / "judged.jsonl")]
    args += [
        "--base-url",
        judge_server.url,
        "--model",
        "j",
        "--prompts-dir",
        str(tmp_path / "prompts"),
        "--no-progress",
    ]
    result = _invoke(args)
    assert result.exit_code == 0, result.output
    official = load_eval(checkout)
    systems = judge_system_prompts(checkout)
    expected = [
        official.build_judge_messages(line, extract_prediction(line["gen"]), systems)
        for line in lines
        if line["gen"]  # the official script never judges an empty generation
    ]
    sent = [request.body["messages"] for request in judge_server.chat_requests]
    assert len(sent) == len(expected) < len(lines)
    key = lambda messages: json.dumps(messages)  # noqa: E731
    assert sorted(map(key, sent)) == sorted(map(key, expected))
    assert {record_domain(line) for line in lines} == {
        "mcp",
        "search",
        "terminal",
        "swe",
        "android",
        "web",
        "os",
    }


def test_import_prompts_names_what_the_checkout_lacks(tmp_path):
    checkout = write_checkout(tmp_path / "checkout")
    (checkout / "eval" / "eval.py").write_text("def build_judge_messages(job):\n    return []\n")
    result = CliRunner().invoke(cli, ["bench", "import-prompts", str(checkout), "--to", str(tmp_path / "p")])
    assert result.exit_code != 0 and "JUDGE_USER_PROMPT.format" in result.output


# -- the official arithmetic ------------------------------------------------------------------------


def official_aggregate(jobs):
    """The official ``score`` step's figures, written literally: per domain, the valid records
    (failed == 0); a dimension's (and the total's) mean over values that are not 0; overall, the
    mean of every counted total; normalised (raw - 1) / 4 * 100."""
    groups = defaultdict(list)
    for job in jobs:
        task = job.get("task", "mcp")
        groups[task.split("/")[-1] if "/" in task else task].append(job)
    figures, totals = {}, []
    for domain, domain_jobs in groups.items():
        valid = [j for j in domain_jobs if j.get("failed", 1.0) == 0.0]
        if not valid:
            continue
        for dim in [*DIMENSIONS, "total_score"]:
            values = [j.get(dim, 0) for j in valid if j.get(dim, 0) != 0]
            figures[(domain, dim)] = (mean(values) - 1) / 4 * 100 if values else None
            if dim == "total_score":
                totals.extend(values)
    overall = (mean(totals) - 1) / 4 * 100 if totals else None
    return figures, overall, len(totals)


def _random_official_lines(rng: random.Random, count: int) -> list[dict]:
    lines = []
    for i in range(count):
        line = {"task": rng.choice(["mcp", "x/web", "os"]), "id": str(i), "turn_idx": 1}
        if rng.random() < 0.15:
            line.update(failed=1.0, total_score=0, error_message="Judge scoring failed")
        else:
            scores = {d: rng.choice([0, -1, 1, 2, 3, 4, 5, 5]) for d in DIMENSIONS}
            positive = [v for v in scores.values() if v > 0]
            line.update(scores, failed=0.0, total_score=sum(positive) / len(positive) if positive else 0)
        lines.append(line)
    return lines


def _compare(board, figures, overall, counted):
    assert board.overall.total == pytest.approx(overall)
    assert board.overall.valid == counted
    for (domain, dim), value in figures.items():
        ours = board.domains[domain].total if dim == "total_score" else board.domains[domain].dimension(dim)
        assert ours == pytest.approx(value), (domain, dim)


def test_score_reads_official_judged_files_with_the_official_arithmetic(tmp_path):
    rng = random.Random(7)
    for _ in range(20):
        lines = _random_official_lines(rng, rng.randint(1, 60))
        figures, overall, counted = official_aggregate(lines)
        if overall is None:
            continue
        _compare(score_records(lines), figures, overall, counted)
    path = _write_jsonl(tmp_path / "judged.jsonl", _random_official_lines(random.Random(3), 200))
    result = _invoke(["bench", "score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["overall"]["count"] == 200


async def test_our_judged_files_score_the_same_both_ways(data_dir, tmp_path, evaluation, fast):
    """The same judged answers, scored by `bench score` and by the official arithmetic over the
    official fields of our file, give the same figures; empty generations are failed, never sent."""
    rng = random.Random(11)
    answers = []

    def responder(body):
        scores = {d: rng.choice([1, 2, 3, 3.5, 4, 5, "4/5", None]) for d in DIMENSIONS}
        answers.append(scores)
        return evaluation({k: v for k, v in scores.items() if v is not None})

    lines = _official_predictions(data_dir)
    with FakeWorldModelServer(model="j", responder=responder) as server:
        from agentworld_plugins.bench.endpoints import judge_backend
        from agentworld_plugins.bench.judge import judge_lines

        out = tmp_path / "judged.jsonl"
        summary = await judge_lines(lines, judge_backend(base_url=server.url, timeout=5), out, options=fast)
        assert len(server.chat_requests) == sum(1 for line in lines if line["gen"])
    empty = [line for line in lines if not line["gen"]]
    assert summary.failed == len(empty) > 0
    judged, _ = load_results(out)
    assert all(
        j["failed"] == 1.0 and j["error_message"] == "No model generation" for j in judged if not j["gen"]
    )
    figures, overall, counted = official_aggregate(judged)
    board = score_file(out)
    _compare(board, figures, overall, counted)
    assert board.overall.count == len(lines)  # failed records count in the totals, not the means


# -- files both ways and unusable input -------------------------------------------------------------


def test_unusable_inputs_exit_non_zero_naming_the_field(tmp_path, judge_server):
    lines = [
        {"task": "mcp", "id": str(i), "turn_idx": 1, "prompt": ["p"], "response": ["r"]} for i in range(3)
    ]
    predictions = _write_jsonl(tmp_path / "p.jsonl", lines)
    args = ["bench", "judge", "--predictions", str(predictions), "--output", str(tmp_path / "j.jsonl")]
    result = CliRunner().invoke(cli, [*args, "--base-url", judge_server.url, "--model", "j", "--no-progress"])
    assert result.exit_code != 0 and "gen" in result.output and "no record could be used" in result.output
    assert not judge_server.chat_requests
    result = CliRunner().invoke(cli, ["bench", "score", str(predictions)])
    assert result.exit_code != 0 and "total_score" in result.output and "judge.status" in result.output


def test_official_predictions_and_records_outside_the_usual_shape_are_read(tmp_path, data_dir):
    records = [dict(r) for r in load_dataset(data_dir, domains=["mcp"]).records]
    for record in records:
        record["system_str"] = ""
        del record["current_prompt"]
    folder = tmp_path / "odd-shapes"
    folder.mkdir()
    _write_jsonl(folder / "mcp_test.jsonl", records)
    with FakeWorldModelServer(model="w") as server:
        out = tmp_path / "predictions.jsonl"
        args = ["bench", "infer", "--data-dir", str(folder), "--output", str(out), "--base-url", server.url]
        result = _invoke([*args, "--model", "w", "--no-progress"])
        assert result.exit_code == 0, result.output
        for request in server.chat_requests:
            assert request.body["messages"][0]["role"] == "user"  # no empty system message
    written, _ = load_results(out)
    assert all(isinstance(line["gen"], str) and line["gen"] for line in written)
    assert [record_key(x) for x in written] == [record_key(r) for r in records]


# -- one writer per output file ---------------------------------------------------------------------


def test_a_second_writer_is_refused(tmp_path, data_dir):
    out = tmp_path / "predictions.jsonl"
    with OutputLock(out):
        with pytest.raises(OutputBusyError, match="being written by another run"):
            OutputLock(out).acquire()
        command = [sys.executable, "-m", "agentworld_plugins", "bench", "infer", "--data-dir", str(data_dir)]
        proc = subprocess.run(
            [*command, "--output", str(out), "--backend", "offline", "--no-progress"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode != 0 and "being written by another run" in proc.stderr
        assert f"pid {os.getpid()}" in proc.stderr
        assert not out.exists()
    with OutputLock(out):  # released: taken again
        pass
    assert not out.with_name(out.name + ".lock").exists()


def test_three_concurrent_runs_lose_no_lines(tmp_path, data_dir):
    """Three real `bench infer` processes on one --output: each either finishes the whole set or
    is refused with a clear error; the file ends with every record once."""
    records = load_dataset(data_dir).records
    out = tmp_path / "predictions.jsonl"
    with FakeWorldModelServer(model="w", latency=0.05) as server:
        args = ["bench", "infer", "--data-dir", str(data_dir), "--output", str(out), "--base-url", server.url]
        args += ["--model", "w", "--no-progress", "--concurrency", "2"]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "agentworld_plugins", *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
    for code, stderr in results:
        if code == 0:
            assert f"{len(records)}/{len(records)} done" in stderr
        else:
            assert "being written by another run" in stderr, stderr
    assert any(code == 0 for code, _ in results)
    written, problems = load_results(out)
    assert not problems
    assert [record_key(x) for x in written] == [record_key(r) for r in records]


def test_config_error_is_raised_for_a_missing_template_field(tmp_path):
    from agentworld_plugins.bench.judge_template import JudgeTemplate

    (tmp_path / "judge_user_template.json").write_text(json.dumps({"template": "{context}"}))
    with pytest.raises(ConfigError, match="context"):
        JudgeTemplate.load(tmp_path)


async def test_three_attempts_in_all_by_default(data_dir, judge_server, tmp_path):
    from agentworld_plugins.bench.endpoints import judge_backend
    from agentworld_plugins.bench.judge import judge_lines

    line = next(x for x in _official_predictions(data_dir) if x["gen"].strip())
    judge_server.enqueue(*["no verdict"] * 5)
    summary = await judge_lines(
        [line], judge_backend(base_url=judge_server.url, timeout=5), tmp_path / "j.jsonl"
    )
    assert summary.failed == 1 and len(judge_server.chat_requests) == 3
    judged = load_results(tmp_path / "j.jsonl")[0][0]
    assert judged["failed"] == 1.0 and judged["judge"]["attempts"] == 3
