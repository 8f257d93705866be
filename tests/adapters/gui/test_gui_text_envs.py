"""``agentworld/<domain>-v0``: gymnasium's checker, determinism, tasks, termination, bad input."""

from __future__ import annotations

import json
import warnings

import pytest

gym = pytest.importorskip("gymnasium")

from agentworld_plugins.adapters.gui.task import DOMAINS  # noqa: E402

import agentworld_plugins  # noqa: E402
from agentworld_plugins.backends.scenario import ScenarioBackend  # noqa: E402


@pytest.mark.parametrize("domain", DOMAINS)
def test_check_env_passes(domain: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make(f"agentworld/{domain}-v0", backend="offline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    assert isinstance(env.observation_space, gym.spaces.Text)
    assert "\n" in env.observation_space.character_set and "é" in env.observation_space.character_set
    env.close()


def _rollout(domain: str, task: str, actions: list, seed: int) -> list:
    env = gym.make(f"agentworld/{domain}-v0", backend="offline")
    obs, info = env.reset(seed=seed, options={"task": task})
    trace = [(obs, {k: v for k, v in info.items()})]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info))
    env.close()
    return trace


TERMINAL_SCRIPT = [
    json.dumps([{"keystrokes": "pwd\n", "duration": 0.1}]),
    json.dumps([{"keystrokes": "ls src\n", "duration": 0.1}]),
    '[{"keystrokes": "ls',  # broken JSON
    [{"keystrokes": "cat src/util.py\n", "duration": 0.1}],
    json.dumps([{"keys": "ls\n"}]),  # wrong field
    json.dumps([{"keystrokes": "cd src && ls pkg\n", "duration": 0.1}]),
    json.dumps([{"keystrokes": "echo hello > note.txt && cat note.txt\n", "duration": 0.1}]),
    json.dumps([{"keystrokes": "nosuchcommand\n", "duration": 0.1}]),
    json.dumps([{"keystrokes": "find /app/src -name '*.py' | wc -l\n", "duration": 0.1}]),
    json.dumps([]),
]


def test_terminal_episode_is_deterministic_for_a_seed() -> None:
    first = _rollout("terminal", "terminal/count-python-files", TERMINAL_SCRIPT, seed=11)
    second = _rollout("terminal", "terminal/count-python-files", TERMINAL_SCRIPT, seed=11)
    assert first == second
    obs, info = first[0]
    assert obs.rstrip().endswith("#") and info["instruction"].startswith("Count the Python files")
    steps = first[1:]
    assert len(steps) == 10
    for number, (obs, reward, _terminated, truncated, info) in enumerate(steps, 1):
        assert isinstance(obs, str) and isinstance(reward, float) and truncated is False
        if number in (3, 5):
            assert info["action_error"] and info["is_error"] and obs == steps[number - 2][0]
        else:
            assert info["action_error"] is None
    assert "util.py" in steps[1][0] and "def add" in steps[3][0]
    assert "command not found" in steps[7][0] and steps[7][4]["is_error"] is True
    assert steps[8][1] == 1.0 and steps[8][2] is True  # the count appears: success


def test_reset_options_pick_tasks_and_generated_starts() -> None:
    env = gym.make("agentworld/web-v0", backend="offline")
    obs, info = env.reset(seed=0, options={"task": "shop-find-mouse"})
    assert obs.startswith("URL: https://shop.example.com/") and info["initial_state"] == "task"
    obs, info = env.reset(seed=0, options={"task": "web/recipe-search"})
    # no initial tree: offline, the world opens start_url from the task's pages
    assert obs.startswith("URL: https://cooking.example.net/") and info["initial_state"] == "offline_default"
    obs, info = env.reset(seed=0)
    assert info["task_id"] == "web-open"
    with pytest.raises(agentworld_plugins.ConfigError, match="not 'web'"):
        env.reset(options={"task": "android/clock-set-alarm"})
    env.close()


def test_structured_actions_answers_and_termination() -> None:
    env = gym.make("agentworld/android-v0", backend="offline", task="android/contacts-search")
    _obs, info = env.reset(seed=1)
    obs2, reward, terminated, _, info = env.step({"action_type": "input_text", "text": "Dana", "index": 1})
    assert '"text": "Dana"' in obs2 and info["action_error"] is None
    obs3, reward, terminated, _truncated, info = env.step('{"action_type": "answer", "text": "555-0134"}')
    assert obs3 == obs2 and reward == 1.0 and terminated is True and info["answer"] == "555-0134"
    assert info["local"] is True
    env.close()

    env = gym.make("agentworld/os-v0", backend="offline")
    env.reset(seed=0)
    assert env.step("DONE")[2] is True
    env.close()


def test_mcp_search_and_swe_steps() -> None:
    trace = _rollout(
        "mcp",
        "mcp/notes-create",
        [
            {"tool_name": "list_notes", "arguments": {}},
            json.dumps({"tool_name": "create_note", "arguments": {"title": "Standup"}}),
        ],
        seed=0,
    )
    assert trace[0][0].startswith("Create a note") and trace[-1][1] == 1.0
    trace = _rollout(
        "search",
        "search/lighthouse-history",
        [{"name": "web_search", "arguments": {"query": "Vornholm Lighthouse"}}],
        seed=0,
    )
    assert "Maren Tolle" in trace[-1][0] and trace[-1][2] is True
    trace = _rollout(
        "swe",
        "swe/fix-greeting",
        [{"tool_name": "read_file", "arguments": {"absolute_path": "/repo/app/greet.py"}}],
        seed=0,
    )
    assert "Helo" in trace[-1][0]


def test_max_steps_truncates_and_malformed_output_is_flagged() -> None:
    backend = ScenarioBackend(
        {
            "steps": [
                {"match": {"regex": "wait"}, "observation": "Loading... please hold.", "repeat": "always"}
            ]
        }
    )
    env = gym.make(
        "agentworld/android-v0",
        backend=backend,
        task={"initial_state": 'UI element 0: {"text": "OK", "bbox": [0, 0, 10, 10]}'},
        max_steps=3,
        render_mode="ansi",
    )
    obs, _ = env.reset(seed=0)
    for number in range(1, 4):
        obs2, _reward, _terminated, truncated, info = env.step('{"action_type": "wait"}')
        assert obs2 == obs and "not a android screen" in info["observation_error"]
        assert truncated is (number == 3)
    assert env.render() == obs
    env.close()


def test_world_and_session_options_reach_the_session() -> None:
    from agentworld_plugins import World

    world = World(backend="offline")
    env = gym.make(
        "agentworld/search-v0",
        world=world,
        session_options={"world_bible": "Vornholm is the capital of Estria.", "seed": 5},
    )
    env.reset()
    session = env.unwrapped.episode.session
    assert session.world is world and session.seed == 5
    assert "## World Bible" in session.system_prompt and "Vornholm" in session.system_prompt
    env.reset(seed=9)
    assert env.unwrapped.episode.session.seed == 9
    env.close()
