"""Built-in plugin: registers the coding-agent tool packs (``coding-agent``, ``openhands``).

``agentworld mcp serve --pack coding-agent`` then serves them from the mcp world; to serve them
on a shell session's machine (shared with ``bash -c``, tmux, ...) use ``agentworld shell mcp``.
"""

from __future__ import annotations

from collections.abc import Callable

from agentworld_plugins.hookspecs import hookimpl

from .definitions import PACKS


@hookimpl(trylast=True)
def register_tool_packs(register: Callable[..., None]) -> None:
    for name, tools in PACKS.items():
        register(name, tools)
