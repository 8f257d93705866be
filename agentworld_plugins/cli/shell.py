"""``agentworld shell`` (a simulated machine to explore, and its sessions) and ``agentworld shim``
(``bash`` / ``sh`` executables that simulate every command agents run)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from .options import ensure_port_free, make_world, server_options, world_options

_SHELL_SETTINGS = {"help_option_names": ["-h", "--help"]}


def machine_options(fn: Any) -> Any:
    """``--session``, ``--state``, ``--hostname``, ``--user``, ``--cwd``."""
    options = [
        click.option(
            "--session",
            envvar="AGENTWORLD_SESSION",
            default="default",
            show_default=True,
            help="Session name in the store ($AGENTWORLD_SESSION); the shim uses the same one. "
            "--world NAME (AGENTWORLD_WORLD) wins: the shell is then that world's machine.",
        ),
        click.option(
            "--state",
            type=click.Path(exists=True, path_type=Path),
            envvar="AGENTWORLD_SHELL_STATE",
            help="The machine of a new session: a folder (copied as the project), a JSON/YAML machine "
            "description, or a text file describing it.",
        ),
        click.option(
            "--hostname", envvar="AGENTWORLD_SHELL_HOSTNAME", help="Host name of a new session's machine."
        ),
        click.option(
            "--user", envvar="AGENTWORLD_SHELL_USER", help="User of a new session's machine (default root)."
        ),
        click.option(
            "--cwd", envvar="AGENTWORLD_SHELL_CWD", help="Working directory of a new session (default /app)."
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _machine(state: Path | None, hostname: str | None, user: str | None, cwd: str | None) -> Any:
    from ..adapters.shell.machine import MachineSpec

    overrides = {"hostname": hostname, "user": user, "cwd": cwd}
    if state is not None:
        return MachineSpec.load(state, **overrides)
    given = {k: v for k, v in overrides.items() if v}
    return MachineSpec(**given) if given else None  # None: a stored session keeps its machine silently


def _terminal(params: dict[str, Any], *, new: bool = False, memory: bool = False) -> Any:
    from ..adapters.shell.terminal import VirtualTerminal
    from ..store import SessionStore

    world_args = {
        k: params[k]
        for k in (
            "base_url",
            "model",
            "api_key",
            "backend",
            "prompts_dir",
            "timeout",
            "perturb",
            "perturb_file",
            "world_name",
        )
    }
    world = make_world(**world_args)
    machine = _machine(params["state"], params["hostname"], params["user"], params["cwd"])
    name = world.name or params["session"]  # --world / AGENTWORLD_WORLD names the machine too
    store = None if memory else SessionStore.at_home(world.settings.home)
    if store is not None and new:
        store.delete(name)
    return VirtualTerminal(world, session_id=name, machine=machine, store=store)


def _home() -> Path:
    from ..config import load_settings

    return Path(load_settings().home).expanduser()


@click.group(invoke_without_command=True, context_settings=_SHELL_SETTINGS)
@machine_options
@click.option("--new", is_flag=True, help="Start the session afresh (forget what is stored under its name).")
@click.option("--memory", is_flag=True, help="Keep the session in memory only (nothing stored).")
@click.option(
    "-c", "command", metavar="COMMAND", help="Run one command (like bash -c) and exit with its status."
)
@click.option(
    "--editor",
    type=click.Choice(["auto", "prompt_toolkit", "readline", "plain"]),
    default="auto",
    show_default=True,
    help="Line editing: prompt_toolkit when available in a terminal, else readline.",
)
@world_options
@click.pass_context
def shell(
    ctx: click.Context, new: bool, memory: bool, command: str | None, editor: str, **params: Any
) -> None:
    """An interactive shell on a simulated machine (nothing runs on this computer).

    \b
      agentworld shell                          # explore; Ctrl-D or exit leaves
      agentworld shell --session demo --state ./repo -c 'ls'
      agentworld shell sessions                 # what the store holds
    """
    ctx.obj = {"params": params}
    if ctx.invoked_subcommand is not None:
        return
    terminal = _terminal(params, new=new, memory=memory).open()
    if terminal.machine_warning:
        click.echo(f"agentworld: warning: {terminal.machine_warning}", err=True)
    if command is not None:
        result = terminal.run(command)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        ctx.exit(result.exit_code & 0xFF)
    from ..adapters.shell.interactive import run_shell

    machine = terminal.machine
    click.echo(
        f"agentworld shell: {machine.user}@{machine.hostname}, session {terminal.id!r} "
        f"(world: {terminal.world.backend.describe()}). Nothing runs on this computer; Ctrl-D or 'exit' leaves.",
        err=True,
    )
    status = run_shell(
        terminal, history=Path(terminal.world.settings.home).expanduser() / "shell_history", editor=editor
    )
    ctx.exit(status & 0xFF)


@shell.command("sessions", context_settings=_SHELL_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sessions(as_json: bool) -> None:
    """List the stored shell sessions, most recent first."""
    from ..store import SessionStore

    rows = SessionStore.at_home(_home()).sessions()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no sessions yet (run `agentworld shell` or a shim)", err=True)
    for row in rows:
        click.echo(f"{row['id']}\t{row['turns']} turns\t{row['machine']}")


@shell.command("rm", context_settings=_SHELL_SETTINGS)
@click.argument("names", nargs=-1, required=True)
def remove(names: tuple[str, ...]) -> None:
    """Forget the stored sessions NAMES."""
    from ..store import SessionStore

    store = SessionStore.at_home(_home())
    for name in names:
        if not store.delete(name):
            raise click.ClickException(f"no session named {name!r}")


@shell.command("export", context_settings=_SHELL_SETTINGS)
@click.argument("name")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="JSONL file (default: stdout)."
)
@click.option(
    "--form",
    type=click.Choice(["records", "chat"]),
    default="records",
    show_default=True,
    help="records: AgentWorldBench records; chat: chat-format training data.",
)
def export(name: str, output: Path | None, form: str) -> None:
    """Write session NAME's trajectories (one per front) as AgentWorldBench records or chat JSONL."""
    from ..adapters.shell.export import trajectories

    found = trajectories(_home(), name)
    if output is None:
        for traj in found:
            lines = (
                traj.records()
                if form == "records"
                else [{"id": traj.session_id, "task": traj.domain, "messages": traj.chat_messages()}]
            )
            for line in lines:
                click.echo(json.dumps(line, ensure_ascii=False))
        return
    output.unlink(missing_ok=True)
    for traj in found:
        traj.to_jsonl(output, form=form, append=True)  # type: ignore[arg-type]
    click.echo(f"agentworld: wrote {sum(len(t.turns) for t in found)} turns to {output}", err=True)


@shell.command("swerex", context_settings=_SHELL_SETTINGS)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option("--token", envvar="AGENTWORLD_SWEREX_TOKEN", help="Require this X-API-Key.")
@server_options
@click.pass_context
def swerex(
    ctx: click.Context, host: str, port: int, token: str | None, allow_remote: bool, max_body: int
) -> None:
    """Serve a SWE-ReX-compatible runtime (HTTP) on the session's machine."""
    from .. import http_guard
    from ..adapters.shell.swerex import swerex_app

    http_guard.check_exposure(host, token=token, allow_remote=allow_remote, what="SWE-ReX runtime")
    ensure_port_free(host, port)
    terminal = _terminal(ctx.obj["params"])
    click.echo(f"agentworld: SWE-ReX runtime for session {terminal.id!r} on http://{host}:{port}", err=True)
    limits = http_guard.HttpLimits(max_body=max_body)
    http_guard.run(swerex_app(terminal, token=token, limits=limits), host=host, port=port, limits=limits)


@shell.command("mcp", context_settings=_SHELL_SETTINGS)
@click.option("--pack", type=click.Choice(["coding-agent", "openhands"]), help="Only this pack's tools.")
@click.pass_context
def mcp(ctx: click.Context, pack: str | None) -> None:
    """Serve the coding-agent tools over MCP (stdio) on the session's machine."""
    import anyio

    from ..adapters.shell.tools import serve_mcp_stdio

    terminal = _terminal(ctx.obj["params"])
    click.echo(f"agentworld: coding tools for session {terminal.id!r} on stdio", err=True)
    anyio.run(lambda: serve_mcp_stdio(terminal, pack=pack))


# -- the shim --------------------------------------------------------------------------------------


@click.group(context_settings=_SHELL_SETTINGS)
def shim() -> None:
    """bash / sh executables that simulate every command (for agents that spawn a shell)."""


@shim.command("install", context_settings=_SHELL_SETTINGS)
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--names", default="bash,sh", show_default=True, help="Executables to write, comma separated.")
@click.option("--python", "python", help="Interpreter the shims run (default: this one).")
def install(directory: Path, names: str, python: str | None) -> None:
    """Write the shims into DIRECTORY; put it first on PATH to simulate `bash -c`, `sh -c`, ..."""
    from ..adapters.shell.shim import install as write
    from ..adapters.shell.shim import is_plain_name
    from ..errors import ConfigError

    chosen = tuple(n.strip() for n in names.split(",") if n.strip())
    bad = [n for n in chosen if not is_plain_name(n)]
    if bad:
        raise ConfigError(
            f"--names: {', '.join(map(repr, bad))} is not a plain file name",
            hint="give executable names without '/', '\\', '.' or '..', e.g. --names bash,sh",
        )
    for path in write(str(directory), chosen, python):
        click.echo(path)
    click.echo(f'agentworld: now run: export PATH={shlex.quote(str(directory.resolve()))}:"$PATH"', err=True)


_WORLD_VARS = {
    "base_url": "AGENTWORLD_BASE_URL",
    "model": "AGENTWORLD_MODEL",
    "api_key": "AGENTWORLD_API_KEY",
    "backend": "AGENTWORLD_BACKEND",
    "prompts_dir": "AGENTWORLD_PROMPTS_DIR",
    "timeout": "AGENTWORLD_TIMEOUT",
    "perturb_file": "AGENTWORLD_PERTURB_FILE",
}


@shim.command("env", context_settings=_SHELL_SETTINGS)
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@machine_options
@world_options
def env(directory: Path | None, **params: Any) -> None:
    """Print the exports that make a shell's `bash` simulated: eval "$(agentworld shim env)".

    The shims are installed into DIRECTORY (default: $AGENTWORLD_HOME/shim) when missing.
    """
    from ..adapters.shell.shim import NAMES
    from ..adapters.shell.shim import install as write

    home = _home()
    target = (directory or home / "shim").expanduser().resolve()
    if not all((target / name).exists() for name in NAMES):
        write(str(target))
    exports = {"AGENTWORLD_HOME": str(home), "AGENTWORLD_SESSION": params["session"]}
    if params["state"] is not None:
        exports["AGENTWORLD_SHELL_STATE"] = str(Path(params["state"]).resolve())
    for key in ("hostname", "user", "cwd"):
        if params[key]:
            exports[f"AGENTWORLD_SHELL_{key.upper()}"] = params[key]
    for key, var in _WORLD_VARS.items():
        if params.get(key) is not None:
            exports[var] = str(params[key])
    if params.get("perturb"):
        exports["AGENTWORLD_PERTURB"] = ";".join(params["perturb"])
    for var, value in exports.items():
        click.echo(f"export {var}={shlex.quote(value)}")
    click.echo(f'export PATH={shlex.quote(str(target))}:"$PATH"')
    click.echo("# bash -c, sh -c and interactive bash in this shell are now simulated", err=True)


@shim.command("stop", context_settings=_SHELL_SETTINGS)
def stop() -> None:
    """Stop the shims' helper process (the next shim call starts a fresh one)."""
    from ..adapters.shell.daemon import stop as stop_daemon

    click.echo("stopped" if stop_daemon(str(_home())) else "not running")


@shim.command("status", context_settings=_SHELL_SETTINGS)
def status() -> None:
    """Say whether the shims' helper process runs."""
    from ..adapters.shell.daemon import request

    answer = request(str(_home()), {"op": "status"})
    if answer is None:
        click.echo("not running")
    else:
        click.echo(f"running: pid {answer.get('pid')}, {answer.get('sessions')} sessions in memory")
