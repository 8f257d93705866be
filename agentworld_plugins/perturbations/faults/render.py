"""The error text of a fault kind in a domain."""

from __future__ import annotations

from .android import android_error
from .core import ERROR_KINDS, FaultContext, generic_error
from .mcp import mcp_error
from .os import os_error
from .search import search_error
from .swe import swe_error
from .terminal import terminal_error
from .web import web_error

_RENDERERS = {
    "mcp": mcp_error,
    "terminal": terminal_error,
    "swe": swe_error,
    "search": search_error,
    "web": web_error,
    "android": android_error,
    "os": os_error,
}


def render_error(kind: str, ctx: FaultContext) -> str:
    """The observation an error ``kind`` shows in ``ctx.domain`` (a generic ``Error:`` line for
    domains added by plugins)."""
    if kind not in ERROR_KINDS:
        raise ValueError(f"{kind!r} is not an error kind; use one of {', '.join(ERROR_KINDS)}")
    return _RENDERERS.get(ctx.domain, generic_error)(kind, ctx)
