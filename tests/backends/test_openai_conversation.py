"""The ``openai`` backend names each request's conversation (``X-Agentworld-Conversation``), so a
remote ``agentworld serve --perturb`` keys its faults by it; servers that do not know the header
(vLLM, SGLang, our fake one) answer as before."""

from __future__ import annotations

import asyncio

import pytest

from agentworld_plugins import World
from agentworld_plugins.backends import Sampling
from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.current import (
    CONVERSATION_HEADER,
    conversation_from_header,
    conversation_header,
    current_conversation,
)
from agentworld_plugins.fake_server import FakeWorldModelServer

CALL = {"tool_name": "list_issues", "arguments": {"repo": "acme/api"}}
HEADER = CONVERSATION_HEADER.lower()


def _named(server: FakeWorldModelServer) -> list[str | None]:
    return [r.headers.get(HEADER) for r in server.chat_requests]


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_each_session_sends_its_own_stable_name(transport: str) -> None:
    with FakeWorldModelServer() as server:
        backend = OpenAIBackend([server.url], model="m", transport=transport, max_retries=0)
        world = World(backend=backend, perturbations=[])
        first, second = world.session("mcp"), world.session("mcp")
        seen = [first.step(CALL), second.step(CALL), asyncio.run(first.astep(CALL))]
        backend.close()
        names = _named(server)
    # the fake server ignores the header, as vLLM does: the answers are the usual ones
    assert [o.text for o in seen] == ["observation for Turn 1"] * 2 + ["observation for Turn 2"]
    assert names == [f"mcp/{first.id}", f"mcp/{second.id}", f"mcp/{first.id}"]
    assert first.conversation == f"mcp/{first.id}" != second.conversation


def test_a_name_the_caller_gave_wins_and_no_name_sends_no_header() -> None:
    with FakeWorldModelServer() as server:
        world = World(base_url=server.url, model="m", max_retries=0, perturbations=[])
        token = current_conversation.set("swe/swe-0007")  # what bench infer sets for a record
        try:
            world.session("mcp").step(CALL)
        finally:
            current_conversation.reset(token)
        world.backend.complete([{"role": "user", "content": "### Turn 1"}], Sampling())
        world.close()
        assert _named(server) == ["swe/swe-0007", None]


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_any_session_id_makes_a_valid_header_that_the_server_decodes(transport: str) -> None:
    awkward = "run 1\r\nX-Injected: yes\u00e9\u4e16"
    with FakeWorldModelServer() as server:
        backend = OpenAIBackend([server.url], model="m", transport=transport, max_retries=0)
        World(backend=backend, perturbations=[]).session("mcp", session_id=awkward).step(CALL)
        backend.close()
        request = server.chat_requests[0]
    assert "x-injected" not in request.headers
    sent = request.headers[HEADER]
    assert sent.isascii() and sent.isprintable() and " " not in sent
    assert conversation_from_header(sent) == f"mcp/{awkward}"
    assert conversation_from_header(conversation_header("mcp/3fa2b1c0d4e5")) == "mcp/3fa2b1c0d4e5"
    long = conversation_header("x" * 5000)
    assert len(long) <= 512 and long != conversation_header("x" * 4999)
