"""Targeting, schedules and the per-session random streams of the harness-level perturbations."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import Faults, Schedule, SessionRandom, Target, describe_action
from agentworld_plugins.perturbations.targeting import parse_turns, split_command
from agentworld_plugins.plugins import new_plugin_manager


@pytest.fixture
def world() -> World:
    return World(
        backend=FakeBackend(lambda messages: "ok"), plugin_manager=new_plugin_manager(load_entrypoints=False)
    )


def injected_turns(session: Any, actions: list[Any]) -> list[int]:
    turns = []
    for action in actions:
        observation = session.step(action)
        if observation.metadata.get("perturbations"):
            turns.append(observation.metadata["turn"])
    return turns


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_name": tool, "arguments": arguments}


# --- describing actions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("domain", "action", "tool", "command"),
    [
        ("mcp", call("write_file", path="/a"), "write_file", ""),
        (
            "swe",
            call("run_shell_command", command="FOO=1 sudo rm -rf /tmp/x"),
            "run_shell_command",
            "FOO=1 sudo rm -rf /tmp/x",
        ),
        ("search", {"name": "web_search", "arguments": {"queries": ["a", "b"]}}, "web_search", "a | b"),
        (
            "terminal",
            [{"keystrokes": "sudo apt-get install -y curl\n", "duration": 1}],
            "apt-get",
            "sudo apt-get install -y curl",
        ),
        ("web", "fill('14', 'mouse')\nclick('15')", "fill", "fill('14', 'mouse')\nclick('15')"),
        ("android", {"action_type": "open_app", "app_name": "Clock"}, "open_app", None),
        (
            "os",
            "import pyautogui\npyautogui.click(960, 540)",
            "pyautogui.click",
            "import pyautogui\npyautogui.click(960, 540)",
        ),
    ],
)
def test_describe_action_finds_tool_and_command(
    domain: str, action: Any, tool: str, command: str | None
) -> None:
    pm = new_plugin_manager(load_entrypoints=False)
    validated = pm.registry.domain(domain).validate_action(action)
    view = describe_action(domain, validated)
    assert view.domain == domain and view.tool == tool
    if command is not None:
        assert view.command == command


def test_inert_actions_are_marked() -> None:
    assert describe_action("terminal", []).inert
    assert describe_action("os", "DONE").inert and describe_action("os", "WAIT").inert
    assert describe_action("android", {"action_type": "status", "goal_status": "complete"}).inert
    assert describe_action("web", "send_msg_to_user('done')").inert
    assert not describe_action("web", "click('3')").inert


def test_split_command_skips_prefixes_and_takes_the_first_command() -> None:
    assert split_command("FOO=1 sudo rm -rf /tmp/x && ls") == ("rm", ["-rf", "/tmp/x"])
    assert split_command("cat a.txt | grep x") == ("cat", ["a.txt"])
    assert split_command("./run.sh --fast") == ("./run.sh", ["--fast"])
    assert split_command("echo 'unterminated") == ("echo", ["'unterminated"])


# --- targets --------------------------------------------------------------------------------------


def test_target_matches_domain_tool_command_regex_and_turns() -> None:
    write = describe_action("mcp", call("write_file", path="/etc/hosts"))
    read = describe_action("mcp", call("read_file", path="/etc/hosts"))
    shell = describe_action("swe", call("run_shell_command", command="git push origin main"))
    assert Target(domains=["mcp"]).matches(write, 1) and not Target(domains=["swe"]).matches(write, 1)
    assert Target(domains=["m*"]).matches(write, 1)
    assert Target(tools=["write_*"]).matches(write, 1) and not Target(tools=["write_*"]).matches(read, 1)
    assert Target(commands=["git push*"]).matches(shell, 1)
    assert not Target(commands=["git pull*"]).matches(shell, 1)
    assert Target(match=re.compile(r"/etc/")).matches(read, 1)
    assert not Target(match=re.compile(r"/home/")).matches(read, 1)
    ranged = Target(turns=(3, 5))
    assert [t for t in range(1, 8) if ranged.matches(write, t)] == [3, 4, 5]
    assert Target(turns=(4, None)).matches(write, 100) and not Target(turns=(4, None)).matches(write, 3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3-10", (3, 10)), ("5-", (5, None)), ("-4", (1, 4)), ("7", (7, 7)), ("2..3", (2, 3))],
)
def test_parse_turns(text: str, expected: tuple[int, int | None]) -> None:
    assert parse_turns(text) == expected


@pytest.mark.parametrize("bad", ["", "-", "a-b", "0-3", "5-2", "1,2"])
def test_parse_turns_refuses_nonsense(bad: str) -> None:
    with pytest.raises(ValueError, match="turns"):
        parse_turns(bad)


# --- schedules ------------------------------------------------------------------------------------


def test_schedules_fire_as_documented() -> None:
    rng = SessionRandom("seed=1", "x")
    assert all(Schedule().fires(rng, t, t) for t in range(1, 20))
    assert [n for n in range(1, 10) if Schedule(every=3).fires(rng, n, n)] == [3, 6, 9]
    assert [n for n in range(1, 10) if Schedule(first=2).fires(rng, n, n)] == [1, 2]
    assert [t for t in range(1, 10) if Schedule(at=frozenset({2, 7})).fires(rng, t, 1)] == [2, 7]
    assert not any(Schedule(rate=0.0).fires(rng, t, t) for t in range(1, 200))
    assert all(Schedule(rate=1.0).fires(rng, t, t) for t in range(1, 200))


def test_rate_over_two_thousand_seeded_turns_is_close_to_the_rate() -> None:
    rng = SessionRandom("seed=42", "faults:0")
    fired = sum(Schedule(rate=0.3).fires(rng, t, t) for t in range(1, 2001))
    assert 0.27 <= fired / 2000 <= 0.33


def test_rate_over_two_thousand_session_steps(world: World) -> None:
    fired = 0
    for seed in range(20):
        session = world.session("mcp", seed=seed, perturbations=[Faults(rate=0.3)])
        fired += len(injected_turns(session, [call("list_issues")] * 100))
    assert 0.27 <= fired / 2000 <= 0.33


def test_higher_rates_fire_on_a_superset_of_turns() -> None:
    rng = SessionRandom("seed=9", "faults:0")
    low = {t for t in range(1, 500) if Schedule(rate=0.2).fires(rng, t, t)}
    high = {t for t in range(1, 500) if Schedule(rate=0.5).fires(rng, t, t)}
    assert low < high


# --- random streams -------------------------------------------------------------------------------


def test_same_seed_same_injected_turns_different_seed_different_turns(world: World) -> None:
    actions = [call("list_issues")] * 40
    first = injected_turns(world.session("mcp", seed=5, perturbations=["faults:rate=0.3"]), actions)
    again = injected_turns(world.session("mcp", seed=5, perturbations=["faults:rate=0.3"]), actions)
    other = injected_turns(world.session("mcp", seed=6, perturbations=["faults:rate=0.3"]), actions)
    assert first == again and first  # the session ids differ; the seed decides
    assert other != first


def test_without_a_seed_the_session_id_decides(world: World) -> None:
    actions = [call("list_issues")] * 40
    a = injected_turns(world.session("mcp", session_id="run-a", perturbations=["faults:rate=0.3"]), actions)
    a_again = injected_turns(
        world.session("mcp", session_id="run-a", perturbations=["faults:rate=0.3"]), actions
    )
    b = injected_turns(world.session("mcp", session_id="run-b", perturbations=["faults:rate=0.3"]), actions)
    assert a == a_again and a != b


def test_the_seed_option_varies_the_stream_within_a_session(world: World) -> None:
    actions = [call("list_issues")] * 40
    zero = injected_turns(world.session("mcp", seed=1, perturbations=["faults:rate=0.3"]), actions)
    seven = injected_turns(world.session("mcp", seed=1, perturbations=["faults:rate=0.3,seed=7"]), actions)
    assert zero != seven


def test_targeting_by_tool_and_turn_range_is_exact(world: World) -> None:
    tools = ["write_file", "read_file", "write_config", "delete_file"] * 5
    session = world.session("mcp", perturbations=["faults:tools=write_*,turns=3-14"])
    turns = injected_turns(session, [call(t) for t in tools])
    expected = [n for n, tool in enumerate(tools, 1) if tool.startswith("write_") and 3 <= n <= 14]
    assert turns == expected


def test_every_and_first_count_matching_steps_only(world: World) -> None:
    tools = ["write_a", "read", "write_b", "read", "write_c", "write_d", "read", "write_e"]
    every = world.session("mcp", perturbations=["faults:tools=write_*,every=2"])
    assert injected_turns(every, [call(t) for t in tools]) == [3, 6]  # the 2nd and 4th writes
    first = world.session("mcp", perturbations=["faults:tools=write_*,first=2"])
    assert injected_turns(first, [call(t) for t in tools]) == [1, 3]
    at = world.session("mcp", perturbations=["faults:at=2+4+7"])
    assert injected_turns(at, [call(t) for t in tools]) == [2, 4, 7]


def test_domain_targeting_leaves_other_domains_alone(world: World) -> None:
    swe = world.session("swe", perturbations=["faults:domains=mcp"])
    assert injected_turns(swe, [call("read_file", absolute_path="/a")] * 3) == []
    mcp = world.session("mcp", perturbations=["faults:domains=mcp"])
    assert injected_turns(mcp, [call("read_file")] * 3) == [1, 2, 3]


def test_faults_leave_inert_actions_alone(world: World) -> None:
    session = world.session("terminal", perturbations=["faults"])
    assert not session.step([]).metadata.get("perturbations")
    assert session.step([{"keystrokes": "ls\n", "duration": 0.1}]).metadata.get("perturbations")
