"""LangChain tool substitution and the agent middleware, on the offline world, a fake backend and
a cassette. The real tool functions here fail the test if they are ever called."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from agentworld_plugins.adapters.langchain import SimulatedTool, simulate_tools, tool_definition
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool, ToolException, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError

from agentworld_plugins import Observation, World, hookimpl
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import ConfigError

pytest.importorskip("langchain.agents")
from agentworld_plugins.adapters.langchain import WorldModelToolMiddleware
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.checkpoint.memory import InMemorySaver

REAL_CALLS: list[tuple[str, Any]] = []


class ScriptedModel(GenericFakeChatModel):
    """A chat model that answers from a script and accepts tools (the fakes lack bind_tools)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


Call = tuple[str, dict[str, Any]]


def turns(*calls: Call | list[Call]) -> list[AIMessage]:
    """One AI message per entry (a tuple: one tool call, a list: parallel calls), then 'done'."""
    messages = []
    for n, entry in enumerate(calls):
        batch = entry if isinstance(entry, list) else [entry]
        tool_calls = [
            {"name": name, "args": args, "id": f"call_{n}_{i}"} for i, (name, args) in enumerate(batch)
        ]
        messages.append(AIMessage("", tool_calls=tool_calls))
    messages.append(AIMessage("done"))
    return messages


def script(*calls: Call | list[Call]) -> ScriptedModel:
    return ScriptedModel(messages=iter(turns(*calls)))


@tool
def create_ticket(title: str, priority: Literal["low", "high"] = "low") -> dict:
    """Create a support ticket and return it."""
    raise AssertionError("the real create_ticket ran")


@tool
def list_tickets(status: str = "open") -> list:
    """List the support tickets."""
    raise AssertionError("the real list_tickets ran")


@tool
def get_ticket(ticket_id: int) -> dict:
    """Fetch one ticket by id."""
    raise AssertionError("the real get_ticket ran")


EMAIL_SCHEMA = {
    "type": "object",
    "properties": {
        "to": {"type": "string", "description": "Recipient address."},
        "subject": {"type": "string"},
        "cc": {"type": "array", "items": {"type": "string"}, "default": []},
    },
    "required": ["to", "subject"],
}


def _send_email(**kwargs: Any) -> str:
    REAL_CALLS.append(("send_email", kwargs))
    return "sent"


send_email = StructuredTool.from_function(
    func=_send_email, name="send_email", description="Send an email.", args_schema=EMAIL_SCHEMA
)


@tool(response_format="content_and_artifact")
def list_orders(customer: str) -> tuple[str, list]:
    """List a customer's orders."""
    raise AssertionError("the real list_orders ran")


@tool(return_direct=True)
def close_ticket(ticket_id: int) -> str:
    """Close a ticket; the agent stops after it."""
    raise AssertionError("the real close_ticket ran")


@tool
def annotate_ticket(ticket_id: int, note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Add a note to a ticket."""
    raise AssertionError("the real annotate_ticket ran")


class CityLookup(BaseTool):
    """A tool whose schema comes from its _run signature (no args_schema)."""

    name: str = "lookup_city"
    description: str = "Look up a city."

    def _run(self, city: str, country: str = "NO") -> str:
        raise AssertionError("the real lookup_city ran")


ALL_TOOLS = [
    create_ticket,
    list_tickets,
    send_email,
    list_orders,
    close_ticket,
    annotate_ticket,
    CityLookup(),
]


@pytest.fixture(autouse=True)
def _clear_calls() -> Iterator[None]:
    REAL_CALLS.clear()
    yield
    REAL_CALLS.clear()


@pytest.fixture
def offline() -> World:
    return World(backend="offline")


def tool_messages(result: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


# -- the replacement keeps the interface ---------------------------------------------------------


def test_replacements_keep_name_description_schema_and_flags(offline: World) -> None:
    sims = simulate_tools(ALL_TOOLS, world=offline)
    assert len(sims) == len(ALL_TOOLS)
    for real, sim in zip(ALL_TOOLS, sims):
        assert isinstance(sim, SimulatedTool)
        assert sim.name == real.name
        assert sim.description == real.description
        assert sim.return_direct == real.return_direct
        assert sim.response_format == real.response_format
        assert convert_to_openai_tool(sim) == convert_to_openai_tool(real)
        if real.args_schema is not None:
            assert sim.args_schema is real.args_schema
        assert sim.original is real
    assert sims[4].return_direct is True
    assert sims[3].response_format == "content_and_artifact"


def test_all_tools_share_one_session_and_it_knows_their_definitions(offline: World) -> None:
    sims = simulate_tools([create_ticket, list_tickets, send_email], world=offline)
    assert sims[0].session is sims[1].session is sims[2].session
    listed = {t["name"]: t for t in sims[0].session.context["tools"]}
    assert listed["send_email"]["inputSchema"]["required"] == ["to", "subject"]
    assert listed == {t.name: tool_definition(t) for t in (create_ticket, list_tickets, send_email)}


def test_state_carries_across_tools(offline: World) -> None:
    create, listing, email = simulate_tools([create_ticket, list_tickets, send_email], world=offline)
    made = json.loads(create.invoke({"title": "Printer on fire", "priority": "high"}))
    assert made["title"] == "Printer on fire"
    seen = json.loads(listing.invoke({}))
    assert [t["title"] for t in seen] == ["Printer on fire"]
    sent = json.loads(email.invoke({"to": "ops@example.com", "subject": "fire"}))
    assert (sent["to"], sent["subject"], sent["label_ids"]) == ("ops@example.com", "fire", ["SENT"])
    assert REAL_CALLS == []
    assert [t.action["tool_name"] for t in create.session.trajectory.turns] == [
        "create_ticket",
        "list_tickets",
        "send_email",
    ]


def test_defaults_are_filled_for_both_kinds_of_schema(offline: World) -> None:
    create, email = simulate_tools([create_ticket, send_email], world=offline)
    create.invoke({"title": "a"})
    email.invoke({"to": "x@example.com", "subject": "s"})
    actions = [t.action["arguments"] for t in create.session.trajectory.turns]
    assert actions == [
        {"title": "a", "priority": "low"},
        {"to": "x@example.com", "subject": "s", "cc": []},
    ]


# -- bad calls -------------------------------------------------------------------------------------


def test_pydantic_validation_errors_match_the_real_tool(offline: World) -> None:
    (sim,) = simulate_tools([create_ticket], world=offline)
    bad = {"title": "x", "priority": "urgent"}
    with pytest.raises(ValidationError) as real_error:
        create_ticket.invoke(bad)
    with pytest.raises(ValidationError) as sim_error:
        sim.invoke(bad)
    assert str(sim_error.value) == str(real_error.value)
    assert sim.session.trajectory.turns == []  # the world never saw the bad call


def test_json_schema_errors_come_back_as_the_mcp_error_text(offline: World) -> None:
    (email,) = simulate_tools([send_email], world=offline)
    message = email.invoke({"args": {"to": 5}, "id": "c1", "name": "send_email", "type": "tool_call"})
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert message.content.startswith("Error calling tool 'send_email'")
    assert "subject" in message.content and "Field required" in message.content
    assert "to\n  Input should be a valid string" in message.content
    assert email.session.trajectory.turns == []


def test_world_errors_are_returned_as_text_unless_the_tool_says_raise(offline: World) -> None:
    (sim,) = simulate_tools([get_ticket], world=offline)
    assert sim.invoke({"ticket_id": 42}) == "Error: ticket 42 not found"

    strict = StructuredTool.from_function(
        func=lambda ticket_id: None,
        name="get_ticket",
        description="Fetch one ticket.",
        handle_tool_error=False,
    )
    (strict_sim,) = simulate_tools([strict], world=offline)
    assert strict_sim.handle_tool_error is False
    with pytest.raises(ToolException, match="ticket 42 not found"):
        strict_sim.invoke({"ticket_id": 42})

    custom = StructuredTool.from_function(
        func=lambda ticket_id: None,
        name="get_ticket",
        description="Fetch one ticket.",
        handle_tool_error="the ticket service failed",
    )
    (custom_sim,) = simulate_tools([custom], world=offline)
    assert custom_sim.invoke({"ticket_id": 42}) == "the ticket service failed"


def test_content_and_artifact_and_injected_arguments(offline: World) -> None:
    orders, annotate = simulate_tools([list_orders, annotate_ticket], world=offline)
    message = orders.invoke(
        {"args": {"customer": "acme"}, "id": "c1", "name": "list_orders", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage)
    assert message.artifact == json.loads(message.content)
    message = annotate.invoke(
        {"args": {"ticket_id": 1, "note": "hi"}, "id": "c2", "name": "annotate_ticket", "type": "tool_call"}
    )
    assert message.tool_call_id == "c2"
    assert orders.session.trajectory.turns[-1].action["arguments"] == {"ticket_id": 1, "note": "hi"}


def test_string_input_reaches_the_first_argument(offline: World) -> None:
    (city,) = simulate_tools([CityLookup()], world=offline)
    city.invoke("Bergen")
    assert city.session.trajectory.turns[-1].action["arguments"] == {"city": "Bergen", "country": "NO"}


def test_async_calls_share_the_session(offline: World) -> None:
    create, listing = simulate_tools([create_ticket, list_tickets], world=offline)

    async def go() -> list[Any]:
        await asyncio.gather(*(create.ainvoke({"title": f"t{i}"}) for i in range(3)))
        return json.loads(await listing.ainvoke({}))

    assert sorted(t["title"] for t in asyncio.run(go())) == ["t0", "t1", "t2"]


def test_domain_must_take_tool_calls(offline: World) -> None:
    with pytest.raises(ConfigError, match="does not take tool calls"):
        simulate_tools([create_ticket], world=offline, domain="terminal")
    with pytest.raises(ConfigError, match="only answers search tools"):
        simulate_tools([create_ticket], world=offline, domain="search")


# -- what a world model is asked -----------------------------------------------------------------


def test_the_world_model_gets_the_tool_definitions_and_the_call() -> None:
    backend = FakeBackend().enqueue('<predicted_observation>{"id": 7}</predicted_observation>')
    (sim,) = simulate_tools(
        [create_ticket], world=World(backend=backend), world_bible="Tickets are numbered from 7."
    )
    assert sim.invoke({"title": "a"}) == '{"id": 7}'
    messages, _ = backend.history[0]
    system, turn = messages[0]["content"], messages[-1]["content"]
    assert '"name": "create_ticket"' in system and '"enum": [' in system
    assert "## World Bible" in system and "Tickets are numbered from 7." in system
    assert '"tool_name": "create_ticket"' in turn and '"priority": "low"' in turn


def test_perturbation_plugins_reach_the_session(offline: World) -> None:
    class Outage:
        @hookimpl
        def before_step(self, session: Any, action: Any) -> Observation:
            return Observation(text="Error: 503 Service Unavailable", is_error=True)

    (sim,) = simulate_tools([create_ticket], world=offline, perturbations=[Outage()])
    assert sim.invoke({"title": "a"}) == "Error: 503 Service Unavailable"


# -- agents ----------------------------------------------------------------------------------------

SCRIPT = (
    ("create_ticket", {"title": "Printer on fire", "priority": "high"}),
    ("list_tickets", {}),
    ("send_email", {"to": "ops@example.com", "subject": "Printer"}),
)


def test_create_agent_runs_on_three_substituted_tools(offline: World) -> None:
    real = [create_ticket, list_tickets, send_email]
    sims = simulate_tools(real, world=offline)
    assert [convert_to_openai_tool(t) for t in sims] == [convert_to_openai_tool(t) for t in real]
    agent = create_agent(script(*SCRIPT), tools=sims)
    result = agent.invoke({"messages": [("user", "report the printer")]})
    created, listed, emailed = tool_messages(result)
    assert json.loads(created.content)["title"] == "Printer on fire"
    assert json.loads(listed.content) == [json.loads(created.content)]
    assert "ops@example.com" in emailed.content
    assert result["messages"][-1].content == "done"
    assert REAL_CALLS == []


def test_middleware_emulates_the_named_tools_and_runs_the_others(offline: World, tmp_path: Path) -> None:
    from agentworld_plugins.adapters.search import TavilySearch

    real_search = TavilySearch(world=offline)  # stands in for langchain_tavily.TavilySearch
    middleware = WorldModelToolMiddleware(
        tools=["create_ticket", "list_tickets", "tavily_search"],
        world=offline,
        trajectory_path=tmp_path / "runs.jsonl",
    )
    agent = create_agent(
        script(*SCRIPT, ("tavily_search", {"query": "sourdough starter feeding"})),
        tools=[create_ticket, list_tickets, send_email, real_search],
        middleware=[middleware],
    )
    result = agent.invoke({"messages": [("user", "go")]})
    created, listed, emailed, searched = tool_messages(result)
    assert json.loads(listed.content) == [json.loads(created.content)]
    assert emailed.content == "sent" and [("send_email", SCRIPT[2][1])] == REAL_CALLS
    found = json.loads(searched.content)
    assert found["results"][0]["url"] == "https://kitchenledger.com/recipes/country-sourdough-loaf"
    assert real_search.group.sessions == {}  # the agent's own search tool never ran

    (group,) = middleware.groups.values()
    assert set(group.sessions) == {"mcp", "search"}
    assert sorted(len(t.turns) for t in middleware.trajectories()) == [1, 2]
    records = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [r["action"].get("tool_name", r["action"].get("name")) for r in records] == [
        "create_ticket",
        "list_tickets",
        "web_search",
    ]


def _contents(result: dict[str, Any]) -> list[str]:
    return [str(m.content) for m in tool_messages(result)]


def _run(world: World) -> list[str]:
    middleware = WorldModelToolMiddleware(world=world)
    agent = create_agent(
        script(*SCRIPT), tools=[create_ticket, list_tickets, send_email], middleware=[middleware]
    )
    return _contents(agent.invoke({"messages": [("user", "go")]}))


def test_runs_are_reproducible_offline() -> None:
    first, second = _run(World(backend="offline")), _run(World(backend="offline"))
    assert first == second and len(first) == 3
    assert REAL_CALLS == []


def test_runs_replay_from_a_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "run.db"
    recorded = _run(World(backend=f"cassette:{cassette},offline"))
    replayed = _run(World(backend=f"cassette:{cassette}?mode=none"))  # no world behind it
    assert replayed == recorded


def test_middleware_keeps_one_world_per_thread(offline: World) -> None:
    middleware = WorldModelToolMiddleware(world=offline)
    runs = (
        turns(("create_ticket", {"title": "a"})) + turns(("list_tickets", {})) + turns(("list_tickets", {}))
    )
    model = ScriptedModel(messages=iter(runs))
    agent = create_agent(
        model, tools=[create_ticket, list_tickets], middleware=[middleware], checkpointer=InMemorySaver()
    )
    agent.invoke({"messages": [("user", "1")]}, {"configurable": {"thread_id": "A"}})
    again = agent.invoke({"messages": [("user", "2")]}, {"configurable": {"thread_id": "A"}})
    other = agent.invoke({"messages": [("user", "3")]}, {"configurable": {"thread_id": "B"}})
    assert [t["title"] for t in json.loads(tool_messages(again)[-1].content)] == ["a"]
    assert json.loads(tool_messages(other)[-1].content) == []
    assert set(middleware.groups) == {"thread:A", "thread:B"}


def test_each_run_without_a_thread_gets_a_fresh_world(offline: World) -> None:
    middleware = WorldModelToolMiddleware(world=offline)
    for title in ("a", "b"):
        agent = create_agent(
            script(("create_ticket", {"title": title}), ("list_tickets", {})),
            tools=[create_ticket, list_tickets],
            middleware=[middleware],
        )
        listed = tool_messages(agent.invoke({"messages": [("user", "go")]}))[-1]
        assert [t["title"] for t in json.loads(listed.content)] == [title]
    assert len(middleware.groups) == 2


def test_middleware_async_with_parallel_calls(offline: World) -> None:
    middleware = WorldModelToolMiddleware(tools=[create_ticket, list_tickets], world=offline)
    agent = create_agent(
        script([("create_ticket", {"title": f"t{i}"}) for i in range(3)], ("list_tickets", {})),
        tools=[create_ticket, list_tickets],
        middleware=[middleware],
    )
    result = asyncio.run(agent.ainvoke({"messages": [("user", "go")]}))
    listed = json.loads(tool_messages(result)[-1].content)
    assert sorted(t["title"] for t in listed) == ["t0", "t1", "t2"]


def test_middleware_bad_arguments_get_the_tool_nodes_error(offline: World) -> None:
    middleware = WorldModelToolMiddleware(world=offline)
    agent = create_agent(
        script(("create_ticket", {"title": "x", "priority": "urgent"})),
        tools=[create_ticket],
        middleware=[middleware],
    )
    (message,) = tool_messages(agent.invoke({"messages": [("user", "go")]}))
    assert message.status == "error"
    assert "Error invoking tool 'create_ticket'" in message.content and "priority" in message.content
