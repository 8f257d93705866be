"""The lean OpenAI-compatible client: real HTTP on 127.0.0.1, framing variants, errors."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from agentworld_plugins.backends import Sampling
from agentworld_plugins.bench.chat_client import ChatClientBackend
from agentworld_plugins.errors import BackendError, BackendUnavailableError, ConfigError
from agentworld_plugins.fake_server import FakeWorldModelServer

MESSAGES = [{"role": "user", "content": "### Turn 1\n**Action:**\nnoop()"}]
ANSWER = {
    "model": "m",
    "choices": [{"message": {"content": "hello", "reasoning_content": "why"}, "finish_reason": "stop"}],
}


async def test_answers_usage_reasoning_and_sampling_fields():
    with FakeWorldModelServer(api_key="sekrit") as server:
        server.enqueue({"content": "obs", "reasoning_content": "thinking"})
        backend = ChatClientBackend([server.url], api_key="sekrit")
        sampling = Sampling(temperature=0.0, max_tokens=64, seed=3, extra_body={"top_k": 20})
        completion = await backend.acomplete(MESSAGES, sampling)
        await backend.aclose_idle()
    assert (completion.text, completion.reasoning, completion.finish_reason) == ("obs", "thinking", "stop")
    assert completion.usage and completion.usage["completion_tokens"] >= 1
    assert backend.model == "fake-world-model"  # asked from /v1/models
    body = server.chat_requests[0].body
    assert body == {
        "model": "fake-world-model",
        "messages": MESSAGES,
        "temperature": 0.0,
        "max_tokens": 64,
        "seed": 3,
        "top_k": 20,
    }
    assert server.chat_requests[0].headers["authorization"] == "Bearer sekrit"


async def test_keep_alive_connections_are_reused():
    with FakeWorldModelServer() as server:
        backend = ChatClientBackend([server.url], model="m")
        for _ in range(5):
            await backend.acomplete(MESSAGES, Sampling())
        assert len(backend.endpoints[0].idle) == 1
        await backend.aclose_idle()
        assert backend.endpoints[0].idle == []


async def test_http_errors_map_to_backend_errors():
    with FakeWorldModelServer(api_key="right") as server:
        backend = ChatClientBackend([server.url], model="m", api_key="wrong")
        with pytest.raises(BackendError, match="HTTP 401") as info:
            await backend.acomplete(MESSAGES, Sampling())
        assert "--api-key" in (info.value.hint or "")
        backend = ChatClientBackend([server.url], model="m", api_key="right")
        # a reused connection that closes is retried once on a fresh one (a stale keep-alive), so
        # a server that drops the request twice is what surfaces
        drop = FakeWorldModelServer.disconnect()
        server.enqueue(FakeWorldModelServer.error(503), FakeWorldModelServer.malformed(), drop, drop)
        with pytest.raises(BackendError, match="HTTP 503"):
            await backend.acomplete(MESSAGES, Sampling())
        with pytest.raises(BackendError, match="not JSON"):
            await backend.acomplete(MESSAGES, Sampling())
        with pytest.raises(BackendUnavailableError, match="closed the connection"):
            await backend.acomplete(MESSAGES, Sampling())
        assert (await backend.acomplete(MESSAGES, Sampling())).text.startswith("<predicted_observation>")
        await backend.aclose_idle()


async def test_connection_refused_is_unavailable():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = ChatClientBackend([f"http://127.0.0.1:{port}/v1"], model="m")
    with pytest.raises(BackendUnavailableError, match="Cannot reach"):
        await backend.acomplete(MESSAGES, Sampling())


def test_bad_urls_are_config_errors():
    with pytest.raises(ConfigError):
        ChatClientBackend(["ftp://example/v1"])
    with pytest.raises(ConfigError):
        ChatClientBackend([])


async def _serve(handler):
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _read_request(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(v)
        for k, _, v in (line.partition(b":") for line in head.split(b"\r\n"))
        if k.lower() == b"content-length"
    )
    return await reader.readexactly(length)


@pytest.mark.parametrize("framing", ["chunked", "close", "gzip"])
async def test_response_framings(framing):
    body = json.dumps(ANSWER).encode()
    connections = []

    async def handler(reader, writer):
        connections.append(writer)
        while True:
            try:
                await _read_request(reader)
            except asyncio.IncompleteReadError:
                break
            if framing == "chunked":
                chunks = (
                    b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:]))
                    + b"0\r\n\r\n"
                )
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
            elif framing == "close":
                writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body)
                await writer.drain()
                writer.close()
                return
            else:
                packed = gzip.compress(body)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(packed), packed)
                )
            await writer.drain()
        writer.close()

    server, port = await _serve(handler)
    async with server:
        backend = ChatClientBackend([f"http://127.0.0.1:{port}/v1"], model="m")
        for _ in range(2):
            completion = await backend.acomplete(MESSAGES, Sampling())
            assert (completion.text, completion.reasoning) == ("hello", "why")
        await backend.aclose_idle()
    assert len(connections) == (2 if framing == "close" else 1)


async def test_a_keep_alive_connection_closed_by_the_server_is_replaced():
    body = json.dumps(ANSWER).encode()
    served = []

    async def handler(reader, writer):
        await _read_request(reader)
        served.append(1)
        # no Connection: close, yet the server hangs up after one answer (an idle timeout)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server, port = await _serve(handler)
    async with server:
        backend = ChatClientBackend([f"http://127.0.0.1:{port}/v1"], model="m")
        await backend.acomplete(MESSAGES, Sampling())
        await asyncio.sleep(0.05)
        assert (await backend.acomplete(MESSAGES, Sampling())).text == "hello"
        await backend.aclose_idle()
    assert len(served) == 2


async def test_several_base_urls_share_the_load():
    with FakeWorldModelServer() as a, FakeWorldModelServer() as b:
        backend = ChatClientBackend([a.url, b.url], model="m")
        await asyncio.gather(*[backend.acomplete(MESSAGES, Sampling()) for _ in range(10)])
        await backend.aclose_idle()
    assert len(a.chat_requests) > 0 and len(b.chat_requests) > 0
    assert len(a.chat_requests) + len(b.chat_requests) == 10


def test_sync_complete():
    with FakeWorldModelServer() as server:
        backend = ChatClientBackend([server.url], model="m")
        assert backend.complete(MESSAGES, Sampling()).text.startswith("<predicted_observation>")
        backend.close()
