"""The virtual terminal, its machine and its results: moved to :mod:`.terminal`, :mod:`.machine`
and :mod:`.results` (re-exported here so earlier imports keep working)."""

from __future__ import annotations

from .machine import DEFAULT_PS1, MachineSpec, render_ps1
from .results import (
    MAX_OUTPUT,
    CommandResult,
    LineResult,
    parse_bash_footer,
    parse_shell_result,
    truncate_output,
)
from .terminal import COLS, DOMAINS, FRONTS, KEY_NAMES, ROWS, SCROLLBACK, VirtualTerminal, keys_to_text

__all__ = [
    "COLS",
    "DEFAULT_PS1",
    "DOMAINS",
    "FRONTS",
    "KEY_NAMES",
    "MAX_OUTPUT",
    "ROWS",
    "SCROLLBACK",
    "CommandResult",
    "LineResult",
    "MachineSpec",
    "VirtualTerminal",
    "keys_to_text",
    "parse_bash_footer",
    "parse_shell_result",
    "render_ps1",
    "truncate_output",
]
