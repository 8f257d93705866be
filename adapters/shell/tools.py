"""Coding-agent tools on a virtual terminal's machine: as LangChain tools and as an MCP server.

The tools are Gemini CLI / Qwen Code's (``run_shell_command``, ``read_file``, ``write_file``,
``edit``/``replace``, ``list_directory``, ``glob``, ``grep_search``, ``todo_write``, ...) and
OpenHands' (``execute_bash``, ``str_replace_editor``); see :mod:`.definitions`. Every call is one
step of the terminal's command front, so a file the agent writes with ``write_file`` is there
for ``bash -c`` through the shim, the tmux look-alike and the other tools::

    from agentworld_plugins.adapters.shell import VirtualTerminal, coding_tools

    terminal = VirtualTerminal(session_id="agent-1", store=True)
    tools = coding_tools(terminal)                        # LangChain StructuredTools
    agent = create_agent(model, tools=tools)

    agentworld shell mcp --session agent-1                # the same tools over MCP (stdio)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentworld_plugins.errors import ActionValidationError, AgentWorldError

from .definitions import PACKS, all_tools
from .terminal import VirtualTerminal

__all__ = ["coding_mcp_server", "coding_tools", "select_tools", "serve_mcp_stdio"]


def select_tools(names: Iterable[str] | None = None, pack: str | None = None) -> list[dict[str, Any]]:
    """Tool definitions by name and/or pack (default: every coding tool)."""
    if pack and pack not in PACKS:
        raise AgentWorldError(f"Unknown coding tool pack {pack!r}", hint=f"use one of {', '.join(PACKS)}")
    tools = list(PACKS[pack]) if pack else all_tools()
    if names is not None:
        wanted = list(names)
        known = {t["name"]: t for t in all_tools()}
        missing = [n for n in wanted if n not in known]
        if missing:
            raise AgentWorldError(
                f"Unknown coding tool(s): {', '.join(missing)}", hint=f"known: {', '.join(sorted(known))}"
            )
        tools = [known[n] for n in wanted]
    return tools


def _answer(terminal: VirtualTerminal, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    try:
        observation = terminal.tool(name, arguments)
    except ActionValidationError as exc:
        return f"Error: invalid arguments for {name}: {exc.message}", True
    return observation.text, observation.is_error


async def _aanswer(terminal: VirtualTerminal, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    try:
        observation = await terminal.atool(name, arguments)
    except ActionValidationError as exc:
        return f"Error: invalid arguments for {name}: {exc.message}", True
    return observation.text, observation.is_error


def coding_tools(
    terminal: VirtualTerminal | None = None, *, names: Iterable[str] | None = None, pack: str | None = None
) -> list[Any]:
    """LangChain ``StructuredTool``s whose calls go to ``terminal`` (default: a new one in memory).

    The schemas are the agents' own JSON schemas; an argument error comes back as the tool's
    text (``Error: invalid arguments ...``) rather than an exception, as the CLIs report it.
    """
    from langchain_core.tools import StructuredTool

    terminal = terminal or VirtualTerminal()
    tools = []
    for definition in select_tools(names, pack):
        name = definition["name"]

        def call(_name: str = name, **arguments: Any) -> str:
            return _answer(terminal, _name, arguments)[0]

        async def acall(_name: str = name, **arguments: Any) -> str:
            return (await _aanswer(terminal, _name, arguments))[0]

        tools.append(
            StructuredTool.from_function(
                func=call,
                coroutine=acall,
                name=name,
                description=definition["description"],
                args_schema=definition["inputSchema"],
            )
        )
    return tools


def coding_mcp_server(
    terminal: VirtualTerminal,
    *,
    names: Iterable[str] | None = None,
    pack: str | None = None,
    name: str = "agentworld-shell",
) -> Any:
    """A low-level MCP ``Server`` offering the coding tools on ``terminal``'s machine."""
    import mcp_types as types
    from mcp.server import Server

    definitions = select_tools(names, pack)
    listed = [types.Tool.model_validate(d) for d in definitions]
    offered = {d["name"] for d in definitions}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in offered:
            text, is_error = f'Error: Tool "{params.name}" not found in registry.', True
        else:
            try:
                text, is_error = await _aanswer(terminal, params.name, dict(params.arguments or {}))
            except AgentWorldError as exc:
                text, is_error = f"Error executing tool {params.name}: {exc}", True
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_mcp_stdio(terminal: VirtualTerminal, **kwargs: Any) -> None:
    """Serve the coding tools over this process's stdin/stdout until the client leaves."""
    from mcp.server.stdio import stdio_server

    server = coding_mcp_server(terminal, **kwargs)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
