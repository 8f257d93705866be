"""Search tool faults as the search APIs' clients raise them."""

from __future__ import annotations

from .core import HTTP_STATUS, FaultContext


def search_error(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    if kind in HTTP_STATUS:
        code, reason = HTTP_STATUS[kind]
        why = f"HTTP {code} {reason}"
        if kind == "rate_limit":
            why += f"; retry after {ctx.retry_after}s"
    elif kind == "timeout":
        why = "timeout"
    else:
        why = "Connection reset by peer"
    if view.tool == "web_extractor":
        return f"Error: Failed to fetch {str(view.arguments.get('url', '')).strip()} ({why})"
    if view.tool == "dict_memory":
        op = view.arguments.get("operation", view.arguments.get("action", ""))
        key = view.arguments.get("key")
        if kind == "not_found" and isinstance(key, str):
            return f"Error: key '{key}' not found."
        return f"Error: dict_memory {op} failed ({why})."
    return f'Error: web_search failed for query "{view.target or ""}" ({why})'
