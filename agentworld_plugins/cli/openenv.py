"""``agentworld openenv serve``: simulated environments behind OpenEnv's server protocol."""

from __future__ import annotations

from pathlib import Path

import click

from .options import ensure_port_free, make_world, server_options, world_options


@click.group()
def openenv() -> None:
    """Serve simulated environments to OpenEnv clients (needs the rl extra)."""


@openenv.command("serve")
@click.option(
    "--domain", default="mcp", show_default=True, help="Domain of the open-ended task (without --tasks)."
)
@click.option(
    "--tasks",
    "tasks_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Task JSONL to serve (reset picks by task_id, else in turn).",
)
@click.option("--tool-pack", help="A registered tool pack for the open-ended task.")
@click.option(
    "--tools",
    "tools_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Tool definitions (JSON/YAML) for the open-ended task.",
)
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Steps of the open-ended task.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--max-concurrent-envs",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="WebSocket sessions at once.",
)
@click.option(
    "--token",
    envvar="AGENTWORLD_OPENENV_TOKEN",
    help="Require this token (Authorization: Bearer, or the password of a "
    "http://agentworld:TOKEN@host base URL) on every request and WebSocket session.",
)
@world_options
@server_options
def serve(
    domain: str,
    tasks_file: Path | None,
    tool_pack: str | None,
    tools_file: Path | None,
    max_turns: int,
    host: str,
    port: int,
    max_concurrent_envs: int,
    token: str | None,
    allow_remote: bool,
    max_body: int,
    **world: object,
) -> None:
    """Serve /reset, /step, /state and WebSocket sessions (OpenEnv's create_app) over the world."""
    from .. import http_guard
    from ..redaction import redact_text
    from ..rollout.openenv import create_openenv_app, default_task
    from ..rollout.tasks import load_tasks
    from ..tooldefs import load_tools

    http_guard.check_exposure(host, token=token, allow_remote=allow_remote, what="OpenEnv server")
    ensure_port_free(host, port)
    world_model = make_world(**world)  # type: ignore[arg-type]
    if tasks_file is not None:
        tasks = load_tasks(tasks_file, world_model.pm.registry)
    else:
        tools = load_tools(tools_file) if tools_file else None
        if tool_pack:
            tools = world_model.pm.registry.tool_pack(tool_pack)
        tasks = [default_task(domain, tools, max_turns, world_model.pm.registry)]
    limits = http_guard.HttpLimits(max_body=max_body)
    app = create_openenv_app(
        world_model, tasks, max_concurrent_envs=max_concurrent_envs, token=token, limits=limits
    )
    click.echo(
        f"agentworld openenv: {len(tasks)} task(s) on http://{host}:{port} ({redact_text(world_model.backend.describe())})",
        err=True,
    )
    http_guard.run(app, host=host, port=port, limits=limits)
