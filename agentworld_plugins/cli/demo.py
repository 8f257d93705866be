"""``agentworld demo``: a scripted agent plays a short episode in each domain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .options import make_world, world_options


@click.command()
@click.option("--domain", "domains", multiple=True, help="Only this domain (repeatable).")
@click.option(
    "--record", type=click.Path(dir_okay=False, path_type=Path), help="Append the trajectories as JSONL."
)
@world_options
def demo(domains: tuple[str, ...], record: Path | None, **world_args: Any) -> None:
    """Run a scripted agent against the world (the offline world when none is configured)."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.rule import Rule

    from ..demo import AGENTS, run_episode, start_episode
    from ..errors import ConfigError

    console = Console(highlight=False)
    unknown = [d for d in domains if d not in AGENTS]
    if unknown:
        raise ConfigError(f"No demo for domain {unknown[0]!r}", hint=f"choose from {', '.join(AGENTS)}")
    with make_world(**world_args) as world:
        console.print(f"[bold]agentworld demo[/] - backend: {world.backend.describe()}")
        for domain in domains or tuple(AGENTS):
            console.print(Rule(f"[bold cyan]{domain}"))
            session = start_episode(world, domain)
            for action, observation in run_episode(session):
                shown = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False)
                console.print(f"[bold green]agent >[/] {shown}")
                style = "red" if observation.is_error else "white"
                notes = (
                    " (unknown effect offline)" if observation.metadata.get("offline_unknown_effect") else ""
                )
                console.print(
                    Panel(
                        observation.text or "(empty)",
                        border_style=style,
                        title=f"turn {observation.metadata.get('turn')}{notes}",
                        title_align="left",
                    )
                )
            if record:
                session.trajectory.to_jsonl(record, append=True)
    if record:
        console.print(f"trajectories appended to {record}")
