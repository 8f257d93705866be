"""The android observation format: the screen's ``UI element N: {json}`` lines."""

from __future__ import annotations

import json
import re
from typing import Any

from .lines import split_lines


def android_element(
    text: str | None,
    description: str | None,
    class_name: str,
    resource: str | None,
    bbox: list[int],
    *,
    clickable: bool = True,
) -> dict[str, Any]:
    return {
        "text": text,
        "content_description": description,
        "class_name": class_name,
        "resource_name": resource,
        "is_clickable": clickable,
        "is_editable": False,
        "is_scrollable": False,
        "is_checked": False,
        "is_selected": False,
        "is_focused": False,
        "bbox": bbox,
    }


_LAUNCHER = "com.google.android.apps.nexuslauncher:id/"
_ICON = "android.widget.TextView"

_DEFAULT_HOME: list[dict[str, Any]] = [
    android_element(
        "9:41", "9:41", _ICON, "com.android.systemui:id/clock", [66, 0, 176, 110], clickable=False
    ),
    android_element("Tue, Jun 3", None, _ICON, _LAUNCHER + "date", [79, 263, 553, 341]),
    android_element("Clock", "Clock", _ICON, None, [63, 1640, 271, 1880]),
    android_element("Settings", "Settings", _ICON, None, [309, 1640, 517, 1880]),
    android_element("Contacts", "Contacts", _ICON, None, [563, 1640, 771, 1880]),
    android_element("Phone", "Phone", _ICON, None, [63, 1915, 271, 2169]),
    android_element("Messages", "Messages", _ICON, None, [309, 1915, 517, 2169]),
    android_element("Chrome", "Chrome", _ICON, None, [563, 1915, 771, 2169]),
    android_element("Camera", "Camera", _ICON, None, [809, 1915, 1017, 2169]),
    android_element(
        None,
        "Search",
        "android.widget.FrameLayout",
        _LAUNCHER + "search_container_hotseat",
        [63, 2205, 1017, 2337],
    ),
]

#: the start of an element line, its number captured
UI_ELEMENT_NUMBER = re.compile(r"^UI element (\d+):", re.MULTILINE)
_ANDROID_LINE = re.compile(r"^\s*UI element (?P<index>\d+):\s*(?P<json>\{.*\})\s*$")


def parse_android_screen(text: str) -> list[dict[str, Any]]:
    """The UI elements of an android observation (``UI element N: {json}`` lines), in order."""
    elements: list[dict[str, Any]] = []
    for line in split_lines(text):
        match = _ANDROID_LINE.match(line)
        if not match:
            continue
        try:
            element = json.loads(match.group("json"))
        except json.JSONDecodeError:
            continue
        if isinstance(element, dict):
            elements.append(element)
    return elements


def render_android_screen(elements: list[dict[str, Any]]) -> str:
    """The element list as the android prompt writes it: one numbered JSON object per line."""
    return "\n".join(ui_element_line(i, el) for i, el in enumerate(elements))


def ui_element_line(index: int, element: dict[str, Any]) -> str:
    """One line of the element list: ``UI element N: {json}``."""
    return f"UI element {index}: {_json_line(element)}"


def ui_element_indices(text: str) -> list[int]:
    """The numbers of the ``UI element N:`` lines in ``text``, in order."""
    return [int(m) for m in UI_ELEMENT_NUMBER.findall(text)]


def _json_line(element: dict[str, Any]) -> str:
    """``json.dumps`` without ASCII escapes, but with the characters that break a line escaped."""
    text = json.dumps(element, ensure_ascii=False)
    for char in _LINE_BREAKERS:
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


_LINE_BREAKERS = ("\x85", "\u2028", "\u2029")


#: the built-in starting screen: the launcher's home screen
DEFAULT_ANDROID_SCREEN = render_android_screen(_DEFAULT_HOME)
