"""Built-in perturbations: harness-level faults, latency and prompt injection; model-level control
instructions, fictional worlds and adversarial steering.

This module is a built-in plugin (``DEFAULT_PLUGINS``): it registers each perturbation by name,
resolves ``name:key=value`` specs and ``AGENTWORLD_PERTURB`` for :class:`~agentworld_plugins.World`
(``resolve_perturbation``, ``default_perturbations``), and adds the ``agentworld perturbations`` and ``agentworld report`` commands. Use them by object
or by name::

    from agentworld_plugins import World
    from agentworld_plugins.perturbations import Faults, Latency

    world = World()
    session = world.session(
        "mcp",
        seed=7,
        perturbations=[Faults(rate=0.3, kinds="rate_limit+timeout"), "latency:ms=200"],
    )

Perturbations run in the order given, in every hook; see ``docs/perturbations.md``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..hookspecs import hookimpl
from .adversarial import Adversarial
from .base import METADATA_KEY, Perturbation, TargetedPerturbation, TargetOptions
from .config import parse_spec, perturbations_from_options, resolve
from .control import Control
from .faults import ERROR_KINDS, KINDS, OUTPUT_KINDS, Faults, output_fault
from .fictional_world import FictionalWorld
from .latency import Latency
from .prompt_injection import PromptInjection
from .report import Scorecard, scorecard
from .targeting import ActionView, Schedule, SessionRandom, Target, describe_action

if TYPE_CHECKING:
    import click

    from ..plugins import Registry

__all__ = [
    "ERROR_KINDS",
    "KINDS",
    "METADATA_KEY",
    "OUTPUT_KINDS",
    "ActionView",
    "Adversarial",
    "Control",
    "Faults",
    "FictionalWorld",
    "Latency",
    "Perturbation",
    "PromptInjection",
    "Schedule",
    "Scorecard",
    "SessionRandom",
    "Target",
    "TargetOptions",
    "TargetedPerturbation",
    "describe_action",
    "output_fault",
    "parse_spec",
    "perturbations_from_options",
    "resolve",
    "scorecard",
]

#: the built-in perturbations, by the name they are registered under
BUILTINS: dict[str, type[Perturbation]] = {
    cls.name: cls for cls in (Faults, Latency, PromptInjection, Control, FictionalWorld, Adversarial)
}


@hookimpl
def register_perturbations(register: Callable[..., None]) -> None:
    for name, cls in BUILTINS.items():
        register(name, cls)


@hookimpl
def resolve_perturbation(spec: Any, registry: Registry) -> Any:
    return resolve(spec, registry)


@hookimpl
def default_perturbations(registry: Registry) -> list[Any]:
    """``AGENTWORLD_PERTURB_FILE``'s entries, then ``AGENTWORLD_PERTURB``'s specs."""
    return perturbations_from_options((), os.environ.get("AGENTWORLD_PERTURB_FILE") or None, registry)


@hookimpl
def register_commands(cli: click.Group) -> None:
    import click

    @cli.command(name="perturbations")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    def perturbations_command(as_json: bool) -> None:
        """List the registered perturbations, their options and an example spec."""
        from ..plugins import get_plugin_manager
        from .base import options_help

        rows: list[dict[str, Any]] = []
        for name, factory in sorted(get_plugin_manager().registry.perturbations.items()):
            options = getattr(factory, "Options", None)
            rows.append(
                {
                    "name": name,
                    "description": (factory.__doc__ or "").strip().splitlines()[0] if factory.__doc__ else "",
                    "example": getattr(factory, "example", ""),
                    "options": dict(options_help(options)) if options is not None else {},
                }
            )
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        for row in rows:
            click.echo(f"{row['name']}: {row['description']}")
            if row["example"]:
                click.echo(f"  e.g. --perturb '{row['example']}'")
            for option, text in row["options"].items():
                click.echo(f"  {option}: {text}")

    @cli.command(name="report")
    @click.argument("trajectories", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
    @click.option("--json", "as_json", is_flag=True, help="Print the scorecard as JSON.")
    @click.option(
        "--loop-threshold",
        default=3,
        show_default=True,
        type=click.IntRange(2),
        help="Repeats that make a loop.",
    )
    def report_command(trajectories: tuple[Path, ...], as_json: bool, loop_threshold: int) -> None:
        """Print the perturbation scorecard of TRAJECTORIES (trajectory JSONL files): faults
        injected by kind and tool, what the agent did next, steps to recovery, and loops."""
        from .report import read_jsonl

        sessions = [s for path in trajectories for s in read_jsonl(path)]
        card = scorecard(sessions, loop_threshold=loop_threshold)
        click.echo(json.dumps(card.to_dict(), indent=2) if as_json else card.render())
