"""Faults that are no HTTP answer: a request the server never answers, a connection it drops.

``DroppedConnection("timeout")`` holds the request until the client gives up and disconnects
(its read timeout: requests raises ``ReadTimeout``, tavily-python ``TimeoutError``), at most
``hold_s`` seconds, then drops it. ``DroppedConnection("connection_reset")`` resets the TCP
connection at once (an RST: requests raises ``ConnectionError(... ConnectionResetError(104,
'Connection reset by peer'))``). Neither sends a status line: a client sees what a real timeout
or reset gives it, never an HTTP 500.

The connection comes from the server: :class:`~agentworld_plugins.http_guard.HttpGuard` keeps
uvicorn's own ``receive`` (bound to the connection) in the scope (``TRANSPORT_KEY``).
"""

from __future__ import annotations

import asyncio
import socket
import struct
from typing import Any

from agentworld_plugins.http_guard import TRANSPORT_KEY

__all__ = ["DroppedConnection"]


class DroppedConnection:
    """An ASGI response that answers nothing: it hangs (``timeout``) or resets (``connection_reset``)."""

    def __init__(self, kind: str, hold_s: float = 120.0) -> None:
        self.kind = kind
        self.hold_s = hold_s

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        connection = scope.get(TRANSPORT_KEY)
        if connection is None:  # not served by uvicorn (a test client): no socket to act on
            raise ConnectionResetError(104, "Connection reset by peer")
        if self.kind == "timeout":
            try:  # the client's own timeout ends it: it disconnects
                await asyncio.wait_for(_disconnected(connection), self.hold_s)
                return
            except asyncio.TimeoutError:
                pass  # still waiting after hold_s: the connection is dropped
        transport = connection.__self__.transport
        sock = transport.get_extra_info("socket")
        if sock is not None:  # linger 0: close() sends an RST, not a FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
        await _disconnected(connection)  # the server sees the connection gone: no response is due


async def _disconnected(receive: Any) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
