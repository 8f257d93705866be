"""The HTTP guard on every server: JSON errors in each API's shape, body limits, slow clients.

Every test runs a real uvicorn server on 127.0.0.1 (configured as the CLI configures it, with
small limits) and talks to it over real sockets.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from agentworld_plugins.adapters.search.api import create_search_app
from agentworld_plugins.adapters.shell.core import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app

from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.http_guard import HttpLimits, check_exposure, serving
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World

SMALL = HttpLimits(max_body=256 * 1024, header_timeout=0.5, body_timeout=0.5, keep_alive=1)


def request(
    base: str, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    """One request over a fresh connection: (status, headers, JSON body or raw bytes)."""
    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        raw = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    try:
        return response.status, found, json.loads(raw)
    except ValueError:
        return response.status, found, raw


def raw_exchange(base: str, data: bytes) -> bytes:
    """Send ``data`` and read until the server closes the connection (bounded by a timeout)."""
    where = urlsplit(base)
    with socket.create_connection((where.hostname, where.port), timeout=20) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def parse_raw(answer: bytes) -> tuple[int, Any]:
    """(status, JSON body) of one raw HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


@contextmanager
def serve_app(app: Any, limits: HttpLimits = SMALL, **options: Any) -> Iterator[str]:
    with serving(app, limits=limits, **options) as base:
        yield base


def deep_json(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


BIG_NUMBER = (
    b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": ' + b"1" * 5000 + b"}"
)


# -- agentworld serve ------------------------------------------------------------------------------


@pytest.fixture
def chat_server() -> Iterator[str]:
    backend = FakeBackend()
    with serve_app(create_app(backend, api_key="secret", limits=SMALL)) as base:
        yield base


AUTH = {"Authorization": "Bearer secret", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (BIG_NUMBER, "5,000 digits"),
        (deep_json(100_000), "nested deeper"),
        (b'{"messages": [{"role": "user", "content": [{"text": 1}]}]}', "content[].text"),
        (b'{"messages": [{"role": "user", "content": "x"}], "temperature": 1e999}', "out of range"),
        (b"\xff\xfe", "UTF-8"),
    ],
    ids=["5000-digit-number", "100000-deep", "content-text-not-string", "infinity", "not-utf8"],
)
def test_chat_server_answers_malformed_bodies_with_openai_shaped_400(
    chat_server: str, body: bytes, words: str
) -> None:
    status, _, answer = request(chat_server, "POST", "/v1/chat/completions", body, AUTH)
    assert status == 400
    assert answer["error"]["code"] == 400 and words in answer["error"]["message"]


def test_chat_server_answers_unknown_routes_and_methods_in_json(chat_server: str) -> None:
    status, _, answer = request(chat_server, "GET", "/nowhere")
    assert status == 404 and answer["error"]["type"] == "not_found_error"
    status, headers, answer = request(chat_server, "GET", "/v1/chat/completions")
    assert status == 405 and answer["error"]["code"] == 405
    assert "POST" in headers["allow"]


def test_chat_server_refuses_an_oversized_body_before_reading_it(chat_server: str) -> None:
    status, _, answer = request(
        chat_server, "POST", "/v1/chat/completions", b"x" * (SMALL.max_body + 1), AUTH
    )
    assert status == 413 and "262,144 bytes" in answer["error"]["message"]
    # a chunked body has no Content-Length: it is counted as it arrives
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 100_000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3)) + b"0\r\n\r\n"
    status, answer = parse_raw(raw_exchange(chat_server, head + chunks))
    assert status == 413 and answer["error"]["code"] == 413


def test_chat_server_checks_the_key_before_reading_the_body(chat_server: str) -> None:
    # announces a body it never sends: the answer comes without waiting for it
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n"
        b"Content-Length: 1000\r\n\r\n{"
    )
    answer = raw_exchange(chat_server, head)
    assert answer.startswith(b"HTTP/1.1 401")


def test_slow_headers_get_the_connection_closed(chat_server: str) -> None:
    answer = raw_exchange(chat_server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    assert answer.startswith(b"HTTP/1.1 408")


def test_a_silent_connection_is_closed(chat_server: str) -> None:
    assert raw_exchange(chat_server, b"").startswith(b"HTTP/1.1 408")


def test_a_slow_body_gets_408(chat_server: str) -> None:
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n"
        b"Content-Length: 1000\r\n\r\n{"
    )
    answer = raw_exchange(chat_server, head)
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"not received within" in answer


def test_health_and_errors_show_no_credentials_from_urls() -> None:
    backend = World(base_url="http://bob:hunter2@127.0.0.1:9/v1", model="m", backend="openai").backend
    with serve_app(create_app(backend, limits=SMALL)) as base:
        status, _, answer = request(base, "GET", "/health")
    assert status == 200
    assert "hunter2" not in json.dumps(answer) and "127.0.0.1:9" in answer["backend"]
    error = BackendError("Cannot reach the world model at http://bob:hunter2@gpu:8000/v1")
    assert "hunter2" not in str(error) and "gpu:8000" in str(error)


# -- agentworld search serve -----------------------------------------------------------------------


@pytest.fixture
def search_server() -> Iterator[str]:
    with serve_app(create_search_app(World(backend="offline"), api_key="sk-test", limits=SMALL)) as base:
        yield base


def test_search_server_rejects_unauthenticated_bodies_without_parsing_them(search_server: str) -> None:
    body = b'{"query": "x", "max_results": ' + b"1" * 5000 + b"}"
    status, _, answer = request(
        search_server, "POST", "/tavily/search", body, {"Content-Type": "application/json"}
    )
    assert status == 400 and "digits" in answer["detail"]["error"]
    status, _, answer = request(search_server, "POST", "/search", deep_json(30_000))
    assert status == 400 and "nested" in answer["detail"]["error"]
    # an unauthenticated body is capped far below the server's limit
    status, _, answer = request(search_server, "POST", "/tavily/search", b" " * 65_537 + b"{}")
    assert status == 413 and "detail" in answer
    # Serper authenticates by header: a wrong key is refused before the body is read
    head = b"POST /serper/search HTTP/1.1\r\nHost: x\r\nX-API-KEY: wrong\r\nContent-Length: 1000\r\n\r\n{"
    status, answer = parse_raw(raw_exchange(search_server, head))
    assert status == 403 and answer["statusCode"] == 403


def test_search_server_answers_each_api_in_its_own_shape(search_server: str) -> None:
    status, _, answer = request(
        search_server, "POST", "/serper/search", deep_json(200), {"X-API-KEY": "sk-test"}
    )
    assert status == 400 and answer["statusCode"] == 400
    status, _, answer = request(
        search_server, "GET", "/res/v1/web/search?q=x&count=%C2%B2", None, {"X-Subscription-Token": "sk-test"}
    )
    assert status == 422 and answer["type"] == "ErrorResponse"
    status, _, answer = request(search_server, "POST", "/res/v1/web/search")
    assert status == 405 and answer["error"]["status"] == 405
    status, _, answer = request(search_server, "GET", "/nothing-here")
    assert status == 404 and answer["detail"]["error"]
    status, _, answer = request(search_server, "GET", "/health")
    assert status == 200 and answer["status"] == "ok"


def test_search_body_key_that_is_not_a_string_is_a_401(search_server: str) -> None:
    status, _, answer = request(search_server, "POST", "/tavily/search", b'{"query": "x", "api_key": 5}')
    assert status == 401 and "Unauthorized" in answer["detail"]["error"]


# -- SWE-ReX runtime -------------------------------------------------------------------------------


@pytest.fixture
def swerex_server() -> Iterator[str]:
    app = swerex_app(VirtualTerminal(World(backend="offline")), token="s3cret", limits=SMALL)
    with serve_app(app) as base:
        yield base


def test_swerex_refuses_a_non_ascii_key_with_401(swerex_server: str) -> None:
    raw = b"GET /is_alive HTTP/1.1\r\nHost: x\r\nX-API-Key: s3cr\xe9t\r\nConnection: close\r\n\r\n"
    answer = raw_exchange(swerex_server, raw)
    assert answer.startswith(b"HTTP/1.1 401")
    assert b"Invalid API Key" in answer


def test_swerex_answers_malformed_bodies_and_unknown_routes_in_json(swerex_server: str) -> None:
    key = {"X-API-Key": "s3cret"}
    status, _, answer = request(swerex_server, "POST", "/execute", deep_json(100_000), key)
    assert status == 422 and answer["detail"][0]["type"] == "json_invalid"
    status, _, answer = request(
        swerex_server, "POST", "/execute", b'{"command": "echo", "timeout": ' + b"9" * 5000 + b"}", key
    )
    assert status == 422
    status, _, answer = request(swerex_server, "GET", "/missing", None, key)
    assert status == 404 and answer == {"detail": "Not Found"}
    status, _, answer = request(swerex_server, "GET", "/execute", None, key)
    assert status == 405 and answer == {"detail": "Method Not Allowed"}
    status, _, answer = request(swerex_server, "POST", "/execute", b"{" * (SMALL.max_body + 1), key)
    assert status == 413 and "limit" in answer["detail"]


# -- exposure --------------------------------------------------------------------------------------


def test_a_public_bind_without_a_token_is_refused_unless_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    check_exposure("127.0.0.1", token=None, allow_remote=False)
    check_exposure("::1", token=None, allow_remote=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(ConfigError, match="--allow-remote"):
        check_exposure("0.0.0.0", token=None, allow_remote=False)
    check_exposure("0.0.0.0", token=None, allow_remote=True)
    assert "WITHOUT a token" in capsys.readouterr().err
    check_exposure("0.0.0.0", token="t", allow_remote=False)
    assert "protected by its token" in capsys.readouterr().err


# -- MCP streamable HTTP ---------------------------------------------------------------------------

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def mcp_post(
    base: str, message: dict[str, Any], session: str | None = None
) -> tuple[int, dict[str, str], Any]:
    headers = dict(MCP_HEADERS, **({"Mcp-Session-Id": session} if session else {}))
    headers["Mcp-Protocol-Version"] = "2025-06-18"
    status, found, body = request(base, "POST", "/mcp", json.dumps(message).encode(), headers)
    if isinstance(body, bytes):  # server-sent events: the JSON-RPC answer is the data line
        lines = [line[5:].strip() for line in body.decode().splitlines() if line.startswith("data:")]
        body = json.loads(lines[-1]) if lines else None
    return status, found, body


def mcp_fake(isolate: str = "world") -> Any:
    from agentworld_plugins.adapters.mcp_catalog import Catalog
    from agentworld_plugins.adapters.mcp_server import FakeMcpServer

    tool = {"name": "ping", "description": "Ping.", "inputSchema": {"type": "object", "properties": {}}}
    return FakeMcpServer(World(backend="offline"), Catalog.from_tools([tool]), isolate=isolate)


def test_mcp_sessions_left_idle_are_reaped_with_their_world_session() -> None:
    fake = mcp_fake(isolate="connection")  # a world per connection: it goes with its session
    limits = HttpLimits(max_body=256 * 1024, session_idle=0.5, header_timeout=5, body_timeout=5)
    with serve_app(fake.http_app(limits=limits), limits, lifespan="on") as base:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        status, headers, _ = mcp_post(base, init)
        assert status == 200
        session = headers["mcp-session-id"]
        mcp_post(base, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "ping", "arguments": {}},
        }
        status, _, answer = mcp_post(base, call, session)
        assert status == 200 and "result" in answer
        assert len(fake.sessions.active) == 1
        # abandoned: no DELETE ever comes; the idle timeout closes it (polled, bounded)
        deadline = time.monotonic() + 20
        while fake.sessions.active and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not fake.sessions.active
        assert fake.sessions.closed[-1].calls == 1
        status, _, answer = mcp_post(base, call, session)
        assert status == 404 and answer["error"]["code"] < 0


def test_mcp_http_limits_and_json_errors() -> None:
    fake = mcp_fake()
    limits = HttpLimits(max_body=64 * 1024, header_timeout=5, body_timeout=5)
    with serve_app(fake.http_app(token="t0k", limits=limits), limits, lifespan="on") as base:
        auth = dict(MCP_HEADERS, Authorization="Bearer t0k")
        status, _, answer = request(base, "POST", "/mcp", b"[" * (64 * 1024 + 1), auth)
        assert status == 413 and answer["jsonrpc"] == "2.0" and "limit" in answer["error"]["message"]
        status, _, answer = request(base, "GET", "/elsewhere", None, {"Authorization": "Bearer t0k"})
        assert status == 404 and answer["error"]["message"] == "Not Found"
        status, _, answer = request(base, "POST", "/mcp", deep_json(20_000), auth)
        assert 400 <= status < 500 and "error" in answer
        status, _, answer = request(
            base, "POST", "/mcp", b"{}", dict(MCP_HEADERS, Authorization="Bearer n\xe9")
        )
        assert status == 401 and answer["error"] == "invalid_token"


def test_fuzz_findings_stay_fixed(search_server: str, swerex_server: str) -> None:
    """Inputs the fuzz suite found answering 500."""
    status, _, answer = request(search_server, "POST", "/search", b"null")
    assert 400 <= status < 500 and "detail" in answer
    key = {"X-API-Key": "s3cret"}
    status, _, answer = request(swerex_server, "POST", "/create_session", b'"\\ud800"', key)
    assert status == 422 and answer["detail"][0]["type"] == "json_invalid"
    status, _, answer = request(swerex_server, "POST", "/create_session", b'{"startup_source": true}', key)
    assert status == 422 and answer["detail"][0]["loc"] == ["body", "startup_source"]
