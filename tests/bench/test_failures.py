"""Records that keep failing finish failed, as in the official script: servers answering HTTP 5xx or
bodies that are not JSON (real HTTP on 127.0.0.1), the judge's three attempts kept across reruns,
the official printout's counts and rounding, judge prompts recorded per line, and one writer per
file whatever name reaches it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from official_like import DISPLAY, judge_system_prompts, load_eval, official_printout, write_checkout

from agentworld_plugins.bench.data import load_dataset, load_results, record_domain, record_key
from agentworld_plugins.bench.endpoints import judge_backend
from agentworld_plugins.bench.judge import judge_lines
from agentworld_plugins.bench.lock import OutputBusyError, OutputLock
from agentworld_plugins.bench.official import extract_prediction, inference_messages
from agentworld_plugins.bench.runner import RunOptions
from agentworld_plugins.cli import cli
from agentworld_plugins.fake_server import FakeWorldModelServer


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith("AGENTWORLD_"):
            monkeypatch.delenv(name)


def _invoke(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _key(messages) -> str:
    return json.dumps(messages, sort_keys=True)


def _our_counts(output: str) -> dict[str, str]:
    """domain -> the valid/total cell of the console table."""
    return dict(re.findall(r"^\s*(\w+)\s+(\d+/\d+)\s", output, re.MULTILINE))


def _official_counts(printout: str) -> dict[str, str]:
    by_label = {label: name for name, label in DISPLAY.items()}
    return {by_label[m[0]]: m[1] for m in re.findall(r"^--- (\w+) \((\d+/\d+) valid", printout, re.MULTILINE)}


# -- bench run with records that keep failing -------------------------------------------------------


def test_bench_run_finishes_with_persistently_failing_records_failed(data_dir, judge_server, tmp_path):
    records = load_dataset(data_dir).records
    # five records spread over the run: three always get HTTP 500, two a body that is not JSON
    bad = {_key(inference_messages(r)): i for i, r in enumerate(records) if i in (1, 2, 3, 7, 12)}

    def responder(body):
        where = bad.get(_key(body["messages"]))
        if where is None:
            return "<predicted_observation>an observation</predicted_observation>"
        return FakeWorldModelServer.malformed() if where in (7, 12) else FakeWorldModelServer.error(500)

    out = tmp_path / "results"
    with FakeWorldModelServer(model="w", responder=responder) as world:
        args = ["bench", "run", "--data-dir", str(data_dir), "--output-dir", str(out)]
        args += ["--base-url", world.url, "--model", "w", "--judge-base-url", judge_server.url]
        args += ["--judge-model", "j", "--no-progress", "--retry-backoff", "0", "--concurrency", "1"]
        result = _invoke(args)
        assert result.exit_code == 0, result.output
        assert "stopped" not in result.output
        asked = len(world.chat_requests)
        assert asked == len(records) - len(bad) + len(bad) * 4  # --max-retries 3 for inference
        judged, _ = load_results(out / "judgements.jsonl")
        assert [record_key(x) for x in judged] == [record_key(r) for r in records]
        failed = [j for j in judged if j["failed"] == 1.0]
        assert len(failed) == len(bad)
        assert all(j["error_message"] == "No model generation" and j["gen"] == "" for j in failed)
        assert len(judge_server.chat_requests) == len(records) - len(bad)  # never sent to the judge
        # the printed counts and overall are the official printout's
        printout = official_printout(judged)
        assert _our_counts(result.output) == {
            **_official_counts(printout),
            "overall": f"{len(records) - len(bad)}/{len(records)}",
        }
        overall = re.search(r"^Overall: (\S+)$", printout, re.MULTILINE)
        assert overall and re.search(rf"^\s*overall\s.*\s{re.escape(overall[1])}\s*$", result.output, re.M)
        # the rerun finishes the same way: the five are tried again, nothing else is
        before = judge_server.chat_requests[:]
        result = _invoke(args)
        assert result.exit_code == 0, result.output
        assert len(world.chat_requests) - asked == len(bad) * 4
        assert judge_server.chat_requests == before
        assert load_results(out / "judgements.jsonl")[0] == judged


# -- the judge's attempts ---------------------------------------------------------------------------


def _predictions(data_dir: Path) -> list[dict]:
    lines = []
    for record in load_dataset(data_dir).records:
        truth = record["response"][record["turn_idx"] - 1]
        lines.append({**record, "gen": f"<predicted_observation>{truth}</predicted_observation>"})
    return lines


async def test_a_judge_failure_gets_three_attempts_over_every_run(data_dir, tmp_path, evaluation):
    lines = _predictions(data_dir)
    out = tmp_path / "judged.jsonl"
    options = RunOptions(concurrency=1, max_retries=2, retry_backoff=0, request_timeout=5, progress=False)
    # by record: what the judge answers, call after call (then a good answer)
    script = {
        0: [FakeWorldModelServer.error(500)] * 9,
        1: [FakeWorldModelServer.malformed()] * 9,
        2: ["no verdict here"] * 9,
        3: [FakeWorldModelServer.error(400)] * 9,  # an error no retry can pass: still 3 attempts
        4: ["no verdict"],  # one unusable answer, then the judge is unreachable (below)
    }
    down = {"now": True}
    by_messages = {}
    from agentworld_plugins.bench.judge import JudgePrompts, judge_messages

    prompts = JudgePrompts()
    for i, line in enumerate(lines):
        messages = judge_messages(line, extract_prediction(line["gen"]), prompts.get(record_domain(line)))
        by_messages[_key(messages)] = i
    calls: dict[int, int] = {}

    def responder(body):
        i = by_messages[_key(body["messages"])]
        if i == 4 and calls.get(4) and down["now"]:  # connections drop: the judge never answers
            return FakeWorldModelServer.disconnect()
        calls[i] = calls.get(i, 0) + 1
        answers = script.get(i, [])
        good = evaluation(dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 4))
        return answers[calls[i] - 1] if calls[i] <= len(answers) else good

    with FakeWorldModelServer(model="j", responder=responder) as server:
        summary = await judge_lines(
            lines, judge_backend(base_url=server.url, timeout=5), out, options=options
        )
        assert summary.failed == 5 and summary.stopped is None
        assert "5 failed (4 for good: their attempts are spent) (rerun the same command to retry 1)" in (
            summary.line()
        )
        assert calls == {**dict.fromkeys(range(len(lines)), 1), 0: 3, 1: 3, 2: 3, 3: 3, 4: 1}
        judged = {j["id"] + str(j["turn_idx"]): j for j in load_results(out)[0]}
        attempts = [judged[line["id"] + str(line["turn_idx"])]["judge"]["attempts"] for line in lines[:5]]
        assert attempts == [3, 3, 3, 3, 1]
        first = judged[lines[4]["id"] + str(lines[4]["turn_idx"])]["judge"]
        assert first["unanswered"] == 2
        # rerun: the four whose three attempts are spent are never asked again; the fifth gets its answer
        down["now"] = False
        summary = await judge_lines(
            lines, judge_backend(base_url=server.url, timeout=5), out, options=options
        )
        assert calls == {**dict.fromkeys(range(len(lines)), 1), 0: 3, 1: 3, 2: 3, 3: 3, 4: 2}
        assert summary.skipped == len(lines) - 1 and summary.ok == 1
        again = {j["id"] + str(j["turn_idx"]): j for j in load_results(out)[0]}
        fifth = again[lines[4]["id"] + str(lines[4]["turn_idx"])]
        assert fifth["failed"] == 0.0 and fifth["judge"]["attempts"] == 2
        # a third run asks nothing at all
        await judge_lines(lines, judge_backend(base_url=server.url, timeout=5), out, options=options)
        assert sum(calls.values()) == len(lines) + 4 * 2 + 1
    failed = [j for j in again.values() if j["failed"] == 1.0]
    assert len(failed) == 4 and all(j["error_message"] == "Judge scoring failed" for j in failed)


# -- the printout: counts and rounding ---------------------------------------------------------------


def _official_line(i: int, task: str, scores: dict | None) -> dict:
    line = {"task": task, "id": str(i), "turn_idx": 1, "prompt": ["p"], "response": ["r"]}
    if scores is None:
        return {**line, "failed": 1.0, "total_score": 0, "error_message": "Judge scoring failed"}
    positive = [v for v in scores.values() if v > 0]
    return {**line, **scores, "failed": 0.0, "total_score": sum(positive) / len(positive) if positive else 0}


def test_a_tie_prints_as_the_official_script_prints_it(tmp_path):
    dims = ("format", "factuality", "consistency", "realism", "quality")
    # totals 1.75, 2.75, 3.4, 1.8: mean exactly 2.425, normalised 35.625
    rows = [(1, 2, 2, 2, 0), (3, 3, 3, 2, 0), (4, 4, 3, 3, 3), (2, 2, 2, 2, 1), (0, 0, 0, 0, 0)]
    lines = [_official_line(i, "mcp", dict(zip(dims, r))) for i, r in enumerate(rows)]
    lines.append(_official_line(9, "web", None))
    totals = [line["total_score"] for line in lines if line["total_score"]]
    assert f"{(sum(totals) / len(totals) - 1) / 4 * 100:.2f}" == "35.63"  # a float sum's rounding
    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _invoke(["bench", "score", str(path)])
    assert result.exit_code == 0, result.output
    printout = official_printout(lines)
    assert "Overall: 35.62" in printout and "Total samples: 6, Valid: 4, Failed: 2" in printout
    overall = next(line for line in result.output.splitlines() if line.strip().startswith("overall"))
    assert overall.split()[1] == "4/6" and overall.split()[-1] == "35.62"
    # per domain "valid" is the header's (failed == 0): the all-zero judgement counts there
    assert _our_counts(result.output) == {**_official_counts(printout), "overall": "4/6"}
    assert _official_counts(printout) == {"mcp": "5/5", "web": "0/1"}


# -- the judge's prompts ----------------------------------------------------------------------------


def test_prompts_dir_at_an_official_checkouts_prompts_gives_the_official_requests(
    data_dir, judge_server, tmp_path
):
    checkout = write_checkout(tmp_path / "checkout")
    lines = _predictions(data_dir)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "judged.jsonl"
    args = ["bench", "judge", "--predictions", str(predictions), "--output", str(out)]
    args += ["--base-url", judge_server.url, "--model", "j", "--no-progress"]
    result = _invoke([*args, "--prompts-dir", str(checkout / "prompts")])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output
    official = load_eval(checkout)
    systems = judge_system_prompts(checkout)
    expected = sorted(
        _key(official.build_judge_messages(line, extract_prediction(line["gen"]), systems)) for line in lines
    )
    assert sorted(_key(r.body["messages"]) for r in judge_server.chat_requests) == expected
    judged, _ = load_results(out)
    for line in judged:
        assert line["judge"]["prompts"] == {
            "system": str(checkout / "prompts" / record_domain(line) / "judge_system_prompt.txt"),
            "user_template": f"read from the evaluation source of {checkout}",
        }


def test_prompts_dir_without_a_user_template_says_the_requests_differ(data_dir, judge_server, tmp_path):
    folder = tmp_path / "only-system-prompts"
    for domain in ("mcp", "search", "terminal", "swe", "android", "web", "os"):
        (folder / domain).mkdir(parents=True)
        (folder / domain / "judge_system_prompt.txt").write_text(f"judge {domain}\n")
    lines = _predictions(data_dir)[:3]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "judged.jsonl"
    args = ["bench", "judge", "--predictions", str(predictions), "--output", str(out), "--no-progress"]
    result = _invoke([*args, "--base-url", judge_server.url, "--model", "j", "--prompts-dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert "differ from the official" in result.output and "import-prompts" in result.output
    for line in load_results(out)[0]:
        assert line["judge"]["prompts"]["user_template"] == "agentworld-plugins (bundled)"
        assert line["judge"]["prompts"]["system"].startswith(str(folder))
    bundled = tmp_path / "bundled.jsonl"
    args = ["bench", "judge", "--predictions", str(predictions), "--output", str(bundled), "--no-progress"]
    result = _invoke([*args, "--base-url", judge_server.url, "--model", "j"])
    assert "warning" not in result.output
    assert load_results(bundled)[0][0]["judge"]["prompts"]["system"] == "bundled"


# -- one writer, whatever the name ------------------------------------------------------------------


def test_a_symlink_or_a_hard_link_does_not_make_a_second_writer(tmp_path, data_dir):
    real = tmp_path / "predictions.jsonl"
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with OutputLock(real), pytest.raises(OutputBusyError, match="being written by another run"):
        OutputLock(link).acquire()
    # a run through the symlink writes the real file and leaves the link a link
    args = ["bench", "infer", "--data-dir", str(data_dir), "--backend", "offline", "--no-progress"]
    result = _invoke([*args, "--output", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert len(load_results(real)[0]) == len(load_dataset(data_dir).records)
    # a second name of the same file is refused before anything is read or written
    other = tmp_path / "other.jsonl"
    os.link(real, other)
    before = real.read_bytes()
    for name in (real, other):
        result = CliRunner().invoke(cli, [*args, "--output", str(name)])
        assert result.exit_code == 1 and "2 hard links" in result.output and "cp " in result.output
    assert real.read_bytes() == before
    os.unlink(other)
    result = _invoke([*args, "--output", str(real)])
    assert result.exit_code == 0 and "from an earlier run" in result.output


def test_the_python_api_says_why_a_file_gives_no_figure(tmp_path):
    """A script printing ``board.overall.total`` for a file where every judgement failed stops
    with an error naming the reasons (exit 1), not a bare None and exit 0; allow_empty=True gives
    the empty board with a warning."""
    import subprocess
    import sys

    from agentworld_plugins.bench import NoFiguresError
    from agentworld_plugins.bench.score import NoFiguresWarning, score_file

    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps(_official_line(i, "mcp", None)) + "\n" for i in range(3)))
    with pytest.raises(NoFiguresError, match="no usable judgement in 3 line") as info:
        score_file(path)
    assert info.value.board.overall.total is None and info.value.board.failures
    with pytest.warns(NoFiguresWarning, match="no usable judgement in 3 line"):
        assert score_file(path, allow_empty=True).overall.total is None
    script = f"from agentworld_plugins import bench; print(bench.score_file({str(path)!r}).overall.total)"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "NoFiguresError" in proc.stderr and "3 Judge scoring failed" in proc.stderr


def test_a_perturbation_the_offline_world_ignores_is_said_by_bench_infer(data_dir, tmp_path):
    out = tmp_path / "p.jsonl"
    args = ["bench", "infer", "--data-dir", str(data_dir), "--output", str(out), "--backend", "offline"]
    result = _invoke([*args, "--domains", "terminal", "--no-progress", "--perturb", "control:text=disk full"])
    assert result.exit_code == 0, result.output
    lines, _ = load_results(out)
    said = [w for line in lines for w in line["infer"]["warnings"] if "control perturbation" in w]
    assert len(said) == len(lines) > 0 and "not applied" in said[0]
    assert f"infer: warning ({len(lines)} records): {said[0]}" in result.output
