"""FakeWorldModelServer: a real loopback HTTP server whose answers tests script."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.openai_compat import OpenAICompatBackend
from agentworld_plugins.errors import BackendUnavailableError
from agentworld_plugins.fake_server import FakeWorldModelServer, Fault, RecordedRequest, default_responder

CHAT = "/v1/chat/completions"


def request(
    server: FakeWorldModelServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """One request on a fresh connection; ``body`` is sent as JSON unless it is bytes."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def chat(server: FakeWorldModelServer, text: str = "hi", **fields: Any) -> dict[str, Any]:
    status, raw = request(server, "POST", CHAT, {"messages": [{"role": "user", "content": text}], **fields})
    assert status == 200, raw
    return json.loads(raw)


def content(answer: dict[str, Any]) -> str:
    return answer["choices"][0]["message"]["content"]


@pytest.fixture
def server() -> Iterator[FakeWorldModelServer]:
    with FakeWorldModelServer(model="fake-wm") as srv:
        yield srv


# -- endpoints -----------------------------------------------------------------------------------


def test_models_lists_the_model(server):
    status, raw = request(server, "GET", "/v1/models")

    assert status == 200
    assert json.loads(raw) == {
        "object": "list",
        "data": [{"id": "fake-wm", "object": "model", "owned_by": "fake"}],
    }


def test_url_is_loopback_v1(server):
    assert server.url == f"http://127.0.0.1:{server.port}/v1"


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/nothing"), ("POST", "/v1/completions")])
def test_unknown_path_is_404(server, method, path):
    server.enqueue("kept")
    status, raw = request(server, method, path, {"messages": []} if method == "POST" else None)

    assert status == 404
    assert "not found" in raw.decode()
    assert content(chat(server)) == "kept"  # a 404 does not consume the queue


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"\x80 not utf-8"])
def test_body_that_is_not_a_json_object_is_400(server, body):
    status, raw = request(server, "POST", CHAT, body)

    assert status == 400
    assert "not a JSON object" in raw.decode()
    assert server.requests[-1].body is None or server.requests[-1].body == [1, 2]


def test_empty_body_is_answered(server):
    status, raw = request(server, "POST", CHAT, b"")
    assert status == 200
    assert (
        content(json.loads(raw)) == "<predicted_observation>observation for request</predicted_observation>"
    )


# -- answers -------------------------------------------------------------------------------------


def test_queue_order_then_responder_fallback():
    with FakeWorldModelServer(responder=lambda body: f"fallback {len(body['messages'])}") as srv:
        srv.enqueue("first").enqueue("second", "third")
        answers = [content(chat(srv)) for _ in range(5)]

    assert answers == ["first", "second", "third", "fallback 1", "fallback 1"]


def test_default_responder_names_the_turn(server):
    assert content(chat(server, "# Turn 3\nls -la")) == (
        "<predicted_observation>observation for Turn 3</predicted_observation>"
    )
    assert default_responder({}) == "<predicted_observation>observation for request</predicted_observation>"


def test_answer_shape_and_default_usage(server):
    answer = chat(server, "x" * 40, model="asked-model")

    assert answer["object"] == "chat.completion"
    assert answer["id"].startswith("chatcmpl-fake-")
    assert answer["model"] == "asked-model"
    (choice,) = answer["choices"]
    assert choice["index"] == 0 and choice["finish_reason"] == "stop"
    assert choice["message"]["role"] == "assistant"
    assert "reasoning_content" not in choice["message"] and "reasoning" not in choice["message"]
    usage = answer["usage"]
    assert usage["prompt_tokens"] == 10
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert chat(server)["model"] == "fake-wm"  # no model asked: the server's own
    assert chat(server)["id"] != answer["id"]


def test_dict_answer_fields_pass_through(server):
    usage = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    server.enqueue(
        {"content": "c", "reasoning_content": "r1", "finish_reason": "length", "usage": usage},
        {"content": "d", "reasoning": "r2"},
    )

    first, second = chat(server), chat(server)

    assert first["choices"][0]["message"] == {"role": "assistant", "content": "c", "reasoning_content": "r1"}
    assert first["choices"][0]["finish_reason"] == "length"
    assert first["usage"] == usage
    assert second["choices"][0]["message"] == {"role": "assistant", "content": "d", "reasoning": "r2"}


def test_responder_may_return_a_fault():
    with FakeWorldModelServer(responder=lambda body: FakeWorldModelServer.error(503)) as srv:
        status, raw = request(srv, "POST", CHAT, {"messages": []})

    assert status == 503
    assert json.loads(raw) == {"error": {"message": "internal error", "code": 503}}


# -- faults --------------------------------------------------------------------------------------


def test_error_fault_status_and_message(server):
    server.enqueue(FakeWorldModelServer.error(429, "slow down"), "after")

    status, raw = request(server, "POST", CHAT, {"messages": []})

    assert status == 429
    assert json.loads(raw)["error"]["message"] == "slow down"
    assert content(chat(server)) == "after"


def test_hand_built_status_fault_is_not_a_200(server):
    server.enqueue(Fault(status=503))

    status, raw = request(server, "POST", CHAT, {"messages": []})

    assert status == 503
    assert json.loads(raw)["error"]["code"] == 503


def test_hang_answers_late_with_then_or_the_responder(server):
    server.enqueue(FakeWorldModelServer.hang(0.05, then="late"), FakeWorldModelServer.hang(0.05))
    started = time.perf_counter()

    assert content(chat(server)) == "late"
    assert (
        content(chat(server, "# Turn 2"))
        == "<predicted_observation>observation for Turn 2</predicted_observation>"
    )
    assert time.perf_counter() - started >= 0.1


def test_hang_then_a_fault(server):
    server.enqueue(FakeWorldModelServer.hang(0.01, then=FakeWorldModelServer.error(502)))
    assert request(server, "POST", CHAT, {"messages": []})[0] == 502


def test_malformed_is_a_200_that_is_not_json(server):
    server.enqueue(FakeWorldModelServer.malformed())

    status, raw = request(server, "POST", CHAT, {"messages": []})

    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)


def test_disconnect_drops_the_connection(server):
    server.enqueue(FakeWorldModelServer.disconnect(), "next")

    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        request(server, "POST", CHAT, {"messages": []})
    assert content(chat(server)) == "next"  # the server keeps serving


def test_disconnect_makes_the_backend_retry_or_raise(server):
    server.enqueue(FakeWorldModelServer.disconnect(), "ok", *[FakeWorldModelServer.disconnect()] * 2)
    backend = OpenAICompatBackend([server.url], model="wm", max_retries=1, retry_backoff=0, timeout=5)
    try:
        completion = backend.complete([{"role": "user", "content": "hi"}], Sampling())
        assert (completion.text, completion.metadata["attempts"]) == ("ok", 2)
        with pytest.raises(BackendUnavailableError, match="Cannot reach"):
            backend.complete([{"role": "user", "content": "hi"}], Sampling())
    finally:
        backend.close()


def test_latency_delays_every_chat_answer():
    with FakeWorldModelServer(latency=0.05) as srv:
        started = time.perf_counter()
        chat(srv)
        chat(srv)
        assert time.perf_counter() - started >= 0.1


# -- recording and auth --------------------------------------------------------------------------


def test_requests_are_recorded_with_headers(server):
    chat(server, "hello", temperature=0.5)
    request(server, "GET", "/v1/models", headers={"X-Trace": "abc"})

    post, get = server.requests
    assert isinstance(post, RecordedRequest)
    assert (post.method, post.path) == ("POST", CHAT)
    assert post.body == {"messages": [{"role": "user", "content": "hello"}], "temperature": 0.5}
    assert post.headers["content-type"] == "application/json"  # header names lower-cased
    assert (get.method, get.path, get.body) == ("GET", "/v1/models", None)
    assert get.headers["x-trace"] == "abc"
    assert post.at <= get.at
    assert server.chat_requests == [post]


def test_api_key_is_checked_and_failures_keep_the_queue():
    with FakeWorldModelServer(api_key="sekrit") as srv:
        srv.enqueue("for the right key")
        no_key = request(srv, "POST", CHAT, {"messages": []})
        wrong = request(srv, "GET", "/v1/models", headers={"Authorization": "Bearer nope"})
        right = request(srv, "POST", CHAT, {"messages": []}, headers={"Authorization": "Bearer sekrit"})

    assert no_key[0] == 401 and "invalid api key" in no_key[1].decode()
    assert wrong[0] == 401
    assert right[0] == 200 and content(json.loads(right[1])) == "for the right key"
    assert len(srv.requests) == 3


# -- lifecycle -----------------------------------------------------------------------------------


def test_stop_without_start_returns():
    srv = FakeWorldModelServer()
    stopper = threading.Thread(target=srv.stop, daemon=True)
    stopper.start()
    stopper.join(timeout=5)
    assert not stopper.is_alive()


def test_stop_twice_and_start_is_idempotent():
    srv = FakeWorldModelServer()
    assert srv.start() is srv.start()
    assert content(chat(srv)).startswith("<predicted_observation>")
    srv.stop()
    srv.stop()
    with pytest.raises(OSError):
        request(srv, "GET", "/v1/models")


def test_stop_does_not_wait_for_a_hanging_answer():
    srv = FakeWorldModelServer().start()
    srv.enqueue(FakeWorldModelServer.hang(30))
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    conn.request("POST", CHAT, body=b'{"messages": []}', headers={"Content-Type": "application/json"})
    while not srv.chat_requests:  # wait until the handler holds the request
        time.sleep(0.005)
    started = time.perf_counter()
    srv.stop()
    conn.close()
    assert time.perf_counter() - started < 5


def test_pytest_plugin_fixture_serves(fake_world_server):
    assert isinstance(fake_world_server, FakeWorldModelServer)
    fake_world_server.enqueue("from the fixture")
    assert content(chat(fake_world_server)) == "from the fixture"


def test_pytest_plugin_world_fixture(agentworld, fake_backend):
    fake_backend.enqueue("<predicted_observation>scripted</predicted_observation>")

    obs = agentworld.session("mcp").step({"tool_name": "t"})

    assert obs.text == "scripted"
    assert len(fake_backend.history) == 1
