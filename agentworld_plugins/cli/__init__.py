"""The ``agentworld`` command line: thin click commands over the library.

Errors print one line and exit 1; ``AGENTWORLD_RAISE_ERRORS=1`` shows the traceback instead.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..errors import AgentWorldError
from . import cassette, core, demo, serve
from .bench import bench as _bench
from .envgen import envgen
from .mcp import mcp as mcp_group
from .openenv import openenv as openenv_group
from .rollout import rollout as rollout_group
from .search import search as search_group
from .shell import shell as shell_group
from .shell import shim as shim_group
from .world import world as world_group


class AgentWorldGroup(click.Group):
    """A click group that turns :class:`AgentWorldError` into one clean line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AgentWorldError as exc:
            if os.environ.get("AGENTWORLD_RAISE_ERRORS", "") not in ("", "0"):
                raise
            click.echo(f"Error: {exc.message}", err=True)
            if exc.hint:
                click.echo(f"Hint: {exc.hint}", err=True)
            ctx.exit(1)


@click.group(cls=AgentWorldGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agentworld-plugins")
def cli() -> None:
    """Run agents against environments simulated by a language world model."""


for command in core.COMMANDS:
    cli.add_command(command)
cli.add_command(serve.serve)
cli.add_command(demo.demo)
cli.add_command(cassette.cassette)
cli.add_command(mcp_group)
cli.add_command(search_group)
cli.add_command(_bench)
cli.add_command(rollout_group)
cli.add_command(envgen)
cli.add_command(openenv_group)
cli.add_command(shell_group)
cli.add_command(shim_group)
cli.add_command(world_group)


def _load_plugin_commands() -> None:
    from ..plugins import get_plugin_manager

    get_plugin_manager().hook.register_commands(cli=cli)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    try:
        _load_plugin_commands()
    except AgentWorldError as exc:
        if os.environ.get("AGENTWORLD_RAISE_ERRORS", "") not in ("", "0"):
            raise
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    cli.main(args=argv, prog_name="agentworld")
