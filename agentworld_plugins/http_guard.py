"""What every HTTP server of the package puts between the network and its app.

``agentworld serve``, ``agentworld search serve``, the SWE-ReX runtime, the MCP streamable-HTTP
server and ``agentworld openenv serve`` all run behind :class:`HttpGuard` and :func:`server_config`
(``tests/test_http_servers.py`` finds every server and checks it):

- a request body over :attr:`HttpLimits.max_body` gets 413 (from ``Content-Length`` before a
  byte is read, or as soon as a chunked body passes it), a body slower than
  :attr:`HttpLimits.body_timeout` gets 408, and headers slower than
  :attr:`HttpLimits.header_timeout` get the connection closed (with a 408);
- 404, 405 and any unhandled 500 come back as JSON in the impersonated API's own error shape
  (the ``error`` callable), never as plain text; so do protocol-level failures (a bad request
  line or header: 400; a request line plus headers over :attr:`HttpLimits.max_header_bytes`:
  431), and a documented :class:`~.errors.AgentWorldError` escaping the app is a 400 (a
  :class:`~.errors.BackendError` a 502), not a 500;
- ``token`` (when given) is required on every request and WebSocket handshake (:func:`token_in`);
  ``json_bodies`` parses each body within the limits before an app that would not;
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
import base64
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

from .errors import AgentWorldError, BackendError, ConfigError
from .limits import LimitError, loads_limited
from .redaction import remember_secret

if TYPE_CHECKING:
    import uvicorn
    from starlette.requests import Request

__all__ = [
    "BodyError",
    "HttpGuard",
    "HttpLimits",
    "check_exposure",
    "default_error",
    "is_loopback",
    "read_body",
    "read_json",
    "secret_matches",
    "server_config",
    "serving",
    "token_in",
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


#: where the guard keeps the server's own ``receive`` in the scope (under uvicorn: it is bound to the
#: connection, whose ``transport`` it holds), for answers that act on the connection itself (a
#: simulated reset) or wait for the client to leave
TRANSPORT_KEY = "agentworld.transport"


class HttpGuard:
    """ASGI middleware enforcing :class:`HttpLimits` and answering errors in the API's JSON shape."""

    def __init__(
        self,
        app: Any,
        *,
        error: ErrorShape,
        limits: HttpLimits | None = None,
        token: str | None = None,
        json_bodies: bool = False,
        ws_error: Callable[[str, str], str] | None = None,
    ) -> None:
        self.app = app
        self.error = error
        self.limits = limits or HttpLimits()
        #: when set, every request and WebSocket handshake must carry it (see :func:`token_in`)
        self.token = token
        remember_secret(token)
        #: parse every request body within the :mod:`.limits` before the app sees it (for apps
        #: whose framework parses JSON without depth limits); a bad body gets 400
        self.json_bodies = json_bodies
        #: when set, every WebSocket message is parsed within the limits first; one that is not a
        #: JSON object within them is answered with ``ws_error(code, message)`` (a text frame in
        #: the app's protocol) and not delivered, so the session goes on
        self.ws_error = ws_error

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

    async def _checked_body(self, receive: Any) -> Any:
        """Read the whole body, check it parses as JSON within the limits (``BodyError`` 400 if
        not), and return a ``receive`` that hands the app the same body."""
        body = await _read_all(receive)
        if body.strip():
            parse_json(body)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if getattr(getattr(receive, "__self__", None), "transport", None) is not None:  # uvicorn's
            scope[TRANSPORT_KEY] = receive
        path = str(scope.get("path") or "/")
        if self.token is not None and not token_in(scope, self.token):
            if scope["type"] == "websocket":  # refused before the handshake is accepted: HTTP 403
                await send({"type": "websocket.close", "code": 1008})
            else:
                challenge = [(b"www-authenticate", b'Bearer realm="agentworld"')]
                await self._answer(
                    send, 401, "Missing or invalid token: send Authorization: Bearer <token>", path, challenge
                )
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        limits = self.limits
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

        started = held_500 = False
        replacing: dict[str, Any] | None = None  # a framework's plain-text error being swapped
        replaced_body = b""

        async def guarded_send(message: dict[str, Any]) -> None:
            nonlocal started, replacing, replaced_body, held_500
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
                    # the framework's answer to an exception: the exception (raised next) decides
                    held_500 = True
                    return
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

        app_receive = guarded_receive
        try:
            if self.json_bodies and scope.get("method") in ("POST", "PUT", "PATCH"):
                app_receive = await self._checked_body(guarded_receive)
            await self.app(scope, app_receive, guarded_send)
            if held_500 and not started:
                await self._answer(send, 500, "Internal Server Error", path)
        except BodyError as exc:
            if not started:
                await self._answer(send, exc.status, exc.message, path)
        except _Refused as exc:
            if not started:
                await self._answer(send, exc.status, exc.message, path)
        except AgentWorldError as exc:
            # a documented error the app let through: the client's input (400) or the upstream (502)
            if not started:
                await self._answer(send, 502 if isinstance(exc, BackendError) else 400, str(exc), path)
        except Exception:
            if refused is not None and not started:
                await self._answer(send, refused.status, refused.message, path)
            elif refused is None:
                logger.exception("unhandled error answering %s %s", scope.get("method"), path)
                if not started:
                    await self._answer(send, 500, "Internal Server Error", path)

    async def _websocket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run a WebSocket session: hostile messages answered in the app's error frame (with
        ``ws_error``), and no close sent to a client that is already gone (the app's ``close``
        after a disconnect raised, and its traceback filled the server's log)."""
        gone = False

        async def ws_receive() -> Any:
            nonlocal gone
            while True:
                message = await receive()
                if message.get("type") == "websocket.disconnect":
                    gone = True
                if self.ws_error is None or message.get("type") != "websocket.receive":
                    return message
                problem = _ws_problem(message)
                if problem is None:
                    return message
                await send({"type": "websocket.send", "text": self.ws_error(*problem)})

        async def ws_send(message: dict[str, Any]) -> None:
            if message.get("type") == "websocket.close" and gone:
                return
            try:
                await send(message)
            except OSError:  # uvicorn's ClientDisconnected: the client left while we closed
                if message.get("type") != "websocket.close":
                    raise

        await self.app(scope, ws_receive, ws_send)


def _ws_problem(message: dict[str, Any]) -> tuple[str, str] | None:
    """Why a WebSocket message is no message (an error code and text), or None to deliver it.

    Invalid JSON is left to the app (it answers its own words); what its unbounded parser would
    choke on (too deep, a 5,000-digit number), a binary frame and a non-object are answered here.
    """
    text = message.get("text")
    if text is None:
        return "INVALID_JSON", "Invalid JSON: a binary frame; send each message as a text frame"
    try:
        value = loads_limited(text)
    except LimitError as exc:
        return "INVALID_JSON", f"Invalid JSON: {exc}"
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return "VALIDATION_ERROR", (
            f"Invalid message: a message is a JSON object with a type, not {type(value).__name__}"
        )
    return None


async def _read_all(receive: Any) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(message.get("body") or b"")
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def token_in(scope: dict[str, Any], token: str) -> bool:
    """Whether a request carries ``token``: ``Authorization: Bearer <token>``, ``X-API-Key:
    <token>``, or HTTP Basic with ``token`` as the password (what a client sends for a URL such as
    ``ws://agentworld:<token>@host/ws``); compared in constant time."""
    auth = _header(scope, b"authorization") or b""
    scheme, _, value = auth.partition(b" ")
    if scheme.lower() == b"bearer":
        return secret_matches(value.strip(), token)
    if scheme.lower() == b"basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True)
        except ValueError:
            return False
        return secret_matches(decoded.partition(b":")[2], token)
    return secret_matches(_header(scope, b"x-api-key"), token)


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


def default_error(status: int, message: str, path: str) -> dict[str, Any]:
    """The error body of a server without an API shape of its own: ``{"error": {message, code}}``."""
    return {"error": {"message": message, "code": status}}


def _header_block_size(event: Any) -> int:
    """Bytes of a parsed request's line and headers, as they came on the wire (give or take)."""
    size = len(event.method) + len(event.target) + 12
    return size + sum(len(name) + len(value) + 4 for name, value in event.headers.raw_items())


def _protocol(limits: HttpLimits, error: ErrorShape) -> type:
    """uvicorn's h11 protocol: closes connections whose request headers are too slow (408), refuses
    a request line plus headers over :attr:`HttpLimits.max_header_bytes` (431) and answers a
    malformed request line or header (400) in the API's JSON shape, never as plain text."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        header_timeout = limits.header_timeout
        _header_timer: asyncio.TimerHandle | None = None
        _refusal: tuple[int, str] | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            parse = self.conn.next_event
            too_large_headers = (
                f"Request header fields too large: the limit is {limits.max_header_bytes:,} bytes"
            )

            def next_event() -> Any:
                # h11 caps only a header block that arrives in pieces; one sent whole is measured here
                try:
                    event = parse()
                except h11.RemoteProtocolError as exc:
                    if exc.error_status_hint == 431:
                        self._refusal = (431, too_large_headers)
                    else:
                        self._refusal = (400, f"Invalid HTTP request: {str(exc)[:200]}")
                    raise
                if isinstance(event, h11.Request) and _header_block_size(event) > limits.max_header_bytes:
                    self._refusal = (431, too_large_headers)
                    raise h11.RemoteProtocolError("request headers too large", error_status_hint=431)
                return event

            self.conn.next_event = next_event  # type: ignore[method-assign]
            self._arm_header_timer()

        def send_400_response(self, msg: str) -> None:
            self._write_json(*(self._refusal or (400, "Invalid HTTP request")))

        def _write_json(self, status: int, text: str) -> None:
            if self.transport.is_closing():
                return
            if self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete:
                self.transport.close()  # an answer is under way: it cannot be replaced, only cut
                return
            body = json.dumps(error(status, text, "/")).encode()
            reason = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\nconnection: close\r\n"
                b"content-length: %d\r\n\r\n" % (status, reason.get(status, b"Error"), len(body)) + body
            )
            self.transport.close()

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
            if idle and self.conn.their_state is h11.IDLE:
                self._write_json(408, f"Request headers not received within {limits.header_timeout:g} s")

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
    error = app.error if isinstance(app, HttpGuard) else default_error
    options.setdefault("ws_max_size", limits.max_body)
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=_protocol(limits, error),
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


def check_exposure(
    host: str, *, token: str | None, allow_remote: bool, what: str = "server", token_flag: str = "--token"
) -> None:
    """Refuse to bind a non-loopback ``host`` without a token unless ``allow_remote``; warn either way.

    Raises :class:`ConfigError` naming the fix: ``token_flag`` is the command's own token option.
    """
    remember_secret(token)
    if is_loopback(host):
        return
    if not token and not allow_remote:
        raise ConfigError(
            f"Refusing to serve the {what} on {host} without a token: anyone who can reach this "
            "machine could use it (and any upstream key behind it)",
            hint=f"pass {token_flag} (or its environment variable), or --allow-remote to accept the risk, "
            "or bind 127.0.0.1",
        )
    protection = "protected by its token" if token else "WITHOUT a token (--allow-remote)"
    print(
        f"agentworld: warning: the {what} listens on {host}, reachable from other machines, {protection}",
        file=sys.stderr,
    )
