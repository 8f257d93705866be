"""``faults``: replace observations with realistic, domain-specific failures.

Six kinds answer the step themselves (``before_step``), so the world model is not asked and the
action has no effect: ``permission_denied``, ``not_found``, ``timeout``, ``rate_limit`` (429),
``server_error`` (500) and ``connection_reset``. Each is written the way the domain's real system
writes it: a FastMCP tool error for mcp, bash and GNU tool messages on the terminal screen, a
``run_shell_command`` result with Stderr and Exit Code for swe, ``Error: ... (HTTP 429 Too Many
Requests)`` for search, Playwright errors and error pages for web, toasts and system dialogs for
android, GNOME dialogs and browser pages for os.

Two kinds let the step run and then damage its output (``after_observation``):
``truncated_output`` cuts it, ``empty_result`` empties it the way the domain shows "nothing".

>>> from agentworld_plugins import World
>>> from agentworld_plugins.perturbations import Faults
>>> world = World()                                                           # doctest: +SKIP
>>> s = world.session("mcp", perturbations=[Faults(kinds="rate_limit")])      # doctest: +SKIP
>>> s.step({"tool_name": "list_issues", "arguments": {}}).text                # doctest: +SKIP
'Error executing tool list_issues: 429 Too Many Requests: rate limit exceeded, retry after 30 seconds'

One module per domain's texts (:mod:`.mcp`, :mod:`.terminal` with :mod:`.bash`, :mod:`.swe`,
:mod:`.search`, :mod:`.web`, :mod:`.android`, :mod:`.os`), :mod:`.core` for what they share,
:mod:`.render` and :mod:`.outputs` for the two ways a fault shows, :mod:`.plugin` for the
perturbation; the screens are written in the formats of :mod:`agentworld_plugins.domains.formats`.
"""

from __future__ import annotations

from ...domains.formats.terminal import DEFAULT_PROMPT
from ...domains.terminal import SCREEN_LINES
from .bash import bash_failure
from .core import ERROR_KINDS, HTTP_STATUS, KINDS, OUTPUT_KINDS, FaultContext, FaultKind
from .outputs import degrade, output_fault
from .plugin import FaultOptions, Faults
from .render import render_error
from .swe import shell_result

__all__ = [
    "DEFAULT_PROMPT",
    "ERROR_KINDS",
    "HTTP_STATUS",
    "KINDS",
    "OUTPUT_KINDS",
    "SCREEN_LINES",
    "FaultContext",
    "FaultKind",
    "FaultOptions",
    "Faults",
    "bash_failure",
    "degrade",
    "output_fault",
    "render_error",
    "shell_result",
]
