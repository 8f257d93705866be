"""Rollout throughput against the capacity of the servers, and per-step overhead of a rollout.

Two fake OpenAI-compatible servers on 127.0.0.1 answer after ``--latency`` seconds (default 50 ms),
as many requests at once as they get: the agent (tool calls, then an answer) and the world model.
An MCP episode is ``--calls`` tool calls plus the final answer: ``2 * calls + 1`` sequential model
calls, so with ``--concurrency K`` the servers' capacity is ``K / ((2 * calls + 1) * latency)``
episodes per second. Throughput is measured episodes per second over that capacity.

Overhead: one episode at a time; the median time of an agent turn plus its world step (agent
request, action validation, world step through the hooks and the ``openai`` backend, reward
bookkeeping) against two bare ``httpx`` calls to the same two servers with the same messages,
interleaved in the same run.

    python benchmarks/bench_rollout.py [--episodes 96] [--concurrency 8] [--latency 0.05] [--rounds 3]
    python benchmarks/bench_rollout.py --per-episode [--ray]     # the library's own cost per episode
    python benchmarks/bench_rollout.py --sessions                # its parts: a session, two steps
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import socket
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.backends.openai.transport import LeanTransport
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.rollout import RolloutSpec, Task, arollout, rollout
from agentworld_plugins.rollout.agent import EpisodeInfo, OpenAIPolicy
from agentworld_plugins.rollout.episode import play
from agentworld_plugins.session import World

WORLD_ANSWER = '<predicted_observation>{"number": 1, "title": "x", "state": "open"}</predicted_observation>'


def agent_responder(calls: int):
    def respond(body: dict) -> dict | str:
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if done >= calls:
            return "Done."
        arguments = json.dumps({"owner": "a", "repo": "b", "title": f"bug {done}"})
        return {
            "content": "",
            "tool_calls": [
                {
                    "id": f"c{done}",
                    "type": "function",
                    "function": {"name": "create_issue", "arguments": arguments},
                }
            ],
        }

    return respond


def tasks(n: int) -> list[Task]:
    return [
        Task(
            id=f"t{i}",
            domain="mcp",
            tool_pack="github-issues",
            instruction="Open issues.",
            max_turns=20,
            # one check of the actions, one of the final state (replayed offline: the world is a model)
            reward=[
                {"type": "tool_called", "tool": "create_issue"},
                {"type": "ledger_item", "resource": "issue", "where": {"title": "bug 0"}},
            ],
        )
        for i in range(n)
    ]


async def recorded_episode(calls: int) -> list[tuple[str, bytes]]:
    """The requests of one episode, in order, as the servers received them: ``(server, body)``,
    ``server`` being ``agent`` or ``world`` (what the bare client replays)."""
    agent = FakeWorldModelServer(responder=agent_responder(calls)).start()
    world = FakeWorldModelServer(responder=lambda body: WORLD_ANSWER).start()
    try:
        spec = RolloutSpec(
            agent="openai",
            agent_options={"base_urls": [agent.url], "model": "agent"},
            world_options={"backend": "openai", "base_url": world.url, "model": "wm", "transport": "lean"},
            timings=False,
        )
        with tempfile.TemporaryDirectory() as tmp:
            await arollout(tasks(1), Path(tmp) / "one.jsonl", spec)
        sent = [("agent", r) for r in agent.chat_requests] + [("world", r) for r in world.chat_requests]
    finally:
        agent.stop()
        world.stop()
    sent.sort(key=lambda pair: pair[1].at)
    return [(kind, json.dumps(r.body).encode()) for kind, r in sent]


async def bare_ceiling(
    args: argparse.Namespace, urls: dict[str, str], requests: list[tuple[str, bytes]]
) -> float:
    """Episodes per second of bare ``httpx`` clients (one per worker: httpx's shared pool scans
    every connection per request, which at -c 32 costs more than the requests) replaying one
    episode's requests, in order, in ``--concurrency`` workers."""
    headers = {"Content-Type": "application/json", "Authorization": "Bearer EMPTY"}
    queue = iter(range(args.episodes))

    async def worker() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            for _ in queue:
                for kind, body in requests:
                    response = await client.post(
                        f"{urls[kind]}/chat/completions", content=body, headers=headers
                    )
                    response.json()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    return args.episodes / (time.perf_counter() - started)


async def bare_lean(
    args: argparse.Namespace, urls: dict[str, str], requests: list[tuple[str, bytes]]
) -> float:
    """The same replay over the package's lean HTTP/1.1 client alone (asyncio streams, keep-alive):
    the ceiling of any Python client here, the servers' and the machine's share of the gap."""
    transport = LeanTransport([urls["agent"], urls["world"]])
    index = {"agent": 0, "world": 1}
    queue = iter(range(args.episodes))

    async def worker() -> None:
        for _ in queue:
            for kind, body in requests:
                _status, answer = await transport.arequest(index[kind], "POST", "/chat/completions", body)
                json.loads(answer)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    rate = args.episodes / (time.perf_counter() - started)
    await transport.aclose_idle()
    return rate


async def ours(args: argparse.Namespace, spec: RolloutSpec, lean_world: World, tmp: Path, n: int) -> float:
    out = tmp / f"episodes{n}.jsonl"
    started = time.perf_counter()
    summary = await arollout(tasks(args.episodes), out, spec, concurrency=args.concurrency, world=lean_world)
    elapsed = time.perf_counter() - started
    assert summary.ok == args.episodes, summary.line()
    return args.episodes / elapsed


async def throughput(args: argparse.Namespace, agent: Any, world: Any) -> None:
    spec = RolloutSpec(
        agent="openai",
        agent_options={"base_urls": [agent.url], "model": "agent"},
        world_options={"backend": "openai", "base_url": world.url, "model": "wm"},
        timings=False,
    )
    requests = await recorded_episode(args.calls)
    assert len(requests) == 2 * args.calls + 1, len(requests)
    urls = {"agent": agent.url, "world": world.url}
    # the world model through the lean transport (rollout run's default), as a rollout at scale uses it
    backend = OpenAIBackend([world.url], model="wm", transport="lean")
    ceilings: list[float] = []
    leans: list[float] = []
    measured: list[float] = []
    cpu_ms: dict[str, list[float]] = {"httpx": [], "lean": [], "ours": []}
    with tempfile.TemporaryDirectory() as tmp, World(backend=backend, perturbations=[]) as lean_world:
        await arollout(
            tasks(args.concurrency),
            Path(tmp) / "warm.jsonl",
            spec,
            concurrency=args.concurrency,
            world=lean_world,
        )
        for n in range(args.rounds):  # interleaved, so both see the same machine
            for kind, figures, run in (
                ("httpx", ceilings, lambda: bare_ceiling(args, urls, requests)),
                ("lean", leans, lambda: bare_lean(args, urls, requests)),
                ("ours", measured, lambda n=n: ours(args, spec, lean_world, Path(tmp), n)),
            ):
                cpu = time.process_time()
                figures.append(await run())
                cpu_ms[kind].append((time.process_time() - cpu) / args.episodes * 1000)
    per_episode = (2 * args.calls + 1) * args.latency
    capacity = args.concurrency / per_episode
    ceiling, ours_figure = statistics.median(ceilings), statistics.median(measured)
    lean = statistics.median(leans)
    print(
        f"episodes: {args.episodes}, concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms, "
        f"median of {args.rounds} interleaved rounds"
    )
    print(
        f"capacity of the servers: {capacity:.1f} episodes/s (one episode = {per_episode * 1000:.0f} ms of calls)"
    )
    print(
        f"bare httpx client replaying the same requests: {ceiling:.1f} episodes/s "
        f"({' '.join(f'{c:.1f}' for c in ceilings)})"
    )
    print(
        f"bare lean HTTP/1.1 client, same requests: {lean:.1f} episodes/s ({' '.join(f'{c:.1f}' for c in leans)})"
    )
    print(f"rollout: {ours_figure:.1f} episodes/s ({' '.join(f'{m:.1f}' for m in measured)})")
    cpu = {k: statistics.median(v) for k, v in cpu_ms.items()}
    print(
        f"client CPU per episode: rollout {cpu['ours']:.2f} ms, bare httpx {cpu['httpx']:.2f} ms, "
        f"bare lean {cpu['lean']:.2f} ms (rollout / bare httpx {cpu['ours'] / cpu['httpx']:.2f})"
    )
    print(
        f"THROUGHPUT RATIO {ours_figure / capacity:.3f} of capacity (target >= 0.8); "
        f"bare client {ceiling / capacity:.3f}"
    )
    print(f"CEILING RATIO {ours_figure / ceiling:.3f} of the bare httpx client (target >= 0.9)")
    print(
        f"LEAN CEILING RATIO {ours_figure / lean:.3f} of the bare lean client; it reaches {lean / capacity:.3f} of capacity"
    )


async def overhead(args: argparse.Namespace, agent: Any, world: Any) -> None:
    policy = OpenAIPolicy([agent.url], "agent")
    step_times: list[float] = []
    bare_times: list[float] = []
    task = tasks(1)[0]
    with World(backend="openai", base_url=world.url, model="wm", perturbations=[]) as w:
        async with httpx.AsyncClient() as client:
            for i in range(args.overhead_episodes):
                marks: list[float] = []

                async def act(messages, tools, info: EpisodeInfo, marks: list[float] = marks):
                    marks.append(time.perf_counter())
                    return await policy.act(messages, tools, info)

                episode = await play(task, i, w, act)
                marks.append(time.perf_counter())
                # each agent turn that led to a world step: from one agent request to the next
                turns = [b - a for a, b in itertools.pairwise(marks)][: episode.world_steps]
                if i >= 2:
                    step_times += turns
                # the bare baseline: the same two requests per turn, straight over HTTP
                session_messages = episode.session.messages("### Turn 1\n\n**Action:**\n```json\n{}\n```")[0]
                for _ in range(episode.world_steps):
                    t0 = time.perf_counter()
                    await client.post(
                        f"{agent.url}/chat/completions",
                        json={"model": "agent", "messages": episode.messages[:3], "tools": episode.tools},
                    )
                    await client.post(
                        f"{world.url}/chat/completions", json={"model": "wm", "messages": session_messages}
                    )
                    if i >= 2:
                        bare_times.append(time.perf_counter() - t0)
    await policy.aclose()
    lib, bare = statistics.median(step_times), statistics.median(bare_times)
    print(f"per step: library {lib * 1000:.2f} ms, two bare calls {bare * 1000:.2f} ms")
    print(f"OVERHEAD RATIO {lib / bare:.3f} (target < 1.2)")


def per_episode(args: argparse.Namespace) -> None:
    """Library cost of an episode with nothing to wait for: the scripted agent on the offline world
    (the bundled tasks), asyncio and, with --ray, Ray actors on a local instance."""
    from importlib.resources import files

    data = files("agentworld_plugins.rollout.data")
    spec = RolloutSpec(
        agent=f"scripted:{data / 'agent.yaml'}", world_options={"backend": "offline"}, timings=False
    )
    task_file = str(data / "tasks.jsonl")
    modes: list[tuple[str, Any]] = [("asyncio", None)]
    if args.ray:
        from agentworld_plugins.rollout.ray import init_ray

        init_ray(num_cpus=2, include_dashboard=False)
        modes.append(("ray (local, 2 cpus)", True))
    for label, ray_option in modes:
        with tempfile.TemporaryDirectory() as tmp:
            rollout(task_file, Path(tmp) / "warm.jsonl", spec, group_size=2, concurrency=4, ray=ray_option)
            started = time.perf_counter()
            summary = rollout(
                task_file,
                Path(tmp) / "e.jsonl",
                spec,
                group_size=args.offline_group,
                concurrency=4,
                ray=ray_option,
            )
            elapsed = time.perf_counter() - started
        n = summary.ok
        print(f"PER EPISODE ({label}): {elapsed / n * 1000:.2f} ms over {n} offline episodes of 2-3 steps")


#: per domain: the session's context and two actions (the bundled tasks' kind of episode)
SESSION_CASES: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "mcp": (
        {"tool_pack": "github-issues"},
        [
            {"tool_name": "create_issue", "arguments": {"owner": "acme", "repo": "api", "title": "x"}},
            {"tool_name": "list_issues", "arguments": {"owner": "acme", "repo": "api"}},
        ],
    ),
    "swe": (
        {"tool_pack": "coding-agent", "files": {"README.md": "# demo\n"}},
        [
            {"tool_name": "write_file", "arguments": {"file_path": "/app/TODO.md", "content": "- ship it\n"}},
            {"tool_name": "run_shell_command", "arguments": {"command": "ls /app"}},
        ],
    ),
    "terminal": (
        {"initial_state": "root@box:/app# "},
        [[{"keystrokes": "echo hi > /app/a.txt\n", "duration": 0.1}], [{"keystrokes": "cat /app/a.txt\n"}]],
    ),
    "search": ({}, []),
    "web": ({}, []),
    "android": ({}, []),
    "os": ({}, []),
}


def sessions(rounds: int) -> None:
    """Median wall time of ``World().session(...)`` per domain, and of a session plus two offline
    steps where the case has actions: the per-session part of :func:`per_episode`."""
    world = World(backend="offline")

    def median_ms(domain: str, context: dict[str, Any], actions: list[Any]) -> float:
        def run() -> None:
            session = world.session(domain, **context)
            for action in actions:
                session.step(action)

        run()
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
        return statistics.median(times) * 1000

    for domain, (context, actions) in SESSION_CASES.items():
        context = dict(context)
        if "tool_pack" in context:
            context["tools"] = world.pm.registry.tool_pack(context.pop("tool_pack"))
        line = f"SESSION {domain}: {median_ms(domain, context, []):.3f} ms"
        if actions:
            line += f", with {len(actions)} offline steps {median_ms(domain, context, actions):.3f} ms"
        print(line)


def _completion(answer: dict | str) -> bytes:
    message = (
        {"role": "assistant", "content": answer}
        if isinstance(answer, str)
        else {"role": "assistant", **answer}
    )
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    body = {"id": "x", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}  # fmt: skip
    return json.dumps(body).encode()


async def _serve_async(kind: str, calls: int, latency: float, port: int, ready: Any, stop: Any) -> None:
    """An OpenAI-compatible fake on asyncio streams (keep-alive, Content-Length bodies): a few
    hundred microseconds of CPU a request, so the servers' capacity is what the latency allows."""
    responder = agent_responder(calls) if kind == "agent" else (lambda body: WORLD_ANSWER)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                body = json.loads(await reader.readexactly(length)) if length else {}
                await asyncio.sleep(latency)
                if head.startswith(b"GET"):
                    payload = json.dumps({"object": "list", "data": [{"id": "fake"}]}).encode()
                else:
                    payload = _completion(responder(body))
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(payload)).encode() + b"\r\n\r\n" + payload
                )  # fmt: skip
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    ready.set()
    await asyncio.get_running_loop().run_in_executor(None, stop.wait)
    server.close()


def _serve(kind: str, calls: int, latency: float, port: int, ready: Any, stop: Any) -> None:
    """A fake server in a process of its own, so its CPU is not the client's (the GIL)."""
    asyncio.run(_serve_async(kind, calls, latency, port, ready, stop))


def _hog(stop: Any) -> None:
    while not stop.is_set():
        sum(range(10_000))


@contextlib.contextmanager
def cpu_hogs(n: int) -> Iterator[None]:
    """``n`` processes spinning on the CPU (contention, as on a shared machine)."""
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    procs = [ctx.Process(target=_hog, args=(stop,), daemon=True) for _ in range(n)]
    for proc in procs:
        proc.start()
    try:
        yield
    finally:
        stop.set()
        for proc in procs:
            proc.join(10)


@contextlib.contextmanager
def servers(args: argparse.Namespace) -> Iterator[tuple[Any, Any]]:
    """The agent's and the world model's fake servers, each in its own process."""
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    procs, urls = [], []
    for kind in ("agent", "world"):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        ready = ctx.Event()
        proc = ctx.Process(
            target=_serve, args=(kind, args.calls, args.latency, port, ready, stop), daemon=True
        )
        proc.start()
        ready.wait(60)
        procs.append(proc)
        urls.append(SimpleNamespace(url=f"http://127.0.0.1:{port}/v1"))
    try:
        yield urls[0], urls[1]
    finally:
        stop.set()
        for proc in procs:
            proc.join(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=96)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--calls", type=int, default=3, help="tool calls per episode")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved throughput rounds")
    parser.add_argument("--overhead-episodes", type=int, default=12)
    parser.add_argument("--no-overhead", action="store_true", help="only the throughput figures")
    parser.add_argument("--per-episode", action="store_true", help="only the offline per-episode cost")
    parser.add_argument(
        "--offline-group", type=int, default=100, help="episodes per bundled task (--per-episode)"
    )
    parser.add_argument("--ray", action="store_true", help="also on a local Ray instance (--per-episode)")
    parser.add_argument(
        "--hogs", type=int, default=0, help="CPU-bound processes running meanwhile (--per-episode)"
    )
    parser.add_argument("--sessions", action="store_true", help="only a session's cost per domain")
    parser.add_argument("--session-rounds", type=int, default=200, help="sessions per median (--sessions)")
    args = parser.parse_args()
    if args.sessions:
        sessions(args.session_rounds)
        return
    if args.per_episode:
        with cpu_hogs(args.hogs):
            per_episode(args)
        return
    with servers(args) as (agent, world):
        asyncio.run(throughput(args, agent, world))
        if not args.no_overhead:
            asyncio.run(overhead(args, agent, world))


if __name__ == "__main__":
    main()
