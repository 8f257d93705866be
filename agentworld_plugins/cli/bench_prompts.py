"""``agentworld bench import-prompts``: a ``--prompts-dir`` folder from an official checkout."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("import-prompts")
@click.argument("checkout", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The prompts folder to write (then pass it as --prompts-dir).",
)
def import_prompts_command(checkout: Path, to: Path) -> None:
    """Write a prompts folder from CHECKOUT, your own clone of the official repository (QwenLM/Qwen-AgentWorld).

    The prompt files are copied; the judge user template is read from the evaluation source as
    text (never executed). With the folder as --prompts-dir, judge requests are byte-identical to
    the official script's.
    """
    from ..bench.import_prompts import import_prompts

    written = import_prompts(checkout, to)
    click.echo(
        f"{to}: {len(written['domains'])} domains ({', '.join(written['domains'])}), {written['template'].name}"
    )
    click.echo(f"use it with: --prompts-dir {to}", err=True)
