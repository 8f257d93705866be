"""Offline world speed per domain, and cassette replay latency against a dict lookup.

* offline: median wall time of one ``Session.step`` per domain on the embedded offline backend
  (the demo's scripted agents, repeated), reported with steps/s;
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
    hit, lookup = bench_cassette(args.cassette_requests)
    print(
        f"cassette hit {hit * 1e3:.3f} ms; dict lookup of the same canonical key {lookup * 1e3:.3f} ms; "
        f"ratio {hit / lookup:.1f}"
    )


if __name__ == "__main__":
    main()
