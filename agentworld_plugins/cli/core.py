"""Core commands: domains, plugins, step, prompt."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import AgentWorldError
from ..notices import say
from .options import ignored_options, make_world, world_options


def _console() -> Any:
    from rich.console import Console

    return Console()


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def domains(as_json: bool) -> None:
    """List the registered domains and an example action for each."""
    from ..plugins import get_plugin_manager

    registry = get_plugin_manager().registry
    rows = [
        {"name": d.name, "description": d.description, "example_action": d.example_action}
        for d in registry.domains.values()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.table import Table

    table = Table("domain", "description", "example action")
    for row in rows:
        example = row["example_action"]
        table.add_row(
            row["name"], row["description"], example if isinstance(example, str) else json.dumps(example)
        )
    _console().print(table)


@click.command()
@click.option("--hook", help="Only plugins implementing this hook.")
@click.option("--all", "show_all", is_flag=True, help="Include the built-in plugins.")
def plugins(hook: str | None, show_all: bool) -> None:
    """List loaded plugins and the hooks each implements (JSON)."""
    from ..plugins import get_plugin_manager, plugin_summary

    rows = plugin_summary(get_plugin_manager(), hook)
    if not show_all:
        rows = (
            [r for r in rows if not r["builtin"]] or rows if hook else [r for r in rows if not r["builtin"]]
        )
    click.echo(json.dumps(rows, indent=2))


def _read_action(action: str) -> Any:
    if action == "-":
        action = sys.stdin.read()
    try:
        return json.loads(action)
    except json.JSONDecodeError:
        return action  # web/os actions are plain strings; the domain validates


#: ``agentworld step``'s exit status when the observation is an error (in text and ``--json`` mode)
STEP_ERROR_EXIT = 2


def _read_state(name: str) -> str:
    """The text of ``--state @FILE``; an unreadable file is one line naming it and the fix."""
    try:
        return Path(name).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except UnicodeDecodeError:
        reason = "not a UTF-8 text file"
    raise AgentWorldError(
        f"Cannot read --state @{name}: {reason} (give @FILE of a readable text file, or the state itself)"
    )


#: the endpoint options only the openai backend reads
def _takes_tools(session: Any, prompts_dir: Path | None) -> bool:
    from ..domains.base import TOOL_DEFINITIONS

    try:
        return TOOL_DEFINITIONS in session.domain.template(prompts_dir)
    except AgentWorldError:
        return True  # no template to tell by: say nothing


def _unknown_tool(session: Any, action: Any) -> list[str]:
    """A warning for a tool call to an mcp session that was given no tool definitions: nothing
    says whether the tool exists, what it takes or what it returns."""
    if session.domain.name != "mcp" or session.context.get("tools"):
        return []
    name = action.get("tool_name") or action.get("name") if isinstance(action, dict) else None
    if not isinstance(name, str):
        return []
    return [
        f"no tool definitions (--tools): nothing says whether the tool {name!r} exists, what it takes "
        "or what it returns, so the answer is a guess at a server that has it, not what a real "
        "server would say; pass --tools FILE with the server's tool definitions (examples/tools/tools.json)"
    ]


@click.command()
@click.argument("domain")
@click.argument("action")
@click.option("--state", help="Initial state (terminal screen, page, UI tree); @FILE reads a file.")
@click.option(
    "--tools",
    "tools_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Tool definitions (JSON/YAML) for mcp and swe.",
)
@click.option("--seed", type=int, help="Sampling seed.")
@click.option("--temperature", type=float, help="Sampling temperature (domain default otherwise).")
@click.option("--max-tokens", type=int, help="Most tokens to generate.")
@click.option("--json", "as_json", is_flag=True, help="Print the Observation as one JSON object.")
@world_options
def step(
    domain: str,
    action: str,
    state: str | None,
    tools_file: Path | None,
    seed: int | None,
    temperature: float | None,
    max_tokens: int | None,
    as_json: bool,
    **world_args: Any,
) -> None:
    """Run one turn: send ACTION (JSON, a string, or - for stdin) to a new DOMAIN session.

    Exits 0, or 2 when the observation is an error (a failed command, an injected fault); an error
    of ours exits 1, a usage error 2. What the answer cannot rest on (an mcp tool call without
    --tools, an option the backend ignores) is warned on stderr and in the observation's metadata.

    \b
      agentworld step terminal '[{"keystrokes": "ls -la\\n"}]'
      agentworld step mcp '{"tool_name": "get_weather", "arguments": {"city": "Oslo"}}' --tools tools.json --json
    """
    from ..tooldefs import load_tools

    if state and state.startswith("@"):
        state = _read_state(state[1:])
    sampling = {
        k: v for k, v in {"temperature": temperature, "max_tokens": max_tokens}.items() if v is not None
    }
    notes = ignored_options(click.get_current_context(), world_args.get("backend"))
    with make_world(**world_args) as world:
        session = world.session(
            domain,
            tools=load_tools(tools_file) if tools_file else None,
            initial_state=state,
            seed=seed,
            sampling=sampling or None,
        )
        parsed = _read_action(action)
        if tools_file is not None and not _takes_tools(session, world_args.get("prompts_dir")):
            notes.append(
                f"--tools is ignored: the {session.domain.name} domain takes no tool definitions (its "
                "system prompt has no {tool_definitions}); they are for mcp, search and swe"
            )
        notes += _unknown_tool(session, parsed)
        observation = session.step(parsed)
    if notes:  # said on stderr below, and kept with the observation (--json shows them)
        observation.metadata["warnings"] = [*notes, *observation.metadata.get("warnings", [])]
    for warning in observation.metadata.get("warnings", []):
        say(warning)
    if as_json:
        click.echo(observation.model_dump_json())
    else:
        click.echo(observation.text)
        for warning in observation.metadata.get("parse_warnings", []):
            click.echo(f"warning: {warning}", err=True)
    if observation.is_error:  # one rule for text and --json: an error observation exits 2
        sys.exit(STEP_ERROR_EXIT)


@click.command()
@click.argument("domain")
@click.option(
    "--tools",
    "tools_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Tool definitions to fill {tool_definitions}.",
)
@click.option("--judge", is_flag=True, help="Print the judge prompt instead.")
@click.option(
    "--prompts-dir",
    envvar="AGENTWORLD_PROMPTS_DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of <domain>/system_prompt.txt templates (e.g. the official ones).",
)
def prompt(domain: str, tools_file: Path | None, judge: bool, prompts_dir: Path | None) -> None:
    """Print DOMAIN's rendered system prompt."""
    from ..plugins import get_plugin_manager
    from ..tooldefs import load_tools

    dom = get_plugin_manager().registry.domain(domain)
    if judge:
        click.echo(dom.template(prompts_dir, "judge_system_prompt.txt"))
        return
    context = {"tools": load_tools(tools_file)} if tools_file else {}
    click.echo(dom.system_prompt(context, prompts_dir))


COMMANDS = [domains, plugins, step, prompt]
