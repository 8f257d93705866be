"""``agentworld world``: list, show, export, reset and remove the named worlds of ``AGENTWORLD_HOME``.

agentworld world ls
agentworld world show demo            # files with contents, SQL tables, ledgers, the calls in order
agentworld world show demo --json
agentworld world export demo -o demo.json
agentworld world reset demo           # empty again, same machine
agentworld world rm demo
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..files import open_private

_SETTINGS = {"help_option_names": ["-h", "--help"]}


def _home(home: Path | None) -> Path | None:
    return home.expanduser() if home is not None else None


_home_option = click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="AGENTWORLD_HOME",
    help="Where the worlds are kept (default: $AGENTWORLD_HOME, else ~/.agentworld).",
)


@click.group(context_settings=_SETTINGS)
def world() -> None:
    """Named worlds: one environment shared by every front (MCP, shell, search), kept across
    connections, processes and restarts. Attach a front with --world NAME or AGENTWORLD_WORLD.

    \b
      agentworld mcp serve --pack filesystem --world demo    # MCP file tools ...
      AGENTWORLD_WORLD=demo agentworld shell -c 'cat /app/notes.txt'   # ... and the shell, one machine
      agentworld world show demo
    """


@world.command("ls", context_settings=_SETTINGS)
@_home_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_command(home: Path | None, as_json: bool) -> None:
    """List the stored worlds, most recently used first."""
    from ..worlds import list_worlds

    rows = list_worlds(_home(home))
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no worlds yet (start a front with --world NAME)", err=True)
    for row in rows:
        click.echo(f"{row['name']}\t{row['calls']} calls\tupdated {row['updated']}\t{row['machine']}")


@world.command(context_settings=_SETTINGS)
@click.argument("name")
@_home_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (files cut to --file-chars each).")
@click.option(
    "--file-chars",
    type=click.IntRange(min=0),
    default=2000,
    show_default=True,
    help="Characters shown per file.",
)
@click.option("--calls", type=click.IntRange(min=0), default=50, show_default=True, help="Last calls listed.")
def show(name: str, home: Path | None, as_json: bool, file_chars: int, calls: int) -> None:
    """Show world NAME: fronts, files and their contents, SQL tables, ledgers, the last calls."""
    from ..worlds import load_world

    view = load_world(name, _home(home))
    if as_json:
        data = view.to_json(file_chars=file_chars)
        data["calls"] = data["calls"][-calls:] if calls else []
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(view.render(file_chars=file_chars, calls=calls))


@world.command(context_settings=_SETTINGS)
@click.argument("name")
@_home_option
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here (default: stdout)."
)
def export(name: str, home: Path | None, output: Path | None) -> None:
    """Write world NAME whole as JSON: files, tables, ledgers, every call in order."""
    from ..worlds import load_world

    text = json.dumps(load_world(name, _home(home)).to_json(), indent=2, ensure_ascii=False, default=str)
    if output is None:
        click.echo(text)
        return
    with open_private(output, "w") as handle:
        handle.write(text + "\n")
    click.echo(f"agentworld: wrote world {name!r} to {output}", err=True)


@world.command(context_settings=_SETTINGS)
@click.argument("names", nargs=-1, required=True)
@_home_option
def reset(names: tuple[str, ...], home: Path | None) -> None:
    """Empty the worlds NAMES (state and calls forgotten, machine kept)."""
    from ..worlds import reset_world

    for name in names:
        if not reset_world(name, _home(home)):
            raise click.ClickException(f"no world named {name!r}")
        click.echo(f"agentworld: world {name!r} is empty again", err=True)


@world.command("rm", context_settings=_SETTINGS)
@click.argument("names", nargs=-1, required=True)
@_home_option
def remove(names: tuple[str, ...], home: Path | None) -> None:
    """Remove the worlds NAMES."""
    from ..worlds import remove_world

    for name in names:
        if not remove_world(name, _home(home)):
            raise click.ClickException(f"no world named {name!r}")
