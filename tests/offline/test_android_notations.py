"""The offline android world reads the screen notations the android prompt allows (its JSON lines,
AndroidWorld's ``UIElement(...)`` repr, ``TextView text='...'`` lines), answers in the notation it
was given, and carries a screen in any other notation forward unchanged, marked unknown; the
search world takes the official ``{"dict": ...}`` form of a dict_memory add."""

from __future__ import annotations

import pytest

from agentworld_plugins import World
from agentworld_plugins.offline.gui.android_notations import read_android_screen, write_android_screen

_BOX = "BoundingBox(x_min=0, x_max=1080, y_min=100, y_max=200)"
UIELEMENT_SCREEN = "\n".join(
    [
        "UI element 0: UIElement(text='Search', content_description=None, class_name="
        f"'android.widget.EditText', bbox=None, bbox_pixels={_BOX}, hint_text='Search', "
        "is_checked=False, is_clickable=True, is_editable=True, is_focused=False, "
        "package_name='com.android.settings', resource_name='com.android.settings:id/q')",
        "UI element 1: UIElement(text='Wi-Fi', content_description=None, class_name="
        "'android.widget.Switch', bbox=None, bbox_pixels=BoundingBox(x_min=0, x_max=1080, "
        "y_min=300, y_max=400), is_checked=False, is_clickable=True, is_editable=False)",
    ]
)
ATTRS_SCREEN = "\n".join(
    [
        "[0] EditText text='' hint='Search' clickable=true editable=true bounds=[0,100][1080,200]",
        "[1] Switch text='Wi-Fi' clickable=true checked=false bounds=[0,300][1080,400]",
        "[2] TextView text='It\\'s on' clickable=false bounds=[0,500][1080,600]",
    ]
)


@pytest.mark.parametrize("screen", [UIELEMENT_SCREEN, ATTRS_SCREEN])
def test_a_screen_is_written_back_exactly_as_it_was_read(screen: str) -> None:
    elements, notation = read_android_screen(screen)
    assert notation is not None and len(elements) == screen.count("\n") + 1
    assert write_android_screen(elements, notation) == screen


@pytest.mark.parametrize(
    ("screen", "typed", "checked"),
    [
        (UIELEMENT_SCREEN, "text='alarm'", "is_checked=True"),
        (ATTRS_SCREEN, "text='alarm'", "checked=true"),
    ],
)
def test_actions_change_a_screen_in_its_own_notation(screen: str, typed: str, checked: str) -> None:
    session = World(backend="offline").session("android", initial_state=screen)
    first = session.step({"action_type": "input_text", "text": "alarm", "index": 0})
    assert not first.metadata["offline_unknown_effect"] and not first.is_error
    lines = first.text.splitlines()
    assert typed in lines[0] and lines[1:] == screen.splitlines()[1:]
    second = session.step({"action_type": "click", "x": 500, "y": 350})  # by point: the switch
    assert checked in second.text.splitlines()[1]
    assert '{"' not in second.text  # never turned into the JSON notation


def test_a_screen_in_an_unknown_notation_is_carried_forward_and_marked() -> None:
    screen = "<hierarchy><node text='Settings' bounds='[0,0][10,10]'/></hierarchy>"
    session = World(backend="offline").session("android", initial_state=screen)
    for action in ({"action_type": "click", "index": 0}, {"action_type": "navigate_home"}):
        observation = session.step(action)
        assert observation.text == screen and not observation.is_error
        assert observation.metadata["offline_unknown_effect"] is True
        assert "notation" in observation.metadata["offline_reason"]


def test_prose_is_no_attribute_notation() -> None:
    assert read_android_screen("The home screen shows the clock.\nNothing else.")[1] is None


def test_the_official_dict_form_of_a_memory_add() -> None:
    session = World(backend="offline").session("search")
    added = session.step(
        {"name": "dict_memory", "arguments": {"operation": "add", "dict": {"a": 1, "b": "x"}}}
    )
    assert not added.is_error and "'a', 'b'" in added.text
    again = session.step({"name": "dict_memory", "arguments": {"operation": "add", "dict": '{"a": 2}'}})
    assert again.is_error and "already exists" in again.text
    updated = session.step({"name": "dict_memory", "arguments": {"operation": "update", "dict": {"a": 2}}})
    assert not updated.is_error
    everything = session.step({"name": "dict_memory", "arguments": {"operation": "retrieve_all"}})
    assert '"a": 2' in everything.text and '"b": "x"' in everything.text
