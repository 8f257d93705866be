"""Web faults: Playwright errors and the browser's error pages."""

from __future__ import annotations

import re

from .core import HTTP_STATUS, FaultContext, host_of

_LOCATOR_ACTIONS = {
    "click",
    "dblclick",
    "fill",
    "hover",
    "press",
    "focus",
    "clear",
    "select_option",
    "check",
    "uncheck",
}
_HTTP_BODIES = {
    403: "You don't have permission to access this resource.",
    404: "The requested URL was not found on this server.",
    429: "You have sent too many requests in a given amount of time. Please try again later.",
    500: "The server encountered an internal error and was unable to complete your request.",
}


def _page_url(page: str) -> str | None:
    found = re.search(r"^URL:\s*(\S+)", page, re.MULTILINE)
    return found.group(1) if found else None


def _with_error_line(page: str, line: str) -> str:
    """The page unchanged, with BrowserGym's ``Error:`` header line after URL and Title."""
    lines = [ln for ln in page.splitlines() if not re.match(r"^(?:Error|ERROR)\s*:", ln)]
    at = 0
    while at < len(lines) and re.match(r"^(URL|Title):", lines[at]):
        at += 1
    return "\n".join([*lines[:at], line, *lines[at:]])


def web_error(kind: str, ctx: FaultContext) -> str:
    view = ctx.view
    navigating = view.tool == "goto"
    url = str(view.arguments.get("url")) if navigating else (_page_url(ctx.previous) or "about:blank")
    if kind == "timeout":
        if navigating:
            return _with_error_line(
                ctx.previous,
                f"Error: TimeoutError: page.goto: Timeout {ctx.timeout_s * 1000}ms exceeded.",
            )
        method = view.tool if view.tool in _LOCATOR_ACTIONS else "click"
        return _with_error_line(
            ctx.previous,
            f"Error: TimeoutError: Locator.{method}: Timeout 500ms exceeded.",
        )
    if kind == "connection_reset":
        host = host_of(url, url)
        return "\n".join(
            [
                f"URL: {url}",
                f"Title: {host}",
                f"Error: net::ERR_CONNECTION_RESET at {url}",
                "",
                f"RootWebArea '{host}', focused",
                "\t[1] heading 'This site can\u2019t be reached', level=1",
                "\tStaticText 'The connection was reset.'",
                "\tStaticText 'Try:'",
                "\tStaticText 'Checking the connection'",
                "\tStaticText 'Checking the proxy and the firewall'",
                "\tStaticText 'ERR_CONNECTION_RESET'",
                "\t[2] button 'Reload', clickable",
            ]
        )
    code, reason = HTTP_STATUS[kind]
    title = f"{code} {reason}"
    return "\n".join(
        [
            f"URL: {url}",
            f"Title: {title}",
            "",
            f"RootWebArea '{title}', focused",
            f"\t[1] heading '{title}', level=1",
            f"\tStaticText '{_HTTP_BODIES[code]}'",
            "\tseparator '', orientation='horizontal'",
            "\tStaticText 'nginx'",
        ]
    )
