"""What every fault text builds on: the kinds, their HTTP statuses, the action's context and
small readers of it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from ..targeting import PATH_KEYS, ActionView

FaultKind = Literal[
    "permission_denied",
    "not_found",
    "timeout",
    "rate_limit",
    "server_error",
    "connection_reset",
    "truncated_output",
    "empty_result",
]
KINDS: tuple[str, ...] = get_args(FaultKind)
#: kinds that answer the step instead of the world model
ERROR_KINDS: tuple[str, ...] = KINDS[:6]
#: kinds that let the step run and damage what it returns
OUTPUT_KINDS: tuple[str, ...] = KINDS[6:]

#: the HTTP status a kind stands for, where it has one
HTTP_STATUS: dict[str, tuple[int, str]] = {
    "permission_denied": (403, "Forbidden"),
    "not_found": (404, "Not Found"),
    "rate_limit": (429, "Too Many Requests"),
    "server_error": (500, "Internal Server Error"),
}


@dataclass
class FaultContext:
    """What an error text is written from: the action and what the agent saw before it."""

    domain: str
    view: ActionView
    previous: str = ""
    retry_after: int = 30
    timeout_s: int = 30


_PATH_KEYS = (*PATH_KEYS, "notebook_path")
_VERBS = {
    "get", "list", "read", "fetch", "create", "add", "new", "update", "edit", "set", "delete",
    "remove", "search", "find", "query", "write", "put", "post", "patch", "open", "close", "run",
    "send", "upload", "download", "move", "copy", "show", "describe", "make", "do",
}  # fmt: skip


def path_argument(view: ActionView) -> str | None:
    for key in _PATH_KEYS:
        value = view.arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def resource_of(tool: str) -> str:
    """``get_note`` -> ``note``, ``listPullRequests`` -> ``pull requests``."""
    words = [w.lower() for w in re.split(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])", tool) if w]
    rest = [w for w in words if w not in _VERBS]
    return " ".join(rest) or "resource"


def url_in(text: str) -> str | None:
    found = re.search(r"(https?://[^\s'\"]+|git@[^\s'\"]+)", text)
    return found.group(1) if found else None


def host_of(url: str | None, default: str = "example.com") -> str:
    if not url:
        return default
    found = re.match(r"(?:https?://|git@)([^/:\s]+)", url)
    return found.group(1) if found else default


def generic_error(kind: str, ctx: FaultContext) -> str:
    if kind in HTTP_STATUS:
        code, reason = HTTP_STATUS[kind]
        return f"Error: {code} {reason}"
    if kind == "timeout":
        return f"Error: the operation timed out after {ctx.timeout_s} seconds"
    return "Error: Connection reset by peer"
