"""Offline world speed per domain, and cassette replay latency against a dict lookup.

* offline: median wall time of one ``Session.step`` per domain on the embedded offline backend
  (the demo's scripted agents, repeated), reported with steps/s;
* mcp families: median ``Session.step`` of the built-in tool packs' calls in the offline MCP
  world, one row per family (files, sql, messages, events, issues), each on a session that
  has already written what it reads;
* cassette: median latency of a replayed request (SQLite hit through ``CassetteBackend``) next to
  the baseline of looking the same canonical request up in a Python dict, both in this run.

    python benchmarks/bench_offline.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path

from agentworld_plugins import World
from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.cassette import CassetteBackend
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.demo import AGENTS, run_episode, start_episode


def bench_offline(rounds: int) -> dict[str, float]:
    world = World(backend="offline")
    medians = {}
    for domain in AGENTS:
        times: list[float] = []
        for _ in range(rounds):
            session = start_episode(world, domain)
            episode = run_episode(session)
            while True:
                started = time.perf_counter()
                try:
                    next(episode)
                except StopIteration:
                    break
                times.append(time.perf_counter() - started)
        medians[domain] = statistics.median(times)
    return medians


#: per family: a call sequence on the built-in packs (``{n}`` is the round, so writes differ)
FAMILY_CALLS: dict[str, list[tuple[str, dict[str, object]]]] = {
    "files": [
        ("write_file", {"path": "/app/n{n}.txt", "content": "line {n}\n" * 20}),
        ("read_text_file", {"path": "/app/n{n}.txt"}),
        ("list_directory", {"path": "/app"}),
        ("get_file_info", {"path": "/app/n{n}.txt"}),
    ],
    "sql": [
        ("write_query", {"query": "INSERT INTO t (v) VALUES ('{n}'), ('x{n}')"}),
        ("read_query", {"query": "SELECT id, v FROM t ORDER BY id DESC LIMIT 5"}),
        ("list_tables", {}),
    ],
    "messages": [
        ("send_email", {"to": ["bo@example.org"], "subject": "Report {n}", "body": "See {n}."}),
        ("search_emails", {"query": "subject:report to:bo@example.org"}),
    ],
    "events": [
        (
            "create_event",
            {"summary": "Sync {n}", "start": "2026-02-02T09:00:00Z", "end": "2026-02-02T09:30:00Z"},
        ),
        ("list_events", {"time_min": "2026-02-02T00:00:00Z", "time_max": "2026-02-03T00:00:00Z"}),
    ],
    "issues": [
        ("create_issue", {"owner": "acme", "repo": "api", "title": "Bug {n}", "labels": ["bug"]}),
        ("get_issue", {"owner": "acme", "repo": "api", "issue_number": 1}),
        ("list_issues", {"owner": "acme", "repo": "api"}),
    ],
}


def _fill(value: object, n: int) -> object:
    if isinstance(value, str):
        return value.replace("{n}", str(n))
    if isinstance(value, list):
        return [_fill(v, n) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, n) for k, v in value.items()}
    return value


def bench_mcp_families(rounds: int) -> dict[str, float]:
    from importlib import resources

    world = World(backend="offline")
    tools: list[dict[str, object]] = []
    for pack in ("filesystem", "sql_database", "calendar_email", "github_issues"):
        text = resources.files("agentworld_plugins.toolpacks").joinpath(f"{pack}.json").read_text()
        tools += json.loads(text)["tools"]
    medians = {}
    for family, calls in FAMILY_CALLS.items():
        session = world.session("mcp", tools=tools)
        session.step(
            {
                "tool_name": "create_table",
                "arguments": {"query": "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"},
            }
        )
        for n in range(3):  # warm: imports, jsf, first table and files
            for name, arguments in calls:
                session.step({"tool_name": name, "arguments": _fill(arguments, n)})
        times: list[float] = []
        for n in range(3, rounds + 3):
            for name, arguments in calls:
                action = {"tool_name": name, "arguments": _fill(arguments, n)}
                started = time.perf_counter()
                observation = session.step(action)
                times.append(time.perf_counter() - started)
                assert not observation.is_error, (name, observation.text)
        medians[family] = statistics.median(times)
    return medians


def bench_cassette(n: int) -> tuple[float, float]:
    sampling = Sampling(temperature=0.0, max_tokens=512)
    requests = [
        [
            {"role": "system", "content": "You simulate a terminal. " * 200},
            {
                "role": "user",
                "content": f'### Turn 1\n**Action:**\n```json\n[{{"keystrokes": "ls {i}\\n"}}]\n```',
            },
        ]
        for i in range(n)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        recorder = CassetteBackend(path, FakeBackend(), mode="new_episodes")
        for messages in requests:
            recorder.complete(messages, sampling)
        recorder.close()
        replayer = CassetteBackend(path, None, mode="none")
        table = {}
        for messages in requests:
            key = hashlib.sha256(
                json.dumps({"messages": messages, **sampling.model_dump()}, sort_keys=True).encode()
            ).hexdigest()
            table[key] = "answer"
        hits, lookups = [], []
        for messages in requests:
            started = time.perf_counter()
            replayer.complete(messages, sampling)
            hits.append(time.perf_counter() - started)
            started = time.perf_counter()
            key = hashlib.sha256(
                json.dumps({"messages": messages, **sampling.model_dump()}, sort_keys=True).encode()
            ).hexdigest()
            _ = table[key]
            lookups.append(time.perf_counter() - started)
        replayer.close()
    return statistics.median(hits), statistics.median(lookups)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--cassette-requests", type=int, default=1000)
    args = parser.parse_args()
    print("offline world, median per step:")
    for domain, median in bench_offline(args.rounds).items():
        print(f"  {domain:9s} {median * 1e3:7.3f} ms   {1 / median:9.0f} steps/s")
    print("offline MCP world, median per step, by tool family (built-in packs):")
    for family, median in bench_mcp_families(args.rounds).items():
        print(f"  {family:9s} {median * 1e3:7.3f} ms   {1 / median:9.0f} steps/s")
    hit, lookup = bench_cassette(args.cassette_requests)
    print(
        f"cassette hit {hit * 1e3:.3f} ms; dict lookup of the same canonical key {lookup * 1e3:.3f} ms; "
        f"ratio {hit / lookup:.1f}"
    )


if __name__ == "__main__":
    main()
