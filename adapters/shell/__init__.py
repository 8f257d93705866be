"""One virtual terminal behind every way agents run commands, never touching the host.

Fronts, all over :class:`~.terminal.VirtualTerminal` (a command front in the swe domain and a screen
front in the terminal domain, one simulated machine):

- :mod:`.shim`: ``bash`` / ``sh`` executables for ``PATH`` (``agentworld shim install DIR``);
- :mod:`.interactive`: ``agentworld shell``, an interactive shell for people;
- :mod:`.tmux`: Terminal-Bench's ``TmuxSession`` and a ``tmux`` command emulator;
- :mod:`.envs`: a mini-swe-agent ``Environment`` and a Harbor-style environment;
- :mod:`.swerex`: a SWE-ReX-compatible HTTP runtime;
- :mod:`.tools`: coding-agent tools as LangChain tools and as an MCP server.

Sessions persist in the SQLite session store of :mod:`agentworld_plugins.store`. This package imports lazily: the shim
must start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "CommandResult",
    "MachineSpec",
    "MiniSweEnvironment",
    "SessionStore",
    "SimulatedEnvironment",
    "TmuxSession",
    "VirtualTerminal",
    "coding_mcp_server",
    "coding_tools",
]

_WHERE = {
    "CommandResult": ".results",
    "MachineSpec": ".machine",
    "VirtualTerminal": ".terminal",
    "SessionStore": "agentworld_plugins.store",
    "TmuxSession": ".tmux",
    "MiniSweEnvironment": ".envs",
    "SimulatedEnvironment": ".envs",
    "coding_tools": ".tools",
    "coding_mcp_server": ".tools",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(where, __name__), name)
