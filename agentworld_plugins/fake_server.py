"""A real OpenAI-compatible HTTP server on 127.0.0.1 whose answers you script, for tests.

>>> with FakeWorldModelServer() as server:                                   # doctest: +SKIP
...     server.enqueue("<predicted_observation>total 0</predicted_observation>")
...     World(base_url=server.url).session("terminal").step([...]).text
'total 0'

Answers come from a queue (``enqueue``), else from ``responder(request_body)``. Faults are queued
like answers: ``FakeWorldModelServer.error(500)``, ``.hang(seconds)`` (answer after the client gave
up), ``.malformed()`` (a body that is not JSON), ``.disconnect()`` (close without answering).
Every request is recorded in ``requests``. An answer may be a dict with ``content`` and, for an
agent under test, ``tool_calls`` (OpenAI form) or ``reasoning_content``.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .http_guard import secret_matches

Answer = Any  # str | dict | Fault


@dataclass
class Fault:
    """A scripted failure: an HTTP status, a delay, a broken body or a dropped connection."""

    status: int = 200
    delay: float = 0.0
    body: bytes | None = None
    disconnect: bool = False
    then: Answer = None  # what to answer after a delay (hang)


@dataclass
class RecordedRequest:
    """One request as the server saw it; header names are lower-cased (HTTP ignores their case)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float = field(default_factory=time.time)


def default_responder(body: dict[str, Any]) -> str:
    """Answer with an observation naming the turn, so tests can tell turns apart."""
    messages = body.get("messages") or [{}]
    last = str(messages[-1].get("content", ""))
    first_line = last.splitlines()[0] if last else ""
    return f"<predicted_observation>observation for {first_line.lstrip('# ').strip() or 'request'}</predicted_observation>"


class FakeWorldModelServer:
    """An OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models`` server on loopback."""

    def __init__(
        self,
        *,
        model: str = "fake-world-model",
        responder: Callable[[dict[str, Any]], Answer] = default_responder,
        latency: float = 0.0,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.model = model
        self.responder = responder
        self.latency = latency
        self.api_key = api_key
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Answer] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------------

    def enqueue(self, *answers: Answer) -> FakeWorldModelServer:
        """Queue answers: text content, a dict (``content``, ``reasoning_content`` or ``reasoning``,
        ``finish_reason``, ``usage``) or a :class:`Fault`."""
        with self._lock:
            self._queue.extend(answers)
        return self

    @staticmethod
    def error(status: int = 500, message: str = "internal error") -> Fault:
        return Fault(status=status, body=json.dumps({"error": {"message": message, "code": status}}).encode())

    @staticmethod
    def hang(seconds: float, then: Answer = None) -> Fault:
        return Fault(delay=seconds, then=then)

    @staticmethod
    def malformed() -> Fault:
        return Fault(body=b"{this is not json")

    @staticmethod
    def disconnect() -> Fault:
        return Fault(disconnect=True)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give clients (ends in ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeWorldModelServer:
        if self._thread is None:
            # a short poll interval: stop() waits up to one interval (the default 0.5 s adds up in tests)
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.02},
                name="fake-world-model",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        # shutdown() waits for serve_forever to exit, so it would block forever if never started
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeWorldModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering -------------------------------------------------------------------------------

    def _next_answer(self, body: dict[str, Any]) -> Answer:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(body)

    def _completion(self, answer: Answer, body: dict[str, Any]) -> dict[str, Any]:
        if isinstance(answer, str):
            answer = {"content": answer}
        message: dict[str, Any] = {"role": "assistant", "content": answer.get("content", "")}
        for key in ("reasoning_content", "reasoning", "tool_calls"):  # vLLM/SGLang spellings
            if answer.get(key) is not None:
                message[key] = answer[key]
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        completion_tokens = max(1, len(message["content"] or "") // 4)
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": answer.get(
                        "finish_reason", "tool_calls" if message.get("tool_calls") else "stop"
                    ),
                }
            ],
            "usage": answer.get("usage")
            or {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_chars // 4 + completion_tokens,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # headers and body go out in two writes; without this, Nagle adds ~40 ms a request
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a hang fault, a timeout): nothing to answer

            def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _headers(self) -> dict[str, str]:
                return {k.lower(): v for k, v in self.headers.items()}

            def _authorized(self) -> bool:
                if server.api_key is None:
                    return True
                if secret_matches(self.headers.get("Authorization"), f"Bearer {server.api_key}"):
                    return True
                self._send(401, json.dumps({"error": {"message": "invalid api key", "code": 401}}).encode())
                return False

            def do_GET(self) -> None:
                server.requests.append(RecordedRequest("GET", self.path, self._headers(), None))
                if not self._authorized():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    data = {
                        "object": "list",
                        "data": [{"id": server.model, "object": "model", "owned_by": "fake"}],
                    }
                    self._send(200, json.dumps(data).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:  # JSONDecodeError, or UnicodeDecodeError for bytes that are not UTF-8
                    body = None
                server.requests.append(RecordedRequest("POST", self.path, self._headers(), body))
                if not self._authorized():
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                if not isinstance(body, dict):
                    self._send(400, b'{"error": {"message": "body is not a JSON object"}}')
                    return
                if server.latency:
                    time.sleep(server.latency)
                answer = server._next_answer(body)
                while isinstance(answer, Fault):
                    if answer.disconnect:
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    if answer.delay:
                        time.sleep(answer.delay)
                    if answer.body is not None:
                        self._send(answer.status, answer.body)
                        return
                    if answer.status != 200:  # Fault(status=503) built by hand, without a body
                        self._send(answer.status, server.error(answer.status).body or b"")
                        return
                    answer = answer.then if answer.then is not None else server.responder(body)
                self._send(200, json.dumps(server._completion(answer, body)).encode())

        return Handler
