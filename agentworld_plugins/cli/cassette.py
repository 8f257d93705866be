"""``agentworld cassette``: list, show and delete what cassettes recorded.

agentworld cassette ls                      # cassettes in ~/.agentworld/cassettes
agentworld cassette ls run.db               # the entries of one cassette
agentworld cassette show run.db --limit 3   # requests and answers (--json for all fields)
agentworld cassette rm run.db --key 3fa9c1  # forget one request's answers (re-recorded next run)
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..errors import AgentWorldError

_HEADER = b"SQLite format 3\x00"


def _clean_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Show an :class:`AgentWorldError` as one line (also when the group is used on its own)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AgentWorldError as exc:
            raise click.ClickException(
                f"{exc.message}" + (f"\nHint: {exc.hint}" if exc.hint else "")
            ) from None

    return wrapper


def _when(created: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created)) if created else "?"


def _one_line(text: Any, width: int = 60) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(_HEADER)) == _HEADER
    except OSError:
        return False


def _default_dir() -> Path:
    from ..backends.cassette import default_cassette_dir
    from ..config import load_settings

    return default_cassette_dir(load_settings().home)


@click.group()
def cassette() -> None:
    """Inspect and edit cassettes (recorded world-model answers)."""


@cassette.command("ls")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@_clean_errors
def ls(path: Path | None) -> None:
    """List the cassettes in a folder (default: <home>/cassettes), or the entries of PATH."""
    from ..backends.cassette import count_entries, list_entries

    folder = path if path is not None else _default_dir()
    if path is not None and path.is_file():
        entries = list_entries(path)
        for entry in entries:
            click.echo(
                f"{entry['key'][:12]}  #{entry['seq']}  {_when(entry['created'])}  {entry['turn']}  "
                f"{_one_line(entry['response'].get('text'))}"
            )
        click.echo(f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} in {path}")
        return
    if not folder.is_dir():
        if path is not None:
            raise click.ClickException(
                f"No cassette or folder at {path}\nHint: `agentworld cassette ls` lists "
                f"{_default_dir()} ($AGENTWORLD_HOME/cassettes); give a .db file or a folder"
            )
        click.echo(f"No cassettes yet in {folder}")
        return
    found = sorted(p for p in folder.iterdir() if p.is_file() and _is_sqlite(p))
    for item in found:
        try:
            count: Any = count_entries(item)
        except AgentWorldError:
            count = "?"  # another SQLite file that is not a cassette
        click.echo(
            f"{item.name}  {count} entries  {item.stat().st_size} bytes  {_when(item.stat().st_mtime)}"
        )
    if not found:
        click.echo(f"No cassettes in {folder}")


def _last_user(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


@cassette.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--limit", type=click.IntRange(min=1), help="Show at most N entries.")
@click.option("--json", "as_json", is_flag=True, help="Print the entries as a JSON list.")
@_clean_errors
def show(path: Path, limit: int | None, as_json: bool) -> None:
    """Show the requests and answers recorded in PATH, in recording order."""
    from ..backends.cassette import list_entries

    entries = list_entries(path, limit=limit)
    if as_json:
        click.echo(json.dumps(entries, indent=2, ensure_ascii=False))
        return
    for entry in entries:
        response = entry["response"]
        click.echo(
            f"== {entry['key'][:12]} #{entry['seq']}  {entry['turn']}  "
            f"(model {entry['model'] or '-'}, {_when(entry['created'])})"
        )
        click.echo("-- action")
        click.echo(_last_user(entry["request"]))
        if response.get("reasoning"):
            click.echo("-- reasoning")
            click.echo(response["reasoning"])
        click.echo("-- answer")
        click.echo(response.get("text") or "")
        click.echo()
    if not entries:
        click.echo(f"{path} is empty")


@cassette.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--key", help="Delete the answers of this key (or a unique prefix of it).")
@click.option("--all", "delete_all", is_flag=True, help="Delete every entry (the file stays, empty).")
@_clean_errors
def rm(path: Path, key: str | None, delete_all: bool) -> None:
    """Delete entries from PATH: one request's answers (--key) or all of them (--all)."""
    from ..backends.cassette import delete_entries

    if bool(key) == delete_all:
        raise click.UsageError("give exactly one of --key K or --all")
    deleted = delete_entries(path, None if delete_all else key)
    click.echo(f"Deleted {deleted} entr{'y' if deleted == 1 else 'ies'} from {path}")
