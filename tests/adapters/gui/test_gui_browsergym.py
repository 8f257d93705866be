"""The BrowserGym look-alike through gymnasium: registration, observations, actions, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from agentworld_plugins.adapters.gui.browsergym import WELCOME, flatten_axtree  # noqa: E402

import agentworld_plugins  # noqa: E402,F401  (registers the environments)
from agentworld_plugins.backends.scenario import ScenarioBackend  # noqa: E402
from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE  # noqa: E402

OBS_KEYS = {
    "chat_messages",
    "goal",
    "goal_object",
    "open_pages_urls",
    "open_pages_titles",
    "active_page_index",
    "url",
    "screenshot",
    "dom_object",
    "axtree_object",
    "extra_element_properties",
    "focused_element_bid",
    "last_action",
    "last_action_error",
    "elapsed_time",
}


def _check_obs(env, obs: dict) -> None:
    assert set(obs) == OBS_KEYS
    assert obs in env.observation_space
    assert isinstance(obs["chat_messages"], tuple) and all(
        set(m) == {"role", "timestamp", "message"} for m in obs["chat_messages"]
    )
    assert isinstance(obs["goal"], str) and isinstance(obs["goal_object"], tuple)
    assert isinstance(obs["open_pages_urls"], tuple) and isinstance(obs["open_pages_titles"], tuple)
    assert len(obs["open_pages_urls"]) == len(obs["open_pages_titles"])
    assert obs["active_page_index"].shape == (1,) and obs["active_page_index"].dtype == np.int64
    assert obs["url"] == obs["open_pages_urls"][int(obs["active_page_index"][0])]
    assert obs["screenshot"].shape == (720, 1280, 3) and obs["screenshot"].dtype == np.uint8
    assert obs["screenshot"].min() < 255  # not blank
    assert "documents" in obs["dom_object"] and "strings" in obs["dom_object"]
    assert isinstance(obs["axtree_object"]["nodes"], list)
    assert isinstance(obs["extra_element_properties"], dict)
    assert isinstance(obs["focused_element_bid"], str)
    assert isinstance(obs["last_action"], str) and isinstance(obs["last_action_error"], str)
    assert obs["elapsed_time"].shape == (1,) and obs["elapsed_time"][0] >= 0


def test_registered_ids_make_the_env() -> None:
    ids = [i for i in gym.registry if i.startswith("browsergym/agentworld.")]
    assert {"browsergym/agentworld.open", "browsergym/agentworld.shop-find-mouse"} <= set(ids)
    env = gym.make("browsergym/agentworld.open", backend="offline", disable_env_checker=True)
    obs, info = env.reset(seed=1)
    assert obs["url"] == "https://www.example.com/"  # the offline world's default page
    assert info["agentworld"]["initial_state"] == "offline_default"
    assert obs["chat_messages"][0]["message"] == WELCOME
    env.close()


def test_scripted_episode_offline() -> None:
    env = gym.make(
        "browsergym/agentworld.shop-find-mouse",
        backend="offline",
        headless=True,
        wait_for_user_message=False,
        viewport={"width": 1280, "height": 720},
        timeout=5000,
        pw_chromium_kwargs={"args": []},
    )
    obs, info = env.reset(seed=0)
    _check_obs(env.unwrapped, obs)
    assert obs["goal"].startswith("Find the cheapest wireless mouse")
    assert obs["goal_object"] == ({"type": "text", "text": obs["goal"]},)
    assert [m["role"] for m in obs["chat_messages"]] == ["assistant", "user"]
    script = [
        ("fill('14', 'wireless mouse')", "", "https://shop.example.com/"),
        ("click('23')", "", "https://shop.example.com/"),
        ("click('999')", 'ValueError: Could not find element with bid "999"', "https://shop.example.com/"),
        ("clik('24')", "NameError: Invalid action type 'clik'.", "https://shop.example.com/"),
        ("fill('14')", "TypeError: fill() missing required argument 'value'", "https://shop.example.com/"),
        ("click('24')", "", "https://shop.example.com/search?q=wireless+mouse"),
        ("scroll(0, 200)", "", "https://shop.example.com/search?q=wireless+mouse"),
        ("click('34')", "", "https://shop.example.com/p/m185"),
        ("go_back()", "", "https://shop.example.com/search?q=wireless+mouse"),
        (
            "send_msg_to_user('The cheapest is $14.99')",
            "",
            "https://shop.example.com/search?q=wireless+mouse",
        ),
    ]
    for number, (action, error, url) in enumerate(script, 1):
        obs, reward, terminated, truncated, info = env.step(action)
        _check_obs(env.unwrapped, obs)
        assert obs["last_action"] == action
        assert obs["last_action_error"].startswith(error) if error else obs["last_action_error"] == ""
        assert obs["url"] == url, (number, action)
        assert isinstance(reward, float) and truncated is False
        assert terminated is (number == 10)
        assert set(info) >= {
            "action_exec_start",
            "action_exec_stop",
            "action_exec_timeout",
            "task_info",
            "agentworld",
        }
        if number == 1:
            lines = flatten_axtree(obs["axtree_object"]).splitlines()
            assert "\t[14] searchbox 'Search products', focused, clickable, value='wireless mouse'" in lines
            assert obs["focused_element_bid"] == "14"
        if number == 2:
            assert "checked='true'" in flatten_axtree(obs["axtree_object"])
    assert reward == 1.0  # the answer holds the price
    assert obs["chat_messages"][-1] == {**obs["chat_messages"][-1], "role": "assistant"}
    assert obs["chat_messages"][-1]["message"] == "The cheapest is $14.99"
    env.close()


def test_invalid_actions_never_raise() -> None:
    env = gym.make("browsergym/agentworld.open", backend="offline", disable_env_checker=True)
    env.reset(seed=0)
    for action in ["", "click(", "import os", "click(12)", "x" * 5000, None, 42]:
        obs, _reward, _terminated, _truncated, info = env.step(action)
        assert obs["last_action_error"].startswith("ValueError: "), action
        assert info["agentworld"]["is_error"] is True and info["agentworld"]["action_error"]
        assert obs["url"] == "https://www.example.com/"
    obs, *_ = env.step("page.click('a')")  # BrowserGym's parser finds click('a') in it
    assert obs["last_action_error"].startswith("ValueError: Could not find element with bid")
    env.close()


def test_agent_action_mapping_errors_are_reported_as_browsergym_does() -> None:
    def to_python_code(action: str) -> str:
        if "dblclick" in action:
            raise NameError("Invalid action type 'dblclick'")
        return action

    env = gym.make(
        "browsergym/agentworld.open",
        backend="offline",
        action_mapping=to_python_code,
        disable_env_checker=True,
    )
    env.reset(seed=0)
    obs, *_ = env.step("dblclick('22')")
    assert obs["last_action_error"] == "NameError: Invalid action type 'dblclick'"
    obs, *_ = env.step("click('23')")
    assert obs["last_action_error"] == ""
    env.close()


def test_malformed_model_output_keeps_the_page() -> None:
    page = DEFAULT_WEB_PAGE
    backend = ScenarioBackend(
        {
            "ordered": True,
            "steps": [
                {"match": "click('11')", "observation": "I think the page would now show the home page."},
                {"match": "click('12')", "observation": page.replace("Example Search", "About us")},
            ],
        }
    )
    env = gym.make(
        "browsergym/agentworld.open",
        backend=backend,
        task={"instruction": "Read the about page", "initial_state": page},
        disable_env_checker=True,
    )
    obs, _ = env.reset(seed=0)
    before = flatten_axtree(obs["axtree_object"])
    obs, _reward, _terminated, _truncated, info = env.step("click('11')")
    assert flatten_axtree(obs["axtree_object"]) == before and obs["last_action_error"] == ""
    assert "not a web screen" in info["agentworld"]["observation_error"]
    session = env.unwrapped.episode.session
    assert session.trajectory.turns[-1].observation.text == page  # the history stays coherent
    obs, *_, info = env.step("click('12')")
    assert obs["open_pages_titles"] == ("About us",) and info["agentworld"]["observation_error"] is None
    backend.assert_done()
    env.close()


def test_infeasible_terminates_and_tabs_are_listed() -> None:
    env = gym.make("browsergym/agentworld.open", backend="offline", disable_env_checker=True)
    env.reset(seed=0)
    obs, *_ = env.step("new_tab()")
    assert obs["open_pages_urls"] == ("https://www.example.com/", "about:blank")
    assert int(obs["active_page_index"][0]) == 1
    obs, *_ = env.step("tab_focus(0)")
    assert int(obs["active_page_index"][0]) == 0 and len(obs["open_pages_titles"]) == 2
    obs, _reward, terminated, _truncated, _info = env.step("report_infeasible('no such page')")
    assert terminated is True and obs["chat_messages"][-1]["role"] == "infeasible"
    env.close()
    env = gym.make(
        "browsergym/agentworld.open",
        backend="offline",
        terminate_on_infeasible=False,
        disable_env_checker=True,
    )
    env.reset(seed=0)
    assert env.step("report_infeasible('x')")[2] is False
    env.close()


def test_open_task_from_task_kwargs_and_reset_options() -> None:
    env = gym.make(
        "browsergym/agentworld.open",
        backend="offline",
        task_kwargs={"start_url": "https://news.example.org/", "goal": "Read the top story"},
        disable_env_checker=True,
    )
    obs, info = env.reset(seed=0)
    assert obs["goal"] == "Read the top story"
    obs, info = env.reset(seed=0, options={"task": "web/newsletter-signup"})
    assert obs["url"] == "https://riverside-library.example.org/newsletter"
    assert info["task_info"]["task_id"] == "newsletter-signup"
    env.close()


def test_unknown_kwargs_warn_and_max_steps_truncates() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gym.make(
            "browsergym/agentworld.open",
            backend="offline",
            max_steps=2,
            exp_dir="x",
            disable_env_checker=True,
        )
    assert any("exp_dir" in str(w.message) for w in caught)
    env.reset(seed=0)
    assert env.step("noop()")[3] is False
    assert env.step("noop()")[3] is True
    assert env.render() is None
    env.close()


def test_scroll_moves_the_screenshot() -> None:
    long_page = DEFAULT_WEB_PAGE + "".join(f"\n\t[{100 + i}] link 'Item {i}'" for i in range(60))
    env = gym.make(
        "browsergym/agentworld.open",
        backend="offline",
        task={"initial_state": long_page},
        render_mode="rgb_array",
        disable_env_checker=True,
    )
    first, _ = env.reset(seed=0)
    assert first["extra_element_properties"]["159"]["visibility"] == 0.0
    obs, *_ = env.step("scroll(0, 2000)")
    assert obs["extra_element_properties"]["159"]["visibility"] == 1.0
    assert obs["extra_element_properties"]["10"]["visibility"] == 0.0
    assert not np.array_equal(first["screenshot"], obs["screenshot"])
    assert np.array_equal(env.render(), obs["screenshot"])
    env.close()


def test_check_env_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make("browsergym/agentworld.shop-find-mouse", backend="offline")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(env.unwrapped)
    env.close()


def test_the_action_set_decides_which_functions_exist() -> None:
    from browsergym.core.action.highlevel import HighLevelActionSet

    env = gym.make("browsergym/agentworld.open", backend="offline", disable_env_checker=True)
    env.reset(seed=0)
    obs, *_ = env.step("I'll click at the box: mouse_click(100, 200)")
    assert obs["last_action_error"] == "NameError: Invalid action type 'mouse_click'."
    obs, *_ = env.step("Let me check (2) options. click('12')")
    assert obs["last_action_error"] == "NameError: Invalid action type 'check'."
    env.close()
    coords = HighLevelActionSet(subsets=["chat", "bid", "coord"], strict=True)
    env = gym.make(
        "browsergym/agentworld.open",
        backend="offline",
        action_mapping=coords.to_python_code,
        disable_env_checker=True,
    )
    env.reset(seed=0)
    obs, *_ = env.step("mouse_click(100, 200)")
    assert not obs["last_action_error"].startswith(("NameError", "ValueError: Received"))
    obs, *_ = env.step("Now: click('12')")
    assert obs["last_action_error"].startswith("ParseException: ")
    env.close()
