"""Sim-RL in one command: an agent model plays tasks against the world model; episodes are scored
and written as training data.

Offline (scripted agent, offline world; no model, no key, no network):

    python examples/simrl/run.py

Against real endpoints (an agent on vLLM/SGLang, Qwen-AgentWorld as the world):

    python examples/simrl/run.py --agent-base-url http://localhost:8001/v1 --agent-model Qwen/Qwen3-8B \
        --world-base-url http://localhost:8000/v1

Rerun the same command after an interruption: finished episodes are kept. The two modes write
different files (``simrl-episodes.jsonl`` offline, ``simrl-episodes-live.jsonl`` against endpoints),
so a live run never resumes the offline one's episodes; pass ``--output`` for a fresh file.
"""

from __future__ import annotations

import argparse
from importlib.resources import files
from pathlib import Path

from agentworld_plugins.bench.runner import error_tally
from agentworld_plugins.rollout import RolloutSpec, rollout
from agentworld_plugins.rollout.stats import episode_stats, write_reward_plot

DATA = files("agentworld_plugins.rollout.data")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=str(DATA / "tasks.jsonl"), help="task JSONL (default: bundled)")
    parser.add_argument(
        "--agent-base-url", help="the agent's OpenAI-compatible URL (default: scripted agent)"
    )
    parser.add_argument("--agent-model", default="", help="the agent model's name (default: the server's)")
    parser.add_argument("--world-base-url", help="the world model's URL (default: the offline world)")
    parser.add_argument("--world-model", help="the world model's name (default: asked from the server)")
    parser.add_argument("--group-size", type=int, default=4, help="episodes per task (a GRPO group)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--output", help="episodes JSONL (default: simrl-episodes.jsonl, -live.jsonl with endpoints)"
    )
    args = parser.parse_args()
    live = bool(args.agent_base_url or args.world_base_url)
    output = args.output or ("simrl-episodes-live.jsonl" if live else "simrl-episodes.jsonl")

    if args.agent_base_url:
        agent, agent_options = "openai", {"base_urls": [args.agent_base_url], "model": args.agent_model}
    else:
        agent, agent_options = f"scripted:{DATA / 'agent.yaml'}", {}
    if args.world_base_url:
        world = {"backend": "openai", "base_url": args.world_base_url, "model": args.world_model}
    else:
        world = {"backend": "offline"}
    spec = RolloutSpec(agent=agent, agent_options=agent_options, world_options=world)
    summary = rollout(args.tasks, output, spec, group_size=args.group_size, concurrency=args.concurrency)
    print(summary.line())
    for line in error_tally(summary):  # why episodes failed (rerun the same command to retry them)
        print(f"  {line}")
    if not summary.ok and not summary.skipped:
        raise SystemExit("no episode could be played: see the errors above")

    stats = episode_stats(output, ks=(1, args.group_size))
    for group in stats.groups.values():
        passes = ", ".join(f"pass@{k} {group.pass_at[k]:.2f}" for k in stats.ks)
        print(
            f"{group.task_id:16} {group.domain:9} reward {group.mean_reward:.2f}  {passes}  turns {group.mean_turns:.1f}"
        )
    plot = write_reward_plot(stats, Path(output).with_suffix(".png"))
    print(f"episodes: {output}  plot: {plot}")


if __name__ == "__main__":
    main()
