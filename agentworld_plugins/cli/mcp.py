"""``agentworld mcp``: a fake MCP server answered by the world model, and client config snippets."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import ConfigError
from ..http_guard import HttpLimits, check_exposure
from ..redaction import redact_text
from .options import ensure_port_free, make_world, server_options, world_options

DEFAULT_PORT = 8765


@click.group()
def mcp() -> None:
    """Serve MCP tools whose calls are answered by the world model."""


@mcp.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--tools",
    "tools_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Tool definitions (JSON/YAML: a tools/list result or a list of tools) or a snapshot. Repeatable.",
)
@click.option("--pack", "packs", multiple=True, help="A registered tool pack, e.g. filesystem. Repeatable.")
@click.option(
    "--snapshot",
    "snapshots",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A snapshot written by --save-snapshot. Repeatable.",
)
@click.option("--mirror", is_flag=True, help="Mirror the real stdio server whose command follows '--'.")
@click.option("--mirror-url", help="Mirror the real streamable-HTTP server at this URL.")
@click.option("--mirror-timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for it.")
@click.option(
    "--save-snapshot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write what is offered to a file.",
)
@click.option(
    "--record", type=click.Path(dir_okay=False, path_type=Path), help="Append each turn to this JSONL file."
)
@click.option("--name", help="Server name shown to clients (default: the mirrored server's or pack's).")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind (with --http).")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=int, help="Port (with --http).")
@click.option("--token", envvar="AGENTWORLD_MCP_TOKEN", help="Require this bearer token (with --http).")
@click.option("--list", "list_only", is_flag=True, help="Print the tools and exit instead of serving.")
@world_options
@server_options
@click.option(
    "--session-idle",
    type=click.FloatRange(min=0.001),
    default=900.0,
    show_default=True,
    help="Seconds after which an idle HTTP session (Mcp-Session-Id) is closed (with --http).",
)
@click.option(
    "--replay",
    "replay_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A recording (agentworld mcp record --output FILE): its calls get the recorded answers, "
    "in recorded order; other calls go to the world.",
)
@click.option(
    "--isolate",
    type=click.Choice(["world", "connection"]),
    default="world",
    show_default=True,
    help="world: every connection shares the server's world (the named one with --world, kept "
    "across restarts), as real servers do; connection: a fresh world per client connection "
    "(parallel tests).",
)
@click.option(
    "--corpus",
    type=click.Path(file_okay=False, path_type=Path),
    help="A folder of .md/.txt pages: the offline web that fetch tools read (default: the bundled corpus).",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def serve(
    tools_files: tuple[Path, ...],
    packs: tuple[str, ...],
    snapshots: tuple[Path, ...],
    mirror: bool,
    mirror_url: str | None,
    mirror_timeout: float,
    save_snapshot: Path | None,
    record: Path | None,
    name: str | None,
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    list_only: bool,
    command: tuple[str, ...],
    allow_remote: bool,
    max_body: int,
    session_idle: float,
    isolate: str,
    replay_file: Path | None,
    corpus: Path | None,
    **world_args: Any,
) -> None:
    """Serve tools over MCP (stdio by default); every call is answered by the world model.

    COMMAND (after --, with --mirror) starts the real server whose tools are mirrored.

    \b
      agentworld mcp serve --pack github-issues
      agentworld mcp serve --tools tools.json --http --port 8765 --token s3cret
      agentworld mcp serve --mirror --save-snapshot gh.json -- npx -y @modelcontextprotocol/server-github
    """
    import anyio

    from ..adapters.mcp_catalog import Catalog, load_catalog, pack_catalog
    from ..adapters.mcp_server import FakeMcpServer

    if command and not mirror:
        raise click.UsageError(
            f"unexpected arguments {shlex.join(command)!r}: a command after '--' needs --mirror"
        )
    if mirror and not command:
        raise click.UsageError(
            "--mirror needs the real server's command after '--', e.g. --mirror -- npx -y SERVER"
        )
    if token and not use_http:
        raise click.UsageError("--token protects the HTTP transport: add --http")
    if use_http:
        check_exposure(host, token=token, allow_remote=allow_remote, what="MCP server")

    world = make_world(**world_args)
    catalogs = [load_catalog(path) for path in (*tools_files, *snapshots)]
    catalogs += [pack_catalog(pack, world.pm.registry) for pack in packs]
    if mirror or mirror_url:
        from ..adapters import mcp_mirror

        if mirror:
            catalogs.append(anyio.run(lambda: mcp_mirror.mirror_command(command, timeout=mirror_timeout)))
        if mirror_url:
            catalogs.append(anyio.run(lambda: mcp_mirror.mirror_url(mirror_url, timeout=mirror_timeout)))
    if not catalogs:
        raise ConfigError(
            "No tools to serve",
            hint="pass --tools FILE, --pack NAME, --snapshot FILE, --mirror -- CMD or --mirror-url URL",
        )
    catalog = Catalog.merge(catalogs)
    if save_snapshot is not None:
        catalog.save_snapshot(save_snapshot)
        click.echo(f"agentworld: saved {len(catalog.tools)} tools to {save_snapshot}", err=True)
    if list_only:
        # with the offline world, the family that will answer each tool (docs/mcp.md)
        families = _offline_families(catalog) if "offline" in world.backend.describe() else {}
        for tool in catalog.tools:
            summary = (tool.description or "").strip().splitlines()
            family = f"{families[tool.name]}\t" if tool.name in families else ""
            click.echo(f"{tool.name}\t{family}{summary[0] if summary else ''}")
        return

    if use_http:
        ensure_port_free(host, port)
    if isolate == "connection" and world.name is not None:
        raise click.UsageError(
            f"--isolate connection gives every connection a fresh world, so --world {world.name} "
            "would never be used: drop one of them"
        )
    from ..adapters.mcp_mirror import mirrored_context
    from ..adapters.mcp_replay import Replay

    replay = Replay.load(replay_file) if replay_file is not None else None
    context = mirrored_context(catalog)
    if corpus is not None:
        context["corpus"] = str(corpus)
    fake = FakeMcpServer(world, catalog, name=name, record=record, isolate=isolate, replay=replay, **context)
    where = f"http://{host}:{port}/mcp" if use_http else "stdio"
    kept = (
        f"world {world.name!r} in {world.settings.home}"
        if world.name
        else ("a world per connection" if isolate == "connection" else "one world for this process")
    )
    click.echo(
        f"agentworld: fake MCP server {fake.name!r} with {len(catalog.tools)} tools on {where} "
        f"(world: {redact_text(world.backend.describe())}; state: {kept})",
        err=True,
    )
    if use_http:
        limits = HttpLimits(max_body=max_body, session_idle=session_idle)
        fake.serve_http(host, port, token=token, limits=limits)
    else:
        anyio.run(fake.run_stdio)


@mcp.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL the real server's answers are appended to (an mcp trajectory).",
)
@click.option("--session-id", help="The trajectory's id (default: a fresh one per run).")
@click.option(
    "--prompts-dir",
    envvar="AGENTWORLD_PROMPTS_DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Prompts folder for the recorded system prompt (default: the bundled one).",
)
@click.option(
    "--timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for it to start."
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def record(
    output: Path, session_id: str | None, prompts_dir: Path | None, timeout: float, command: tuple[str, ...]
) -> None:
    """A transparent proxy to a REAL MCP server (COMMAND, after --) that records its answers as a trajectory.

    \b
      agentworld mcp record --output calls.jsonl -- npx -y @modelcontextprotocol/server-github
      agentworld bench convert calls.jsonl --output-dir my-bench/
      agentworld bench run --data-dir my-bench/ --output-dir results/ --base-url ... --judge-base-url ...
    """
    import anyio

    from ..adapters.mcp_record import RecordingProxy

    proxy = RecordingProxy(command, output, session_id=session_id, prompts_dir=prompts_dir, timeout=timeout)
    click.echo(
        f"agentworld: recording `{shlex.join(command)}` to {output} (trajectory {proxy.session_id})", err=True
    )
    anyio.run(proxy.run_stdio)


# -- config ----------------------------------------------------------------------------------------


def _offline_families(catalog: Any) -> dict[str, str]:
    """``{tool name: "family/operation"}`` as the embedded offline MCP world classifies them."""
    from ..offline.mcp import family_of
    from ..offline.mcp.servers import known_server

    tools = catalog.tool_definitions()
    server = known_server({t["name"]: t for t in tools})
    return {
        t["name"]: f"server:{server.name}/{t['name']}"
        if server is not None and t["name"] in server.tools
        else "/".join(family_of(t))
        for t in tools
    }


def _option_value(args: list[str], name: str, default: str | None = None) -> str | None:
    value = default
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


#: serve options naming files the server reads (they must exist) and ones it writes
_READ_PATHS = ("--tools", "--snapshot", "--perturb-file", "--prompts-dir", "--replay")
_WRITE_PATHS = ("--record", "--save-snapshot")


def _absolute_path(option: str, value: str) -> str:
    path = Path(value).expanduser().resolve()
    if option in _READ_PATHS and not path.exists():
        raise ConfigError(
            f"{option} {value}: no such file ({path})",
            hint="give a path that exists; the client starts the server from another directory",
        )
    return str(path)


def _absolute_backend(value: str) -> str:
    head, sep, rest = value.partition(":")
    if head != "cassette" or not sep:
        return value
    path, comma, inner = rest.partition(",")
    return f"cassette:{Path(path).expanduser().resolve()}{comma}{inner}"


def absolute_serve_args(args: list[str]) -> list[str]:
    """``serve`` arguments with every file path made absolute (and read files checked to exist):
    Claude Desktop, Cursor and VS Code start the server from a directory of their own."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return out + args[i:]
        name, eq, inline = arg.partition("=")
        if name in _READ_PATHS + _WRITE_PATHS or name == "--backend":
            fix = _absolute_backend if name == "--backend" else lambda v, n=name: _absolute_path(n, v)
            if eq:
                out.append(f"{name}={fix(inline)}")
            elif i + 1 < len(args):
                out += [arg, fix(args[i + 1])]
                i += 1
            else:
                out.append(arg)
        else:
            out.append(arg)
        i += 1
    return out


def _launcher(command: str | None) -> list[str]:
    if command:
        return [command]
    found = shutil.which("agentworld")
    return [found] if found else [sys.executable, "-m", "agentworld_plugins"]


def client_config(
    client: str,
    name: str,
    serve_args: list[str],
    *,
    command: str | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The snippet an MCP client's config file needs to use ``agentworld mcp serve SERVE_ARGS``."""
    options = serve_args[: serve_args.index("--")] if "--" in serve_args else serve_args
    if "--http" in options:
        if client == "claude":
            raise ConfigError(
                "Claude Desktop's config launches stdio servers",
                hint="leave out --http (the client then starts the server itself)",
            )
        host = _option_value(serve_args, "--host", "127.0.0.1")
        port = _option_value(serve_args, "--port", str(DEFAULT_PORT))
        token = _option_value(serve_args, "--token")
        entry: dict[str, Any] = {"url": f"http://{host}:{port}/mcp"}
        if client == "vscode":
            entry = {"type": "http", **entry}
        if token:
            entry["headers"] = {"Authorization": f"Bearer {token}"}
    else:
        launcher = _launcher(command)
        entry = {"command": launcher[0], "args": [*launcher[1:], "mcp", "serve", *serve_args]}
        if client == "vscode":
            entry = {"type": "stdio", **entry}
        if env:
            entry["env"] = dict(env)
    key = "servers" if client == "vscode" else "mcpServers"
    return {key: {name: entry}}


_WHERE = {
    "claude": "claude_desktop_config.json (Settings > Developer > Edit Config)",
    "cursor": "~/.cursor/mcp.json or .cursor/mcp.json in the project",
    "vscode": ".vscode/mcp.json in the workspace",
}


@mcp.command("config", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--client",
    type=click.Choice(["claude", "cursor", "vscode"]),
    default="claude",
    show_default=True,
    help="Which client's config format to print.",
)
@click.option("--name", required=True, help="The server's key in the config (keep it stable).")
@click.option("--command", "launcher", help="Program the client starts (default: agentworld, found on PATH).")
@click.option("--env", "env_pairs", multiple=True, help="KEY=VALUE for the server's environment. Repeatable.")
@click.argument("serve_args", nargs=-1, type=click.UNPROCESSED)
def config(
    client: str, name: str, launcher: str | None, env_pairs: tuple[str, ...], serve_args: tuple[str, ...]
) -> None:
    """Print the config snippet that makes a client use the fake server (SERVE_ARGS, after --,
    are the arguments of `agentworld mcp serve`).

    \b
      agentworld mcp config --client claude --name github -- --mirror -- npx -y @modelcontextprotocol/server-github
    """
    args = list(serve_args)
    try:  # the arguments must be ones 'serve' accepts
        serve.make_context("serve", list(args), resilient_parsing=False).close()
    except click.UsageError as exc:
        raise click.UsageError(f"the serve arguments are not valid: {exc.format_message()}") from None
    env: dict[str, str] = {}
    for pair in env_pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--env")
        env[key] = value
    snippet = client_config(client, name, absolute_serve_args(args), command=launcher, env=env)
    click.echo(json.dumps(snippet, indent=2))
    click.echo(f"agentworld: paste into {_WHERE[client]}", err=True)
    left_out = sorted(k for k in os.environ if k.startswith("AGENTWORLD_") and k not in env)
    if left_out and "--http" not in args:  # clients start stdio servers with their own environment
        click.echo(
            f"agentworld: warning: {', '.join(left_out)} set here will not reach the server the client "
            "starts; add --env KEY=VALUE for each setting it should use",
            err=True,
        )
