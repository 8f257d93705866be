"""MCP tool errors as FastMCP servers report them."""

from __future__ import annotations

from .core import FaultContext, path_argument, resource_of


def mcp_error(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    head = f"Error executing tool {view.tool}: "
    path = path_argument(view)
    resource = resource_of(view.tool)
    if kind == "permission_denied":
        if path:
            return f"{head}[Errno 13] Permission denied: '{path}'"
        return f"{head}403 Forbidden: the credentials in use are not allowed to access this {resource}"
    if kind == "not_found":
        if path:
            return f"{head}[Errno 2] No such file or directory: '{path}'"
        if view.target:
            return f"{head}404 Not Found: {resource} '{view.target}' does not exist"
        return f"{head}404 Not Found: the requested {resource} does not exist"
    if kind == "timeout":
        return f"{head}Timed out while waiting for the upstream service after {ctx.timeout_s} seconds"
    if kind == "rate_limit":
        return f"{head}429 Too Many Requests: rate limit exceeded, retry after {ctx.retry_after} seconds"
    if kind == "server_error":
        return f"{head}500 Internal Server Error: the upstream service failed to process the request"
    return f"{head}[Errno 104] Connection reset by peer"
