"""What a named world costs over a world kept in memory, measured in the same run.

Each round runs, interleaved (so load on the machine hits all alike), one MCP ``write_file`` step
(the offline world's file tools) and one shell ``run_shell_command`` step:

* **memory**: on a session of no named world, already made (what every front did before worlds);
* **attached**: on a front of a stored world this process already holds (each step checks the
  store's version, pickles the world and writes one transaction);
* **attach + step**: a new :class:`SharedWorld` attaching to the stored world (reading the
  record and the front's turns, unpickling the state, opening the front), one step, closed: what a
  stdio MCP server started per call pays beyond its Python start and its ``World()`` (settings,
  backend), which it makes with or without a named world.

The stored world already holds ``--history`` calls when the rounds start. Target: attach + step
within 2 ms of the in-memory step.

    python benchmarks/bench_worlds.py [--rounds 300] [--history 50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentworld_plugins import World
from agentworld_plugins.store import SessionStore
from agentworld_plugins.worlds import SharedWorld

FILES = [
    {
        "name": "write_file",
        "description": "Create a new file or overwrite an existing file with new content.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
]
SHELL = [{"name": "run_shell_command"}]


def _write(n: int) -> dict[str, Any]:
    return {"tool_name": "write_file", "arguments": {"path": f"/app/n{n % 20}.txt", "content": f"{n}\n"}}


def _run(n: int) -> dict[str, Any]:
    return {
        "tool_name": "run_shell_command",
        "arguments": {"command": f"echo {n} >> /app/log; wc -l /app/log"},
    }


def _timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--history", type=int, default=50, help="calls in the stored world before timing")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-worlds-"))

    memory = World(backend="offline")
    mem_mcp = memory.make_session("mcp", tools=FILES)
    mem_shell = memory.make_session("swe", tools=SHELL)
    held = World(backend="offline", name="bench", home=home)
    held_mcp = held.session("mcp", tools=FILES)
    held_shell = held.session("swe", front="shell", tools=SHELL)
    fresh = World(backend="offline", name="bench-attach", home=home)
    for n in range(args.history):
        for world in (held, fresh):
            if n % 2:
                world.session("mcp", tools=FILES).step(_write(n))
            else:
                world.session("swe", front="shell", tools=SHELL).step(_run(n))
    fresh.close()

    store = SessionStore.at_home(home)

    def attach_and(step: Callable[[SharedWorld], Any]) -> Callable[[], Any]:
        # a World's settings and backend are made once per process with or without worlds: the
        # attach is the world's own work (read the record, unpickle, open the front)
        def go() -> None:
            with SharedWorld(memory, "bench-attach", store=store) as world:
                step(world)

        return go

    kinds: dict[str, dict[str, Callable[[int], Callable[[], Any]]]] = {
        "mcp write_file": {
            "memory": lambda n: lambda: mem_mcp.step(_write(n)),
            "attached": lambda n: lambda: held_mcp.step(_write(n)),
            "attach + step": lambda n: attach_and(
                lambda w: w.operate(lambda: w.front("mcp", "mcp", tools=FILES).step(_write(n)))
            ),
        },
        "shell run_shell_command": {
            "memory": lambda n: lambda: mem_shell.step(_run(n)),
            "attached": lambda n: lambda: held_shell.step(_run(n)),
            "attach + step": lambda n: attach_and(
                lambda w: w.operate(lambda: w.front("shell", "swe", tools=SHELL).step(_run(n)))
            ),
        },
    }
    times: dict[tuple[str, str], list[float]] = {(k, m): [] for k, modes in kinds.items() for m in modes}
    for n in range(args.rounds):
        for kind, modes in kinds.items():
            for mode, make in modes.items():
                times[kind, mode].append(_timed(make(n)))
    print(
        f"{args.rounds} rounds, interleaved; each stored world started with {args.history} calls "
        f"(the one attached to afresh ends with {args.history + 2 * args.rounds})\n"
    )
    print(f"{'step':26} {'mode':14} {'median ms':>10} {'p90 ms':>8} {'over memory':>12} {'ratio':>6}")
    for kind, modes in kinds.items():
        base = statistics.median(times[kind, "memory"])
        for mode in modes:
            data = sorted(times[kind, mode])
            median = statistics.median(data)
            p90 = data[int(len(data) * 0.9)]
            print(
                f"{kind:26} {mode:14} {median:10.3f} {p90:8.3f} {median - base:+11.3f}  {median / base:6.2f}"
            )
    held.close()
    memory.close()


if __name__ == "__main__":
    main()
