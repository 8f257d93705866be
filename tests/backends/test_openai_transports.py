"""One ``openai`` backend, two transports: the lean HTTP client gets the backend's retries and
balancing, and the registry and bench build the same class."""

from __future__ import annotations

import asyncio

import pytest

from agentworld_plugins.backends import Sampling
from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.bench.endpoints import world_backend
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.session import World

MESSAGES = [{"role": "user", "content": "### Turn 1\n**Action:**\nnoop()"}]


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_both_transports_retry_failures_and_discover_the_model(transport: str) -> None:
    with FakeWorldModelServer() as server:
        backend = OpenAIBackend([server.url], transport=transport, max_retries=2, retry_backoff=0)
        server.enqueue(FakeWorldModelServer.error(503), FakeWorldModelServer.malformed(), "fine")
        try:
            completion = backend.complete(MESSAGES, Sampling(max_tokens=32))
        finally:
            backend.close()
    assert completion.text == "fine"
    assert completion.metadata["attempts"] == 3
    assert backend.model == "fake-world-model"
    assert len(server.chat_requests) == 3


def test_lean_transport_spreads_async_requests_and_stops_at_a_client_error() -> None:
    with FakeWorldModelServer() as a, FakeWorldModelServer() as b:
        backend = OpenAIBackend([a.url, b.url], model="m", transport="lean", max_retries=3, retry_backoff=0)

        async def run() -> None:
            try:
                await asyncio.gather(*(backend.acomplete(MESSAGES, Sampling()) for _ in range(8)))
                a.enqueue(FakeWorldModelServer.error(400))
                b.enqueue(FakeWorldModelServer.error(400))
                with pytest.raises(BackendError, match="HTTP 400"):
                    await backend.acomplete(MESSAGES, Sampling())
            finally:
                await backend.aclose_idle()

        asyncio.run(run())
    assert backend.balancer.served == [5, 4] or backend.balancer.served == [4, 5]
    assert backend.describe().endswith(", lean client)")


def test_bench_and_the_registry_build_the_one_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    lean = world_backend(base_url="http://127.0.0.1:9/v1", model="m")
    sdk = world_backend(base_url="http://127.0.0.1:9/v1", model="m", http_client="openai")
    registered = World(base_url="http://127.0.0.1:9/v1", model="m", backend="openai").backend
    assert all(isinstance(b, OpenAIBackend) for b in (lean, sdk, registered))
    assert type(lean.transport).__name__ == "LeanTransport"
    assert type(sdk.transport).__name__ == type(registered.transport).__name__ == "SdkTransport"
    with pytest.raises(ConfigError, match="transport"):
        OpenAIBackend(["http://127.0.0.1:9/v1"], transport="carrier-pigeon")
