"""Throughput of ``bench infer`` against a world model with fixed latency, in one run.

A fake OpenAI-compatible server runs in its own process and answers each request after
``--latency`` seconds (50 ms). On the same 2,000 synthetic AgentWorldBench records (all seven
domains, multi-turn, 5-18 KB requests) it measures, in samples per second:

- ``loop``: one request at a time with the openai SDK, the way the published script runs (on ``--loop-records``
  records, since at 50 ms each the rate is what matters);
- ``bench``: :func:`agentworld_plugins.bench.infer_records` with ``--concurrency`` 64: messages,
  retries, parsing, the JSONL appended and flushed per record (with the lean HTTP client, and on
  ``--sdk-records`` records with the openai SDK, ``--http-client openai``);
- ``capacity``: what the server can serve at that concurrency, measured with a minimal raw HTTP
  client (keep-alive asyncio streams, the same request bodies, no parsing), next to the ideal
  ``concurrency / latency``.

    python benchmarks/bench_eval.py [--records 2000] [--concurrency 64] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.bench.data import DOMAINS
from agentworld_plugins.bench.endpoints import world_backend
from agentworld_plugins.bench.infer import default_sampling, infer_records
from agentworld_plugins.bench.runner import RunOptions
from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.turns import messages_for_record, parse_output

SERVER = r"""
import sys
from http.server import ThreadingHTTPServer
ThreadingHTTPServer.request_queue_size = 256  # room for every connection of the burst
from agentworld_plugins.fake_server import FakeWorldModelServer
answer = "<think>the command lists the folder</think><predicted_observation>total 8\nfile.txt</predicted_observation>"
server = FakeWorldModelServer(model="wm", latency=float(sys.argv[1]), responder=lambda body: answer).start()
print(server.port, flush=True)
sys.stdin.read()
server.stop()
"""


def make_records(count: int) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    episode = 0
    while len(records) < count:
        for domain in DOMAINS:
            records.extend(sample_records(domain, 1, start=episode))
        episode += 1
    return records[:count]


def loop(records: list[dict[str, Any]], url: str) -> float:
    """One request at a time with the openai SDK's sync client: messages, request, parse."""
    backend = OpenAIBackend([url], model="wm", timeout=60, max_retries=0)
    sampling = default_sampling()
    started = time.perf_counter()
    for record in records:
        completion = backend.complete(messages_for_record(record), sampling)
        parse_output(completion.text, completion.reasoning)
    elapsed = time.perf_counter() - started
    backend.close()
    return len(records) / elapsed


def bench(records: list[dict[str, Any]], url: str, concurrency: int, http_client: str = "lean") -> float:
    backend = world_backend(
        base_url=url, model="wm", timeout=60, concurrency=concurrency, http_client=http_client
    )
    options = RunOptions(concurrency=concurrency, progress=False, request_timeout=60)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "predictions.jsonl"
        started = time.perf_counter()
        summary = asyncio.run(infer_records(records, backend, out, options=options))
        elapsed = time.perf_counter() - started
        assert summary.ok == len(records), summary.line()
    backend.close()
    return len(records) / elapsed


async def _raw(records: list[dict[str, Any]], port: int, concurrency: int) -> float:
    bodies = [
        json.dumps(
            {"model": "wm", "messages": messages_for_record(r), "temperature": 0.6, "max_tokens": 32768}
        ).encode()
        for r in records
    ]
    pending = iter(bodies)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for body in pending:
            head = (
                f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            writer.write(head + body)
            await writer.drain()
            headers = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in headers.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*[worker() for _ in range(concurrency)])
    return len(bodies) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--loop-records", type=int, default=200, help="records for the one-at-a-time loop")
    parser.add_argument(
        "--sdk-records", type=int, default=600, help="records for bench with the openai SDK client"
    )
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()

    records = make_records(args.records)
    sizes = sorted(len(json.dumps(messages_for_record(r))) for r in records)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        url = f"http://127.0.0.1:{port}/v1"
        loop(records[:20], url)  # warm-up: imports, connections
        loop_rate = loop(records[: args.loop_records], url)
        bench_rate = bench(records, url, args.concurrency)
        sdk_rate = bench(records[: args.sdk_records], url, args.concurrency, "openai")
        capacity = asyncio.run(_raw(records, port, args.concurrency))
    finally:
        if server.stdin:
            server.stdin.close()
        server.wait(timeout=10)
    ideal = args.concurrency / args.latency
    print(
        f"records: {len(records)} (request size {sizes[0] // 1024}-{sizes[-1] // 1024} KB), latency {args.latency * 1e3:.0f} ms"
    )
    print(f"loop, one at a time ({args.loop_records} records):  {loop_rate:8.1f} samples/s")
    print(f"bench infer, concurrency {args.concurrency}:          {bench_rate:8.1f} samples/s")
    print(f"  same, --http-client openai ({args.sdk_records} records): {sdk_rate:8.1f} samples/s")
    print(
        f"server capacity (raw client, concurrency {args.concurrency}): {capacity:8.1f} samples/s (ideal {ideal:.0f})"
    )
    print(f"bench / loop:     {bench_rate / loop_rate:6.1f}x")
    print(f"bench / capacity: {bench_rate / capacity:6.2f}  (target >= 0.8)")
    print(f"bench / ideal:    {bench_rate / ideal:6.2f}")


if __name__ == "__main__":
    main()
