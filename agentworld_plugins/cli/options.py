"""Options shared by the commands that run sessions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

F = Callable[..., Any]

#: the help of every --backend option: each built-in backend, the chain and the cassette mode syntax
BACKEND_HELP = (
    "Backend or chain: openai (an OpenAI-compatible server, --base-url), offline (the embedded "
    "deterministic world), transformers:PATH (local weights), cassette:FILE.db[?mode=none|once|"
    "new_episodes|all] (record/replay), scenario:FILE.yaml (scripted answers), guarded[:POLICY]:INNER "
    "(the consistency guard in front of INNER), drift:RATE (a fake model that contradicts earlier "
    "state, for tests); a chain is "
    "comma-separated, first that answers wins (scenario:s.yaml,cassette:run.db,openai). Plugins "
    "add more: agentworld plugins --hook register_backends."
)


def stack(*options: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator applying ``options`` as if written one above the other, first on top (so
    first in ``--help``)."""

    def decorate(fn: F) -> F:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def endpoint_options(
    who: str,
    *,
    flag_prefix: str = "",
    dest_prefix: str = "",
    env_prefix: str = "AGENTWORLD_",
    backend_help: str = BACKEND_HELP,
) -> Callable[[F], F]:
    """``--base-url``, ``--model``, ``--api-key`` and ``--backend`` of one model server (``who``, for
    the help), read from ``{env_prefix}BASE_URL`` and so on; ``flag_prefix`` ``judge`` makes them
    ``--judge-base-url``..., ``dest_prefix`` ``judge_`` names the parameters ``judge_base_url``..."""
    dash = f"--{flag_prefix}-" if flag_prefix else "--"
    who_ = who[:1].upper() + who[1:]
    helps = {
        "base-url": f"{who_}'s OpenAI-compatible URL(s), comma separated.",
        "model": f"{who_}'s name (default: asked from the server).",
        "api-key": f"API key for {who}'s server.",
        "backend": backend_help,
    }
    return stack(
        *(
            click.option(
                dash + flag,
                dest_prefix + flag.replace("-", "_"),
                envvar=env_prefix + flag.replace("-", "_").upper(),
                help=text,
            )
            for flag, text in helps.items()
        )
    )


WORLD_HELP = (
    "Attach to the named world (kept in $AGENTWORLD_HOME across connections, processes and "
    "restarts; every front given the same name sees the same files, tables and records). "
    "See 'agentworld world --help'."
)


def _set_guard(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    # the setting every World of this command (and every process it starts: shims, servers) reads
    if value:
        import os

        os.environ["AGENTWORLD_GUARD"] = value


def guard_option(fn: F) -> F:
    """``--guard POLICY``: check every observation against the facts earlier turns established
    (sets ``AGENTWORLD_GUARD`` for the command and the processes it starts)."""
    return click.option(
        "--guard",
        type=click.Choice(["flag", "repair", "engine", "default"]),
        default=None,
        expose_value=False,
        callback=_set_guard,
        help="Check every observation against the facts earlier turns fixed: flag, repair, engine, "
        "or default (each domain's own policy). See docs/guard.md.",
    )(fn)


def world_options(fn: F) -> F:
    """``--world``, ``--perturb``, ``--perturb-file``, ``--base-url``, ``--model``, ``--api-key``,
    ``--backend``, ``--guard``, ``--prompts-dir`` and ``--timeout``."""
    return stack(
        click.option("--world", "world_name", envvar="AGENTWORLD_WORLD", metavar="NAME", help=WORLD_HELP),
        perturb_options("every session"),
        endpoint_options("the world model"),
        guard_option,
        click.option(
            "--prompts-dir",
            envvar="AGENTWORLD_PROMPTS_DIR",
            type=click.Path(file_okay=False, path_type=Path),
            help="Folder of <domain>/system_prompt.txt templates (e.g. the official ones).",
        ),
        click.option("--timeout", type=float, default=None, help="Seconds per world-model request."),
    )(fn)


def perturb_options(what: str) -> Callable[[F], F]:
    """``--perturb`` (repeatable; default ``$AGENTWORLD_PERTURB``) and ``--perturb-file``.

    ``what`` says what is perturbed, for the help: sessions for :func:`world_options`, whole
    conversations for the commands that answer them through a ``PerturbingBackend``.
    """
    return stack(
        click.option(
            "--perturb",
            multiple=True,
            metavar="NAME:KEY=VALUE,...",
            help=f"Perturb {what}, e.g. faults:rate=0.3,kinds=timeout (repeatable; default: "
            "$AGENTWORLD_PERTURB, ';'-separated). See 'agentworld perturbations'.",
        ),
        click.option(
            "--perturb-file",
            envvar="AGENTWORLD_PERTURB_FILE",
            type=click.Path(dir_okay=False, path_type=Path),
            help="YAML list of perturbations (applied before --perturb ones).",
        ),
    )


_OPENAI_ONLY = ("base_url", "model", "api_key")


def ignored_options(
    ctx: click.Context | None, backend: str | None, names: tuple[str, ...] = _OPENAI_ONLY
) -> list[str]:
    """Warnings for world-model options given on the command line that the chosen backend
    never reads (``--backend offline --base-url URL``); ``names`` are the parameters that only
    the openai backend reads."""
    if not backend or ctx is None:
        return []
    chain = [part.strip().split(":", 1)[0] for part in backend.split(",")]
    if "openai" in chain:
        return []
    flags = {p.name: p.opts[0] for p in ctx.command.params if p.opts}
    given = [
        flags.get(name, "--" + name.replace("_", "-"))
        for name in names
        if ctx.params.get(name) and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    ]
    return [
        f"{flag} is ignored: --backend {backend} does not use it (only the openai backend does: add "
        f"it to the chain, --backend {backend},openai)"
        for flag in given
    ]


def say_ignored_options(backend: str | None, names: tuple[str, ...] = _OPENAI_ONLY) -> None:
    """Say on stderr (once) each option of the running command its backend ignores."""
    from ..notices import say

    for warning in ignored_options(click.get_current_context(silent=True), backend, names):
        say(warning)


def make_world(
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    backend: str | None,
    prompts_dir: Path | None,
    timeout: float | None,
    perturb: tuple[str, ...] = (),
    perturb_file: Path | None = None,
    world_name: str | None = None,
) -> Any:
    from ..perturbations.config import perturbations_from_options
    from ..plugins import get_plugin_manager
    from ..session import World

    say_ignored_options(backend)
    return World(
        perturbations=perturbations_from_options(perturb, perturb_file, get_plugin_manager().registry),
        base_url=base_url,
        model=model,
        api_key=api_key,
        backend=backend,
        prompts_dir=prompts_dir,
        timeout=timeout,
        name=world_name or None,
    )


def ensure_port_free(host: str, port: int) -> None:
    """Fail with one clean line before a server announces itself on a port it cannot have.

    Binds the way uvicorn does (``SO_REUSEADDR``, so a port in TIME_WAIT is not taken for busy)
    and lets go at once.
    """
    import errno
    import socket

    from ..errors import ConfigError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"Port {port} on {host} is in use",
                    hint="pass another --port, or stop what is listening there",
                ) from None
            raise ConfigError(
                f"Cannot listen on {host}:{port}: {exc.strerror or exc}",
                hint="check --host (an address of this machine) and --port (1-65535)",
            ) from None


def _ray_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | bool | None:
    return True if value == "local" else value


def ray_option(what: str) -> Callable[[F], F]:
    """``--ray [ADDRESS]``: run ``what`` on a Ray cluster (``--ray`` alone: a local instance);
    the parameter is ``ray``: an address, True, or None."""
    return click.option(
        "--ray",
        "ray",
        default=None,
        is_flag=False,
        flag_value="local",
        callback=_ray_address,
        help=f"{what} on a Ray cluster (ADDRESS, or 'local' / no value for a local instance).",
    )


def server_options(fn: F) -> F:
    """``--allow-remote`` and ``--max-body``, taken by every command that serves HTTP."""
    return stack(
        click.option(
            "--allow-remote",
            is_flag=True,
            help="Allow binding a non-loopback --host without a token (anyone who reaches it can use it).",
        ),
        click.option(
            "--max-body",
            type=click.IntRange(min=1),
            default=8 * 1024 * 1024,
            show_default=True,
            help="Largest request body accepted, in bytes (larger ones get HTTP 413).",
        ),
    )(fn)
