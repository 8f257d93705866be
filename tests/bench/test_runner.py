"""The runner's parts: retries, what counts as transient, and the resumable results file."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentworld_plugins.bench.runner import (
    JobResult,
    ResultsFile,
    RunOptions,
    backoff_delay,
    is_transient,
    retrying,
    run_jobs,
)
from agentworld_plugins.errors import AgentWorldError, BackendError, BackendUnavailableError


def _item(n: int) -> dict:
    return {"task": "terminal", "id": f"r{n}", "turn_idx": 1}


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (BackendUnavailableError("Cannot reach"), True),
        (asyncio.TimeoutError(), True),
        (ConnectionResetError(), True),
        (BackendError("The server at x answered HTTP 503: busy"), True),
        (BackendError("The server at x answered HTTP 429: slow down"), True),
        (BackendError("The server at x answered with a body that is not JSON"), True),
        (BackendError("The server at x answered HTTP 400: too long"), False),
        (BackendError("The offline world found no **Action:**"), False),
        (ValueError("bug"), False),
    ],
)
def test_transient_errors(exc, transient):
    assert is_transient(exc) is transient


async def test_retrying_retries_transient_errors_and_rejected_values():
    answers = iter([BackendUnavailableError("down"), "bad", "good"])

    async def call():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    outcome = await retrying(
        call, max_retries=3, backoff=0, timeout=1, check=lambda v: None if v == "good" else "rejected"
    )
    assert (outcome.value, outcome.error, outcome.attempts) == ("good", None, 3)


async def test_retrying_stops_at_once_on_other_errors_and_after_the_retries():
    calls = []

    async def broken():
        calls.append(1)
        raise BackendError("HTTP 400: nope")

    outcome = await retrying(broken, max_retries=3, backoff=0, timeout=1)
    assert outcome.error == "HTTP 400: nope" and not outcome.unavailable and len(calls) == 1

    async def slow():
        await asyncio.sleep(1)

    outcome = await retrying(slow, max_retries=2, backoff=0, timeout=0.01)
    assert outcome.unavailable and outcome.attempts == 3 and "timeout" in outcome.error


def test_backoff_doubles_with_jitter():
    assert backoff_delay(0, 0) == 0
    for attempt in range(4):
        delay = backoff_delay(attempt, 0.5)
        assert 0.5 * 2**attempt <= delay <= 1.25 * 0.5 * 2**attempt


def test_results_file_drops_torn_and_failed_lines_and_orders_at_the_end(tmp_path):
    path = tmp_path / "out.jsonl"
    ok = [json.dumps({**_item(n), "infer": {"status": "ok"}}) for n in range(3)]
    failed = json.dumps({**_item(3), "infer": {"status": "failed"}})
    path.write_text(f"{ok[2]}\n{failed}\n\n{ok[0]}\n{ok[2]}\n" + ok[1][:20])
    results = ResultsFile(path, lambda line: line["infer"]["status"] == "ok")
    found = results.prepare()
    assert found.done == {("terminal", "r0", 1), ("terminal", "r2", 1)}
    assert (found.torn, found.redo, found.repeated) == (1, 1, 1)
    assert path.read_text() == f"{ok[0]}\n{ok[2]}\n"
    results.append({**_item(1), "infer": {"status": "ok"}})
    results.append({**_item(9), "infer": {"status": "ok"}})  # a record no longer asked for: kept, last
    results.finalize([("terminal", f"r{n}", 1) for n in range(3)])
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]
    assert ids == ["r0", "r1", "r2", "r9"]


async def test_run_jobs_counts_and_dedupes(tmp_path):
    async def work(item):
        ok = item["id"] != "r1"
        return JobResult(
            {**item, "step": {"status": "ok" if ok else "failed", "error": None if ok else "boom"}}, ok
        )

    items = [_item(0), _item(1), _item(2), _item(0)]
    summary = await run_jobs(items, work, tmp_path / "o.jsonl", RunOptions(progress=False), label="step")
    assert (summary.total, summary.ok, summary.failed, summary.left) == (3, 2, 1, 0)
    assert summary.errors == {"boom": 1}
    assert "1 failed (rerun the same command to retry them)" in summary.line()
    lines = (tmp_path / "o.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["r0", "r1", "r2"]


def test_bad_options_are_clear():
    with pytest.raises(AgentWorldError, match="--concurrency"):
        RunOptions(concurrency=0)
    with pytest.raises(AgentWorldError, match="--request-timeout"):
        RunOptions(request_timeout=0)


@pytest.mark.parametrize(
    ("exc", "unreachable"),
    [
        (BackendUnavailableError("Cannot reach"), True),
        (asyncio.TimeoutError(), True),
        (ConnectionResetError(), True),
        (BackendError("The server at x answered HTTP 503: busy"), False),
        (BackendError("The server at x answered with a body that is not JSON"), False),
    ],
)
def test_only_no_answer_at_all_is_unreachable(exc, unreachable):
    """An HTTP 5xx or a garbled body is an answer: the record fails, the run goes on."""
    from agentworld_plugins.bench.runner import is_unreachable

    assert is_unreachable(exc) is unreachable
