"""Every domain's validation and ``Session.step`` raise only ActionValidationError on hostile input."""

from __future__ import annotations

import pytest

from agentworld_plugins.errors import ActionValidationError, AgentWorldError
from agentworld_plugins.session import World
from agentworld_plugins.turns import messages_for_record

DOMAINS = ["mcp", "terminal", "os", "web", "search", "swe", "android"]
CODE_DOMAINS = {"os", "web"}  # actions are code or action strings, where NaN is just a name


def _nested_list(depth: int) -> list:
    root: list = []
    current = root
    for _ in range(depth):
        child: list = []
        current.append(child)
        current = child
    return root


HOSTILE = {
    "4301-digit-number": '{"tool_name": "x", "arguments": {"n": ' + "1" * 4301 + "}}",
    "json-1000-deep": "[" * 1000 + "]" * 1000,
    "json-100000-deep": "[" * 100_000,
    "list-5000-deep": _nested_list(5000),
    "python-int-5000-digits": {"tool_name": "x", "arguments": {"n": 10**5000}},
    "NaN": '{"tool_name": "x", "arguments": {"n": NaN}}',
}


@pytest.fixture(scope="module")
def world() -> World:
    return World(backend="offline")


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_actions_raise_action_validation_error(world: World, domain: str, name: str) -> None:
    if name == "NaN" and domain in CODE_DOMAINS:
        return
    with pytest.raises(ActionValidationError) as caught:
        world.pm.registry.domain(domain).validate_action(HOSTILE[name])
    assert f"for {domain} action" in str(caught.value)
    assert len(str(caught.value)) < 2000  # the input is shown cut, never whole


@pytest.mark.parametrize("domain", DOMAINS)
def test_step_raises_only_the_documented_error(world: World, domain: str) -> None:
    session = world.session(domain)
    for name, action in HOSTILE.items():
        if name == "NaN" and domain in CODE_DOMAINS:
            continue
        with pytest.raises(ActionValidationError):
            session.step(action)
    assert session.trajectory.turns == []


def test_messages_for_record_rejects_a_missing_turn_index() -> None:
    record = {"system_str": "s", "prompt": [], "response": [], "current_prompt": "c", "turn_idx": None}
    with pytest.raises(AgentWorldError, match="turn_idx must be an integer"):
        messages_for_record(record)
    with pytest.raises(AgentWorldError, match="must be lists"):
        messages_for_record({**record, "turn_idx": 1, "prompt": 5})
    assert messages_for_record({**record, "turn_idx": "1"})[-1]["content"] == "c"


def test_a_terminal_never_stays_stuck_after_a_line_too_deep_to_parse(world: World) -> None:
    session = world.session("terminal")
    deep = "echo " + "$(" * 150 + "x" + ")" * 150
    session.step([{"keystrokes": deep}])
    first = session.step([{"keystrokes": "\n"}])
    assert "bash:" in first.text
    after = session.step([{"keystrokes": "echo still-here\n"}])
    assert after.text.rstrip().splitlines()[-2] == "still-here"
