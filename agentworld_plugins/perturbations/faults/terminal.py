"""Terminal faults: the failing command's stderr on the screen, below its prompt."""

from __future__ import annotations

import re

from ...domains.formats.terminal import DEFAULT_PROMPT
from ...domains.terminal import SCREEN_LINES
from .bash import bash_failure
from .core import FaultContext


def _prompt_of(screen: str) -> str:
    for line in reversed(screen.splitlines()):
        if re.search(r"[$#>]\s*$", line):
            return line.rstrip()
        if line.strip():
            break
    return DEFAULT_PROMPT


def _cwd_of(prompt: str) -> str:
    found = re.search(r":(~?[^\s$#]*)\s*[$#]\s*$", prompt)
    return found.group(1) if found and found.group(1) else "/app"


def terminal_error(kind: str, ctx: FaultContext) -> str:
    screen = ctx.previous or ""
    prompt = _prompt_of(screen)
    lines = screen.splitlines()
    echo = f"{prompt} {ctx.view.command}"
    if lines and lines[-1].rstrip() == prompt:
        lines[-1] = echo
    else:
        lines.append(echo)
    failure = bash_failure(
        kind,
        ctx.view.command,
        ctx.view,
        _cwd_of(prompt),
        ctx.timeout_s,
        ctx.retry_after,
    )
    lines.extend([*failure.stderr, *failure.stdout])
    if failure.status is not None:
        lines.append(prompt + " ")
    return "\n".join(lines[-SCREEN_LINES:])
