"""The guard of Android screens: the state of the switches, checkboxes and toggles.

A toggle's state is known once a screen showed it (the model) or the agent clicked it (the state
flips). Every later screen that shows the same toggle (same resource name and label) must show
the state the world knows: a click on the 7:00 alarm's switch turns it on, and it stays on after
Back, Home and reopening the app, until the agent clicks it again.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from .core import Checker, Contradiction, Verdict

if TYPE_CHECKING:
    from pydantic import BaseModel

_CHECKABLE = ("CheckBox", "Switch", "ToggleButton", "RadioButton", "CheckedTextView")
_LINE = re.compile(r"^(UI element \d+: )(\{.*\})\s*$")
_TAPS = ("click", "long_press")


def _elements(text: str) -> list[dict[str, Any]]:
    from ..domains.formats.android import parse_android_screen

    try:
        return parse_android_screen(text)
    except Exception:
        return []


def checkable(element: dict[str, Any]) -> bool:
    if element.get("is_checkable") is True:
        return True
    kind = str(element.get("class_name") or "").rsplit(".", 1)[-1]
    return any(name in kind for name in _CHECKABLE)


def key(element: dict[str, Any]) -> str | None:
    """What names a toggle across screens: its resource name and label (None when it has neither)."""
    label = element.get("content_description") or element.get("text") or ""
    resource = element.get("resource_name") or ""
    return f"{resource}|{label}" if (label or resource) else None


def _state(facts: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = facts.setdefault("android", {"screen": [], "toggles": {}})
    return found


def _toggled(facts: dict[str, Any], action: BaseModel) -> tuple[str, bool] | None:
    """The toggle a tap on the previous screen flips, and the state it flips to."""
    if getattr(action, "action_type", None) not in _TAPS or getattr(action, "index", None) is None:
        return None
    screen = _state(facts)["screen"]
    index = int(getattr(action, "index", 0) or 0)
    if index >= len(screen) or not checkable(screen[index]):
        return None
    name = key(screen[index])
    return (name, not bool(screen[index].get("is_checked"))) if name else None


def _expected(facts: dict[str, Any], action: BaseModel) -> dict[str, tuple[bool, int, str]]:
    known = {k: (bool(v[0]), int(v[1]), str(v[2])) for k, v in _state(facts)["toggles"].items()}
    flipped = _toggled(facts, action)
    if flipped is not None:  # the tap of the turn being answered
        known[flipped[0]] = (flipped[1], int(_state(facts).get("last_turn", 0)) + 1, "agent")
    return known


class AndroidChecker(Checker):
    domain = "android"

    def check(self, facts: dict[str, Any], action: BaseModel, text: str, context: dict[str, Any]) -> Verdict:
        expected = _expected(facts, action)
        found: list[Contradiction] = []
        checked = False
        for element in _elements(text):
            name = key(element) if checkable(element) else None
            if name is None or name not in expected:
                continue
            checked = True
            state, turn, source = expected[name]
            if bool(element.get("is_checked")) != state:
                label = element.get("content_description") or element.get("text") or name
                shown = "on" if element.get("is_checked") else "off"
                found.append(
                    Contradiction("toggle", str(label), "on" if state else "off", shown, turn, source)
                )
        return Verdict(found, checked or bool(found))

    def substitute(
        self, facts: dict[str, Any], action: BaseModel, text: str, verdict: Verdict, context: dict[str, Any]
    ) -> str:
        expected = _expected(facts, action)
        lines = []
        for line in text.split("\n"):
            match = _LINE.match(line)
            if match:
                try:
                    element = json.loads(match.group(2))
                except ValueError:
                    element = None
                name = key(element) if isinstance(element, dict) and checkable(element) else None
                if (
                    name is not None
                    and name in expected
                    and bool(element.get("is_checked")) != expected[name][0]
                ):
                    element["is_checked"] = expected[name][0]
                    line = match.group(1) + json.dumps(element, ensure_ascii=False)
            lines.append(line)
        return "\n".join(lines)

    def commit(
        self,
        facts: dict[str, Any],
        action: BaseModel,
        text: str,
        is_error: bool,
        turn: int,
        context: dict[str, Any],
    ) -> None:
        state = _state(facts)
        state["last_turn"] = turn
        flipped = None if is_error else _toggled(facts, action)
        if flipped is not None:
            state["toggles"][flipped[0]] = [flipped[1], turn, "agent"]
        elements = _elements(text)
        if not elements:
            return
        for element in elements:
            name = key(element) if checkable(element) else None
            if name is not None and name not in state["toggles"]:
                state["toggles"][name] = [bool(element.get("is_checked")), turn, "model"]
        state["screen"] = elements
