"""The lean transport of the ``openai`` backend: HTTP/1.1 written by hand, for high-rate evaluation.

The ``openai`` SDK spends several milliseconds of CPU per request (walking the request through
its type transforms, scanning its connection pool), which caps one process at about a hundred
requests per second. That is invisible against a real world model, but a benchmark run against a
fast server (many replicas, short answers, a cache) becomes client-bound. This transport writes the
HTTP/1.1 request itself over keep-alive connections (asyncio streams, TLS for ``https``), reads
``Content-Length``, chunked or close-delimited bodies, and maps failures onto the package's errors
(:class:`~agentworld_plugins.errors.BackendUnavailableError` for what a retry may cure).
:class:`~.client.OpenAIBackend` picks the base URL, retries and bounds the concurrency.

It does not follow proxies or redirects; the SDK transport (``transport="sdk"``) does.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import zlib
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ...errors import BackendError, BackendUnavailableError, ConfigError
from ...jsontext import dumps_body
from ..base import Completion, Sampling, served_extras

__all__ = ["LeanTransport"]

_MAX_HEADER = 64 * 1024
T = TypeVar("T")


@dataclass
class _Endpoint:
    """One base URL: where to connect, the path prefix, and its idle keep-alive connections."""

    url: str
    host: str
    port: int
    tls: bool
    path: str
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = field(default_factory=list)
    outstanding: int = 0

    @classmethod
    def parse(cls, url: str) -> _Endpoint:
        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"base URL {url!r} is not an http(s) URL", hint="e.g. http://localhost:8000/v1")
        tls = parts.scheme == "https"
        return cls(
            url.rstrip("/"), parts.hostname, parts.port or (443 if tls else 80), tls, parts.path.rstrip("/")
        )


class _Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class _Reused(Exception):
    """A keep-alive connection turned out to be closed by the server before answering."""


class _StatusError(BackendError):
    """An HTTP error status; ``status`` says whether a retry may help (429, 5xx)."""

    def __init__(self, message: str, *, status: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class _GarbledError(BackendError):
    """A 200 answer whose body is not JSON (truncated or garbled): worth a retry."""


class LeanTransport:
    """Chat completions over a lean HTTP/1.1 client; async at heart (``complete`` runs
    ``acomplete`` in a fresh event loop)."""

    label = "lean client"

    def __init__(self, base_urls: Sequence[str], api_key: str | None = None, *, max_idle: int = 256) -> None:
        if not base_urls:
            raise ConfigError("No base URL", hint="pass --base-url http://localhost:8000/v1")
        self.endpoints = [_Endpoint.parse(u) for u in base_urls]
        self.api_key = api_key or "EMPTY"
        self.max_idle = max_idle
        #: the model asked for (named in the hint of a 404); the backend keeps it up to date
        self.model: str | None = None
        self._ssl: ssl.SSLContext | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fields: tuple[Sampling, dict[str, Any]] | None = None

    # -- connections -----------------------------------------------------------------------------

    def _bind_loop(self) -> None:
        """Connections belong to one event loop; a new loop (a new ``asyncio.run``) starts afresh."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            for endpoint in self.endpoints:
                endpoint.idle.clear()  # the old loop is gone; its transports are closed with it
                endpoint.outstanding = 0
            self._loop = loop

    async def _connect(self, endpoint: _Endpoint) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        context = None
        if endpoint.tls:
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            context = self._ssl
        try:
            return await asyncio.open_connection(endpoint.host, endpoint.port, ssl=context, limit=_MAX_HEADER)
        except OSError as exc:
            raise BackendUnavailableError(
                f"Cannot reach the server at {endpoint.url} ({exc.strerror or exc})",
                hint="check that the server runs and the base URL is right (it usually ends in /v1)",
            ) from None

    def _release(
        self, endpoint: _Endpoint, conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], keep: bool
    ) -> None:
        if keep and len(endpoint.idle) < self.max_idle and not conn[1].is_closing():
            endpoint.idle.append(conn)
        else:
            conn[1].close()

    # -- HTTP ------------------------------------------------------------------------------------

    async def _request(
        self,
        endpoint: _Endpoint,
        method: str,
        path: str,
        body: bytes | None,
        headers: Mapping[str, str] | None = None,
    ) -> _Response:
        """Send one request, reusing an idle connection when there is one (and retrying once on a
        fresh connection when the reused one had been closed by the server)."""
        self._bind_loop()
        endpoint.outstanding += 1
        try:
            while True:
                reused = bool(endpoint.idle)
                conn = endpoint.idle.pop() if reused else await self._connect(endpoint)
                keep = False
                try:
                    response, keep = await self._exchange(conn, endpoint, method, path, body, reused, headers)
                    return response
                except _Reused:
                    continue
                finally:
                    self._release(endpoint, conn, keep)
        finally:
            endpoint.outstanding -= 1

    async def _exchange(
        self,
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        endpoint: _Endpoint,
        method: str,
        path: str,
        body: bytes | None,
        reused: bool,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[_Response, bool]:
        reader, writer = conn
        head = [
            f"{method} {endpoint.path}{path} HTTP/1.1",
            f"Host: {endpoint.host}" + ("" if endpoint.port in (80, 443) else f":{endpoint.port}"),
            f"Authorization: Bearer {self.api_key}",
            "Accept: application/json",
            "Accept-Encoding: identity",
            "User-Agent: agentworld-bench",
        ]
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body or b"")
        try:
            writer.write(data)
            await writer.drain()
            status_line = await reader.readline()
        except (ConnectionError, OSError) as exc:
            if reused:
                raise _Reused from None
            raise self._dropped(endpoint, exc) from None
        if not status_line:
            if reused:
                raise _Reused
            raise self._dropped(endpoint, None)
        try:
            status, headers = self._parse_head(status_line, await reader.readuntil(b"\r\n\r\n"))
            payload = await self._read_body(reader, headers)
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
            OSError,
            ValueError,
        ) as exc:
            raise self._dropped(endpoint, exc) from None
        if headers.get("content-encoding", "identity") in ("gzip", "deflate"):
            payload = zlib.decompress(payload, 47)  # 32 + 15: gzip or zlib header
        closing = headers.get("connection", "").lower() == "close"
        framed = "content-length" in headers or headers.get("transfer-encoding", "").lower() == "chunked"
        keep = framed and not closing
        return _Response(status, headers, payload), keep

    @staticmethod
    def _parse_head(status_line: bytes, block: bytes) -> tuple[int, dict[str, str]]:
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise ValueError(f"not an HTTP status line: {status_line[:80]!r}")
        headers: dict[str, str] = {}
        for line in block.decode("latin-1").split("\r\n"):
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        return int(parts[1]), headers

    @staticmethod
    async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # the last CRLF (trailers are not expected)
                    return b"".join(chunks)
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
        if "content-length" in headers:
            return await reader.readexactly(int(headers["content-length"]))
        return await reader.read()  # delimited by the server closing the connection

    @staticmethod
    def _dropped(endpoint: _Endpoint, exc: BaseException | None) -> BackendUnavailableError:
        why = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
        return BackendUnavailableError(
            f"The server at {endpoint.url} closed the connection without answering{why}",
            hint="check the server's log; the request is retried",
        )

    # -- the transport -------------------------------------------------------------------------

    def _status_error(self, endpoint: _Endpoint, response: _Response) -> BackendError:
        text = response.body[:300].decode("utf-8", "replace")
        hint = None
        if response.status == 404:
            hint = f"check the model name ({self.model!r}) and that the base URL ends in /v1"
        elif response.status in (401, 403):
            hint = "pass the server's key with --api-key"
        elif response.status in (400, 422):
            hint = "the server rejected the request: check max tokens against the model's context length"
        return _StatusError(
            f"The server at {endpoint.url} answered HTTP {response.status}: {text}",
            status=response.status,
            hint=hint,
        )

    async def arequest(
        self, index: int, method: str, path: str, body: bytes | None = None
    ) -> tuple[int, bytes]:
        """One request to base URL ``index`` (``path`` below it, e.g. ``/chat/completions``):
        ``(status, body)``. Transport failures raise :class:`BackendUnavailableError`."""
        response = await self._request(self.endpoints[index], method, path, body)
        return response.status, response.body

    async def afirst_model(self, index: int) -> str | None:
        """The first model ``/models`` lists at base URL ``index`` (None when it lists none)."""
        endpoint = self.endpoints[index]
        response = await self._request(endpoint, "GET", "/models", None)
        if response.status != 200:
            raise self._status_error(endpoint, response)
        try:
            return str(json.loads(response.body)["data"][0]["id"])
        except (ValueError, KeyError, IndexError, TypeError):
            return None

    def first_model(self, index: int) -> str | None:
        return self._run(self.afirst_model(index))

    def payload(self, model: str | None, messages: list[dict[str, Any]], sampling: Sampling) -> bytes:
        if self._fields is None or self._fields[0] is not sampling:  # one Sampling serves a whole run
            fields = sampling.request_fields()
            fields.update(sampling.extra_body or {})  # merged into the body, as the SDK does
            self._fields = (sampling, fields)
        payload: dict[str, Any] = {"model": model, "messages": messages, **self._fields[1]}
        return dumps_body(payload).encode("ascii")  # escaped non-ASCII: the fast path of the encoder

    async def acomplete(
        self, index: int, payload: bytes, headers: Mapping[str, str] | None = None
    ) -> Completion:
        endpoint = self.endpoints[index]
        response = await self._request(endpoint, "POST", "/chat/completions", payload, headers)
        if response.status != 200:
            raise self._status_error(endpoint, response)
        try:
            data = json.loads(response.body)
        except ValueError:
            raise _GarbledError(
                f"The server at {endpoint.url} answered with a body that is not JSON: {response.body[:200]!r}",
                hint="check that the base URL is an OpenAI-compatible server and ends in /v1",
            ) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise BackendError(f"The server at {endpoint.url} answered without choices: {str(data)[:200]}")
        message = choices[0].get("message") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        usage = data.get("usage")
        usage = {k: v for k, v in usage.items() if isinstance(v, int)} if isinstance(usage, dict) else None
        return Completion(
            text=message.get("content") or "",
            reasoning=reasoning if isinstance(reasoning, str) else None,
            usage=usage or None,
            model=data.get("model"),
            finish_reason=choices[0].get("finish_reason"),
            metadata={"base_url": endpoint.url, **served_extras(data)},
        )

    def complete(self, index: int, payload: bytes, headers: Mapping[str, str] | None = None) -> Completion:
        return self._run(self.acomplete(index, payload, headers))

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        """``call`` in a fresh event loop, closing its connections before the loop ends."""

        async def once() -> T:
            try:
                return await call
            finally:
                await self.aclose_idle()

        return asyncio.run(once())

    @staticmethod
    def retryable(exc: BaseException) -> bool:
        if isinstance(exc, (BackendUnavailableError, _GarbledError)):
            return True
        status = getattr(exc, "status", 0)
        return status == 429 or status >= 500

    @staticmethod
    def fail(exc: BaseException, url: str, attempts: int = 1, model: str | None = None) -> BackendError:
        if isinstance(exc, BackendError):
            return exc
        return BackendError(f"The server at {url} failed: {type(exc).__name__}: {exc}")

    async def aclose_idle(self) -> None:
        """Close the idle keep-alive connections (call it before the event loop ends)."""
        writers = [writer for endpoint in self.endpoints for _, writer in endpoint.idle]
        for endpoint in self.endpoints:
            endpoint.idle.clear()
        for writer in writers:
            writer.close()
        for writer in writers:
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    def close(self) -> None:
        for endpoint in self.endpoints:
            for _, writer in endpoint.idle:
                try:
                    writer.close()
                except RuntimeError:  # its event loop is already closed, and the socket with it
                    pass
            endpoint.idle.clear()
