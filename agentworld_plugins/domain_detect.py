"""Which of the seven domains a conversation is, from the conversation itself.

A server that answers bare chat requests (``agentworld serve``) must tell a terminal session from
an MCP one without a session object, and whatever wording the system prompt has (ours, the
official ones, a user's own). :func:`guess_domain` reads what every domain's turns share by
construction: the shape of the action after ``**Action:**`` (FORMATS.md), and for tool calls the
tool names, checked against the tool definitions in the system prompt.

>>> guess_domain([{"role": "user", "content": '### Turn 1\\n**Action:**\\n```json\\n[{"keystrokes": "ls\\\\n"}]\\n```'}])
'terminal'

:data:`forced_domain` (a context variable) overrides the guess: ``agentworld serve --domain``.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .limits import loads_limited

#: set to a domain name to skip the guess (``agentworld serve --domain NAME``)
forced_domain: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agentworld_forced_domain", default=None
)

_ACTION = re.compile(r"\*\*Action:\*\*[ \t]*\n")
_FENCE = re.compile(r"\A```([\w-]*)[ \t]*\n(.*?)\n?```\s*\Z", re.DOTALL)
_CALL = re.compile(r"\A([A-Za-z_][\w.]*)\s*\(")
_DEFINED_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')

#: tools of coding agents (Qwen Code / Gemini CLI, OpenHands, SWE-agent): the swe domain's actions
CODING_TOOLS = frozenset(
    {
        "run_shell_command",
        "execute_bash",
        "bash",
        "read_file",
        "read_many_files",
        "write_file",
        "edit",
        "replace",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "list_directory",
        "glob",
        "grep_search",
        "search_file_content",
        "todo_write",
        "save_memory",
        "think",
        "finish",
        "submit",
    }
)
#: BrowserGym's action functions (the web domain's action strings are calls of these)
BROWSER_ACTIONS = frozenset(
    {
        "noop",
        "send_msg_to_user",
        "report_infeasible",
        "scroll",
        "fill",
        "select_option",
        "click",
        "dblclick",
        "hover",
        "press",
        "focus",
        "clear",
        "drag_and_drop",
        "upload_file",
        "goto",
        "go_back",
        "go_forward",
        "new_tab",
        "tab_close",
        "tab_focus",
        "mouse_move",
        "mouse_up",
        "mouse_down",
        "mouse_click",
        "mouse_dblclick",
        "mouse_drag_and_drop",
        "mouse_upload_file",
        "keyboard_down",
        "keyboard_up",
        "keyboard_press",
        "keyboard_type",
        "keyboard_insert_text",
    }
)
_DESKTOP_HINTS = ("pyautogui.", "computer.", "import ", "time.sleep(")


def action_of(prompt: str) -> tuple[str | None, str] | None:
    """(fence language or None, action text) after the last ``**Action:**`` of a turn prompt."""
    found = list(_ACTION.finditer(prompt))
    if not found:
        return None
    body = prompt[found[-1].end() :].strip("\n")
    fenced = _FENCE.match(body.strip())
    if fenced:
        return fenced.group(1).lower(), fenced.group(2)
    return None, body


def defined_tools(system: str) -> set[str]:
    """Tool names in the tool definitions of a system prompt (best effort)."""
    return set(_DEFINED_NAME.findall(system)) if '"name"' in system else set()


def _tool_domain(name: str, key: str, tools: set[str]) -> str:
    if name in CODING_TOOLS:
        if tools and len(tools & CODING_TOOLS) * 2 < len(tools):
            return "mcp" if key == "tool_name" else "search"  # an MCP server that happens to have read_file
        return "swe"
    if tools & CODING_TOOLS and len(tools & CODING_TOOLS) * 2 >= len(tools):
        return "swe"
    return "mcp" if key == "tool_name" else "search"


def classify_action(fence: str | None, text: str, tools: set[str] = frozenset()) -> str | None:  # type: ignore[assignment]
    """The domain whose action shape ``text`` has, or None when the shape is not one of theirs."""
    body = text.strip()
    if fence == "python" or any(hint in body for hint in _DESKTOP_HINTS):
        return "os"
    try:
        value: Any = loads_limited(body)
    except ValueError:  # not JSON, or too deep or large to be any domain's action (LimitError)
        value = None
        call = _CALL.match(body)
        if call and call.group(1) in BROWSER_ACTIONS:
            return "web"
        return None
    if isinstance(value, list):
        if not value or all(isinstance(v, Mapping) and "keystrokes" in v for v in value):
            return "terminal"
        if all(isinstance(v, Mapping) and ("tool_name" in v or "name" in v) for v in value):
            first = value[0]
            key = "tool_name" if "tool_name" in first else "name"
            return _tool_domain(str(first[key]), key, tools)
        return None
    if not isinstance(value, Mapping):
        return None
    if "action_type" in value:
        return "android"
    if "keystrokes" in value:
        return "terminal"
    for key in ("tool_name", "name"):
        if isinstance(value.get(key), str):
            return _tool_domain(value[key], key, tools)
    return None


def guess_domain(messages: Sequence[Mapping[str, Any]], known: Sequence[str] | None = None) -> str | None:
    """The domain of a conversation from its turns (latest first), or None when no turn has an
    action of a known shape. ``known`` limits the answer to registered domains."""
    forced = forced_domain.get()
    if forced:
        return forced
    system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
    tools = defined_tools(system)
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        found = action_of(str(message.get("content") or ""))
        if found is None:
            continue
        domain = classify_action(found[0], found[1], tools)
        if domain is not None and (known is None or domain in known):
            return domain
    return None
