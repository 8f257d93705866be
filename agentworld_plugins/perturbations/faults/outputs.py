"""Output faults: a step's observation cut short or emptied, in the domain's format."""

from __future__ import annotations

import re
from typing import Any

from ..targeting import ActionView
from .core import OUTPUT_KINDS
from .swe import STDOUT_FIELD


def _empty(domain: str, view: ActionView, text: str) -> str:
    stripped = text.strip()
    if domain == "search":
        if view.tool == "web_search":
            queries = view.arguments.get("queries", view.arguments.get("query"))
            queries = [queries] if isinstance(queries, str) else list(queries or [])
            return "\n\n".join(f'No results found for query: "{q}"' for q in queries)
        if view.tool == "dict_memory" and view.arguments.get("operation") == "retrieve_all":
            return "{}"
        return ""
    if domain == "swe" and STDOUT_FIELD.search(text):
        return STDOUT_FIELD.sub("Stdout: (empty)\n", text, count=1)
    if domain == "terminal":
        lines = text.splitlines()
        echo = max(
            (i for i, ln in enumerate(lines) if view.command and view.command in ln),
            default=None,
        )
        if echo is None or echo == len(lines) - 1:
            return text
        return "\n".join([*lines[: echo + 1], lines[-1]])
    if domain == "web":
        header = [ln for ln in text.splitlines() if re.match(r"^(URL|Title):", ln)]
        title = next(
            (ln.split(":", 1)[1].strip() for ln in header if ln.startswith("Title:")),
            "",
        )
        return "\n".join([*header, "", f"RootWebArea '{title}', focused"])
    if domain == "os":
        first = text.splitlines()[0] if text else ""
        return first if first.startswith("tag\t") else ""
    if stripped.startswith("["):
        return "[]"
    if stripped.startswith("{"):
        return "{}"
    return ""


def _cut(text: str, fraction: float, by_lines: bool) -> str:
    if by_lines:
        lines = text.splitlines()
        if len(lines) > 1:
            return "\n".join(lines[: max(1, int(len(lines) * fraction))])
    return text[: max(1, int(len(text) * fraction))] if text else text


def degrade(kind: str, domain: str, view: ActionView, text: str, fraction: float) -> str:
    """``text`` after an output fault: cut to about ``fraction`` of it, or emptied."""
    if kind == "empty_result":
        return _empty(domain, view, text)
    if kind != "truncated_output":
        raise ValueError(f"{kind!r} is not an output kind; use one of {', '.join(OUTPUT_KINDS)}")
    if domain == "swe":
        found = STDOUT_FIELD.search(text)
        if found and found.group(1).strip() not in ("", "(empty)"):
            body = found.group(1).rstrip("\n")
            return text[: found.start(1)] + _cut(body, fraction, False) + "\n" + text[found.end(1) :]
    return _cut(text, fraction, by_lines=domain in ("terminal", "web", "android", "os"))


def output_fault(metadata: dict[str, Any]) -> str | None:
    """The output kind (``truncated_output``, ``empty_result``) that damaged the observation whose
    ``metadata`` this is, or None: a front shows such an observation as it is (an MCP server as an
    ``isError`` result), never re-asks the world model for a "valid" one."""
    for entry in metadata.get("perturbations") or []:
        if entry.get("name") == "faults" and entry.get("kind") in OUTPUT_KINDS and not entry.get("replaced"):
            return str(entry["kind"])
    return None
