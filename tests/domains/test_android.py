"""The android (AndroidWorld) domain: JSON actions, turn prompts, output parsing and errors."""

from __future__ import annotations

import json

import pytest
from gui_domain_cases import ANDROID_SCREEN as SCREEN
from gui_domain_cases import registered

from agentworld_plugins.domains.android import ACTION_TYPES, AndroidAction, AndroidDomain
from agentworld_plugins.errors import ActionValidationError


@pytest.fixture(scope="module")
def dom() -> AndroidDomain:
    return registered("android", AndroidDomain)


VALID = [
    {"action_type": "click", "index": 3},
    {"action_type": "click", "x": 540, "y": 1200},
    {"action_type": "double_tap", "index": 0},
    {"action_type": "long_press", "x": 10, "y": 20},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "scroll", "direction": "up", "index": 4},
    {"action_type": "swipe", "direction": "left"},
    {"action_type": "input_text", "text": "milk", "index": 2},
    {"action_type": "input_text", "text": "milk", "x": 5, "y": 6, "clear_text": True},
    {"action_type": "input_text", "text": ""},
    {"action_type": "navigate_home"},
    {"action_type": "navigate_back"},
    {"action_type": "keyboard_enter"},
    {"action_type": "open_app", "app_name": "Clock"},
    {"action_type": "status", "goal_status": "complete"},
    {"action_type": "status", "goal_status": "infeasible"},
    {"action_type": "wait"},
    {"action_type": "answer", "text": "The alarm is set for 7:00."},
]


@pytest.mark.parametrize("raw", VALID)
def test_valid_actions(dom: AndroidDomain, raw: dict) -> None:
    action = dom.validate_action(raw)
    assert isinstance(action, AndroidAction)
    # a JSON string is accepted too
    assert dom.validate_action(json.dumps(raw)) == action


def test_every_action_type_is_covered() -> None:
    assert len(ACTION_TYPES) == 13
    assert {v["action_type"] for v in VALID} == set(ACTION_TYPES)


INVALID = [
    ({"action_type": "tap", "index": 1}, "action_type"),
    ({"index": 1}, "action_type"),
    ({"action_type": "click"}, "index"),
    ({"action_type": "click", "index": 1, "x": 3, "y": 4}, "not both"),
    ({"action_type": "long_press", "x": 3}, "without y"),
    ({"action_type": "scroll", "direction": "down", "y": 3}, "without x"),
    ({"action_type": "click", "index": -1}, "index"),
    ({"action_type": "click", "index": "first"}, "index"),
    ({"action_type": "input_text", "index": 2}, "text"),
    ({"action_type": "scroll"}, "direction"),
    ({"action_type": "swipe", "direction": "sideways"}, "direction"),
    ({"action_type": "open_app"}, "app_name"),
    ({"action_type": "open_app", "app_name": "  "}, "app_name"),
    ({"action_type": "status"}, "goal_status"),
    ({"action_type": "status", "goal_status": "done"}, "goal_status"),
    ({"action_type": "answer"}, "text"),
    ({"action_type": "click", "index": 1, "element": "OK"}, "element"),
]


@pytest.mark.parametrize(("raw", "field"), INVALID)
def test_invalid_actions(dom: AndroidDomain, raw: dict, field: str) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action(raw)
    err = info.value
    assert err.domain == "android"
    assert any(field in e["loc"] or field in e["msg"] for e in err.errors), err.errors


def test_field_errors_are_located(dom: AndroidDomain) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action({"action_type": "scroll", "direction": "sideways"})
    assert [e["loc"] for e in info.value.errors] == ["direction"]


def test_rule_errors_name_what_is_expected(dom: AndroidDomain) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action({"action_type": "open_app"})
    (error,) = info.value.errors
    assert error["msg"].startswith("open_app needs app_name")
    assert "Clock" in error["expected"]


def test_bad_json_string(dom: AndroidDomain) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action('{"action_type": "click", ')
    assert "JSON" in info.value.errors[0]["msg"]


def test_render_action_compact_with_set_fields_only(dom: AndroidDomain) -> None:
    action = dom.validate_action({"index": 2, "text": "milk", "action_type": "input_text"})
    rendered = dom.render_action(action)
    assert rendered == '{"action_type": "input_text", "index": 2, "text": "milk"}'
    assert "\n" not in rendered and "null" not in rendered


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SCREEN, False),
        ('UI element 0: {"text": "Error loading feed", "class_name": "android.widget.Toast"}', False),
        ("Error: the device is offline", True),
        ("  ERROR: adb failed", True),
    ],
)
def test_is_error(dom: AndroidDomain, text: str, expected: bool) -> None:
    action = dom.validate_action({"action_type": "wait"})
    assert dom.is_error(text, action) is expected
