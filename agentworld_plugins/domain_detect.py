"""Which of the seven domains a conversation is, from the conversation itself.

A server that answers bare chat requests (``agentworld serve``) must tell a terminal session from
an MCP one without a session object, and whatever wording the system prompt has (ours, the
official ones, a user's own). :func:`guess_domain` reads what every domain's turns share by
construction: the shape of the action after ``**Action:**`` (FORMATS.md), and for tool calls the
tool names, checked against the tool definitions in the system prompt.

>>> guess_domain([{"role": "user", "content": '### Turn 1\\n**Action:**\\n```json\\n[{"keystrokes": "ls\\\\n"}]\\n```'}])
'terminal'

:data:`forced_domain` (a context variable) overrides the guess: ``agentworld serve --domain``.

A system prompt that opens with a ``# ... World Model`` heading names its domain: one of our
seven bundled headings gives that domain whatever the action looks like (an action of another
shape then gets that domain's validation error, not another domain's answer), and any other
heading (a plugin domain's) gives no guess, so the caller decides by the prompt itself (the
offline world: the registered domain with that prompt, else a 400 naming it).

An action that is JSON of no domain's shape (``{"query": "weather in Oslo"}``), or JSON nested
deeper than :data:`~agentworld_plugins.limits.MAX_DEPTH`, is a :class:`BackendError` naming the
problem: a dict literal also parses as Python, and answering it as the ``os`` domain would be
an answer of the wrong system.
"""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import BackendError
from .limits import LimitError, loads_limited

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
_HEADING = re.compile(r"#[ \t]+([^\n]*World Model)[ \t]*(?:\n|$)")
#: the first-line headings of our bundled system prompts (prompts/<domain>/system_prompt.txt)
BUNDLED_HEADINGS = {
    "Linux Terminal World Model": "terminal",
    "Android Device World Model": "android",
    "MCP Server World Model": "mcp",
    "Web Search Environment World Model": "search",
    "Software Engineering Sandbox World Model": "swe",
    "Web Browser World Model": "web",
    "Ubuntu Desktop World Model": "os",
}
SHAPES = (
    'terminal: a list of {"keystrokes": ...}; android: an object with "action_type"; mcp, search '
    'and swe: a tool call {"tool_name" or "name", "arguments"}; web: a BrowserGym call such as '
    "click('12'); os: Python (pyautogui)"
)


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


def heading_of(system: str) -> str | None:
    """The ``# ... World Model`` heading a system prompt opens with, or None."""
    found = _HEADING.match(system.lstrip())
    return found.group(1).strip() if found else None


def _unknown_json(fence: str | None, text: str) -> Any:
    """The JSON object or list ``text`` holds (None when it holds none)."""
    if fence not in (None, "", "json"):
        return None
    try:
        value = loads_limited(text.strip())
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def classify_action(fence: str | None, text: str, tools: set[str] = frozenset()) -> str | None:  # type: ignore[assignment]
    """The domain whose action shape ``text`` has, or None when the shape is not one of theirs."""
    body = text.strip()
    if fence == "python" or any(hint in body for hint in _DESKTOP_HINTS):
        return "os"
    try:
        value: Any = loads_limited(body)
    except LimitError as exc:
        if body[:1] in "[{":
            raise BackendError(
                f"The action is not one any domain could take: {exc}",
                hint=f"send an action of one domain's shape ({SHAPES})",
            ) from None
        value = None
    except ValueError:
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
    """The domain of a conversation from its system prompt's heading and its turns (latest
    first), or None when nothing tells. ``known`` limits the answer to registered domains.

    Raises :class:`BackendError` when the latest action is JSON of no domain's shape and no turn
    tells the domain, or nests too deep (see the module docs)."""
    forced = forced_domain.get()
    if forced:
        return forced
    system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
    heading = heading_of(system)
    if heading is not None:
        named = BUNDLED_HEADINGS.get(heading)
        if named is None:  # another domain's own prompt (a plugin's): the prompt decides, not the action
            return None
        if known is None or named in known:
            return named
    tools = defined_tools(system)
    latest: tuple[str | None, str] | None = None
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        found = action_of(str(message.get("content") or ""))
        if found is None:
            continue
        latest = latest or found
        domain = classify_action(found[0], found[1], tools)
        if domain is not None and (known is None or domain in known):
            return domain
    if latest is not None and (value := _unknown_json(*latest)) is not None:
        shown = json.dumps(value, ensure_ascii=False)
        raise BackendError(
            f"The action {shown[:120]} is JSON of no domain's shape, so no domain can answer it",
            hint=f"send an action of one domain's shape ({SHAPES}), or open the conversation "
            "with the domain's system prompt (`agentworld prompt DOMAIN`)",
        )
    return None
