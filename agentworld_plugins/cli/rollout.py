"""``agentworld rollout run|stats``: agent policies against the simulated world, for Sim-RL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .options import ray_option, world_options


def report_summary(summary: Any, what: str, line: str | None = None) -> None:
    """Print a run's summary ``line`` (default: the summary's) and its commonest errors on stderr;
    a run that stopped early, or in which no ``what`` could be made at all, ends with an error
    (exit 1)."""
    from ..bench.runner import check_stopped, error_tally
    from ..errors import AgentWorldError

    click.echo(line or summary.line(), err=True)
    tally = error_tally(summary)
    for line in tally:
        click.echo(f"  {line}", err=True)
    check_stopped(summary)
    if summary.total and not summary.ok and not summary.skipped:
        raise AgentWorldError(
            f"{summary.label}: no {what} could be made ({summary.failed} failed; commonest: {tally[0]})"
            if tally
            else f"{summary.label}: no {what} could be made",
            hint="see the errors above; rerun the same command once they are fixed",
        )


@click.group()
def rollout() -> None:
    """Play tasks with an agent policy against the world; score and export the episodes."""


@rollout.command("run")
@click.option(
    "--tasks",
    "tasks_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Task JSONL.",
)
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Episodes JSONL (resumed when it exists).",
)
@click.option(
    "--agent",
    default="openai",
    show_default=True,
    help="openai, or scripted:FILE (a script of actions; scripted:bundled plays the bundled tasks).",
)
@click.option(
    "--agent-base-url",
    envvar="AGENTWORLD_AGENT_BASE_URL",
    help="The agent's OpenAI-compatible URL(s), comma separated.",
)
@click.option(
    "--agent-model",
    envvar="AGENTWORLD_AGENT_MODEL",
    help="The agent model's name (default: the first model the server lists).",
)
@click.option("--agent-api-key", envvar="AGENTWORLD_AGENT_API_KEY", help="API key of the agent's server.")
@click.option(
    "--agent-temperature",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="The agent model's sampling temperature.",
)
@click.option(
    "--agent-max-tokens",
    type=click.IntRange(min=1),
    default=2048,
    show_default=True,
    help="Most tokens per agent turn.",
)
@click.option(
    "--group-size", "-n", type=int, default=1, show_default=True, help="Episodes per task (a GRPO group)."
)
@click.option("--concurrency", "-c", type=int, default=8, show_default=True, help="Episodes played at once.")
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Retries of a failed agent request.",
)
@click.option(
    "--request-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    help="Seconds per agent request.",
)
@click.option("--judge-base-url", envvar="AGENTWORLD_JUDGE_BASE_URL", help="Endpoint of 'judge' rewards.")
@click.option("--judge-model", envvar="AGENTWORLD_JUDGE_MODEL", help="Model of 'judge' rewards.")
@click.option(
    "--timings/--no-timings",
    default=True,
    show_default=True,
    help="Record per-episode timings (the only field that differs between reruns).",
)
@ray_option("Play episodes")
@click.option(
    "--world-transport",
    type=click.Choice(["lean", "sdk"]),
    default="lean",
    show_default=True,
    help="HTTP client of the openai world backend: lean (fast, no proxies) or sdk (the openai SDK).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar (default: when stderr is a terminal).",
)
@world_options
def run(
    tasks_file: Path,
    output: Path,
    agent: str,
    agent_base_url: str | None,
    agent_model: str | None,
    agent_api_key: str | None,
    agent_temperature: float,
    agent_max_tokens: int,
    group_size: int,
    concurrency: int,
    max_retries: int,
    request_timeout: float,
    judge_base_url: str | None,
    judge_model: str | None,
    timings: bool,
    ray: str | bool | None,
    world_transport: str,
    progress: bool | None,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    backend: str | None,
    prompts_dir: Path | None,
    timeout: float | None,
    perturb: tuple[str, ...],
    perturb_file: Path | None,
    world_name: str | None,
) -> None:
    """Play every task --group-size times with the agent against the world, into --output.

    Rerun the same command after a crash or a kill: finished episodes are kept, the rest are
    played, and the file ends the same as an uninterrupted run's.
    """
    from importlib.resources import files

    from ..rollout.runner import RolloutSpec
    from ..rollout.runner import rollout as run_rollout

    bundled = files("agentworld_plugins.rollout.data")
    if str(tasks_file) == "bundled":
        tasks_file = Path(str(bundled / "tasks.jsonl"))
    if agent == "scripted:bundled":
        agent = f"scripted:{bundled / 'agent.yaml'}"
    agent_options = {}
    if agent == "openai":
        agent_options = {
            "base_urls": [u.strip() for u in (agent_base_url or "").split(",") if u.strip()],
            "model": agent_model or "",
            "api_key": agent_api_key,
            "temperature": agent_temperature,
            "max_tokens": agent_max_tokens,
            "timeout": request_timeout,
        }
    world_options = {
        "base_url": base_url,
        "model": model,
        "api_key": api_key,
        "backend": backend,
        "prompts_dir": str(prompts_dir) if prompts_dir else None,
        "timeout": timeout,
        "perturb": list(perturb),
        "perturb_file": str(perturb_file) if perturb_file else None,
        "transport": world_transport,
        "name": world_name or None,
    }
    spec = RolloutSpec(
        agent=agent,
        agent_options=agent_options,
        world_options=world_options,
        judge={"base_url": judge_base_url, "model": judge_model},
        timings=timings,
        max_retries=max_retries,
        request_timeout=request_timeout,
    )
    summary = run_rollout(
        str(tasks_file),
        output,
        spec,
        group_size=group_size,
        concurrency=concurrency,
        ray=ray,
        progress=progress,
    )
    report_summary(summary, "episode")


@rollout.command("filter")
@click.argument("episodes", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Kept episodes JSONL.",
)
@click.option(
    "--max-contradicted",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Most steps on which the world contradicted itself (the consistency guard's count) an episode may have.",
)
def filter_episodes(episodes: Path, output: Path, max_contradicted: int) -> None:
    """Copy the episodes of EPISODES whose world stayed consistent (a guarded world's `guard`
    counts, docs/guard.md) to OUTPUT; failed episodes and those past --max-contradicted are left
    out.

    \b
    agentworld rollout run --tasks t.jsonl -o all.jsonl --guard flag ...
    agentworld rollout filter all.jsonl -o consistent.jsonl
    """
    from ..files import iter_jsonl, open_private

    kept = dropped = unguarded = 0
    with open_private(output, "w") as out:
        for _, line in iter_jsonl(episodes, hint="give an episodes file written by rollout run"):
            if not isinstance(line, dict) or (line.get("rollout") or {}).get("status") not in (None, "ok"):
                dropped += 1
                continue
            guard = line.get("guard")
            if not isinstance(guard, dict):
                unguarded += 1
            elif int(guard.get("contradicted", 0)) > max_contradicted:
                dropped += 1
                continue
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            kept += 1
    note = f" ({unguarded} without guard counts, kept)" if unguarded else ""
    click.echo(f"{output}: kept {kept}, left out {dropped}{note}", err=True)


@rollout.command("stats")
@click.argument("episodes", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-k", "ks", type=int, multiple=True, help="pass@k to report (repeatable; default 1 and the group size)."
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    default=1.0,
    show_default=True,
    help="Reward (0-1) at which an episode passes.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a bar chart of mean reward per task (.png or .svg).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def stats(episodes: Path, ks: tuple[int, ...], threshold: float, plot: Path | None, as_json: bool) -> None:
    """Reward per task (group), pass@k and turn counts of EPISODES (an episodes JSONL file)."""
    from rich.console import Console
    from rich.table import Table

    from ..rollout.stats import episode_stats, write_reward_plot

    if not ks:
        first = episode_stats(episodes, (1,), threshold)
        largest = max((g.n for g in first.groups.values()), default=1)
        ks = tuple(sorted({1, max(1, largest)}))
    result = episode_stats(episodes, ks, threshold)
    if plot is not None:
        write_reward_plot(result, plot)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
        return
    table = Table(title=f"{episodes.name}: {result.episodes} episodes, {result.failed} failed")
    for column in ("task", "domain", "n", "mean reward", "mean turns", *(f"pass@{k}" for k in result.ks)):
        table.add_column(column, justify="left" if column in ("task", "domain") else "right")
    for group in result.groups.values():
        table.add_row(
            group.task_id,
            group.domain,
            str(group.n),
            f"{group.mean_reward:.3f}",
            f"{group.mean_turns:.1f}",
            *(f"{group.pass_at[k]:.3f}" for k in result.ks),
        )
    overall = result.overall()
    if overall:
        table.add_row(
            "overall",
            "",
            str(result.episodes),
            f"{overall['mean_reward']:.3f}",
            f"{overall['mean_turns']:.1f}",
            *(f"{overall[f'pass@{k}']:.3f}" for k in result.ks),
        )
    Console(width=120).print(table)
    if plot is not None:
        click.echo(f"plot: {plot}")
