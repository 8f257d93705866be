"""Built-in plugin: the embedded ``offline`` backend's deterministic worlds, one per domain.

Each world is registered through ``register_offline_worlds`` under its domain's name, so the
domains never import ``offline/`` and the backend looks worlds up in the registry. The worlds'
modules are imported on a domain's first offline step, so loading the plugin stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ..current import current_session
from ..hookspecs import hookimpl
from ..observation import OfflineResult


def _apply_limits(vm: Any) -> None:
    """The step budget of the session's settings (``offline_step_*``), where a session runs."""
    session = current_session.get()
    settings = getattr(getattr(session, "world", None), "settings", None)
    if settings is not None and getattr(vm, "_limits_from", None) is not settings:
        from .shell.limits import StepLimits

        vm.limits = StepLimits.from_settings(settings)
        vm._limits_from = settings


def terminal_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """Type the keystrokes into a simulated bash (``offline.shell``); answer with the screen.

    ``state["vm"]`` is the machine (made on first use from ``context["files"]``, ``cwd``,
    ``env``), ``state["screen"]`` the transcript lines (the last one holds the cursor) and
    ``state["typed"]`` what sits on the prompt line without Enter. ``duration`` is not waited.
    """
    terminal = _terminal(state, context)
    commands: list[str] = []
    exit_codes: list[int] = []
    unknown: list[str] = []
    raw = action.model_dump(mode="python") if isinstance(action, BaseModel) else action
    batches: list[dict[str, Any]] = [b for b in raw if isinstance(b, dict)] if isinstance(raw, list) else []
    _apply_limits(terminal.vm)
    for batch in batches:
        step = terminal.send(str(batch.get("keystrokes", "")))
        commands.extend(step.commands)
        exit_codes.extend(step.exit_codes)
        unknown.extend(step.unknown_commands)
    state["screen"] = terminal.lines
    state["typed"] = terminal.typed
    metadata: dict[str, Any] = {"commands": commands, "exit_codes": exit_codes}
    if unknown:
        metadata["offline_unknown_effect"] = True
        metadata["unknown_commands"] = unknown
    return OfflineResult(
        terminal.view(), is_error=bool(exit_codes) and exit_codes[-1] != 0, metadata=metadata
    )


def _terminal(state: dict[str, Any], context: dict[str, Any]) -> Any:
    """The session's terminal pane, made on first use from the context."""
    from ..domains.terminal import SCREEN_LINES
    from .shell import TerminalScreen, machine_from_context

    terminal = state.get("terminal")
    if terminal is None:
        vm = state.get("vm") or machine_from_context(context, interactive=True)
        _apply_limits(vm)
        initial = context.get("initial_state")
        terminal = TerminalScreen(vm, None if initial is None else str(initial), rows=SCREEN_LINES)
        state["vm"] = vm
        state["terminal"] = terminal
    return terminal


def terminal_answered(state: dict[str, Any], action: BaseModel, screen: str, context: dict[str, Any]) -> None:
    """A terminal turn answered without the world (an injected fault): the pane shows its screen
    (the command echoed, its error), so the next turn's screen continues from it."""
    terminal = _terminal(state, context)
    terminal.show(screen)
    state["screen"] = terminal.lines
    state["typed"] = terminal.typed


def swe_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """Answer the tool call from a simulated machine (``offline.swe_tools``).

    ``state["vm"]`` is the machine (made on first use from ``context["files"]``, ``cwd``,
    ``env``; the project root is ``cwd``, default /app), ``state["swe_tools"]`` the tools with
    their undo history and todo list.
    """
    from .shell import machine_from_context
    from .swe_tools import SweTools

    tools = state.get("swe_tools")
    if tools is None:
        vm = state.get("vm") or machine_from_context(context, interactive=False)
        tools = SweTools(vm, root=vm.cwd)
        state["vm"] = vm
        state["swe_tools"] = tools
    _apply_limits(tools.vm)
    name = getattr(action, "tool_name", None) or ""
    arguments = getattr(action, "arguments", None) or {}
    result = tools.call(name, arguments)
    return OfflineResult(result.text, is_error=result.is_error, metadata=result.metadata)


def mcp_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """A server without a model: a ledger of created items and results fitted to outputSchema."""
    from ..domains.mcp import ToolCall
    from .mcp import mcp_step as answer

    call = action if isinstance(action, ToolCall) else ToolCall.model_validate(action)
    return answer(state, call.tool_name, call.arguments, context)


def mcp_light(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> bool:
    """Whether an mcp step is light (``kind="light"``): a known server's call bounded by its
    arguments and a small state."""
    from .mcp.world import mcp_light as light

    return light(state, getattr(action, "tool_name", ""), context)


def search_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """BM25 search over a local corpus, page extraction from it, and a notebook in ``state``."""
    from ..domains.search import SearchCall
    from .search_world import search_step as answer

    call = SearchCall.model_validate(action)
    return answer(state, call.name, call.arguments, context)


def web_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The page carried forward: fill/clear set values, clicks toggle checkboxes and move focus.

    Starts from ``context["initial_state"]`` (or a built-in search page); ``goto`` and links
    open pages only when ``context["pages"]`` maps their URL to a page, otherwise the page is
    left as it was with ``metadata["offline_unknown_effect"]`` set.
    """
    from .gui import web_step as answer

    return answer(state, action, context)


def android_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The screen carried forward: input_text fills fields, clicks toggle switches and focus fields.

    Starts from ``context["initial_state"]`` (or a built-in home screen); apps and other
    screens open only when ``context["screens"]`` maps their name to a screen, otherwise the
    screen is left as it was with ``metadata["offline_unknown_effect"]`` set.
    """
    from .gui import android_step as answer

    return answer(state, action, context)


def os_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The desktop carried forward: the code is read with :mod:`ast` (never run); clicks focus
    fields and toggle check boxes, ``write`` types into the focused field.

    Starts from ``context["initial_state"]`` (or a built-in GNOME desktop with a terminal and
    a text editor); calls whose effect is unknown leave the table as it was with
    ``metadata["offline_unknown_effect"]`` set.
    """
    from .gui import os_step as answer

    return answer(state, action, context)


#: the built-in offline worlds, by domain name
WORLDS: dict[str, Callable[[dict[str, Any], BaseModel, dict[str, Any]], OfflineResult]] = {
    "mcp": mcp_step,
    "search": search_step,
    "terminal": terminal_step,
    "swe": swe_step,
    "android": android_step,
    "web": web_step,
    "os": os_step,
}


@hookimpl
def register_offline_worlds(register: Callable[..., None]) -> None:
    for name, step in WORLDS.items():
        register(name, step)
    register("terminal", terminal_answered, kind="answered")
    register("mcp", _mcp_tables, kind="tables")
    register("mcp", _mcp_resource, kind="resource")
    register("mcp", mcp_light, kind="light")
    register("shell", _shared_machine_states, kind="machine")


def _mcp_tables(context: dict[str, Any]) -> tuple[dict[str, list[str]], bool]:
    """The mcp world's tables: a resource per noun its tools act on (``offline.mcp.resources``)."""
    from .mcp.resources import world_tables

    return world_tables(context)


def _mcp_resource(state: dict[str, Any], uri: str, context: dict[str, Any]) -> tuple[str, str] | None:
    """A known server's resource read from the mcp world's state (``offline.mcp.servers``)."""
    from .mcp.servers import read_resource

    return read_resource(state, uri, context)


def _shared_machine_states(domains: dict[str, str], **machine: Any) -> dict[str, dict[str, Any]]:
    """One filesystem, a shell per session (imported on first use, like the worlds)."""
    from .machines import shared_machine_states

    return shared_machine_states(domains, **machine)
