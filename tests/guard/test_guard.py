"""The consistency guard (#30): each check kind on each domain, each policy, a plugin's guard, and
the guard through real fronts (an MCP client over stdio, the ``serve`` world)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types

from agentworld_plugins import World
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.guard import GuardedBackend, guard_summary, measure
from agentworld_plugins.guard.core import Checker, Verdict
from agentworld_plugins.guard.drift import DriftBackend
from agentworld_plugins.harness import WorldHarness


def _world(policy: str, rate: float = 1.0) -> tuple[World, DriftBackend]:
    drift = DriftBackend(World(backend="offline").backend, rate, "test")
    return World(backend=measure._guarded(drift, policy)), drift


def _steps(world: World, drift: DriftBackend, kind: str, n: int = 0) -> list[tuple[Any, bool, Any, str]]:
    """Run one scripted episode of ``kind`` beside a consistent oracle: (action, checkable,
    observation, the consistent answer) per step; only checkable steps are corrupted."""
    domain, pack, script = measure.EPISODES[kind]
    tools = world.pm.registry.tool_pack(pack) if pack else None
    session = world.make_session(domain, tools=tools) if tools else world.make_session(domain)
    truth = World(backend="offline")
    oracle = truth.make_session(domain, tools=tools) if tools else truth.make_session(domain)
    out: list[tuple[Any, bool, Any, str]] = []
    answers: list[str] = []
    for planned, checkable in script(random.Random(n), n):
        action = planned(answers) if callable(planned) else planned
        drift.armed = checkable
        observation = session.step(action)
        answers.append(observation.text)
        out.append((action, checkable, observation, oracle.step(action).text))
    return out


KINDS = list(measure.EPISODES)


@pytest.mark.parametrize("kind", KINDS)
def test_flag_reports_every_corrupted_checkable_step_with_the_turn_that_fixed_the_fact(kind: str) -> None:
    world, drift = _world("flag")
    flagged = 0
    for action, checkable, observation, truth in _steps(world, drift, kind):
        event = observation.metadata["guard"]
        if not checkable:
            assert not event["contradictions"], (action, event)
            continue
        if observation.text.rstrip() != truth.rstrip():  # the agent got a contradiction: it was flagged
            assert event["contradictions"], (action, observation.text)
            assert event["outcome"] == "flagged"
            first = event["contradictions"][0]
            assert 0 <= first["turn"] < observation.metadata["turn"]
            assert first["turn"] >= 1 or first["kind"] == "duplicate-id"  # a repeat needs no earlier turn
            assert first["source"] in ("agent", "model")
            flagged += 1
    assert flagged >= 2


@pytest.mark.parametrize("kind", KINDS)
def test_repair_leaves_the_agent_no_contradiction(kind: str) -> None:
    world, drift = _world("repair")
    outcomes = []
    differ = 0
    for n in range(3):
        for _action, checkable, observation, truth in _steps(world, drift, kind, n):
            if checkable:
                differ += observation.text.rstrip() != truth.rstrip()
                outcomes.append(observation.metadata["guard"]["outcome"])
    assert "substituted" in outcomes  # the drift model contradicts again when asked twice
    # a record restored into a list carries the fields the world knows, not always every field
    # the model would have written: the one known gap (docs/guard.md)
    assert differ <= (2 if kind == "mcp-issues" else 0)  # of 21 checkable steps


@pytest.mark.parametrize("kind", KINDS)
def test_a_consistent_model_gets_no_false_alarm(kind: str) -> None:
    world, drift = _world("repair", rate=0.0)
    for n in range(3):
        for action, _checkable, observation, truth in _steps(world, drift, kind, n):
            assert observation.metadata["guard"]["contradictions"] == [], action
            assert observation.text == truth


def test_engine_answers_a_known_file_without_the_model() -> None:
    world, drift = _world("engine")
    session = world.make_session("mcp", tools=world.pm.registry.tool_pack("filesystem"))
    session.step({"tool_name": "write_file", "arguments": {"path": "/app/x.txt", "content": "one\ntwo\n"}})
    drift.calls = []
    read = session.step({"tool_name": "read_text_file", "arguments": {"path": "/app/x.txt"}})
    assert read.text == "one\ntwo\n"
    assert read.metadata["guard"]["outcome"] == "engine"
    assert drift.calls == []  # the model was not asked
    # the offline world under the drift model still took the turn in (replayed into it)
    listing = session.step({"tool_name": "list_directory", "arguments": {"path": "/app"}})
    assert "x.txt" in listing.text


def test_a_deleted_record_that_comes_back_is_a_contradiction() -> None:
    world = World(backend="guarded:flag:offline")
    tools = [
        {
            "name": "create_note",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        },
        {"name": "delete_note", "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}},
        {"name": "get_note", "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    ]
    session = world.make_session("mcp", tools=tools)
    created = session.step({"tool_name": "create_note", "arguments": {"title": "Buy milk"}})
    assert created.metadata["guard"]["contradictions"] == []
    import json

    rid = json.loads(created.text)["id"]
    session.step({"tool_name": "delete_note", "arguments": {"id": rid}})
    checker = world.backend.checkers["mcp"]  # type: ignore[attr-defined]
    facts = session.state["guard"]["facts"]
    action = world.pm.registry.domain("mcp").validate_action(
        {"tool_name": "get_note", "arguments": {"id": rid}}
    )
    verdict = checker.check(facts, action, json.dumps({"id": rid, "title": "Buy milk"}), session.context)
    assert [c.kind for c in verdict.contradictions] == ["absence"]
    assert verdict.contradictions[0].turn == 2 and verdict.contradictions[0].source == "agent"


def test_sql_select_after_insert_and_delete_is_checked_by_the_shadow_database() -> None:
    world, drift = _world("flag")
    drift.armed = False
    session = world.make_session("mcp", tools=world.pm.registry.tool_pack("sql-database"))
    q = lambda tool, sql: session.step({"tool_name": tool, "arguments": {"query": sql}})  # noqa: E731
    q("create_table", "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    q("write_query", "INSERT INTO t (name) VALUES ('a'), ('b'), ('c')")
    q("write_query", "DELETE FROM t WHERE name = 'b'")
    drift.armed = True
    answer = q("read_query", "SELECT name FROM t ORDER BY id")
    event = answer.metadata["guard"]
    assert event["checked"] and event["contradictions"][0]["kind"] == "rows"
    assert event["contradictions"][0]["turn"] == 3  # the DELETE fixed the rows last


def test_policies_and_specs() -> None:
    assert World(backend="guarded:offline").backend.describe().startswith("guarded(default")
    assert World(backend="guarded:repair:offline").backend.policy == "repair"  # type: ignore[attr-defined]
    assert World(backend="offline", guard="flag").backend.describe() == "guarded(flag: offline)"
    with pytest.raises(ConfigError, match="guard policy"):
        World(backend="guarded:fix").backend  # noqa: B018
    with pytest.raises(ConfigError, match="drift"):
        World(backend="drift:lots").backend  # noqa: B018


def test_guard_summary_counts_events() -> None:
    world, drift = _world("repair")
    metadata = [obs.metadata for _a, _c, obs, _t in _steps(world, drift, "mcp-files")]
    counts = guard_summary(metadata)
    assert counts["checked"] >= 4 and counts["contradicted"] >= 1
    assert counts["contradicted"] == counts.get("repaired", 0) + counts.get("substituted", 0)


def test_a_plugin_guard_replaces_the_builtin_one() -> None:
    from agentworld_plugins.hookspecs import hookimpl
    from agentworld_plugins.plugins import new_plugin_manager

    seen: list[str] = []

    class Shouting(Checker):
        domain = "search"

        def check(self, facts: dict[str, Any], action: Any, text: str, context: dict[str, Any]) -> Verdict:
            seen.append(text)
            return Verdict(checked=True)

        def commit(
            self,
            facts: dict[str, Any],
            action: Any,
            text: str,
            is_error: bool,
            turn: int,
            context: dict[str, Any],
        ) -> None:
            facts["n"] = facts.get("n", 0) + 1

    class Plugin:
        @hookimpl
        def register_guards(self, register: Callable[..., None]) -> None:
            register("search", Shouting)

    pm = new_plugin_manager()
    pm.register(Plugin())
    world = World(backend="offline", plugin_manager=pm)
    guarded = GuardedBackend(world.backend, {d: f() for d, f in pm.registry.guards.items()}, "flag")
    session = World(backend=guarded, plugin_manager=pm).make_session("search")
    observation = session.step({"name": "web_search", "arguments": {"query": "python"}})
    assert seen == [observation.text]
    assert session.state["guard"]["facts"]["n"] == 1


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def test_through_a_real_mcp_client_over_stdio(tmp_path: Path) -> None:
    """A stdio MCP server on a model that contradicts every read: the client sees the facts."""
    with WorldHarness(tmp_path, name="guarded", backend="guarded:repair:drift:1.0") as harness:
        server = harness.mcp_stdio(pack="filesystem")

        async def run() -> tuple[str, str, str]:
            async with Client(server.sdk()) as client:
                await client.call_tool(
                    "write_file", {"path": "/app/plan.txt", "content": "step one\nstep two\n"}
                )
                read = await client.call_tool("read_text_file", {"path": "/app/plan.txt"})
                await client.call_tool(
                    "move_file", {"source": "/app/plan.txt", "destination": "/app/done.txt"}
                )
                listing = await client.call_tool("list_directory", {"path": "/app"})
                again = await client.call_tool("read_text_file", {"path": "/app/done.txt"})
                return _text(read), _text(listing), _text(again)

        read, listing, again = asyncio.run(run())
    assert read == "step one\nstep two\n"
    assert again == "step one\nstep two\n"
    assert "done.txt" in listing and "plan.txt" not in listing


def test_a_conversation_without_a_session_is_checked_from_its_earlier_turns() -> None:
    """``serve`` and ``bench infer`` send whole conversations: the facts come from their turns."""
    from agentworld_plugins.backends.base import Sampling
    from agentworld_plugins.turns import build_messages

    played = World(backend="offline").make_session("mcp", tools=World().pm.registry.tool_pack("filesystem"))
    played.step({"tool_name": "write_file", "arguments": {"path": "/app/n.txt", "content": "kept\nlines\n"}})
    played.step({"tool_name": "read_text_file", "arguments": {"path": "/app/n.txt"}})
    turns = played.trajectory.turns
    messages = build_messages(
        played.system_prompt, [(turns[0].prompt, turns[0].observation.text)], turns[1].prompt
    )
    for policy, outcome in (("flag", "flagged"), ("repair", "substituted")):
        drift = DriftBackend(World(backend="offline").backend, 1.0, "stateless")
        guarded = measure._guarded(drift, policy)
        answer = guarded.complete(messages, Sampling())
        assert answer.metadata["guard"]["outcome"] == outcome
        assert answer.metadata["guard"]["contradictions"][0]["subject"] == "/app/n.txt"
        if policy == "repair":
            assert "kept\nlines\n" in answer.text


def _clock(policy: str) -> tuple[Any, DriftBackend]:
    import yaml

    task = yaml.safe_load(
        (Path(__file__).parents[2] / "adapters/gui/tasks/android/clock-set-alarm.yaml").read_text()
    )
    world, drift = _world(policy)
    session = world.make_session("android")
    session.context["screens"] = task["screens"]
    return session, drift


ALARM_ON = '"content_description": "7:00 AM alarm", "class_name": "android.widget.Switch"'


@pytest.mark.parametrize("policy", ["flag", "repair"])
def test_an_android_toggle_the_agent_switched_stays_switched(policy: str) -> None:
    import json

    session, drift = _clock(policy)
    drift.armed = False
    opened = session.step({"action_type": "open_app", "app_name": "Clock"})
    elements = [json.loads(line.split(": ", 1)[1]) for line in opened.text.splitlines()]
    switch = next(i for i, e in enumerate(elements) if e.get("content_description") == "7:00 AM alarm")
    assert elements[switch]["is_checked"] is False
    session.step({"action_type": "click", "index": switch})
    session.step({"action_type": "navigate_back"})
    drift.armed = True  # the model forgets the switch when the app is opened again
    again = session.step({"action_type": "open_app", "app_name": "Clock"})
    event = again.metadata["guard"]
    assert event["contradictions"][0]["subject"] == "7:00 AM alarm"
    assert event["contradictions"][0]["expected"] == "on" and event["contradictions"][0]["turn"] == 2
    shown = next(
        json.loads(line.split(": ", 1)[1]) for line in again.text.splitlines() if "7:00 AM alarm" in line
    )
    assert shown["is_checked"] is (policy == "repair")


def test_a_consistent_phone_gets_no_toggle_alarm() -> None:
    session, drift = _clock("flag")
    drift.rate = 0.0
    for action in (
        {"action_type": "open_app", "app_name": "Clock"},
        {"action_type": "navigate_home"},
        {"action_type": "open_app", "app_name": "Clock"},
    ):
        assert session.step(action).metadata["guard"]["contradictions"] == []
