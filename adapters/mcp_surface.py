"""The rest of a mirrored server's surface, beyond tools: its capabilities as it declared them
(``listChanged``, logging, completions, resource subscriptions), ``resources/read`` from the
world's state, and honest errors where the offline world has nothing to say.

The mirror keeps the real server's ``initialize`` capabilities in the snapshot
(``"capabilities"``); :class:`MirroredServer` declares the same ones in the handshake era
(2026-07-28 derives its flags from the methods served, as the SDK does). A declared capability
gets a handler: ``logging/setLevel`` and resource (un)subscriptions are accepted, completions
answer no values, ``resources/read`` and ``prompts/get`` answer from the world where it knows the
resource (a known server's engine), else with a JSON-RPC error that says why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from .mcp_server import FakeMcpServer

__all__ = ["MirroredServer", "surface_handlers"]

#: JSON-RPC's code for a resource the server does not have (MCP spec, resources/read errors)
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602


class MirroredServer(Server[Any]):
    """The SDK's low-level server, declaring the mirrored server's capabilities where known."""

    declared: dict[str, Any] | None = None

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        declared = self.declared or {}
        unset = notification_options is None or not any(
            getattr(notification_options, flag, False)
            for flag in ("prompts_changed", "resources_changed", "tools_changed")
        )  # create_initialization_options passes an all-false one when given none
        if unset and declared and protocol_version not in MODERN_PROTOCOL_VERSIONS:
            notification_options = NotificationOptions(
                prompts_changed=bool((declared.get("prompts") or {}).get("listChanged")),
                resources_changed=bool((declared.get("resources") or {}).get("listChanged")),
                tools_changed=bool((declared.get("tools") or {}).get("listChanged")),
            )
        if experimental_capabilities is None and isinstance(declared.get("experimental"), dict):
            experimental_capabilities = declared["experimental"]
        return super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )


def surface_handlers(fake: FakeMcpServer) -> dict[str, Callable[..., Awaitable[Any]]]:
    """The low-level ``Server`` handlers for what the catalog declares beyond tools."""
    catalog = fake.catalog
    declared = catalog.capabilities or {}
    handlers: dict[str, Callable[..., Awaitable[Any]]] = {}

    async def accept(ctx: ServerRequestContext[Any, Any], params: Any) -> types.EmptyResult:
        return types.EmptyResult()

    async def complete(ctx: ServerRequestContext[Any, Any], params: Any) -> types.CompleteResult:
        return types.CompleteResult(completion=types.Completion(values=[], total=0, has_more=False))

    async def read_resource(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ReadResourceResult:
        uri = str(params.uri)
        conn = fake.sessions.for_request(ctx)
        offline = fake.world.offline

        async def read() -> tuple[str, str] | None:
            return offline.read_resource(conn.session, uri) if offline is not None else None  # type: ignore[attr-defined, no-any-return]

        found = await (conn.shared.aoperate(read) if conn.shared is not None else read())
        if found is not None:
            text, mime = found
            return types.ReadResourceResult(
                contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
            )
        listed = any(str(r.uri) == uri for r in catalog.resources)
        raise MCPError(
            code=RESOURCE_NOT_FOUND,
            message=(
                f"Resource {uri} is listed, but its contents are not simulated by this world"
                if listed
                else f"Resource {uri} not found"
            ),
        )

    async def get_prompt(ctx: ServerRequestContext[Any, Any], params: Any) -> types.GetPromptResult:
        name = str(params.name)
        known = any(p.name == name for p in catalog.prompts)
        raise MCPError(
            code=INVALID_PARAMS,
            message=(
                f"Prompt {name} is listed, but its messages are not simulated by this world"
                if known
                else f"Prompt {name} not found"
            ),
        )

    if declared.get("logging") is not None:
        handlers["on_set_logging_level"] = accept
    if declared.get("completions") is not None:
        handlers["on_completion"] = complete
    if catalog.resources or catalog.resource_templates or declared.get("resources") is not None:
        handlers["on_read_resource"] = read_resource
        if (declared.get("resources") or {}).get("subscribe"):
            handlers["on_subscribe_resource"] = accept
            handlers["on_unsubscribe_resource"] = accept
    if catalog.prompts or declared.get("prompts") is not None:
        handlers["on_get_prompt"] = get_prompt
    return handlers
