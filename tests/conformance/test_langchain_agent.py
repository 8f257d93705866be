"""A real ``langchain.agents.create_agent`` agent with ``WorldModelToolMiddleware`` made the
README's way (no ``world=``), driven by langchain-core's own fake chat model emitting tool calls."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="langchain is in the dev extra")

from agentworld_plugins.adapters.langchain import WorldModelToolMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

ran_for_real: list[str] = []


@tool
def create_ticket(title: str, priority: str = "normal") -> str:
    """Create a support ticket and return its id."""
    raise AssertionError("a simulated tool must not run")


@tool
def local_clock() -> str:
    """The local time (a real tool the middleware leaves alone)."""
    ran_for_real.append("local_clock")
    return "12:00"


class ToolCallingFake(GenericFakeChatModel):
    """The fake chat model as an agent needs it: ``create_agent`` binds tools to the model."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self


def _model() -> ToolCallingFake:
    return ToolCallingFake(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "create_ticket", "args": {"title": "Printer on fire"}, "id": "c1"},
                        {"name": "local_clock", "args": {}, "id": "c2"},
                    ],
                ),
                AIMessage(content="Filed it."),
            ]
        )
    )


def _bounded(fn: Any) -> Any:
    """Run ``fn`` in a thread; a deadlock shows as a failure instead of a hung suite."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # pragma: no cover - reported below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(300)
    assert not thread.is_alive(), "the agent run never finished (deadlock)"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _check(result: dict[str, Any]) -> None:
    tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    by_name = {m.name: m for m in tool_messages}
    assert set(by_name) == {"create_ticket", "local_clock"}
    assert by_name["local_clock"].content == "12:00"
    assert by_name["create_ticket"].content.strip()
    assert by_name["create_ticket"].status != "error", by_name["create_ticket"].content
    assert result["messages"][-1].content == "Filed it."


def test_create_agent_with_middleware_without_world_sync() -> None:
    ran_for_real.clear()
    middleware = WorldModelToolMiddleware(tools=["create_ticket"])
    agent = create_agent(_model(), tools=[create_ticket, local_clock], middleware=[middleware])
    result = _bounded(lambda: agent.invoke({"messages": [{"role": "user", "content": "file a ticket"}]}))
    _check(result)
    assert ran_for_real == ["local_clock"]
    assert any(t.turns for t in middleware.trajectories())


def test_create_agent_with_middleware_without_world_async() -> None:
    middleware = WorldModelToolMiddleware()
    agent = create_agent(_model(), tools=[create_ticket, local_clock], middleware=[middleware])
    result = _bounded(
        lambda: asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "file a ticket"}]}))
    )
    tool_messages = {m.name: m for m in result["messages"] if isinstance(m, ToolMessage)}
    # tools=None emulates every tool, the clock included
    assert set(tool_messages) == {"create_ticket", "local_clock"}
    assert all(m.status != "error" for m in tool_messages.values())


def test_dict_schema_tool_is_validated_strictly_in_a_real_agent() -> None:
    """A tool defined by a JSON-schema dict: LangChain passes its arguments on unconverted, so
    "yes" is not a boolean; the error shows the arguments as the model sent them."""
    from langchain_core.tools import StructuredTool

    def notify(**kwargs: Any) -> str:
        raise AssertionError("a simulated tool must not run")

    schema = {
        "type": "object",
        "properties": {"user": {"type": "string"}, "urgent": {"type": "boolean"}},
        "required": ["user"],
    }
    notify_tool = StructuredTool.from_function(
        notify, name="notify", description="Notify a user.", args_schema=schema
    )
    model = ToolCallingFake(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "notify", "args": {"user": "ana", "urgent": "yes"}, "id": "n1"},
                        {"name": "notify", "args": {"user": "bo", "urgent": True}, "id": "n2"},
                    ],
                ),
                AIMessage(content="Done."),
            ]
        )
    )
    agent = create_agent(model, tools=[notify_tool], middleware=[WorldModelToolMiddleware()])
    result = _bounded(lambda: agent.invoke({"messages": [{"role": "user", "content": "notify"}]}))
    by_id = {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}
    assert by_id["n1"].status == "error"
    assert "urgent\n  Input should be a valid boolean" in by_id["n1"].content
    assert "input_value='yes'" in by_id["n1"].content
    assert by_id["n2"].status != "error"
