"""Mirroring: connect once to a real MCP server as a client, take what it lists, disconnect.

The fake server then offers the same tools (and resources and prompts lists) while the world model
answers every call. Save what was mirrored with :meth:`Catalog.save_snapshot` so later runs need
no real server.

>>> catalog = anyio.run(mirror_command, ["npx", "-y", "@modelcontextprotocol/server-github"])  # doctest: +SKIP
>>> catalog.save_snapshot("github.json")                                                       # doctest: +SKIP

A target that fails to start raises :class:`MirrorError`, one line with the end of its stderr.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from agentworld_plugins.errors import ConfigError

from .mcp_catalog import Catalog

__all__ = ["MirrorError", "mirror_command", "mirror_url"]

_MAX_PAGES = 100


class MirrorError(ConfigError):
    """The real server could not be started or listed."""


def _root_cause(exc: BaseException) -> BaseException:
    """The first leaf of (nested) exception groups (duck-typed: Python 3.10 has no builtin one)."""
    while isinstance(getattr(exc, "exceptions", None), (list, tuple)) and exc.exceptions:  # type: ignore[attr-defined]
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _root_cause(exc)
    if isinstance(exc, TimeoutError):
        return "no answer to the MCP handshake in time"
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    if isinstance(exc, PermissionError):
        return f"permission denied ({exc.filename or exc})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _tail(log: IO[str] | None, lines: int = 3, width: int = 300) -> str:
    if log is None:
        return ""
    try:
        log.flush()
        log.seek(0)
        found = [line.strip() for line in log.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    text = " | ".join(found[-lines:])
    return text if len(text) <= width else "..." + text[-width:]


async def _pages(fetch: Callable[[str | None], Awaitable[Any]], attr: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await fetch(cursor)
        items.extend(getattr(page, attr))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


async def _optional(fetch: Callable[[str | None], Awaitable[Any]], attr: str) -> list[Any]:
    """A listing the server advertised; one that fails is left empty rather than stopping the mirror."""
    try:
        return await _pages(fetch, attr)
    except MCPError:
        return []


def _roots_callback(directory: str | None) -> Any:
    """A ``roots/list`` answer (the working directory), so the client declares the ``roots``
    capability: some servers offer tools only to clients that have it (server-everything's
    ``get-roots-list``), and a mirror must see everything a real client would."""
    root = Path(directory or os.getcwd()).resolve()

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name=root.name or "/")])

    return list_roots


async def _take(client: Client, source: str) -> Catalog:
    tools = await _pages(lambda c: client.list_tools(cursor=c), "tools")
    caps = client.server_capabilities
    resources: list[types.Resource] = []
    templates: list[types.ResourceTemplate] = []
    prompts: list[types.Prompt] = []
    if caps.resources is not None:
        resources = await _optional(lambda c: client.list_resources(cursor=c), "resources")
        templates = await _optional(lambda c: client.list_resource_templates(cursor=c), "resource_templates")
    if caps.prompts is not None:
        prompts = await _optional(lambda c: client.list_prompts(cursor=c), "prompts")
    info = client.server_info
    catalog = Catalog.from_tools(
        {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]},
        source,
        server_name=info.name if info else None,
        server_version=info.version if info else None,
        server_title=info.title if info else None,
        instructions=client.instructions,
    )
    catalog.resources, catalog.resource_templates, catalog.prompts = resources, templates, prompts
    catalog.capabilities = caps.model_dump(by_alias=True, mode="json", exclude_none=True)
    catalog.protocol_version = client.protocol_version
    return catalog


async def mirror_command(
    argv: Sequence[str], *, timeout: float = 60.0, env: dict[str, str] | None = None, cwd: str | None = None
) -> Catalog:
    """Start ``argv`` as a stdio MCP server, list what it offers, stop it.

    The target inherits this process's environment (real servers read their tokens from it),
    with ``env`` laid over it.
    """
    if not argv:
        raise ConfigError("--mirror needs the real server's command", hint="e.g. --mirror -- npx -y SERVER")
    shown = shlex.join(argv)
    params = StdioServerParameters(
        command=argv[0], args=list(argv[1:]), env={**os.environ, **(env or {})}, cwd=cwd
    )
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                async with Client(
                    stdio_client(params, errlog=errlog), list_roots_callback=_roots_callback(cwd)
                ) as client:
                    return await _take(client, shown)
        except MirrorError:
            raise
        except Exception as exc:
            tail = _tail(errlog)
            stderr = f"; stderr: {tail}" if tail else "; it wrote nothing to stderr"
            raise MirrorError(
                f"Mirror target `{shown}` failed to start: {_describe(exc)}{stderr}",
                hint="run the command by hand to see why, or use a saved --snapshot",
            ) from None


async def mirror_url(url: str, *, timeout: float = 60.0) -> Catalog:
    """Connect to a streamable-HTTP MCP server at ``url`` and list what it offers."""
    try:
        with anyio.fail_after(timeout):
            async with Client(url, list_roots_callback=_roots_callback(None)) as client:
                return await _take(client, url)
    except MirrorError:
        raise
    except Exception as exc:
        raise MirrorError(
            f"Mirror target {url} did not answer: {_describe(exc)}",
            hint="check the URL (it usually ends in /mcp) and that the server is running",
        ) from None


def mirrored_context(catalog: Catalog) -> dict[str, Any]:
    """The session context a mirrored server's own command line implies (its ``source``, kept in
    the snapshot): ``@modelcontextprotocol/server-filesystem DIR...`` serves DIR... only, so the
    world's file tools get them as ``allowed_directories``, start in the first, and see its files
    as they were when the fake server started (copied once into the simulated machine, never
    written back)."""
    try:
        words = shlex.split(catalog.source or "")
    except ValueError:
        return {}
    for index, word in enumerate(words):
        if "mcp-server-fetch" in word or "mcp_server_fetch" in word:  # the fetch server's flags
            flags = words[index + 1 :]
            return {
                "fetch_options": {
                    "ignore_robots_txt": "--ignore-robots-txt" in flags,
                    "allow_private_ips": "--allow-private-ips" in flags,
                }
            }
        if "server-filesystem" not in word:
            continue
        dirs = [os.path.realpath(os.path.expanduser(a)) for a in words[index + 1 :] if not a.startswith("-")]
        if not dirs:
            return {}
        context: dict[str, Any] = {"allowed_directories": dirs, "cwd": dirs[0]}
        if os.path.isdir(dirs[0]):
            context["files"] = dirs[0]
        return context
    return {}
