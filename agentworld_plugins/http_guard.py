"""What every HTTP server of the package puts between the network and its app.

``agentworld serve``, ``agentworld search serve``, the SWE-ReX runtime and the MCP streamable-HTTP
server all run behind :class:`HttpGuard` and :func:`server_config`:

- a request body over :attr:`HttpLimits.max_body` gets 413 (from ``Content-Length`` before a
  byte is read, or as soon as a chunked body passes it), a body slower than
  :attr:`HttpLimits.body_timeout` gets 408, and headers slower than
  :attr:`HttpLimits.header_timeout` get the connection closed (with a 408);
- 404, 405 and any unhandled 500 come back as JSON in the impersonated API's own error shape
  (the ``error`` callable), never as plain text;
- :func:`read_json` parses a body with the depth and number limits of :mod:`.limits`, so a
  100,000-deep array or a 5,000-digit number is a 400, not a crash;
- :func:`check_exposure` refuses a non-loopback bind without a token unless remote access is
  asked for explicitly.

::

    app = HttpGuard(starlette_app, error=lambda status, message, path: {"error": message})
    uvicorn.Server(server_config(app, host="127.0.0.1", port=8000)).run()
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ConfigError
from .limits import LimitError, loads_limited

if TYPE_CHECKING:
    import uvicorn
    from starlette.requests import Request

__all__ = [
    "BodyError",
    "HttpGuard",
    "HttpLimits",
    "check_exposure",
    "is_loopback",
    "read_body",
    "read_json",
    "secret_matches",
    "server_config",
    "serving",
]

logger = logging.getLogger(__name__)

#: ``error(status, message, path)`` -> the JSON body of an error in the API's own shape
ErrorShape = Callable[[int, str, str], Any]


@dataclass(frozen=True)
class HttpLimits:
    """Limits of one HTTP server (seconds and bytes); every CLI server takes ``--max-body``."""

    #: largest request body accepted, in bytes
    max_body: int = 8 * 1024 * 1024
    #: seconds a client may take to send the request line and headers
    header_timeout: float = 10.0
    #: seconds a client may take to send the whole body, from the request's start
    body_timeout: float = 30.0
    #: seconds an idle keep-alive connection stays open
    keep_alive: float = 5.0
    #: most connections served at once (more get 503)
    max_concurrency: int = 256
    #: largest request line plus headers, in bytes
    max_header_bytes: int = 64 * 1024
    #: seconds without a request after which a stateful session (MCP ``Mcp-Session-Id``) is closed
    session_idle: float = 900.0


class BodyError(ValueError):
    """A request body that cannot be used; ``status`` is the HTTP answer (400, 408 or 413)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


class _Refused(Exception):
    """Raised inside ``receive`` when the body breaks a limit; carries the answer."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value)
    return None


def _too_large(limit: int) -> str:
    return f"Request body too large: the limit is {limit:,} bytes"


class HttpGuard:
    """ASGI middleware enforcing :class:`HttpLimits` and answering errors in the API's JSON shape."""

    def __init__(self, app: Any, *, error: ErrorShape, limits: HttpLimits | None = None) -> None:
        self.app = app
        self.error = error
        self.limits = limits or HttpLimits()

    @property
    def state(self) -> Any:
        """The wrapped app's ``state`` (Starlette apps keep their stores there)."""
        return self.app.state

    async def _answer(
        self, send: Any, status: int, message: str, path: str, extra: Iterable[tuple[bytes, bytes]] = ()
    ) -> None:
        body = json.dumps(self.error(status, message, path)).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *extra,
        ]
        if status in (408, 413):
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limits = self.limits
        path = str(scope.get("path") or "/")
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.strip().isdigit() or len(length) > 18:
                await self._answer(send, 400, "Invalid Content-Length header", path)
                return
            if int(length) > limits.max_body:
                await self._answer(send, 413, _too_large(limits.max_body), path)
                return
        deadline = time.monotonic() + limits.body_timeout
        received = 0
        refused: _Refused | None = None

        async def guarded_receive() -> Any:
            nonlocal received, refused
            if refused is not None:
                raise refused
            remaining = deadline - time.monotonic()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(remaining, 0.001))
            except asyncio.TimeoutError:
                refused = _Refused(408, f"Request body not received within {limits.body_timeout:g} s")
                raise refused from None
            if message.get("type") == "http.request":
                received += len(message.get("body") or b"")
                if received > limits.max_body:
                    refused = _Refused(413, _too_large(limits.max_body))
                    raise refused
            return message

        started = False
        replacing: dict[str, Any] | None = None  # a framework's plain-text error being swapped
        replaced_body = b""

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal started, replacing, replaced_body
            kind = message["type"]
            if kind == "http.response.start":
                status = int(message["status"])
                content_type = _header(message, b"content-type") or b""
                if status >= 400 and b"json" not in content_type:
                    replacing = message
                    return
                started = True
            elif kind == "http.response.body" and replacing is not None:
                if len(replaced_body) < 1000:
                    replaced_body += message.get("body") or b""
                if message.get("more_body"):
                    return
                start, replacing = replacing, None
                status = int(start["status"])
                if refused is not None:
                    status, text = refused.status, refused.message
                elif status >= 500:
                    text = "Internal Server Error"
                else:
                    text = replaced_body[:300].decode("utf-8", "replace").strip() or f"HTTP {status}"
                kept = [
                    (k, v)
                    for k, v in start.get("headers") or []
                    if k.lower() in (b"allow", b"www-authenticate")
                ]
                started = True
                await self._answer(send, status, text, path, kept)
                return
            await send(message)

        try:
            await self.app(scope, guarded_receive, guarded_send)
        except _Refused as exc:
            if not started:
                await self._answer(send, exc.status, exc.message, path)
        except Exception:
            if refused is not None and not started:
                await self._answer(send, refused.status, refused.message, path)
            elif refused is None:
                logger.exception("unhandled error answering %s %s", scope.get("method"), path)
                if not started:
                    await self._answer(send, 500, "Internal Server Error", path)


def secret_matches(given: str | bytes | None, expected: str) -> bool:
    """Whether a credential equals ``expected``, compared in constant time; any text (non-ASCII
    included) is just a wrong credential, never an error."""
    if given is None:
        return False
    if isinstance(given, str):
        given = given.encode("utf-8", "surrogatepass")
    return hmac.compare_digest(given, expected.encode("utf-8", "surrogatepass"))


# -- reading bodies --------------------------------------------------------------------------------


async def read_body(request: Request, limit: int | None = None) -> bytes:
    """The request body, refusing (``BodyError`` 413) past ``limit`` bytes without reading more.

    The guard's own limits apply as well; ``limit`` is for a smaller cap, such as on a body read
    before its sender is authenticated.
    """
    if limit is not None:
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise BodyError(413, _too_large(limit))
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if limit is not None and size > limit:
                raise BodyError(413, _too_large(limit))
            chunks.append(chunk)
    except _Refused as exc:
        raise BodyError(exc.status, exc.message) from None
    return b"".join(chunks)


def parse_json(raw: bytes) -> Any:
    """A JSON body parsed within the :mod:`.limits`; ``BodyError`` (400) names what is wrong."""
    try:
        return loads_limited(raw)
    except json.JSONDecodeError as exc:
        raise BodyError(400, f"The request body is not valid JSON ({exc.msg} at char {exc.pos})") from None
    except UnicodeDecodeError:
        raise BodyError(400, "The request body is not valid UTF-8") from None
    except LimitError as exc:
        raise BodyError(400, f"The request body is too large to parse: {exc}") from None


async def read_json(request: Request, limit: int | None = None, *, empty: Any = ...) -> Any:
    """The body parsed as JSON within the limits; ``empty`` (when given) stands for a blank body."""
    raw = await read_body(request, limit)
    if empty is not ... and not raw.strip():
        return empty
    return parse_json(raw)


# -- serving ---------------------------------------------------------------------------------------


def _protocol(limits: HttpLimits) -> type:
    """uvicorn's h11 protocol, closing connections whose request headers are too slow."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        header_timeout = limits.header_timeout
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_header_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._arm_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting_for_headers(self) -> bool:
            idle = self.cycle is None or self.cycle.response_complete
            return idle and self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0])

        def _arm_header_timer(self) -> None:
            # Only a request that has begun is timed; an idle keep-alive connection has uvicorn's
            # own keep-alive timeout, and a fresh one is timed from the first byte or right away.
            if self._waiting_for_headers() or (self.cycle is None and self._header_timer is None):
                if self._header_timer is None:
                    self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)
            else:
                self._disarm()

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            idle = self.cycle is None or self.cycle.response_complete
            if idle and self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                body = b'{"error": "request headers not received in time"}'
                self.transport.write(
                    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                    b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
                self.transport.close()

    return GuardedH11Protocol


def server_config(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: HttpLimits | None = None,
    log_level: str = "warning",
    **options: Any,
) -> uvicorn.Config:
    """A ``uvicorn.Config`` serving ``app`` with the timeouts and limits of ``limits``."""
    import uvicorn

    limits = limits or HttpLimits()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=_protocol(limits),
        timeout_keep_alive=max(1, round(limits.keep_alive)),
        limit_concurrency=limits.max_concurrency,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        **options,
    )


def run(app: Any, *, host: str, port: int, limits: HttpLimits | None = None, **options: Any) -> None:
    """Serve ``app`` until interrupted, as every ``agentworld ... serve`` command does."""
    import uvicorn

    uvicorn.Server(server_config(app, host=host, port=port, limits=limits, **options)).run()


@contextmanager
def serving(app: Any, *, limits: HttpLimits | None = None, **options: Any) -> Iterator[str]:
    """Serve ``app`` on a free 127.0.0.1 port in a thread (as :func:`run` would); yield its base URL.

    For tests and embedding: the server stops when the block ends.
    """
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, port=port, limits=limits, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the HTTP server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


# -- exposure --------------------------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, *, token: str | None, allow_remote: bool, what: str = "server") -> None:
    """Refuse to bind a non-loopback ``host`` without a token unless ``allow_remote``; warn either way.

    Raises :class:`ConfigError` naming the fix.
    """
    if is_loopback(host):
        return
    if not token and not allow_remote:
        raise ConfigError(
            f"Refusing to serve the {what} on {host} without a token: anyone who can reach this "
            "machine could use it (and any upstream key behind it)",
            hint="pass --token (or its environment variable), or --allow-remote to accept the risk, "
            "or bind 127.0.0.1",
        )
    protection = "protected by its token" if token else "WITHOUT a token (--allow-remote)"
    print(
        f"agentworld: warning: the {what} listens on {host}, reachable from other machines, {protection}",
        file=sys.stderr,
    )
