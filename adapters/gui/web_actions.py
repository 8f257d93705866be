"""Reading BrowserGym actions out of an agent's text, as BrowserGym's default action set does.

BrowserGym's ``BrowserEnv`` maps each action through ``HighLevelActionSet().to_python_code``,
whose defaults are ``strict=False`` (the calls are searched for in the text: prose and Markdown
code fences around them are skipped) and ``multiaction=True`` (every call found runs, in order).
:func:`extract_web_actions` does that search for the action functions the web domain knows.

>>> extract_web_actions("I will search.\\n```python\\nfill('12', 'mouse')\\nclick('13')\\n```")
"fill('12', 'mouse')\\nclick('13')"
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Any

from agentworld_plugins import pyast
from agentworld_plugins.domains.web import WEB_ACTIONS, WebActionError, parse_web_action

__all__ = ["extract_web_actions", "prepare_web_action"]

_CALL_START = re.compile(
    r"(?<![\w.])(" + "|".join(sorted(map(re.escape, WEB_ACTIONS), key=len, reverse=True)) + r")\s*\("
)
_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _call_end(text: str, open_at: int) -> int | None:
    """The index of the parenthesis closing the one at ``open_at`` (strings and brackets skipped)."""
    stack: list[str] = []
    i = open_at
    while i < len(text):
        char = text[i]
        if char in "'\"":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            while i < len(text) and not text.startswith(quote, i):
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n" and len(quote) == 1:
                    return None  # an unclosed one-line string: not a call
                i += 1
            if i >= len(text):
                return None
            i += len(quote)
            continue
        if char in _CLOSE:
            stack.append(_CLOSE[char])
        elif char in ")]}":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return i
        i += 1
    return None


def _is_call(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            node = pyast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return isinstance(node, ast.Call)


def extract_web_actions(text: str) -> str | None:
    """The action calls found in ``text``, one per line; None when there is none."""
    calls: list[str] = []
    position = 0
    while (match := _CALL_START.search(text, position)) is not None:
        end = _call_end(text, match.end() - 1)
        if end is not None and _is_call(text[match.start() : end + 1]):
            calls.append(text[match.start() : end + 1])
            position = end + 1
        else:
            position = match.start() + 1
    return "\n".join(calls) if calls else None


def prepare_web_action(action: Any) -> Any:
    """``action`` as BrowserGym's default action set reads it: bytes decoded, and when it is not
    already a clean action string, the calls found in it (prose and code fences skipped)."""
    if isinstance(action, (bytes, bytearray)):
        action = bytes(action).decode("utf-8", errors="replace")
    if not isinstance(action, str):
        return action
    try:
        parse_web_action(action)
        return action
    except WebActionError:
        found = extract_web_actions(action)
        return action if found is None else found
