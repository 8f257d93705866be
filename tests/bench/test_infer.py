"""Inference against a fake world-model server over real HTTP: exact messages, sampling,
retries, failures, concurrency and resume."""

from __future__ import annotations

import json
import threading
import time

import pytest

from agentworld_plugins.bench.data import load_dataset, load_results, record_key
from agentworld_plugins.bench.endpoints import world_backend
from agentworld_plugins.bench.infer import infer_records
from agentworld_plugins.bench.runner import RunOptions
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.turns import messages_for_record


def _backend(server, options):
    return world_backend(
        base_url=server.url, timeout=options.request_timeout, concurrency=options.concurrency
    )


async def test_messages_are_exactly_messages_for_record(data_dir, world_server, fast, tmp_path):
    records = load_dataset(data_dir).records
    out = tmp_path / "pred.jsonl"
    summary = await infer_records(records, _backend(world_server, fast), out, options=fast)
    assert (summary.ok, summary.failed, summary.total) == (len(records), 0, len(records))
    bodies = [r.body for r in world_server.chat_requests]
    assert len(bodies) == len(records)
    sent = {json.dumps(b["messages"]) for b in bodies}
    assert sent == {json.dumps(messages_for_record(r)) for r in records}
    for body in bodies:  # the published sampling
        assert body["temperature"] == 0.6 and body["max_tokens"] == 32768
    # the multi-turn records carry their history
    third = next(r for r in records if r["turn_idx"] == 3)
    messages = messages_for_record(third)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert (
        messages[2]["content"] == third["response"][0] and messages[-1]["content"] == third["current_prompt"]
    )


async def test_result_lines_in_input_order_with_parsed_prediction(data_dir, world_server, fast, tmp_path):
    records = load_dataset(data_dir).records
    out = tmp_path / "pred.jsonl"
    world_server.enqueue(
        {"content": "<think>hmm</think><predicted_observation>\nhello\n</predicted_observation>"}
    )
    await infer_records(
        records, _backend(world_server, fast), out, options=RunOptions(concurrency=1, progress=False)
    )
    lines, problems = load_results(out)
    assert problems == []
    assert [record_key(line) for line in lines] == [record_key(r) for r in records]
    first = lines[0]
    assert first["prediction"] == "hello"
    assert first["infer"]["status"] == "ok" and first["infer"]["model"] == "world-under-test"
    assert first["infer"]["reasoning"] == "hmm"
    assert {k: first[k] for k in records[0]} == records[0]  # the record travels along
    assert lines[1]["prediction"].startswith("observation for Turn")


async def test_transport_errors_are_retried(data_dir, world_server, tmp_path):
    records = load_dataset(data_dir, domains=["mcp"], limit=1).records
    world_server.enqueue(
        FakeWorldModelServer.error(503), FakeWorldModelServer.malformed(), FakeWorldModelServer.disconnect()
    )
    options = RunOptions(concurrency=1, retry_backoff=0.001, request_timeout=5, progress=False)
    summary = await infer_records(
        records, _backend(world_server, options), tmp_path / "p.jsonl", options=options
    )
    assert summary.ok == 1 and len(world_server.chat_requests) == 4


async def test_timeouts_are_retried(data_dir, world_server, tmp_path):
    records = load_dataset(data_dir, domains=["mcp"], limit=1).records
    world_server.enqueue(FakeWorldModelServer.hang(1.0))
    options = RunOptions(concurrency=1, retry_backoff=0.001, request_timeout=0.3, progress=False)
    summary = await infer_records(
        records, _backend(world_server, options), tmp_path / "p.jsonl", options=options
    )
    assert summary.ok == 1
    lines, _ = load_results(tmp_path / "p.jsonl")
    assert lines[0]["infer"]["status"] == "ok"


async def test_failures_are_written_as_failed_not_as_empty_predictions(data_dir, world_server, tmp_path):
    records = load_dataset(data_dir, domains=["web"], limit=2).records
    # a 400 is not transient: no retry; four 500s exhaust the retries
    world_server.enqueue(FakeWorldModelServer.error(400, "context too long"))
    world_server.enqueue(*[FakeWorldModelServer.error(500)] * 4)
    options = RunOptions(concurrency=1, max_retries=3, retry_backoff=0.001, progress=False)
    out = tmp_path / "p.jsonl"
    summary = await infer_records(records, _backend(world_server, options), out, options=options)
    assert (summary.ok, summary.failed) == (0, 2)
    assert len(world_server.chat_requests) == 1 + 4
    lines, _ = load_results(out)
    assert all(line["prediction"] is None and line["infer"]["status"] == "failed" for line in lines)
    assert "HTTP 400" in lines[0]["infer"]["error"] and "after 4 attempts" in lines[1]["infer"]["error"]
    # the rerun tries the failed ones again and ends with one line per record
    summary = await infer_records(records, _backend(world_server, options), out, options=options)
    assert (summary.skipped, summary.ok) == (0, 2)
    lines, _ = load_results(out)
    assert [line["infer"]["status"] for line in lines] == ["ok", "ok"]


async def test_keep_failed_leaves_failures_alone(data_dir, world_server, tmp_path):
    records = load_dataset(data_dir, domains=["web"], limit=1).records
    world_server.enqueue(FakeWorldModelServer.error(400))
    options = RunOptions(concurrency=1, progress=False, redo_failed=False)
    out = tmp_path / "p.jsonl"
    await infer_records(records, _backend(world_server, options), out, options=options)
    summary = await infer_records(records, _backend(world_server, options), out, options=options)
    assert summary.skipped == 1 and len(world_server.chat_requests) == 1


async def test_concurrency_is_respected(data_dir, tmp_path):
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def responder(body):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return "<predicted_observation>x</predicted_observation>"

    records = load_dataset(data_dir).records
    options = RunOptions(concurrency=3, progress=False)
    with FakeWorldModelServer(responder=responder) as server:
        summary = await infer_records(
            records, _backend(server, options), tmp_path / "p.jsonl", options=options
        )
    assert summary.ok == len(records)
    assert state["peak"] == 3


class Crash(RuntimeError):
    pass


async def test_resume_after_a_crash_redoes_nothing_done(data_dir, world_server, fast, tmp_path):
    records = load_dataset(data_dir).records
    out = tmp_path / "p.jsonl"
    reference = tmp_path / "reference.jsonl"
    await infer_records(records, _backend(world_server, fast), reference, options=fast)
    calls_before = len(world_server.chat_requests)

    seen = []

    def crash_after_five(result):
        seen.append(result)
        if len(seen) == 5:
            raise Crash("simulated kill")

    with pytest.raises(Crash):
        await infer_records(
            records, _backend(world_server, fast), out, options=fast, on_result=crash_after_five
        )
    done_keys = [record_key(line) for line in load_results(out)[0]]
    # each result was on disk as soon as it finished (others may have finished with the fifth)
    assert 5 <= len(done_keys) < len(records)
    requests_in_crash = len(world_server.chat_requests) - calls_before

    summary = await infer_records(records, _backend(world_server, fast), out, options=fast)
    assert summary.skipped == len(done_keys) and summary.ok == len(records) - len(done_keys)
    # (requests cancelled by the crash may reach the server late: compare what was asked, not counts)
    redone = {
        json.dumps(r.body["messages"]) for r in world_server.chat_requests[calls_before + requests_in_crash :]
    }
    missing = {json.dumps(messages_for_record(r)) for r in records if record_key(r) not in set(done_keys)}
    assert redone == missing
    keys = [record_key(line) for line in load_results(out)[0]]
    assert len(keys) == len(set(keys)) == len(records)
    assert out.read_bytes() == reference.read_bytes()


async def test_torn_last_line_is_dropped_and_redone(data_dir, world_server, fast, tmp_path):
    records = load_dataset(data_dir, domains=["swe"]).records
    out = tmp_path / "p.jsonl"
    await infer_records(records, _backend(world_server, fast), out, options=fast)
    full = out.read_bytes()
    lines = full.splitlines(keepends=True)
    out.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # killed mid-write
    summary = await infer_records(records, _backend(world_server, fast), out, options=fast)
    assert summary.skipped == 1 and summary.dropped_torn == 1
    assert out.read_bytes() == full


async def test_a_server_that_goes_away_stops_the_run_and_resume_finishes(data_dir, tmp_path):
    records = load_dataset(data_dir).records
    out = tmp_path / "p.jsonl"
    options = RunOptions(
        concurrency=2, max_retries=1, retry_backoff=0.001, progress=False, unavailable_limit=3
    )
    alive = {"left": 4}

    def responder(body):
        if alive["left"] <= 0:
            return FakeWorldModelServer.disconnect()  # the server is gone: connections drop
        alive["left"] -= 1
        return "<predicted_observation>ok</predicted_observation>"

    with FakeWorldModelServer(model="m", responder=responder) as server:
        summary = await infer_records(records, _backend(server, options), out, options=options)
        assert summary.stopped is not None and "unreachable" in summary.stopped
        assert summary.left > 0 and summary.ok == 4
        kept = [line for line in load_results(out)[0] if line["infer"]["status"] == "ok"]
        assert len(kept) == 4
        # the server comes back; the rerun finishes the rest and redoes nothing done
        alive["left"] = 10**6
        before = len(server.chat_requests)
        summary = await infer_records(records, _backend(server, options), out, options=options)
        assert len(server.chat_requests) - before == len(records) - 4
    assert summary.stopped is None and summary.skipped == 4
    keys = [record_key(line) for line in load_results(out)[0]]
    assert keys == [record_key(r) for r in records]


def test_no_world_model_is_a_clear_error(monkeypatch):
    for name in ("AGENTWORLD_BASE_URL", "AGENTWORLD_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="No world model to evaluate"):
        world_backend()


async def test_offline_world_as_the_model(data_dir, fast, tmp_path):
    records = load_dataset(data_dir).records
    summary = await infer_records(
        records, world_backend(backend="offline"), tmp_path / "p.jsonl", options=fast
    )
    assert summary.ok == len(records)
    lines, _ = load_results(tmp_path / "p.jsonl")
    assert all(line["infer"]["model"] == "offline" and line["prediction"] for line in lines)
