"""Per-step overhead of the library against a bare ``openai`` client call, in the same run.

Both talk to the fake world-model server on 127.0.0.1 with zero latency. The library step renders
the turn, builds the growing message list, runs the hooks, calls the backend and parses the
answer; the baseline sends the same messages with a bare ``openai.OpenAI`` client. Calls are
interleaved so both see the same machine state.

    python benchmarks/bench_overhead.py [--steps 300]
"""

from __future__ import annotations

import argparse
import statistics
import time

import openai

from agentworld_plugins import World
from agentworld_plugins.fake_server import FakeWorldModelServer

ANSWER = (
    "<think>the agent lists files</think><predicted_observation>total 8\nfile.txt</predicted_observation>"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--turns-per-session", type=int, default=10)
    args = parser.parse_args()

    with FakeWorldModelServer(responder=lambda body: ANSWER) as server:
        world = World(base_url=server.url, model="wm")
        bare = openai.OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0)
        lib_times: list[float] = []
        bare_times: list[float] = []
        session = world.session("terminal", initial_state="root@box:/app#")
        for i in range(args.steps + 20):
            if len(session.trajectory.turns) >= args.turns_per_session:
                session = world.session("terminal", initial_state="root@box:/app#")
            action = [{"keystrokes": f"ls -la dir{i}\n", "duration": 0.5}]
            # the bare baseline sends the very messages the library would send for this turn
            prompt = session.domain.render_turn(
                session.turn_number, session.domain.validate_action(action), None
            )
            messages, _ = session.messages(prompt)
            started = time.perf_counter()
            bare.chat.completions.create(model="wm", messages=messages, temperature=0.6, max_tokens=4096)
            bare_s = time.perf_counter() - started
            started = time.perf_counter()
            session.step(action)
            lib_s = time.perf_counter() - started
            if i >= 20:  # warm-up
                bare_times.append(bare_s)
                lib_times.append(lib_s)

    bare_med = statistics.median(bare_times)
    lib_med = statistics.median(lib_times)
    print(f"steps: {len(lib_times)} (sessions of {args.turns_per_session} turns)")
    print(f"bare openai call   median {bare_med * 1e3:.3f} ms")
    print(f"library step       median {lib_med * 1e3:.3f} ms")
    print(f"ratio library/bare {lib_med / bare_med:.3f}  (overhead {100 * (lib_med / bare_med - 1):+.1f}%)")


if __name__ == "__main__":
    main()
