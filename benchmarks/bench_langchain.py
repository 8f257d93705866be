"""Per-call overhead of a substituted LangChain tool against the original tool, in the same run.

The original is a ``@tool`` function that returns at once. Measured, interleaved call by call:

- ``direct``: the original tool's function called directly (``tool.func(**args)``);
- ``original.invoke``: the original through LangChain's tool machinery (validation, callbacks);
- ``simulated.invoke``: the ``simulate_tools`` replacement with an instant backend (a backend that
  answers a constant at once), so what is left is the adapter and the session step: argument
  validation and dumping, the turn prompt, the message list, the hooks and the output parse;
- ``session.step (instant)``: the bare ``Session.step`` of the same call on the instant backend,
  the share of the world;
- ``simulated (offline)``: the replacement on the embedded offline world (the MCP ledger);
- ``tavily_search (offline)``: the simulated Tavily tool on the offline BM25 search world.

A session's history grows with every call (the world model sees the whole conversation), so the
simulated tools are rebuilt every ``--turns-per-session`` calls, as an agent run would.

    python benchmarks/bench_langchain.py [--calls 600] [--turns-per-session 10]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any, Literal

from agentworld_plugins.adapters.langchain import simulate_tools, tool_definition
from agentworld_plugins.adapters.search import search_tools
from langchain_core.tools import tool

from agentworld_plugins import Backend, Completion, Sampling, World

ANSWER = '<predicted_observation>{"id": 1, "title": "t", "priority": "low"}</predicted_observation>'


class InstantBackend(Backend):
    """Answers every request with the same observation, at once."""

    name = "instant"

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return Completion(text=ANSWER)


@tool
def create_ticket(title: str, priority: Literal["low", "high"] = "low") -> dict:
    """Create a support ticket and return it."""
    return {"id": 1, "title": title, "priority": priority}


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def _paths(
    tools: dict[str, Any], call: dict[str, Any], action: dict[str, Any], search: dict[str, Any]
) -> list[tuple[str, Callable[[], Any]]]:
    """One call of each path, in the order they are timed."""
    return [
        ("direct", lambda: create_ticket.func(**call)),
        ("original.invoke", lambda: create_ticket.invoke(call)),
        ("simulated.invoke", lambda: tools["simulated.invoke"].invoke(call)),
        ("session.step (instant)", lambda: tools["session.step (instant)"].step(action)),
        ("simulated (offline)", lambda: tools["simulated (offline)"].invoke(call)),
        ("tavily_search (offline)", lambda: tools["tavily_search (offline)"].invoke(search)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--turns-per-session", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()

    instant = World(backend=InstantBackend())
    offline = World(backend="offline")
    fresh: dict[str, Callable[[], Any]] = {
        "simulated.invoke": lambda: simulate_tools([create_ticket], world=instant)[0],
        "session.step (instant)": lambda: instant.session("mcp", tools=[tool_definition(create_ticket)]),
        "simulated (offline)": lambda: simulate_tools([create_ticket], world=offline)[0],
        "tavily_search (offline)": lambda: search_tools(["tavily_search"], world=offline)[0],
    }
    tools = {name: make() for name, make in fresh.items()}
    used = 0
    times: dict[str, list[float]] = {
        "direct": [],
        "original.invoke": [],
        **{name: [] for name in fresh},
    }
    for i in range(args.calls + args.warmup):
        if used >= args.turns_per_session:
            tools = {name: make() for name, make in fresh.items()}
            used = 0
        call = {"title": f"ticket {i}", "priority": "high"}
        action = {"tool_name": "create_ticket", "arguments": call}
        steps = _paths(tools, call, action, {"query": f"sourdough {i % 7}"})
        for name, run in steps:
            started = time.perf_counter()
            run()
            elapsed = time.perf_counter() - started
            if i >= args.warmup:
                times[name].append(elapsed)
        used += 1

    direct = _median_us(times["direct"])
    invoked = _median_us(times["original.invoke"])
    print(f"calls: {len(times['direct'])} per path (sessions of {args.turns_per_session} calls)")
    print(f"{'path':<26}{'median us':>12}{'x direct':>11}{'x invoke':>11}")
    for name, samples in times.items():
        median = _median_us(samples)
        print(f"{name:<26}{median:>12.1f}{median / direct:>11.1f}{median / invoked:>11.2f}")
    simulated = _median_us(times["simulated.invoke"])
    print(f"adapter + session step over original.invoke: {simulated - invoked:+.1f} us per call")


if __name__ == "__main__":
    main()
