"""The scenario backend: matching actions of each domain style, order, repeats, errors, chains."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins.backends import replay_plugin
from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.chain import ChainBackend, NoAnswer
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.backends.scenario import ScenarioBackend, extract_action, json_subset
from agentworld_plugins.config import Settings
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.plugins import PluginManager, new_plugin_manager
from agentworld_plugins.session import World
from agentworld_plugins.turns import parse_output, render_turn

SAMPLING = Sampling()

MCP_ACTION = {"tool_name": "list_issues", "arguments": {"repo": "acme/api", "state": "open", "limit": 5}}
TERMINAL_ACTION = [
    {"keystrokes": "ls -la\n", "duration": 0.5},
    {"keystrokes": "cat notes.txt\n", "duration": 1.0},
]
WEB_ACTION = "fill('14', 'wireless mouse')"


def mcp(action: dict[str, Any] = MCP_ACTION, number: int = 1) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "mcp"},
        {"role": "user", "content": render_turn(number, json.dumps(action, indent=2))},
    ]


def terminal(action: list[dict[str, Any]] = TERMINAL_ACTION) -> list[dict[str, Any]]:
    body = "[\n" + ",\n".join("  " + json.dumps(b) for b in action) + "\n]"
    return [{"role": "user", "content": render_turn(1, body, state="root@box:/app#")}]


def web(action: str = WEB_ACTION, number: int = 1) -> list[dict[str, Any]]:
    return [{"role": "user", "content": render_turn(number, action, state="URL: https://shop/", fence=None)}]


def observation(backend: ScenarioBackend, messages: list[dict[str, Any]]) -> str:
    return parse_output(backend.complete(messages, SAMPLING).text).text


def test_extract_action_from_each_rendering() -> None:
    assert json.loads(extract_action(mcp())) == MCP_ACTION
    assert json.loads(extract_action(terminal())) == TERMINAL_ACTION
    assert extract_action(web()) == WEB_ACTION
    python = [{"role": "user", "content": render_turn(2, "send_msg_to_user('done')", fence="python")}]
    assert extract_action(python) == "send_msg_to_user('done')"
    assert extract_action([{"role": "user", "content": "  just text  "}]) == "just text"


@pytest.mark.parametrize(
    ("match", "messages"),
    [
        (WEB_ACTION, web()),  # exact text
        (json.dumps(MCP_ACTION), mcp()),  # JSON text equal to the action, formatting aside
        ({"tool_name": "list_issues"}, mcp()),  # JSON subset
        ({"arguments": {"repo": "acme/api"}}, mcp()),  # nested subset
        ([{"keystrokes": "ls -la\n"}, {"keystrokes": "cat notes.txt\n"}], terminal()),  # list subset
        ({"regex": r"cat \w+\.txt"}, terminal()),  # regex on the rendered text
        ({"regex": r"^fill\('14'"}, web()),
    ],
    ids=[
        "web-exact",
        "mcp-json-text",
        "mcp-subset",
        "mcp-nested",
        "terminal-subset",
        "terminal-regex",
        "web-regex",
    ],
)
def test_matching_kinds(match: Any, messages: list[dict[str, Any]]) -> None:
    backend = ScenarioBackend({"steps": [{"match": match, "observation": "scripted"}]})
    completion = backend.complete(messages, SAMPLING)
    assert completion.text == "<predicted_observation>\nscripted\n</predicted_observation>"
    assert completion.metadata == {"scenario": 0}


@pytest.mark.parametrize(
    ("match", "messages"),
    [
        ("fill('14', 'keyboard')", web()),
        ({"tool_name": "create_issue"}, mcp()),
        ({"arguments": {"limit": "5"}}, mcp()),  # "5" is not 5
        ([{"keystrokes": "ls -la\n"}], terminal()),  # a list subset keeps the length
        ({"regex": "rm -rf"}, terminal()),
        ('{"tool_name": "list_issues"}', mcp()),  # JSON text means the whole action
    ],
)
def test_non_matches(match: Any, messages: list[dict[str, Any]]) -> None:
    backend = ScenarioBackend({"steps": [{"match": match, "observation": "x"}]})
    with pytest.raises(BackendError, match="no step matches"):
        backend.complete(messages, SAMPLING)


def test_json_subset_is_strict_about_booleans() -> None:
    assert json_subset({"a": 1}, {"a": 1, "b": 2})
    assert not json_subset({"a": True}, {"a": 1})
    assert not json_subset({"a": 1}, {"a": True})
    assert json_subset({"a": [1, {"b": None}]}, {"a": [1, {"b": None, "c": 0}]})


def test_unordered_picks_the_first_unused_matching_step() -> None:
    backend = ScenarioBackend(
        {
            "steps": [
                {"match": {"tool_name": "list_issues"}, "observation": "first listing"},
                {"match": {"tool_name": "get_issue"}, "observation": "issue 7"},
                {"match": {"tool_name": "list_issues"}, "observation": "second listing"},
            ]
        }
    )
    assert observation(backend, mcp({"tool_name": "get_issue", "arguments": {"n": 7}})) == "issue 7"
    assert observation(backend, mcp()) == "first listing"
    assert observation(backend, mcp()) == "second listing"
    with pytest.raises(BackendError, match="all 3 steps are used up"):
        backend.complete(mcp(), SAMPLING)


def test_ordered_requires_the_script_order() -> None:
    steps = [
        {"match": "click('1')", "observation": "page one"},
        {"match": "click('2')", "observation": "page two"},
    ]
    backend = ScenarioBackend({"ordered": True, "steps": steps})
    with pytest.raises(BackendError) as info:
        backend.complete(web("click('2')"), SAMPLING)
    assert "step 1 (match: \"click('1')\"" in str(info.value)
    assert observation(backend, web("click('1')")) == "page one"
    assert observation(backend, web("click('2')")) == "page two"
    assert backend.pending() == []
    unordered = ScenarioBackend({"steps": steps})
    assert observation(unordered, web("click('2')")) == "page two"


def test_repeats_counted_and_always() -> None:
    backend = ScenarioBackend(
        {
            "ordered": True,
            "steps": [
                {"match": {"regex": "scroll"}, "observation": "scrolled", "repeat": 2},
                {"match": {"regex": "noop"}, "observation": "waited", "repeat": "always"},
                {"match": "click('9')", "observation": "done"},
            ],
        }
    )
    with pytest.raises(BackendError):
        backend.complete(web("noop()"), SAMPLING)  # scroll twice first
    assert [observation(backend, web("scroll(0, 200)")) for _ in range(2)] == ["scrolled"] * 2
    with pytest.raises(BackendError, match="step 2"):
        backend.complete(web("click('9')"), SAMPLING)  # an always step is used at least once
    assert [observation(backend, web("noop()")) for _ in range(3)] == ["waited"] * 3
    assert observation(backend, web("click('9')")) == "done"
    backend.assert_done()


def test_pending_and_assert_done() -> None:
    backend = ScenarioBackend(
        {"steps": [{"match": "a", "observation": "A", "repeat": 2}, {"match": "b", "observation": "B"}]}
    )
    observation(backend, web("a"))
    assert [s.index for s in backend.pending()] == [0, 1]
    with pytest.raises(BackendError, match="steps not reached"):
        backend.assert_done()


def test_unmatched_error_names_the_action_and_the_remaining_steps() -> None:
    backend = ScenarioBackend(
        {
            "steps": [
                {"match": {"tool_name": "list_issues"}, "observation": "[]"},
                {"match": {"regex": "delete"}, "observation": "gone"},
            ]
        }
    )
    action = {"tool_name": "create_issue", "arguments": {"title": "Bug"}}
    with pytest.raises(BackendError) as info:
        backend.complete(mcp(action, number=4), SAMPLING)
    error = info.value
    assert not isinstance(error, NoAnswer)
    assert "create_issue" in error.message and "### Turn 4" in error.message
    assert '{"tool_name": "list_issues"}' in error.message and "{regex: 'delete'}" in error.message
    assert error.hint is not None and error.hint.startswith("add a step with match: ")
    assert json.loads(error.hint.removeprefix("add a step with match: ")) == action


def test_is_error_observation_and_metadata() -> None:
    backend = ScenarioBackend(
        {
            "steps": [
                {
                    "match": {"tool_name": "x"},
                    "observation": {"isError": True, "content": []},
                    "is_error": True,
                },
                {"match": {"tool_name": "y"}, "observation": "fine", "is_error": False},
            ]
        }
    )
    failed = backend.complete(mcp({"tool_name": "x", "arguments": {}}), SAMPLING)
    assert failed.metadata == {"scenario": 0, "scenario_is_error": True}
    assert json.loads(parse_output(failed.text).text) == {"isError": True, "content": []}
    assert backend.complete(mcp({"tool_name": "y"}), SAMPLING).metadata["scenario_is_error"] is False


def test_fallthrough_in_a_chain_reaches_the_next_backend() -> None:
    fake = FakeBackend().enqueue("from the model")
    scenario = ScenarioBackend(
        {"steps": [{"match": "click('1')", "observation": "scripted"}]}, fallthrough=True
    )
    chain = ChainBackend([scenario, fake])
    assert observation(scenario, web("click('1')")) == "scripted"
    assert chain.complete(web("click('2')"), SAMPLING).text == "from the model"
    assert len(fake.history) == 1
    with pytest.raises(NoAnswer, match="click"):
        scenario.complete(web("click('3')"), SAMPLING)


def test_files_yaml_and_json(tmp_path: Path) -> None:
    yaml_file = tmp_path / "s.yaml"
    yaml_file.write_text(
        "domain: web\nordered: true\nsteps:\n"
        "  - match: \"click('12')\"\n    observation: |\n      URL: https://shop/cart\n      Title: Cart\n",
        encoding="utf-8",
    )
    backend = ScenarioBackend(yaml_file)
    assert observation(backend, web("click('12')")) == "URL: https://shop/cart\nTitle: Cart"
    assert "s.yaml" in backend.describe() and backend.domain == "web"
    json_file = tmp_path / "s.json"
    json_file.write_text(json.dumps({"steps": [{"match": {"tool_name": "a"}, "observation": "A"}]}))
    assert observation(ScenarioBackend(str(json_file)), mcp({"tool_name": "a"})) == "A"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("steps: [\n  {match: a, observation: b\n", "not valid YAML at line"),
        ("domain: web\n", "missing 'steps'"),
        ("steps:\n  - match: a\n", "step 1 lacks 'observation'"),
        ("steps:\n  - observation: a\n", "step 1 lacks 'match'"),
        ("steps:\n  - {match: a, observation: b, observaton: c}\n", "unknown key(s) observaton"),
        ("steps:\n  - {match: {regex: '('}, observation: b}\n", "bad regex"),
        ("steps:\n  - {match: a, observation: b, repeat: 0}\n", "repeat must be"),
        ("- just a list item\n", "step 1 is str"),
        ("hello\n", "top level is str"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BackendError) as info:
        ScenarioBackend(path)
    assert str(path) in str(info.value) and problem in str(info.value)


def test_unreadable_and_bad_json_files(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="cannot read the file"):
        ScenarioBackend(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.json"
    bad.write_text('{"steps": [}')
    with pytest.raises(BackendError, match=r"bad\.json: not valid JSON at line 1"):
        ScenarioBackend(bad)


@pytest.fixture
def pm() -> PluginManager:
    manager = new_plugin_manager(load_entrypoints=False)
    if not manager.is_registered(replay_plugin):
        manager.register(replay_plugin)
    return manager


def test_registered_as_scenario_path(pm: PluginManager, tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("steps:\n  - {match: {tool_name: a}, observation: A}\n")
    backend = pm.registry.backend_factory("scenario")(Settings(), str(path))
    assert isinstance(backend, ScenarioBackend) and not backend.fallthrough
    with pytest.raises(ConfigError, match="needs a file"):
        pm.registry.backend_factory("scenario")(Settings(), "")


def test_through_a_world_session(pm: PluginManager) -> None:
    script = {
        "domain": "mcp",
        "ordered": True,
        "steps": [
            {
                "match": {"tool_name": "list_issues"},
                "observation": '{"issues": [{"id": 1, "title": "Crash"}]}',
            },
            {
                "match": {"tool_name": "close_issue", "arguments": {"id": 1}},
                "observation": '{"closed": true}',
            },
        ],
    }
    backend = ScenarioBackend(script)
    with World(backend=backend, plugin_manager=pm) as world:
        session = world.session("mcp")
        first = session.step({"tool_name": "list_issues", "arguments": {"repo": "acme/api"}})
        second = session.step({"tool_name": "close_issue", "arguments": {"id": 1}})
        assert first.text == '{"issues": [{"id": 1, "title": "Crash"}]}'
        assert second.text == '{"closed": true}'
        assert first.metadata["scenario"] == 0 and second.metadata["scenario"] == 1
        with pytest.raises(BackendError, match="delete_repo"):
            session.step({"tool_name": "delete_repo", "arguments": {}})
    backend.assert_done()


def test_through_terminal_and_web_sessions(pm: PluginManager) -> None:
    backend = ScenarioBackend(
        [
            {"match": [{"keystrokes": "ls\n"}], "observation": "root@box:/app# ls\nmain.py"},
            {"match": "click('12')", "observation": "URL: https://shop/cart"},
        ]
    )
    with World(backend=backend, plugin_manager=pm) as world:
        screen = world.session("terminal", initial_state="root@box:/app#").step([{"keystrokes": "ls\n"}])
        page = world.session("web", initial_state="URL: https://shop/").step("click('12')")
    assert screen.text == "root@box:/app# ls\nmain.py"
    assert page.text == "URL: https://shop/cart"
