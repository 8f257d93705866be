"""``agentworld openenv serve`` under hostile HTTP, as ``tests/test_http_guard.py`` tests ``serve``:
a real server on 127.0.0.1 (the app the CLI serves, small limits), real sockets, OpenEnv's own
client for the WebSocket sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http_guard import BIG_NUMBER, SMALL, deep_json, parse_raw, raw_exchange, request

from agentworld_plugins.http_guard import serving
from agentworld_plugins.session import World

openenv = pytest.importorskip("openenv", reason="the rl extra (openenv-core) is not installed")

TASKS = Path(__file__).resolve().parents[2] / "agentworld_plugins" / "rollout" / "data" / "tasks.jsonl"
AUTH = {"Authorization": "Bearer t0k", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    from agentworld_plugins.rollout.openenv import create_openenv_app
    from agentworld_plugins.rollout.tasks import load_tasks

    with World(backend="offline") as world:
        app = create_openenv_app(world, load_tasks(TASKS, world.pm.registry), token="t0k", limits=SMALL)
        with serving(app, limits=SMALL) as url:
            yield url


def test_every_route_needs_the_token(base: str) -> None:
    for method, path in (("GET", "/health"), ("POST", "/reset"), ("POST", "/step"), ("GET", "/schema")):
        status, headers, answer = request(base, method, path, b"{}" if method == "POST" else None)
        assert status == 401 and "token" in answer["detail"], (method, path)
        assert headers["www-authenticate"].startswith("Bearer")
    for wrong in ("Bearer nope", "Bearer t0k\u00e9", "Basic !!!", "Basic YWdlbnR3b3JsZDpub3Bl"):
        status, _, _ = request(base, "GET", "/health", None, {"Authorization": wrong})
        assert status == 401, wrong
    # Basic with the token as password: what a client sends for http://agentworld:t0k@host
    assert request(base, "GET", "/health", None, {"Authorization": "Basic YWdlbnR3b3JsZDp0MGs="})[0] == 200


def test_the_token_is_checked_before_the_body_is_read(base: str) -> None:
    head = b"POST /step HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Length: 1000\r\n\r\n{"
    status, answer = parse_raw(raw_exchange(base, head))
    assert status == 401 and "token" in answer["detail"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (BIG_NUMBER, "5,000 digits"),
        (deep_json(100_000), "nested deeper"),
        (b'{"action": {"answer": 1e999}}', "out of range"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"action": ', "not valid JSON"),
    ],
    ids=["5000-digit-number", "100000-deep", "infinity", "not-utf8", "truncated"],
)
def test_malformed_bodies_get_a_json_400(base: str, body: bytes, words: str) -> None:
    status, _, answer = request(base, "POST", "/step", body, AUTH)
    assert status == 400 and words in answer["detail"]


def test_bad_resets_and_actions_are_4xx_never_500(base: str) -> None:
    status, _, answer = request(base, "POST", "/reset", b'{"task_id": "nope"}', AUTH)
    assert status == 400 and "No served task has id 'nope'" in answer["detail"]
    status, _, answer = request(base, "POST", "/reset", b'{"task": {"domain": "mcp"}}', AUTH)
    assert status == 400 and "field 'id'" in answer["detail"]
    status, _, answer = request(base, "POST", "/reset", b'{"seed": "x"}', AUTH)
    assert status == 422 and answer["detail"][0]["loc"] == ["body", "seed"]
    status, _, answer = request(base, "POST", "/step", b'{"action": {"tool_name": 5}}', AUTH)
    assert status == 422


def test_unknown_routes_and_methods_answer_in_json(base: str) -> None:
    status, _, answer = request(base, "GET", "/nowhere", None, AUTH)
    assert status == 404 and answer == {"detail": "Not Found"}
    status, headers, answer = request(base, "PUT", "/reset", None, AUTH)
    assert status == 405 and answer == {"detail": "Method Not Allowed"} and "POST" in headers["allow"]


def test_an_oversized_body_is_refused_before_it_is_read(base: str) -> None:
    status, _, answer = request(base, "POST", "/reset", b"x" * (SMALL.max_body + 1), AUTH)
    assert status == 413 and "262,144 bytes" in answer["detail"]
    head = (
        b"POST /reset HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0k\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 100_000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3)) + b"0\r\n\r\n"
    status, answer = parse_raw(raw_exchange(base, head + chunks))
    assert status == 413 and "limit" in answer["detail"]


def test_slow_clients_are_closed(base: str) -> None:
    status, answer = parse_raw(raw_exchange(base, b"POST /reset HTTP/1.1\r\nHost: x\r\n"))
    assert status == 408 and "headers" in answer["detail"]
    assert raw_exchange(base, b"").startswith(b"HTTP/1.1 408")
    head = b"POST /reset HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0k\r\nContent-Length: 1000\r\n\r\n{"
    status, answer = parse_raw(raw_exchange(base, head))
    assert status == 408 and "not received within" in answer["detail"]


def test_protocol_garbage_is_answered_in_json(base: str) -> None:
    status, answer = parse_raw(raw_exchange(base, b"NOT HTTP AT ALL\r\n\r\n"))
    assert status == 400 and "Invalid HTTP request" in answer["detail"]
    big = b"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0k\r\nX-Pad: " + b"p" * 100 * 1024
    status, answer = parse_raw(raw_exchange(base, big + b"\r\n\r\n"))
    assert status == 431 and "65,536 bytes" in answer["detail"]


def test_websocket_sessions_need_the_token(base: str) -> None:
    with pytest.raises(ConnectionError, match="403"), openenv.GenericEnvClient(base_url=base).sync() as env:
        env.reset()
    authed = base.replace("http://", "http://agentworld:t0k@")
    with openenv.GenericEnvClient(base_url=authed).sync() as env:
        first = env.reset(task_id="issue-bug")
        assert "Crash on start" in first.observation["instruction"]


def test_websocket_messages_are_capped_at_the_body_limit(base: str) -> None:
    import asyncio

    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosedError

    async def send(message: str) -> str:
        url = base.replace("http://", "ws://agentworld:t0k@") + "/ws"
        async with connect(url, max_size=None) as ws:
            await ws.send(message)
            return str(await asyncio.wait_for(ws.recv(), 30))

    with pytest.raises(ConnectionClosedError, match="1009"):
        asyncio.run(send('{"type": "step", "data": "' + "x" * (SMALL.max_body + 1) + '"}'))
    assert '"code":"INVALID_JSON"' in asyncio.run(send("not json"))


HOSTILE_FRAMES = {
    "a 100,000-deep array": ("[" * 100_000 + "]" * 100_000, "INVALID_JSON", "nested deeper than 64 levels"),
    "a deep step action": (
        '{"type": "step", "data": {"action": ' + "[" * 3000 + "]" * 3000 + "}}",
        "INVALID_JSON",
        "nested deeper than 64 levels",
    ),
    "a 5,000-digit number": (
        '{"type": "reset", "data": {"seed": ' + "7" * 5000 + "}}",
        "INVALID_JSON",
        "5,000 digits",
    ),
    "NaN": ('{"type": NaN}', "INVALID_JSON", "NaN is not a JSON number"),
    "1e999": ("1e999", "INVALID_JSON", "out of range"),
    "an unpaired surrogate": ('{"type": "\\ud800"}', "INVALID_JSON", "unpaired surrogate"),
    "a list": ("[1, 2]", "VALIDATION_ERROR", "a JSON object with a type, not list"),
    "a binary frame": (b'{"type": "state"}', "INVALID_JSON", "binary frame"),
    "not JSON": ("not json", "INVALID_JSON", "Invalid JSON"),  # OpenEnv's own answer
    "a bad step": ('{"type": "step", "data": 5}', "VALIDATION_ERROR", "Invalid message"),  # OpenEnv's own
}


def test_hostile_websocket_messages_get_openenv_error_frames_and_the_session_goes_on(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio
    import json

    from websockets.asyncio.client import connect

    async def session() -> list[tuple[dict, dict]]:
        url = base.replace("http://", "ws://agentworld:t0k@") + "/ws"
        answers = []
        async with connect(url, max_size=None) as ws:
            await ws.send('{"type": "reset", "data": {"task_id": "issue-bug"}}')
            assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "observation"
            for frame, _code, _words in HOSTILE_FRAMES.values():
                await ws.send(frame)
                error = json.loads(await asyncio.wait_for(ws.recv(), 30))
                await ws.send('{"type": "state"}')  # the same session answers on
                answers.append((error, json.loads(await asyncio.wait_for(ws.recv(), 30))))
        return answers

    caplog.set_level("ERROR")
    answers = asyncio.run(session())
    episodes = set()
    for (name, (_frame, code, words)), (error, state) in zip(HOSTILE_FRAMES.items(), answers):
        assert error["type"] == "error" and error["data"]["code"] == code, name
        assert words in error["data"]["message"], (name, error)
        assert state["type"] == "state", name
        episodes.add(state["data"]["episode_id"])
    assert len(episodes) == 1  # one session throughout, never dropped
    # a client closing its socket no longer makes OpenEnv's close() raise into the server log
    with openenv.GenericEnvClient(base_url=base.replace("http://", "http://agentworld:t0k@")).sync() as env:
        env.reset(task_id="issue-bug")
    assert not [r for r in caplog.records if "Exception in ASGI application" in r.getMessage()]
