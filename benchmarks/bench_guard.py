"""The consistency guard (#30): contradictions an agent sees with and without it, false alarms on
a consistent model, and its cost per step against a 50 ms model, all in one run.

    python benchmarks/bench_guard.py                  # the drift fake model (offline, no GPU)
    python benchmarks/bench_guard.py --episodes 40
    python benchmarks/bench_guard.py --backend openai --base-url http://localhost:8000/v1
        # a real world model: the same episodes, counting what the guard flags (no ground truth)

Figures go to BENCHMARKS.md ("Consistency guard").
"""

from __future__ import annotations

import argparse
import json
import os

from agentworld_plugins.guard import measure


def _sum(results: dict[str, measure.Tally]) -> measure.Tally:
    total = measure.Tally()
    for tally in results.values():
        total.add(tally)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--backend", default=None, help="a real world model's backend (default: drift)")
    parser.add_argument("--base-url", default=None)
    args = parser.parse_args()
    if args.base_url:
        os.environ["AGENTWORLD_BASE_URL"] = args.base_url
    report: dict[str, object] = {}
    if args.backend:
        results = measure.run(rate=0, guard="flag", episodes=args.episodes, backend=args.backend)
        total = _sum(results)
        report["real model"] = {
            "steps": total.steps,
            "checkable": total.checkable,
            "flagged": total.flagged,
            "flagged_per_checkable": round(total.flagged / max(total.checkable, 1), 4),
        }
        print(json.dumps(report, indent=2))
        return
    for guard in (None, "flag", "repair", "engine"):
        results = measure.run(rate=args.rate, guard=guard, episodes=args.episodes)
        total = _sum(results)
        report[f"rate {args.rate}, guard {guard or 'off'}"] = {
            "checkable": total.checkable,
            "corrupted": total.corrupted,
            "visible": total.visible,
            "visible_rate": round(total.visible / max(total.checkable, 1), 4),
            "flagged": total.flagged,
            "false_alarms": total.false_alarms,
            "per_kind_visible": {k: f"{t.visible}/{t.checkable}" for k, t in results.items()},
        }
    consistent = _sum(measure.run(rate=0.0, guard="repair", episodes=args.episodes))
    report["consistent model, guard repair"] = {
        "steps": consistent.steps,
        "false_alarms": consistent.flagged,
        "false_alarm_rate": round(consistent.flagged / max(consistent.steps, 1), 4),
    }
    # cost: the same consistent episodes against a model that takes 50 ms, alternated
    episodes = max(2, args.episodes // 10)
    times = {"off": 0.0, "repair": 0.0}
    steps = 0
    for _ in range(3):
        for guard in ("off", "repair"):
            total = _sum(
                measure.run(
                    rate=0.0, guard=None if guard == "off" else guard, episodes=episodes, latency=args.latency
                )
            )
            times[guard] += total.seconds
            steps = total.steps
    per_step = {k: v / (3 * steps) for k, v in times.items()}
    report[f"cost against a {int(args.latency * 1000)} ms model"] = {
        "ms_per_step_off": round(per_step["off"] * 1000, 3),
        "ms_per_step_guarded": round(per_step["repair"] * 1000, 3),
        "overhead_ratio": round(per_step["repair"] / per_step["off"] - 1, 4),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
