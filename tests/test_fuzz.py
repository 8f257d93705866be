"""Fuzzing every HTTP server's routes and every domain's action validation (hypothesis).

The servers must answer anything with a status below 500 and a JSON body (server-sent events
where the API streams); validation must raise nothing but ``ActionValidationError``. Runs are
derandomized (the same examples every run, so CI never flakes); ``HYPOTHESIS_PROFILE=explore``
draws fresh ones, many more of them.
"""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from agentworld_plugins.adapters.search.api import create_search_app
from agentworld_plugins.adapters.shell.core import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins.errors import ActionValidationError
from agentworld_plugins.http_guard import HttpLimits, serving
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "explore",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in ("ci", "explore"):
    PROFILE = "ci"
fuzz = settings(settings.get_profile(PROFILE))

LIMITS = HttpLimits(max_body=256 * 1024, header_timeout=10, body_timeout=10)

# -- strategies ------------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
NASTY = [
    b"",
    b"{",
    b"null",
    b"[]",
    b"\xff\xfe\x00",
    b"[" * 5000 + b"]" * 5000,
    b'{"a": ' + b"9" * 5000 + b"}",
    b'{"a": 1e999}',
    b'{"a": NaN}',
    b'"' + b"\\ud800" + b'"',
]


def objects(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts holding any subset of ``fields`` (each with its own values, or anything JSON)."""
    return st.fixed_dictionaries({}, optional={k: v | json_values for k, v in fields.items()})


def bodies(shaped: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    """Request bodies: well-formed JSON of the route's shape, any JSON, raw bytes or known traps."""
    return st.one_of(
        shaped.map(lambda v: json.dumps(v).encode()),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=40),
        st.sampled_from(NASTY),
    )


short_text = st.text(alphabet="abcdefxyz ./-_$(){}[]'\"\\|;&<>*?~\n\t0123456789é", max_size=24)

# -- one request -----------------------------------------------------------------------------------


def exchange(
    base: str, method: str, path: str, body: bytes | None, headers: dict[str, str], also: tuple[int, ...] = ()
) -> None:
    """Send one request; assert the answer is below 500 (or in ``also``) and JSON (or an event stream)."""
    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        content_type = response.getheader("content-type") or ""
    finally:
        conn.close()
    shown = raw[:300]
    assert response.status < 500 or response.status in also, (
        method,
        path,
        body[:200] if body else body,
        response.status,
        shown,
    )
    if content_type.startswith("text/event-stream") or (response.status in (202, 204, 307, 308) and not raw):
        return
    assert "json" in content_type, (method, path, response.status, content_type, shown)
    json.loads(raw)


# -- agentworld serve ------------------------------------------------------------------------------

CHAT_MESSAGE = objects(
    {
        "role": st.sampled_from(["system", "user", "assistant", "tool", "developer"]),
        "content": short_text | st.lists(objects({"type": st.just("text"), "text": short_text}), max_size=2),
    }
)
CHAT = objects(
    {
        "model": short_text,
        "messages": st.lists(CHAT_MESSAGE, min_size=1, max_size=3),
        "temperature": st.floats(min_value=0, max_value=2),
        "max_tokens": st.integers(min_value=-5, max_value=5000),
        "stop": short_text | st.lists(short_text, max_size=2),
        "stream": st.booleans(),
        "seed": st.integers(),
        "top_p": st.floats(),
    }
)


@pytest.fixture(scope="module")
def chat_base() -> Iterator[str]:
    with (
        World(backend="offline") as world,
        serving(create_app(world.backend, api_key="k", limits=LIMITS)) as base,
    ):
        yield base


@fuzz
@given(
    method=st.sampled_from(["POST", "GET", "PUT", "DELETE"]),
    path=st.sampled_from(["/v1/chat/completions", "/v1/models", "/health", "/v1", "/x"]),
    body=bodies(CHAT),
    key=st.sampled_from(["Bearer k", "Bearer nope", "", "Bearer k\u00e9"]),
)
def test_fuzz_chat_server(chat_base: str, method: str, path: str, body: bytes, key: str) -> None:
    headers = {"Content-Type": "application/json"} | ({"Authorization": key} if key else {})
    exchange(chat_base, method, path, body if method in ("POST", "PUT") else None, headers)


# -- agentworld search serve -----------------------------------------------------------------------

TAVILY = objects(
    {
        "query": short_text,
        "max_results": st.integers(min_value=-3, max_value=30),
        "search_depth": st.sampled_from(["basic", "advanced", "x"]),
        "topic": st.sampled_from(["general", "news", "finance", "x"]),
        "include_domains": st.lists(short_text, max_size=2),
        "include_answer": st.booleans() | st.sampled_from(["basic", "advanced"]),
        "include_raw_content": st.booleans() | st.sampled_from(["markdown", "text"]),
        "time_range": st.sampled_from(["day", "week", "y", "x"]),
        "urls": short_text | st.lists(short_text, max_size=2),
        "api_key": short_text,
    }
)
SERPER = objects(
    {
        "q": short_text,
        "num": st.integers(min_value=-3, max_value=200),
        "page": st.integers(min_value=-3, max_value=20),
        "gl": short_text,
        "hl": short_text,
        "tbs": short_text,
    }
)
SEARCH_ROUTES = ["/search", "/extract", "/tavily/search", "/tavily/extract", "/serper/search", "/news"]


@pytest.fixture(scope="module")
def search_base() -> Iterator[str]:
    with (
        World(backend="offline") as world,
        serving(create_search_app(world, api_key="k", limits=LIMITS)) as base,
    ):
        yield base


@fuzz
@given(
    path=st.sampled_from(SEARCH_ROUTES),
    body=bodies(TAVILY | SERPER | st.lists(SERPER, max_size=3)),
    auth=st.sampled_from(
        [
            {},
            {"Authorization": "Bearer k"},
            {"X-API-KEY": "k"},
            {"X-API-KEY": "no"},
            {"Authorization": "Bearer"},
        ]
    ),
    session=st.sampled_from([{}, {"X-Session": "s"}]),
)
def test_fuzz_search_post_routes(search_base: str, path: str, body: bytes, auth: dict, session: dict) -> None:
    exchange(search_base, "POST", path, body, {"Content-Type": "application/json", **auth, **session})


@fuzz
@given(
    q=short_text,
    count=st.text(alphabet="0123456789²-x", max_size=6),
    extra=st.sampled_from(["", "&extra_snippets=true", "&offset=-1"]),
    method=st.sampled_from(["GET", "POST", "GET"]),
    token=st.sampled_from(["k", "bad", ""]),
)
def test_fuzz_brave_route(search_base: str, q: str, count: str, extra: str, method: str, token: str) -> None:
    path = f"/res/v1/web/search?q={quote(q)}&count={quote(count)}{extra}"
    exchange(search_base, method, path, None, {"X-Subscription-Token": token} if token else {})


# -- SWE-ReX runtime -------------------------------------------------------------------------------

SWEREX = {
    "/create_session": objects({"session": short_text, "startup_source": st.lists(short_text, max_size=2)}),
    "/run_in_session": objects(
        {
            "command": short_text,
            "session": st.sampled_from(["default", "s"]),
            "check": st.sampled_from(["raise", "silent", "ignore"]),
            "timeout": st.floats(min_value=0, max_value=5),
            "is_interactive_command": st.booleans(),
            "error_msg": short_text,
        }
    ),
    "/close_session": objects({"session": short_text}),
    "/execute": objects(
        {
            "command": short_text | st.lists(short_text, max_size=3),
            "cwd": short_text,
            "env": st.dictionaries(short_text, short_text, max_size=2),
            "check": st.booleans(),
            "merge_output_streams": st.booleans(),
            "timeout": st.floats(min_value=0, max_value=5),
        }
    ),
    "/read_file": objects({"path": short_text, "encoding": short_text}),
    "/write_file": objects({"path": short_text, "content": short_text}),
    "/close": objects({}),
}


@pytest.fixture(scope="module")
def swerex_base() -> Iterator[str]:
    with World(backend="offline") as world:
        app = swerex_app(VirtualTerminal(world), token="t", limits=LIMITS)
        with serving(app) as base:
            yield base


@fuzz
@given(data=st.data(), path=st.sampled_from([*SWEREX, "/", "/is_alive", "/upload", "/nope"]))
def test_fuzz_swerex_runtime(swerex_base: str, data: st.DataObject, path: str) -> None:
    method = data.draw(st.sampled_from(["POST", "GET"]))
    key = data.draw(st.sampled_from(["t", "t", "x", "t\u00e9"]))
    headers = {"X-API-Key": key, "Content-Type": "application/json"}
    body = data.draw(bodies(SWEREX.get(path, json_values))) if method == "POST" else None
    if path == "/upload" and method == "POST" and data.draw(st.booleans()):
        boundary = "fuzzboundary"
        part = data.draw(st.binary(max_size=60))
        target = data.draw(short_text).encode("utf-8", "replace")
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n'.encode()
            + part
            + f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="target_path"\r\n\r\n'.encode()
            + target
            + f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="unzip"\r\n\r\n'.encode()
            + data.draw(st.sampled_from([b"true", b"false"]))
            + f"\r\n--{boundary}--\r\n".encode()
        )
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    # 511 + {"swerexception": ...} is how SWE-ReX reports a runtime error (its client raises it)
    exchange(swerex_base, method, path, body, headers, also=(511,))


# -- MCP streamable HTTP ---------------------------------------------------------------------------

JSONRPC = objects(
    {
        "jsonrpc": st.sampled_from(["2.0", "1.0"]),
        "id": st.integers() | short_text,
        "method": st.sampled_from(
            ["initialize", "tools/list", "tools/call", "ping", "notifications/initialized", "x"]
        ),
        "params": objects(
            {
                "name": st.sampled_from(["ping", "nope"]),
                "arguments": json_values,
                "protocolVersion": st.sampled_from(["2025-06-18", "2026-07-28", "1"]),
                "capabilities": st.just({}),
                "clientInfo": st.just({"name": "f", "version": "1"}),
            }
        ),
    }
)


@pytest.fixture(scope="module")
def mcp_base() -> Iterator[str]:
    from agentworld_plugins.adapters.mcp_catalog import Catalog
    from agentworld_plugins.adapters.mcp_server import FakeMcpServer

    tool = {"name": "ping", "description": "Ping.", "inputSchema": {"type": "object", "properties": {}}}
    with World(backend="offline") as world:
        fake = FakeMcpServer(world, Catalog.from_tools([tool]))
        with serving(fake.http_app(limits=LIMITS), limits=LIMITS, lifespan="on") as base:
            yield base


@fuzz
@given(
    method=st.sampled_from(["POST", "POST", "GET", "DELETE", "PUT"]),
    path=st.sampled_from(["/mcp", "/mcp/", "/other"]),
    body=bodies(JSONRPC | st.lists(JSONRPC, max_size=2)),
    accept=st.sampled_from(["application/json, text/event-stream", "application/json", "*/*"]),
    version=st.sampled_from(["2025-06-18", "2026-07-28", "bogus", ""]),
    session=st.sampled_from(["", "0123456789abcdef", "nope"]),
)
def test_fuzz_mcp_http(
    mcp_base: str, method: str, path: str, body: bytes, accept: str, version: str, session: str
) -> None:
    headers = {"Content-Type": "application/json", "Accept": accept}
    if version:
        headers["Mcp-Protocol-Version"] = version
    if session:
        headers["Mcp-Session-Id"] = session
    exchange(mcp_base, method, path, body if method in ("POST", "PUT") else None, headers)


# -- agentworld openenv serve ----------------------------------------------------------------------

OPENENV = {
    "/reset": objects(
        {
            "seed": st.integers(min_value=-3, max_value=10**20),
            "episode_id": short_text,
            "task_id": st.sampled_from(["issue-bug", "greeting-file", "nope"]),
            "task": objects({"id": short_text, "domain": st.sampled_from(["mcp", "terminal"])}),
        }
    ),
    "/step": objects(
        {
            "action": objects(
                {
                    "tool_name": st.sampled_from(["create_issue", "list_issues", "nope"]),
                    "arguments": json_values,
                    "action": json_values,
                    "answer": short_text,
                }
            ),
            "timeout_s": st.floats(),
        }
    ),
}


@pytest.fixture(scope="module")
def openenv_base() -> Iterator[str]:
    pytest.importorskip("openenv", reason="the rl extra (openenv-core) is not installed")
    from pathlib import Path

    from agentworld_plugins.rollout.openenv import create_openenv_app
    from agentworld_plugins.rollout.tasks import load_tasks

    tasks = Path(__file__).resolve().parents[1] / "agentworld_plugins" / "rollout" / "data" / "tasks.jsonl"
    with World(backend="offline") as world:
        app = create_openenv_app(world, load_tasks(tasks, world.pm.registry), token="t", limits=LIMITS)
        with serving(app, limits=LIMITS) as base:
            yield base


@fuzz
@given(
    data=st.data(),
    path=st.sampled_from([*OPENENV, "/state", "/schema", "/health", "/metadata", "/nope"]),
    key=st.sampled_from(["Bearer t", "Bearer t", "Bearer x", ""]),
)
def test_fuzz_openenv_server(openenv_base: str, data: st.DataObject, path: str, key: str) -> None:
    method = data.draw(st.sampled_from(["POST", "GET"]))
    body = data.draw(bodies(OPENENV.get(path, json_values))) if method == "POST" else None
    headers = {"Content-Type": "application/json"} | ({"Authorization": key} if key else {})
    exchange(openenv_base, method, path, body, headers)


# -- every domain's actions ------------------------------------------------------------------------

DOMAINS = ["mcp", "terminal", "os", "web", "search", "swe", "android"]
action_text = st.one_of(
    short_text,
    json_values.map(json.dumps),
    st.sampled_from([b.decode("utf-8", "replace") for b in NASTY]),
    st.sampled_from(
        ["click('a')", "scroll(0, 1e999)", "print(" * 300, "import os\nos.system('ls')", "$(" * 150]
    ),
)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with World(backend="offline") as w:
        yield w


@fuzz
@given(domain=st.sampled_from(DOMAINS), action=json_values | action_text)
def test_fuzz_action_validation_raises_only_action_validation_error(
    world: World, domain: str, action: Any
) -> None:
    try:
        world.pm.registry.domain(domain).validate_action(action)
    except ActionValidationError as exc:
        assert f"for {domain} action" in str(exc)


@settings(fuzz, max_examples=max(8, fuzz.max_examples // 3))
@given(domain=st.sampled_from(DOMAINS), action=json_values | action_text)
def test_fuzz_session_step_raises_only_action_validation_error(
    world: World, domain: str, action: Any
) -> None:
    session = world.session(domain)
    try:
        session.step(action)
    except ActionValidationError:
        assert session.trajectory.turns == []


@fuzz
@given(
    domain=st.sampled_from(DOMAINS),
    content=st.none() | st.text(alphabet='<>/predict_obsrvaion think\n*:`{}[]"x ', max_size=200),
    reasoning=st.none() | short_text,
)
def test_fuzz_model_output_parsing_never_raises(
    world: World, domain: str, content: Any, reasoning: Any
) -> None:
    parsed = world.pm.registry.domain(domain).parse_output(content, reasoning)
    assert isinstance(parsed.text, str)
