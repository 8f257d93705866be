"""The final world state reward checks read: it keeps the resource names the tools used, has a
table for every resource the tools act on (empty when no item was made), the world's own SQL
database, and a clear error for a table the world does not have."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agentworld_plugins import World, hookimpl
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.rollout import RolloutSpec, arollout, parse_task
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


def _issues_session(world: World):
    return world.session("mcp", tools=world.pm.registry.tool_pack("github-issues"))


def test_a_resource_with_no_items_is_an_empty_table_with_its_columns() -> None:
    with World(backend="offline", perturbations=[]) as world:
        session = _issues_session(world)
        state = world_state(session)
        assert state.ledger["issue"] == [] and state.ledger["issue_comment"] == []
        assert state.sql("SELECT count(*) FROM issue") == [(0,)]
        assert state.sql("SELECT count(*) FROM issues WHERE labels LIKE '%bug%' AND state = 'open'") == [(0,)]
        session.step({"tool_name": "create_issue", "arguments": {"owner": "a", "repo": "b", "title": "x"}})
        state = world_state(session)
    # a field no item was given is a column all the same (NULL), not "no such column"
    assert state.sql("SELECT title, body, milestone FROM issues") == [("x", None, None)]
    assert state.sql("SELECT count(*) FROM issue_comments") == [(0,)]
    assert set(state.columns["issue"]) >= {"number", "title", "body", "labels", "state", "comments"}


def test_a_table_the_world_does_not_have_names_the_ones_it_has() -> None:
    with World(backend="offline", perturbations=[]) as world:
        state = world_state(_issues_session(world))
    with pytest.raises(sqlite3.OperationalError) as caught:
        state.sql("SELECT count(*) FROM pulls")
    assert str(caught.value) == (
        "no such table: pulls (the world's tables: issue, issue_comment, issue_comments, issues)"
    )


def test_the_sql_tools_database_is_queried_too() -> None:
    with World(backend="offline", perturbations=[]) as world:
        session = world.session("mcp", tools=world.pm.registry.tool_pack("sql-database"))
        session.step({"tool_name": "create_table", "arguments": {"query": "CREATE TABLE users (name TEXT)"}})
        session.step({"tool_name": "write_query", "arguments": {"query": "INSERT INTO users VALUES ('ada')"}})
        state = world_state(session)
    assert state.sql("SELECT name FROM users") == [("ada",)]


async def test_no_issue_created_scores_1_on_count_0(tmp_path: Path) -> None:
    """ "No issue was created" (``count(*) = 0``) is true when the agent made none."""
    task = parse_task(
        {
            "id": "t",
            "domain": "mcp",
            "tool_pack": "github-issues",
            "instruction": "Do not open an issue.",
            "reward": [
                {"type": "sql", "query": "SELECT count(*) FROM issues", "expect": [[0]]},
                {"type": "sql", "query": "SELECT count(*) FROM issue_comment", "expect": [[0]]},
            ],
        },
        "t",
    )
    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            {"t": [{"tool": "list_issues", "arguments": {"owner": "a", "repo": "b"}}, {"answer": "none"}]}
        )
    )
    out = tmp_path / "e.jsonl"
    with World(backend="offline", perturbations=[]) as world:
        await arollout([task], out, RolloutSpec(agent=f"scripted:{script}"), world=world)
    line = json.loads(out.read_text())
    assert line["reward"] == 1.0, line["reward_breakdown"]


def test_a_plugin_declares_its_worlds_tables() -> None:
    class Widgets:
        @hookimpl
        def register_offline_worlds(self, register):
            register("mcp", lambda context: ({"widget": ["id", "name"]}, False), kind="tables")

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Widgets())
    row = {"id": "t", "domain": "mcp", "tool_pack": "github-issues", "instruction": "go"}
    task = parse_task(
        {**row, "reward": [{"type": "sql", "query": "SELECT name FROM widgets"}]}, "t", pm.registry
    )
    with pytest.raises(ConfigError, match="no such table: issue \\(the world's tables: widget, widgets\\)"):
        parse_task({**row, "reward": [{"type": "sql", "query": "SELECT 1 FROM issue"}]}, "t", pm.registry)
    with World(backend="offline", plugin_manager=pm, perturbations=[]) as world:
        state = world_state(world.session("mcp", **task.session_context(pm.registry)))
    assert state.sql("SELECT count(*), count(name) FROM widgets") == [(0, 0)]
