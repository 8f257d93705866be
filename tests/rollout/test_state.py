"""The final world state reward checks read keeps the resource names the tools used."""

from __future__ import annotations

from agentworld_plugins import World
from agentworld_plugins.rollout.state import world_state

APPOINTMENT = {
    "name": "create_appointment",
    "description": "Create an appointment and return it with its new id.",
    "inputSchema": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "status": {"type": "string"}},
        "required": ["title"],
    },
}


def test_a_noun_folded_into_a_family_is_still_found_by_its_own_name() -> None:
    # the events family files appointments, meetings and events together under "event"
    with World(backend="offline", perturbations=[]) as world:
        session = world.session("mcp", tools=[APPOINTMENT])
        session.step(
            {"tool_name": "create_appointment", "arguments": {"title": "Rush job", "status": "done"}}
        )
        state = world_state(session)
    assert [item["title"] for item in state.ledger["appointment"]] == ["Rush job"]
    assert state.ledger["appointment"] is state.ledger["event"]
    assert state.sql("SELECT title FROM appointment WHERE status = 'done'") == [("Rush job",)]
