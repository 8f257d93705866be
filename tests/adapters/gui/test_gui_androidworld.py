"""The AndroidWorld look-alike: AsyncEnv surface, State records, JSONAction checks, controller probes."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("PIL")

from agentworld_plugins.adapters.gui.androidworld import (
    AgentWorldAndroidEnv,
    BoundingBox,
    JSONAction,
    State,
    UIElement,
)

from agentworld_plugins.backends.scenario import ScenarioBackend
from agentworld_plugins.domains.formats.android import DEFAULT_ANDROID_SCREEN


def _check_state(state: State, size: tuple[int, int] = (1080, 2400)) -> None:
    assert isinstance(state, State)
    assert isinstance(state.pixels, np.ndarray) and state.pixels.dtype == np.uint8
    assert state.pixels.shape == (size[1], size[0], 3)
    assert isinstance(state.ui_elements, list) and state.ui_elements
    for element in state.ui_elements:
        assert isinstance(element, UIElement)
        assert isinstance(element.bbox_pixels, BoundingBox) and isinstance(element.bbox, BoundingBox)
        assert 0 <= element.bbox.x_min <= element.bbox.x_max <= 1
    assert isinstance(state.auxiliaries, dict) and "last_action_error" in state.auxiliaries
    nodes = state.forest.windows[0].tree.nodes
    assert len(nodes) == len(state.ui_elements) + 1


def _texts(state: State) -> list[str | None]:
    return [e.text or e.content_description for e in state.ui_elements]


def test_scripted_episode_offline() -> None:
    env = AgentWorldAndroidEnv(task="android/clock-set-alarm", backend="offline", seed=3)
    state = env.reset(go_home=False)
    _check_state(state)
    assert "Clock" in _texts(state)
    script = [
        JSONAction(action_type="open_app", app_name="Clock"),
        JSONAction(action_type="click", index=3),
        {"action_type": "click", "index": 99},
        {"action_type": "click", "index": 1, "x": 10, "y": 10},
        '{"action_type": "fly"}',
        JSONAction(action_type="navigate_home"),
        JSONAction(action_type="open_app", app_name="Clock"),
        JSONAction(action_type="scroll", direction="down"),
        JSONAction(action_type="answer", text="The 7:00 AM alarm is on."),
        JSONAction(action_type="status", goal_status="complete"),
    ]
    errors = []
    for action in script:
        assert env.execute_action(action) is None
        state = env.get_state(wait_to_stabilize=True)
        _check_state(state)
        errors.append(env.last_action_error)
    assert errors[0] == errors[1] == ""
    assert errors[2].startswith("Error: UI element index 99 is out of range")
    assert errors[3] == "ValueError: Either an index or a <x, y> should be provided."
    assert errors[4] == "ValueError: Invalid action type: fly"
    switch = next(e for e in state.ui_elements if e.content_description == "7:00 AM alarm")
    assert switch.is_checked is True  # the Clock screen was remembered when reopened
    assert state.auxiliaries["success"] is True
    assert env.interaction_cache == "The 7:00 AM alarm is on."
    assert env.messages[-1] == {"header": "Agent answered:", "message": "The 7:00 AM alarm is on."}
    assert env.foreground_activity_name == "com.google.android.deskclock/.MainActivity"
    turns = env.episode.session.trajectory.turns
    assert len(turns) == 6  # refused actions never reach the world; answer/status change no screen
    env.close()
    assert env.closed


def test_jsonaction_checks_like_androidworld() -> None:
    assert JSONAction(action_type="click", index="4").index == 4
    assert JSONAction(action_type="input_text", text=5).text == "5"
    for bad in (
        {"action_type": "tap"},
        {"action_type": "click", "index": 1, "x": 3},
        {"action_type": "scroll", "direction": "sideways"},
        {"action_type": "wait", "keycode": "ENTER"},
    ):
        with pytest.raises(ValueError):
            JSONAction(**bad)
    action = JSONAction(action_type="click", x=5, y=6)
    assert action.json_str() == '{"action_type":"click","x":5,"y":6}'


def test_domain_checks_beyond_androidworld_are_reported() -> None:
    env = AgentWorldAndroidEnv(backend="offline")
    env.reset()
    env.execute_action(JSONAction(action_type="click"))  # neither index nor x, y
    assert "click needs index" in env.last_action_error
    env.execute_action({"action_type": "click", "index": 2, "button": "left"})
    assert env.last_action_error == "ValueError: JSONAction has no field(s) button"
    env.execute_action(object())
    assert env.last_action_error.startswith("ValueError: expected a JSONAction")


def test_forest_reads_back_as_androidworld_does() -> None:
    env = AgentWorldAndroidEnv(backend="offline")
    state = env.reset()
    picked = []
    for window in state.forest.windows:  # AndroidWorld's forest_to_ui_elements rule
        for node in window.tree.nodes:
            if not node.child_ids or node.content_description or node.is_scrollable:
                box = node.bounds_in_screen
                picked.append((node.text or None, box.left, box.top, box.right, box.bottom))
    assert picked == [
        (e.text, e.bbox_pixels.x_min, e.bbox_pixels.y_min, e.bbox_pixels.x_max, e.bbox_pixels.y_max)
        for e in state.ui_elements
    ]


def _issue_generic_request(command: str, env) -> object:
    class _Generic:
        args = command.split()

    class _Request:
        generic = _Generic()

    return env.execute_adb_call(_Request())


def test_controller_answers_the_probes() -> None:
    env = AgentWorldAndroidEnv(backend="offline", screen_size=(720, 1600))
    env.reset()
    controller = env.controller
    assert env.device_screen_size == env.logical_screen_size == (720, 1600)
    assert env.orientation == 0 and env.physical_frame_boundary == (0, 0, 720, 1600)
    assert controller.get_orientation() == 0 and controller.get_physical_frame_boundary() == (0, 0, 720, 1600)
    assert controller.get_logical_screen_size() == (720, 1600)
    response = _issue_generic_request("shell dumpsys input | grep logicalFrame", controller)
    assert response.status
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", response.generic.output.decode()) == [
        ("720", "1600")
    ]
    physical = _issue_generic_request("shell dumpsys input | grep physicalFrame", controller)
    assert re.findall(r"physicalFrame=\[(\d+), (\d+), (\d+), (\d+)\]", physical.generic.output.decode()) == [
        ("0", "0", "720", "1600")
    ]
    rotation = _issue_generic_request("shell dumpsys window | grep mCurrentRotation", controller)
    assert re.findall(r"mCurrentRotation=ROTATION_(\d+)", rotation.generic.output.decode()) == ["0"]
    assert controller.execute_adb_call("shell wm size").generic.output == b"Physical size: 720x1600\n"
    assert env.get_state().pixels.shape == (1600, 720, 3)
    assert [e.text for e in controller.get_ui_elements()] == [e.text for e in env.get_state().ui_elements]


def test_malformed_model_output_keeps_the_screen() -> None:
    backend = ScenarioBackend(
        {
            "ordered": True,
            "steps": [
                {"match": {"action_type": "wait"}, "observation": "The screen now shows the clock."},
                {"match": {"action_type": "navigate_home"}, "observation": DEFAULT_ANDROID_SCREEN},
            ],
        }
    )
    env = AgentWorldAndroidEnv(task={"initial_state": DEFAULT_ANDROID_SCREEN}, backend=backend)
    before = _texts(env.reset())
    env.execute_action(JSONAction(action_type="wait"))
    state = env.get_state()
    assert _texts(state) == before
    assert "not a android screen" in state.auxiliaries["observation_error"]
    env.execute_action(JSONAction(action_type="navigate_home"))
    assert env.get_state().auxiliaries["observation_error"] is None
    backend.assert_done()


def test_go_home_ask_question_and_generated_start() -> None:
    env = AgentWorldAndroidEnv(task="android/contacts-search", backend="offline")
    state = env.reset(go_home=True)  # the task starts in Contacts; home is the stock launcher
    assert "Dana Whitfield" not in _texts(state) and "Contacts" in _texts(state)
    env.execute_action({"action_type": "open_app", "app_name": "Contacts"})
    assert "Dana Whitfield" in _texts(env.get_state())  # Contacts as the task started it
    assert env.ask_question("Which number?") == "Yes, the mobile number please."
    assert env.questions == ["Which number?"]
    generated = AgentWorldAndroidEnv(task="android/notes-new-note", backend="offline")
    state = generated.reset()
    assert generated.episode.start.source == "offline_default"
    assert "todo.md" in _texts(state)  # offline: the task's start_app opened from its screens
    assert generated.ask_question("?") is None
