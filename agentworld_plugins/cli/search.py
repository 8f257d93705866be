"""``agentworld search``: the simulated search APIs and tools from the command line.

agentworld search serve --port 8765 --world-bible bible.md  # Tavily / Serper / Brave on 127.0.0.1
agentworld search query "who founded Halvorsen Instruments" --tool google_serper_results_json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .options import ensure_port_free, make_world, server_options, world_options

_WORLD_HELP = "A world bible: a text/Markdown file of facts every result must agree with (a fictional web)."
_CORPUS_HELP = "A folder of .md/.txt pages for the offline world's index (default: the bundled corpus)."


def _bible(path: Path | None, world_args: dict[str, Any] | None = None) -> str | None:
    name = (world_args or {}).get("world_name")
    if path is None and name and Path(name).is_file():
        # `--world FILE` named the world bible before worlds had names
        click.echo(f"agentworld: warning: --world {name} is a file: read as --world-bible {name}", err=True)
        world_args["world_name"] = None  # type: ignore[index]
        path = Path(name)
    if path is None:
        return None
    from ..errors import ConfigError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"Cannot read the world bible {path}: {exc}", hint="pass a UTF-8 text file"
        ) from None


@click.group()
def search() -> None:
    """Simulated search: Tavily/Serper/Brave APIs and LangChain search tools."""


@search.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--world-bible", "world_file", type=click.Path(dir_okay=False, path_type=Path), help=_WORLD_HELP
)
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path), help=_CORPUS_HELP)
@click.option(
    "--require-key",
    envvar="AGENTWORLD_SEARCH_API_KEY",
    help="Accept only this API key (Tavily bearer, Serper X-API-KEY, Brave token); default: any key.",
)
@click.option("--seed", type=int, default=None, help="Seed passed to the world model.")
@world_options
@server_options
def serve(
    host: str,
    port: int,
    world_file: Path | None,
    corpus: Path | None,
    require_key: str | None,
    seed: int | None,
    allow_remote: bool,
    max_body: int,
    **world_args: Any,
) -> None:
    """Serve the Tavily (/search, /extract), Serper (/search, /news) and Brave APIs."""
    from .. import http_guard
    from ..adapters.search.api import create_search_app
    from ..redaction import redact_text

    http_guard.check_exposure(
        host,
        token=require_key,
        allow_remote=allow_remote,
        what="search API server",
        token_flag="--require-key",
    )
    ensure_port_free(host, port)
    bible = _bible(world_file, world_args)
    world = make_world(**world_args)
    app = create_search_app(
        world,
        api_key=require_key,
        world_bible=bible,
        corpus=str(corpus) if corpus else None,
        seed=seed,
        limits=http_guard.HttpLimits(max_body=max_body),
    )
    base = f"http://{host}:{port}"
    click.echo(f"agentworld: search APIs over {redact_text(world.backend.describe())} at {base}", err=True)
    click.echo(f"  Tavily: TavilyClient(api_key='any', api_base_url='{base}')", err=True)
    click.echo(f"  Serper: SERPER_URL={base}/search   Brave: base_url='{base}/res/v1/web/search'", err=True)
    http_guard.run(app, host=host, port=port, limits=app.limits)


@search.command()
@click.argument("query_text", metavar="QUERY")
@click.option(
    "--tool",
    "tool_name",
    default="tavily_search",
    show_default=True,
    help="Which simulated tool answers (tavily_search, google_serper_results_json, brave_search, ...).",
)
@click.option(
    "--world-bible", "world_file", type=click.Path(dir_okay=False, path_type=Path), help=_WORLD_HELP
)
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path), help=_CORPUS_HELP)
@world_options
def query(
    query_text: str, tool_name: str, world_file: Path | None, corpus: Path | None, **world_args: Any
) -> None:
    """Run one QUERY through a simulated LangChain search tool and print what it returns."""
    from ..adapters.search.tools import search_tools

    bible = _bible(world_file, world_args)
    tool = search_tools(
        [tool_name],
        world=make_world(**world_args),
        world_bible=bible,
        corpus=str(corpus) if corpus else None,
    )[0]
    args = {"queries": [query_text]} if tool_name == "web_search" else {"query": query_text}
    if tool_name == "web_extractor":
        args = {"url": query_text}
    result = tool.invoke(args)
    if isinstance(result, (dict, list)):
        click.echo(json.dumps(result, indent=2, ensure_ascii=False, default=repr))
    else:
        click.echo(result)
