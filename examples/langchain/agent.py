"""A LangChain helpdesk agent whose tools run in a simulated world: offline, no key, no network.

    pip install -e ".[langchain]"
    python examples/langchain/agent.py                         # scripted agent model, offline world
    python examples/langchain/agent.py --trajectory run.jsonl  # also write the world's turns
    AGENTWORLD_BASE_URL=http://localhost:8000/v1 python examples/langchain/agent.py   # Qwen-AgentWorld
    python examples/langchain/agent.py --model openai:gpt-4.1-mini   # a real agent model (its key needed)

The agent has four tools: ``create_ticket``, ``list_tickets``, ``send_email`` and
``tavily_search``. Part 1 substitutes three of them with :func:`simulate_tools`; part 2 keeps
the real tools and lets :class:`WorldModelToolMiddleware` answer three of them from the world,
while ``send_email`` really runs (here it only prints). In both, the ticket created by one tool
is listed by the next: the simulated world keeps state across calls.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Literal

from agentworld_plugins.adapters.langchain import WorldModelToolMiddleware, simulate_tools
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

from agentworld_plugins import World

try:  # the real Tavily tool when installed; the simulated one has the same name, schema and shape
    from langchain_tavily import TavilySearch
except ImportError:
    from agentworld_plugins.adapters.search import TavilySearch

WORLD_BIBLE = """# Northwind Printers
Northwind Printers makes the LX-9 office printer. Error code E42 on an LX-9 means the fuser is
overheating: switch the printer off for 30 minutes and call Northwind support on 555-0142.
"""


@tool
def create_ticket(title: str, priority: Literal["low", "high"] = "low") -> dict:
    """Create a helpdesk ticket and return it."""
    raise RuntimeError("the real ticket system is not reachable from this example")


@tool
def list_tickets(status: str = "open") -> list:
    """List helpdesk tickets by status."""
    raise RuntimeError("the real ticket system is not reachable from this example")


@tool
def send_email(to: str, subject: str, body: str = "") -> str:
    """Send an email."""
    print(f"    (real send_email ran: to={to!r} subject={subject!r})")
    return f"Email to {to} queued."


class ScriptedModel(GenericFakeChatModel):
    """A stand-in agent model that plays a fixed script of tool calls (no model, no key)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def scripted_model() -> ScriptedModel:
    calls = [
        ("tavily_search", {"query": "LX-9 printer error E42"}),
        ("create_ticket", {"title": "LX-9 shows E42 (fuser overheating)", "priority": "high"}),
        ("list_tickets", {}),
        ("send_email", {"to": "it@example.com", "subject": "LX-9 E42", "body": "Ticket filed."}),
    ]
    messages: list[BaseMessage] = [
        AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{i}"}])
        for i, (name, args) in enumerate(calls)
    ]
    messages.append(AIMessage("Filed a high-priority ticket and told IT: the fuser is overheating."))
    return ScriptedModel(messages=iter(messages))


def agent_model(name: str | None) -> Any:
    if not name:
        return scripted_model()
    from langchain.chat_models import init_chat_model

    return init_chat_model(name)


def show(result: dict[str, Any]) -> None:
    for message in result["messages"]:
        if isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                print(f"  agent -> {call['name']}({json.dumps(call['args'])})")
        elif isinstance(message, ToolMessage):
            text = str(message.content).replace("\n", " ")
            print(f"  tool  <- {text[:160]}{'...' if len(text) > 160 else ''}")
        elif isinstance(message, AIMessage):
            print(f"  agent: {message.content}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="A LangChain chat model ('provider:name'); default: a scripted one.")
    parser.add_argument("--trajectory", type=Path, help="Append the world's turns here as JSONL records.")
    args = parser.parse_args()
    world = World()  # AGENTWORLD_* settings; the offline world when none are set
    prompt = {"messages": [("user", "Our LX-9 printer shows E42. Look it up, file a ticket, tell IT.")]}
    # the real tool is never called here (the world answers it), but langchain-tavily wants a key
    search = TavilySearch(max_results=3, tavily_api_key=os.environ.get("TAVILY_API_KEY", "unused"))

    # 1. substituted tools: same names, descriptions and schemas; one world session shared
    tools = simulate_tools([create_ticket, list_tickets, search], world=world, world_bible=WORLD_BIBLE)
    agent = create_agent(agent_model(args.model), tools=[*tools, send_email])
    print("\n== simulate_tools (send_email is the real one)")
    show(agent.invoke(prompt))

    # 2. the real tools, with the middleware answering three of them from the world
    middleware = WorldModelToolMiddleware(
        tools=["create_ticket", "list_tickets", "tavily_search"],
        world=world,
        world_bible=WORLD_BIBLE,
        trajectory_path=args.trajectory,
    )
    agent = create_agent(
        agent_model(args.model),
        tools=[create_ticket, list_tickets, send_email, search],
        middleware=[middleware],
    )
    print("\n== WorldModelToolMiddleware (send_email runs for real)")
    show(agent.invoke(prompt))
    turns = sum(len(t.turns) for t in middleware.trajectories())
    print(
        f"\nthe middleware's world recorded {turns} turns"
        + (f" in {args.trajectory}" if args.trajectory else "")
    )


if __name__ == "__main__":
    main()
