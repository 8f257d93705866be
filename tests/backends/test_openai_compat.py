"""OpenAICompatBackend over real HTTP against FakeWorldModelServer on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest

from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.openai_compat import OpenAICompatBackend
from agentworld_plugins.errors import BackendError, BackendUnavailableError
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.session import World

MESSAGES = [{"role": "system", "content": "You are a world."}, {"role": "user", "content": "ls"}]
SAMPLING = Sampling(temperature=0.0, max_tokens=64)
error = FakeWorldModelServer.error
hang = FakeWorldModelServer.hang


def ask(text: str) -> list[dict[str, Any]]:
    """Messages whose default fake answer is ``observation for <text>``."""
    return [{"role": "user", "content": text}]


@pytest.fixture
def make_backend() -> Iterator[Callable[..., OpenAICompatBackend]]:
    """Backends with no retry delay and short timeouts, closed after the test."""
    made: list[OpenAICompatBackend] = []

    def make(*urls: str, **options: Any) -> OpenAICompatBackend:
        options.setdefault("model", "wm")
        options.setdefault("retry_backoff", 0)
        options.setdefault("timeout", 5)
        backend = OpenAICompatBackend(list(urls), **options)
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()


@pytest.fixture
def servers() -> Iterator[Callable[..., list[FakeWorldModelServer]]]:
    """Start ``n`` fake servers with the same options; all stopped after the test."""
    with ExitStack() as stack:

        def start(n: int, **options: Any) -> list[FakeWorldModelServer]:
            return [stack.enter_context(FakeWorldModelServer(**options)) for _ in range(n)]

        yield start


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def in_threads(fn: Callable[[int], Any], n: int, workers: int | None = None) -> list[Any]:
    with ThreadPoolExecutor(max_workers=workers or n) as pool:
        return list(pool.map(fn, range(n)))


# -- 1. basic completion -------------------------------------------------------------------------


def test_completion_has_text_usage_finish_reason_and_model(fake_world_server, make_backend):
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    fake_world_server.enqueue({"content": "hello", "finish_reason": "length", "usage": usage})
    backend = make_backend(fake_world_server.url)

    completion = backend.complete(MESSAGES, SAMPLING)

    assert completion.text == "hello"
    assert completion.reasoning is None
    assert completion.usage == usage
    assert completion.finish_reason == "length"
    assert completion.model == "wm"
    assert completion.metadata["base_url"] == fake_world_server.url
    assert completion.metadata["attempts"] == 1
    assert completion.metadata["latency_s"] >= 0


def test_request_body_is_exactly_what_the_openai_client_sends(fake_world_server, make_backend):
    sampling = Sampling(
        temperature=0.3,
        max_tokens=128,
        top_p=0.9,
        seed=7,
        stop=["</predicted_observation>"],
        extra_body={"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}},
    )
    make_backend(fake_world_server.url).complete(MESSAGES, sampling)

    (request,) = fake_world_server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    # extra_body fields land at the top level of the JSON body, as the openai client merges them
    assert request.body == {
        "model": "wm",
        "messages": MESSAGES,
        "temperature": 0.3,
        "max_tokens": 128,
        "top_p": 0.9,
        "seed": 7,
        "stop": ["</predicted_observation>"],
        "top_k": 20,
        "chat_template_kwargs": {"enable_thinking": False},
    }


def test_unset_sampling_fields_are_not_sent(fake_world_server, make_backend):
    make_backend(fake_world_server.url).complete(MESSAGES, Sampling())

    assert fake_world_server.requests[0].body == {
        "model": "wm",
        "messages": MESSAGES,
        "temperature": 0.6,
        "max_tokens": 4096,
    }


def test_describe_names_urls_and_model(make_backend):
    backend = make_backend("http://a:1/v1/", "http://b:2/v1", model="m")
    assert backend.base_urls == ["http://a:1/v1", "http://b:2/v1"]
    assert backend.describe() == "openai(http://a:1/v1,http://b:2/v1, model=m)"


# -- 2. reasoning --------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_reasoning_is_kept_apart_from_content(fake_world_server, make_backend, key):
    content = "<predicted_observation>total 0</predicted_observation>"
    fake_world_server.enqueue({"content": content, key: "The directory is empty."})

    completion = make_backend(fake_world_server.url).complete(MESSAGES, SAMPLING)

    assert completion.text == content
    assert completion.reasoning == "The directory is empty."


# -- 3. retries ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_retryable_status_then_success(fake_world_server, make_backend, status):
    fake_world_server.enqueue(error(status), "ok")

    completion = make_backend(fake_world_server.url, max_retries=3).complete(MESSAGES, SAMPLING)

    assert completion.text == "ok"
    assert completion.metadata["attempts"] == 2
    assert len(fake_world_server.chat_requests) == 2


def test_several_failures_then_success(fake_world_server, make_backend):
    fake_world_server.enqueue(error(500), error(502), error(429), "ok")

    completion = make_backend(fake_world_server.url, max_retries=3).complete(MESSAGES, SAMPLING)

    assert (completion.text, completion.metadata["attempts"]) == ("ok", 4)


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        (400, "sampling fields"),
        (404, "check the model name ('wm') and that the base URL ends in /v1"),
        (401, "AGENTWORLD_API_KEY"),
    ],
)
def test_client_errors_are_not_retried(fake_world_server, make_backend, status, hint):
    fake_world_server.enqueue(error(status, "the server says no"), "never sent")
    backend = make_backend(fake_world_server.url, max_retries=3)

    with pytest.raises(BackendError) as info:
        backend.complete(MESSAGES, SAMPLING)

    assert not isinstance(info.value, BackendUnavailableError)
    assert f"HTTP {status}" in str(info.value)
    assert "the server says no" in str(info.value)
    assert fake_world_server.url in str(info.value)
    assert hint in (info.value.hint or "")
    assert len(fake_world_server.chat_requests) == 1


def test_exhausted_retries_raise_backend_error(fake_world_server, make_backend):
    fake_world_server.enqueue(error(503), error(503), error(503), "too late")

    with pytest.raises(BackendError) as info:
        make_backend(fake_world_server.url, max_retries=2).complete(MESSAGES, SAMPLING)

    assert "HTTP 503" in str(info.value) and "after 3 attempts" in str(info.value)
    assert "AGENTWORLD_MAX_RETRIES" in (info.value.hint or "")
    assert len(fake_world_server.chat_requests) == 3


def test_max_retries_zero_tries_once(fake_world_server, make_backend):
    fake_world_server.enqueue(error(500), "ok")

    with pytest.raises(BackendError, match="HTTP 500"):
        make_backend(fake_world_server.url, max_retries=0).complete(MESSAGES, SAMPLING)
    assert len(fake_world_server.chat_requests) == 1


def test_malformed_body_is_retried(fake_world_server, make_backend):
    # openai raises a bare json.JSONDecodeError for a 200 that is not JSON; it is a server glitch
    fake_world_server.enqueue(FakeWorldModelServer.malformed(), "ok")

    completion = make_backend(fake_world_server.url, max_retries=2).complete(MESSAGES, SAMPLING)

    assert (completion.text, completion.metadata["attempts"]) == ("ok", 2)


def test_malformed_body_every_time_is_a_clear_backend_error(fake_world_server, make_backend):
    fake_world_server.enqueue(FakeWorldModelServer.malformed(), FakeWorldModelServer.malformed())

    with pytest.raises(BackendError) as info:
        make_backend(fake_world_server.url, max_retries=1).complete(MESSAGES, SAMPLING)

    assert not isinstance(info.value, BackendUnavailableError)
    assert "not JSON" in str(info.value) and "{this is not json" in str(info.value)
    assert "OpenAI-compatible" in (info.value.hint or "")
    assert len(fake_world_server.chat_requests) == 2


def test_answer_without_choices_is_a_backend_error(fake_world_server, make_backend):
    from agentworld_plugins.fake_server import Fault

    fake_world_server.enqueue(Fault(status=200, body=b'{"object": "chat.completion", "choices": []}'))

    with pytest.raises(BackendError, match="without choices"):
        make_backend(fake_world_server.url).complete(MESSAGES, SAMPLING)


def test_disconnect_is_retried(fake_world_server, make_backend):
    fake_world_server.enqueue(FakeWorldModelServer.disconnect(), "ok")

    completion = make_backend(fake_world_server.url, max_retries=1).complete(MESSAGES, SAMPLING)

    assert (completion.text, completion.metadata["attempts"]) == ("ok", 2)


def test_disconnect_every_time_is_unavailable(fake_world_server, make_backend):
    fake_world_server.enqueue(FakeWorldModelServer.disconnect(), FakeWorldModelServer.disconnect())

    with pytest.raises(BackendUnavailableError, match="Cannot reach"):
        make_backend(fake_world_server.url, max_retries=1).complete(MESSAGES, SAMPLING)


# -- 4. timeouts ---------------------------------------------------------------------------------


def test_hang_times_out_then_retry_succeeds(fake_world_server, make_backend):
    fake_world_server.enqueue(hang(2), "ok")

    completion = make_backend(fake_world_server.url, timeout=0.3, max_retries=1).complete(MESSAGES, SAMPLING)

    assert (completion.text, completion.metadata["attempts"]) == ("ok", 2)


def test_hang_every_time_is_unavailable(fake_world_server, make_backend):
    fake_world_server.enqueue(hang(2), hang(2))

    with pytest.raises(BackendUnavailableError) as info:
        make_backend(fake_world_server.url, timeout=0.3, max_retries=1).complete(MESSAGES, SAMPLING)

    assert "did not answer within 0.3s" in str(info.value)
    assert fake_world_server.url in str(info.value)
    assert "AGENTWORLD_TIMEOUT" in (info.value.hint or "")


# -- 5. unreachable ------------------------------------------------------------------------------


def test_unreachable_url_says_how_to_start_a_server(make_backend):
    url = closed_port_url()

    with pytest.raises(BackendUnavailableError) as info:
        make_backend(url, max_retries=1).complete(MESSAGES, SAMPLING)

    assert url in str(info.value)
    assert "vllm serve" in str(info.value)
    assert "sglang" in str(info.value)


def test_unreachable_url_during_model_discovery(make_backend):
    url = closed_port_url()

    with pytest.raises(BackendUnavailableError, match="vllm serve"):
        make_backend(url, model=None).complete(MESSAGES, SAMPLING)


def test_no_base_url_is_a_config_error():
    from agentworld_plugins.errors import ConfigError

    with pytest.raises(ConfigError, match="base URL"):
        OpenAICompatBackend([])


# -- 6. balancing --------------------------------------------------------------------------------


def test_requests_spread_over_urls(servers, make_backend):
    fakes = servers(3, latency=0.05)
    backend = make_backend(*(s.url for s in fakes))

    results = in_threads(lambda i: backend.complete(ask(f"req {i}"), SAMPLING), 30)

    assert [r.text for r in results] == [
        f"<predicted_observation>observation for req {i}</predicted_observation>" for i in range(30)
    ]
    counts = [len(s.chat_requests) for s in fakes]
    assert sum(counts) == 30
    assert all(c >= 5 for c in counts), counts
    assert Counter(r.metadata["base_url"] for r in results) == {s.url: len(s.chat_requests) for s in fakes}
    assert backend.balancer.outstanding == [0, 0, 0]
    assert backend.balancer.served == counts


def test_retries_avoid_a_failing_url(servers, make_backend):
    bad, *good = servers(3, latency=0.02)
    bad.responder = lambda body: error(500)
    backend = make_backend(bad.url, *(s.url for s in good), max_retries=2)

    results = in_threads(lambda i: backend.complete(ask(f"req {i}"), SAMPLING), 30)

    assert len(results) == 30
    assert all(r.metadata["base_url"] != bad.url for r in results)
    assert bad.chat_requests, "the failing server got no traffic: the test proves nothing"
    assert sum(len(s.chat_requests) for s in good) == 30


def test_single_retry_never_returns_to_the_url_that_failed(servers, make_backend):
    # with one retry, going back to the failing URL would fail the request
    bad, good = servers(2)
    bad.responder = lambda body: error(503)
    backend = make_backend(bad.url, good.url, max_retries=1)

    for i in range(10):
        assert backend.complete(ask(f"req {i}"), SAMPLING).metadata["base_url"] == good.url
    assert len(good.chat_requests) == 10


def test_least_outstanding_prefers_the_fast_server(servers, make_backend):
    (slow,) = servers(1, latency=0.5)
    (fast,) = servers(1)
    backend = make_backend(slow.url, fast.url)

    in_threads(lambda i: backend.complete(ask(f"req {i}"), SAMPLING), 40, workers=8)

    assert len(slow.chat_requests) + len(fast.chat_requests) == 40
    assert len(fast.chat_requests) > 3 * len(slow.chat_requests), (
        len(fast.chat_requests),
        len(slow.chat_requests),
    )


# -- 7. concurrency limit ------------------------------------------------------------------------


class InFlight:
    """A responder that counts the requests it is answering at once."""

    def __init__(self, hold: float) -> None:
        self.hold = hold
        self.now = 0
        self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.hold)  # holds the request open; the outcome does not depend on it
        with self._lock:
            self.now -= 1
        return "ok"


def test_concurrency_limit_caps_requests_in_flight(make_backend):
    counter = InFlight(0.2)
    with FakeWorldModelServer(responder=counter) as server:
        backend = make_backend(server.url, concurrency=2)
        results = in_threads(lambda i: backend.complete(MESSAGES, SAMPLING), 6)

    assert [r.text for r in results] == ["ok"] * 6
    assert counter.peak == 2


async def test_concurrency_limit_applies_to_async(make_backend):
    counter = InFlight(0.2)
    with FakeWorldModelServer(responder=counter) as server:
        backend = make_backend(server.url, concurrency=2)
        results = await asyncio.gather(*(backend.acomplete(MESSAGES, SAMPLING) for _ in range(6)))

    assert [r.text for r in results] == ["ok"] * 6
    assert counter.peak == 2


# -- 8. async ------------------------------------------------------------------------------------


async def test_acomplete_basic(fake_world_server, make_backend):
    fake_world_server.enqueue({"content": "hello", "reasoning_content": "why"})

    completion = await make_backend(fake_world_server.url).acomplete(MESSAGES, SAMPLING)

    assert (completion.text, completion.reasoning, completion.model) == ("hello", "why", "wm")
    assert fake_world_server.requests[0].body["messages"] == MESSAGES
    assert fake_world_server.requests[0].headers["x-stainless-async"].startswith("async")


async def test_acomplete_retries(fake_world_server, make_backend):
    fake_world_server.enqueue(error(503), FakeWorldModelServer.malformed(), "ok")

    completion = await make_backend(fake_world_server.url, max_retries=2).acomplete(MESSAGES, SAMPLING)

    assert (completion.text, completion.metadata["attempts"]) == ("ok", 3)


async def test_acomplete_client_error_not_retried(fake_world_server, make_backend):
    fake_world_server.enqueue(error(404))

    with pytest.raises(BackendError, match="HTTP 404"):
        await make_backend(fake_world_server.url, max_retries=2).acomplete(MESSAGES, SAMPLING)
    assert len(fake_world_server.chat_requests) == 1


async def test_acomplete_timeout_and_unreachable(fake_world_server, make_backend):
    fake_world_server.enqueue(hang(2), hang(2))
    with pytest.raises(BackendUnavailableError, match=r"did not answer within 0\.3s"):
        await make_backend(fake_world_server.url, timeout=0.3, max_retries=1).acomplete(MESSAGES, SAMPLING)

    url = closed_port_url()
    with pytest.raises(BackendUnavailableError, match="vllm serve") as info:
        await make_backend(url, max_retries=1).acomplete(MESSAGES, SAMPLING)
    assert url in str(info.value)


async def test_acomplete_concurrent(servers, make_backend):
    fakes = servers(2, latency=0.05)
    backend = make_backend(*(s.url for s in fakes))

    results = await asyncio.gather(*(backend.acomplete(ask(f"req {i}"), SAMPLING) for i in range(10)))

    assert [r.text for r in results] == [
        f"<predicted_observation>observation for req {i}</predicted_observation>" for i in range(10)
    ]
    assert all(len(s.chat_requests) >= 3 for s in fakes)


def test_acomplete_on_two_event_loops(fake_world_server, make_backend):
    backend = make_backend(fake_world_server.url)
    fake_world_server.enqueue("first", "second")

    first = asyncio.run(backend.acomplete(MESSAGES, SAMPLING))
    second = asyncio.run(backend.acomplete(MESSAGES, SAMPLING))

    assert (first.text, second.text) == ("first", "second")
    # and the sync path still works after both loops closed
    assert backend.complete(ask("again"), SAMPLING).text.endswith(
        "observation for again</predicted_observation>"
    )


def unclosed_transport_warnings(action: Callable[[], None]) -> list[str]:
    """The ResourceWarnings about connections left open by ``action``, once garbage is collected."""
    gc.collect()  # what earlier tests left behind is not this action's doing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        action()
        gc.collect()
    return [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_clients_of_a_finished_event_loop_are_closed(fake_world_server, make_backend):
    backend = make_backend(fake_world_server.url)

    def three_runs() -> None:
        for _ in range(3):
            assert asyncio.run(backend.acomplete(MESSAGES, SAMPLING)).text

    assert unclosed_transport_warnings(three_runs) == []


def test_close_closes_the_clients_of_an_idle_loop(fake_world_server, make_backend):
    backend = make_backend(fake_world_server.url)

    def use_then_close() -> None:
        loop = asyncio.new_event_loop()
        try:
            assert loop.run_until_complete(backend.acomplete(MESSAGES, SAMPLING)).text
            backend.close()
        finally:
            loop.close()  # without shutdown_asyncgens: only close() can have closed the clients

    assert unclosed_transport_warnings(use_then_close) == []


# -- 9. model discovery --------------------------------------------------------------------------


def test_model_discovery_uses_the_first_served_model(make_backend):
    with FakeWorldModelServer(model="Qwen/served") as server:
        backend = make_backend(server.url, model=None)
        completion = backend.complete(MESSAGES, SAMPLING)
        backend.complete(MESSAGES, SAMPLING)

    assert backend.model == "Qwen/served"
    assert completion.model == "Qwen/served"
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/chat/completions"),
    ]
    assert server.chat_requests[0].body["model"] == "Qwen/served"


def test_model_discovery_happens_once_under_concurrency(make_backend):
    with FakeWorldModelServer(model="served") as server:
        backend = make_backend(server.url, model=None)
        in_threads(lambda i: backend.complete(MESSAGES, SAMPLING), 10)

    assert [r.path for r in server.requests].count("/v1/models") == 1
    assert {r.body["model"] for r in server.chat_requests} == {"served"}


async def test_model_discovery_async(make_backend):
    with FakeWorldModelServer(model="served") as server:
        backend = make_backend(server.url, model=None)
        completion = await backend.acomplete(MESSAGES, SAMPLING)

    assert completion.model == "served"
    assert server.requests[0].path == "/v1/models"


# -- 10. API key ---------------------------------------------------------------------------------


def test_api_key_is_sent_as_bearer(make_backend):
    with FakeWorldModelServer(api_key="sekrit") as server:
        make_backend(server.url, model=None, api_key="sekrit").complete(MESSAGES, SAMPLING)

    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sekrit"] * 2


def test_no_api_key_sends_empty(fake_world_server, make_backend):
    make_backend(fake_world_server.url).complete(MESSAGES, SAMPLING)
    assert fake_world_server.requests[0].headers["authorization"] == "Bearer EMPTY"


def test_wrong_api_key_is_a_401_with_a_hint(make_backend):
    with FakeWorldModelServer(api_key="sekrit") as server:
        backend = make_backend(server.url, api_key="wrong", max_retries=3)
        with pytest.raises(BackendError) as info:
            backend.complete(MESSAGES, SAMPLING)

    assert "HTTP 401" in str(info.value) and "AGENTWORLD_API_KEY" in str(info.value)
    assert len(server.requests) == 1


# -- 11. through World and Session ---------------------------------------------------------------


def test_world_session_step_over_http(fake_world_server):
    fake_world_server.enqueue(
        {
            "content": '<predicted_observation>{"notes": []}</predicted_observation>',
            "reasoning_content": "empty",
        }
    )
    with World(base_url=fake_world_server.url, model="wm", retry_backoff=0) as world:
        obs = world.session("mcp").step({"tool_name": "list_notes", "arguments": {}})

    assert obs.text == '{"notes": []}'
    assert obs.reasoning == "empty"
    assert obs.metadata["base_url"] == fake_world_server.url
    assert obs.metadata["attempts"] == 1
    (request,) = fake_world_server.chat_requests
    assert request.body["model"] == "wm"
    assert "list_notes" in request.body["messages"][-1]["content"]


def test_world_session_discovers_model_and_retries(fake_world_server):
    fake_world_server.enqueue(error(502), "<predicted_observation>done</predicted_observation>")
    with World(base_url=fake_world_server.url, retry_backoff=0) as world:
        obs = world.session("mcp").step({"tool_name": "t"})

    assert obs.text == "done"
    assert obs.metadata["attempts"] == 2
    assert fake_world_server.requests[0].path == "/v1/models"


def test_world_comma_separated_urls_are_spread(servers):
    first, second = servers(2)
    with World(base_url=f"{first.url}, {second.url}", model="wm") as world:
        session = world.session("mcp")
        observations = [session.step({"tool_name": "t", "arguments": {"i": i}}) for i in range(4)]

    assert len(first.chat_requests) == 2 and len(second.chat_requests) == 2
    assert {o.metadata["base_url"] for o in observations} == {first.url, second.url}
