"""GUI harnesses' own code against our environments: browsergym-core's ``HighLevelActionSet``
(the action mapping and prompt of BrowserGym agents) and spaces, desktop-env's ``computer_13``
conventions, AndroidWorld's ``JSONAction`` semantics, gymnasium's ``check_env`` for every
registered id, and over-long actions everywhere."""

from __future__ import annotations

import inspect
import io

import gymnasium as gym
import pytest
from agentworld_plugins.adapters.gui import registration
from agentworld_plugins.adapters.gui.androidworld import AgentWorldAndroidEnv, JSONAction, UIElement
from agentworld_plugins.adapters.gui.osworld import DesktopEnv
from gymnasium.utils.env_checker import check_env

from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.domains.web import WEB_ACTIONS

browsergym_core = pytest.importorskip("browsergym.core", reason="browsergym-core is in the dev extra")

from browsergym.core.action import functions as bg_functions  # noqa: E402
from browsergym.core.action.highlevel import HighLevelActionSet  # noqa: E402
from browsergym.utils.obs import flatten_axtree_to_str  # noqa: E402

TOO_LONG = 1_200_000  # characters: past any world model's context


def _web_env(**kwargs: object) -> gym.Env:
    kwargs.setdefault("backend", "offline")
    return gym.make("browsergym/agentworld.shop-find-mouse", disable_env_checker=True, **kwargs)


# -- BrowserGym --------------------------------------------------------------------------------------


def test_every_browsergym_action_function_is_known_with_its_parameters() -> None:
    action_set = HighLevelActionSet(subsets=["chat", "infeas", "bid", "coord", "nav", "tab"])
    for name in action_set.action_set:
        real = list(inspect.signature(getattr(bg_functions, name)).parameters)
        assert name in WEB_ACTIONS, f"{name} is missing"
        assert WEB_ACTIONS[name].startswith(f"{name}("), name
        for parameter in real:
            assert parameter in WEB_ACTIONS[name], f"{name}: {parameter}"


def test_browsergym_agent_loop_with_its_default_action_set() -> None:
    """A BrowserGym agent's loop: its action set describes the actions and maps its answer (prose
    and a code fence, several calls: strict=False, multiaction=True, BrowserGym's defaults)."""
    action_set = HighLevelActionSet(subsets=["chat", "bid", "coord", "nav"], strict=False, multiaction=True)
    assert "scroll_at" in action_set.describe(with_long_description=False, with_examples=False)
    env = _web_env(action_mapping=action_set.to_python_code)
    obs, _ = env.reset(seed=0)
    assert repr(env.action_space) == "Unicode()" and env.action_space.contains("x" * 50_000)
    assert env.observation_space.contains(obs)
    assert "[14]" in flatten_axtree_to_str(obs["axtree_object"])
    answer = (
        "The search box is [14]. I will type the query and press the search button.\n"
        "```python\nfill('14', 'wireless mouse')\nclick('24')\n```\nThat should list the mice."
    )
    obs, *_ = env.step(answer)
    assert obs["last_action_error"] == ""
    assert obs["url"] == "https://shop.example.com/search?q=wireless+mouse"
    obs, *_ = env.step("I'll scroll down a bit: scroll_at(640, 360, 0, 300)")
    assert obs["last_action_error"] == ""
    obs, *_ = env.step(b"go_back()")
    assert obs["last_action_error"] == ""
    assert env.observation_space.contains(obs)
    # an answer with no call at all is still an error, as BrowserGym's "Received an empty action."
    obs, *_ = env.step("I am not sure what to do.")
    assert obs["last_action_error"].startswith("ValueError")
    env.close()
    # free Playwright code: the default action set finds get_by_role(...) in it and rejects it
    plain = _web_env()
    plain.reset(seed=0)
    obs, *_ = plain.step("page.get_by_role('button').click()")
    assert obs["last_action_error"] == "NameError: Invalid action type 'get_by_role'."
    plain.close()


def test_browsergym_own_env_spaces_admit_our_observations() -> None:
    """BrowserGym's own ``BrowserEnv`` (built, never started: no browser) declares the spaces;
    every observation of ours is a member of them, and the constructors take the same keywords."""
    import warnings

    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import AbstractBrowserTask

    class NoTask(AbstractBrowserTask):
        @classmethod
        def get_task_id(cls) -> str:
            return "no-task"

    real = BrowserEnv(task_entrypoint=NoTask)
    keywords = [
        p for p in inspect.signature(BrowserEnv.__init__).parameters if p not in ("self", "task_entrypoint")
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unknown keyword would warn
        env = _web_env(**{k: getattr(real, k) for k in keywords})  # each as BrowserEnv stored it
    assert repr(env.action_space) == repr(real.action_space) == "Unicode()"
    assert set(env.observation_space.spaces) == set(real.observation_space.spaces)
    obs, _ = env.reset(seed=0)
    assert real.observation_space.contains(obs)
    obs, *_ = env.step("fill('14', 'wireless mouse')\nclick('24')")
    assert real.observation_space.contains(obs)
    env.close()


def test_strict_action_set_of_an_agent_is_honoured() -> None:
    action_set = HighLevelActionSet(subsets=["bid"], strict=True, multiaction=False)
    env = _web_env(action_mapping=action_set.to_python_code)
    env.reset(seed=0)
    obs, *_ = env.step("Let me click: click('24')")
    assert obs["last_action_error"].startswith("ParseException") or "Expected" in obs["last_action_error"]
    env.close()


# -- OSWorld (desktop-env) ---------------------------------------------------------------------------

# Facts read from desktop-env 1.0.2 (desktop_env/controllers/python.py, PythonController.
# execute_action, and desktop_env/desktop_env.py): a computer_13 action's parameters are
# action["parameters"] when present, else every other key of the action; DesktopEnv subclasses
# gymnasium.Env; step returns four values; render("rgb_array") returns the controller's
# screenshot, PNG bytes. (desktop-env itself needs a VM provider and ~50 packages.)
FLAT_COMPUTER_13 = [
    {"action_type": "MOVE_TO", "x": 100, "y": 200},
    {"action_type": "CLICK", "x": 100, "y": 200},
    {"action_type": "CLICK", "button": "right", "x": 100, "y": 200, "num_clicks": 2},
    {"action_type": "DOUBLE_CLICK", "x": 5, "y": 6},
    {"action_type": "SCROLL", "dx": 0, "dy": -3},
    {"action_type": "TYPING", "text": "hello"},
    {"action_type": "HOTKEY", "keys": ["ctrl", "s"]},
]


# desktop_env/desktop_env.py, DesktopEnv.__init__, in order
DESKTOP_ENV_PARAMETERS = [
    "provider_name", "region", "path_to_vm", "snapshot_name", "action_space", "cache_dir", "screen_size",
    "headless", "require_a11y_tree", "require_terminal", "os_type", "enable_proxy", "client_password",
]  # fmt: skip


def test_desktop_env_takes_flat_computer_13_actions_and_is_a_gym_env() -> None:
    from PIL import Image

    ours = list(inspect.signature(DesktopEnv.__init__).parameters)[1 : 1 + len(DESKTOP_ENV_PARAMETERS)]
    assert ours == DESKTOP_ENV_PARAMETERS  # positional calls bind as they do on OSWorld's

    env = DesktopEnv(action_space="computer_13", backend="offline")
    assert isinstance(env, gym.Env)
    env.reset(task_config="gedit-write-note")
    for action in FLAT_COMPUTER_13:
        obs, _reward, done, info = env.step(action, pause=0)
        assert "action_error" not in info or not info["action_error"], (action, info)
        assert not done
    assert env.episode.session is not None
    prompts = [turn.prompt for turn in env.episode.session.trajectory.turns]
    assert "pyautogui.click(x=100, y=200)" in prompts[1]  # as desktop-env's controller writes it
    png = env.render()
    assert isinstance(png, bytes) and Image.open(io.BytesIO(png)).size == env.screen_size
    assert obs["screenshot"] == png
    env.close()


# -- AndroidWorld ------------------------------------------------------------------------------------


# android_world/env/json_action.py (JSONAction's fields, in order) and
# android_world/env/representation_utils.py (UIElement's)
JSON_ACTION_FIELDS = [
    "action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode", "clear_text",
]  # fmt: skip
UI_ELEMENT_FIELDS = [
    "text", "content_description", "class_name", "bbox", "bbox_pixels", "hint_text", "is_checked",
    "is_checkable", "is_clickable", "is_editable", "is_enabled", "is_focused", "is_focusable",
    "is_long_clickable", "is_scrollable", "is_selected", "is_visible", "package_name", "resource_name",
    "tooltip", "resource_id",
]  # fmt: skip


def test_android_json_action_equality_ui_element_metadata_and_one_error_prefix() -> None:
    import dataclasses

    assert [f.name for f in dataclasses.fields(JSONAction)] == JSON_ACTION_FIELDS
    assert [f.name for f in dataclasses.fields(UIElement)][: len(UI_ELEMENT_FIELDS)] == UI_ELEMENT_FIELDS
    assert JSONAction(action_type="input_text", text="Hello", index=2) == JSONAction(
        action_type="input_text", text="hello", index=2
    )
    assert JSONAction(action_type="open_app", app_name="Clock") == JSONAction(
        action_type="open_app", app_name="clock"
    )
    assert JSONAction(action_type="click", index=1) != JSONAction(action_type="click", index=2)
    assert repr(JSONAction(action_type="click", index=1)) == "JSONAction(action_type='click', index=1)"
    assert UIElement(text="OK", metadata={"source": "a11y"}).metadata == {"source": "a11y"}
    env = AgentWorldAndroidEnv(backend="offline")
    env.reset(go_home=True)
    errors = []
    for bad in [
        "{not json",
        {"action_type": "fly"},
        {"action_type": "click"},
        {"action_type": "open_app"},
        42,
    ]:
        env.execute_action(bad)
        errors.append(env.get_state().auxiliaries["last_action_error"])
    assert all(e.startswith("ValueError: ") for e in errors), errors


# -- every environment: check_env, and an action too long for any context ---------------------------


@pytest.mark.parametrize("env_id", registration.env_ids())
def test_check_env_every_registered_id(env_id: str) -> None:
    env = gym.make(env_id, backend="offline", disable_env_checker=True)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_an_action_too_long_is_an_error_observation_everywhere() -> None:
    # a world model's context is what such an action overflows: the offline world has no token
    # budget (it reads the action, not a context), so the model path is taken with a fake model
    web = _web_env(backend=FakeBackend())
    web.reset(seed=0)
    obs, *_ = web.step(f"fill('14', '{'x' * TOO_LONG}')")
    assert obs["last_action_error"].startswith("ValueError") and "too long" in obs["last_action_error"]
    web.close()

    offline = _web_env()
    offline.reset(seed=0)
    obs, *_ = offline.step(f"fill('14', '{'x' * TOO_LONG}')")  # filled, and the page still renders
    assert obs["last_action_error"] == "" and obs["screenshot"].size > 0
    offline.close()

    for domain in ("terminal", "mcp", "os"):
        env = gym.make(f"agentworld/{domain}-v0", backend="offline", disable_env_checker=True)
        env.reset(seed=0)
        *_, info = env.step("x" * (env.unwrapped.action_space.max_length + 1))
        assert "allows at most 8192" in info["action_error"]
        env.close()

    desktop = DesktopEnv(backend=FakeBackend())
    desktop.reset()
    _, _, _, info = desktop.step(f"pyautogui.typewrite('{'x' * TOO_LONG}')", pause=0)
    assert "too long" in info["action_error"]

    phone = AgentWorldAndroidEnv(backend=FakeBackend())
    phone.reset()
    phone.execute_action({"action_type": "input_text", "text": "x" * TOO_LONG, "index": 0})
    assert "too long" in phone.get_state().auxiliaries["last_action_error"]
