"""The offline android world: the phone's screen, app and back stack carried forward."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from pydantic import BaseModel

from ...domains.android import AndroidAction
from ...domains.base import OfflineResult
from ...domains.formats.android import DEFAULT_ANDROID_SCREEN, parse_android_screen
from .android_notations import read_android_screen, write_android_screen
from .shared import ANDROID_STATE_KEY, UNKNOWN_EFFECT, Failed, Unknown, initial_text, lookup, run_calls

_CHECKABLE_CLASSES = ("CheckBox", "Switch", "ToggleButton", "RadioButton", "CheckedTextView")
#: the app of a package (its last part), as the launcher names it
_APP_NAMES = {
    "deskclock": "Clock",
    "contacts": "Contacts",
    "markor": "Markor",
    "settings": "Settings",
    "dialer": "Phone",
    "messaging": "Messages",
    "chrome": "Chrome",
    "camera2": "Camera",
    "calendar": "Calendar",
    "documentsui": "Files",
}
_PACKAGE = re.compile(r"^([\w.]+):id/")
_SYSTEM_PACKAGES = ("com.android.systemui", "com.google.android.apps.nexuslauncher", "android")


def _android_screen_text(text: str, what: str) -> list[dict[str, Any]]:
    """The elements of a screen the task supplies (any notation :mod:`.android_notations` reads)."""
    elements, notation = read_android_screen(text)
    if notation is None:
        raise Unknown(f"the {what} is written in a screen notation not known offline")
    return elements


def _android_world(state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The phone: ``{screen, app, stack: [{screen, app}], apps: {app: last screen}, home,
    notation}``; a starting screen in no notation known here is kept as ``raw`` text."""
    world = state.get(ANDROID_STATE_KEY)
    if world is not None:
        return world
    text = initial_text(context, DEFAULT_ANDROID_SCREEN)
    screen, notation = read_android_screen(text)
    home_text = lookup(context.get("screens"), "home", fold=str.casefold)
    # without a home screen of its own the task's phone has the stock launcher's
    home = parse_android_screen(home_text if home_text is not None else DEFAULT_ANDROID_SCREEN)
    app = _app_of(screen)
    if app is None and screen != home:
        app = ""  # an app the screen does not name: Back and Home still leave it
    world = {"screen": screen, "app": app, "stack": [], "apps": {}, "home": home, "notation": notation}
    if notation is None:
        world["raw"] = text
    state[ANDROID_STATE_KEY] = world
    return world


def _app_of(elements: list[dict[str, Any]]) -> str | None:
    """The app a screen belongs to, by the package most of its resource names have (None: the
    launcher or the system)."""
    counts: dict[str, int] = {}
    for element in elements:
        match = _PACKAGE.match(str(element.get("resource_name") or ""))
        if match is not None and match.group(1) not in _SYSTEM_PACKAGES:
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    if not counts:
        return None
    package = max(counts, key=lambda p: counts[p])
    last = package.rsplit(".", 1)[-1]
    return _APP_NAMES.get(last, last.capitalize())


def _bbox(element: dict[str, Any]) -> tuple[float, float, float, float] | None:
    # AndroidWorld's UIElement has its pixels in bbox_pixels (its bbox is normalised to 0-1)
    box = element.get("bbox_pixels") or element.get("bbox")
    if isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box):
        return (box[0], box[1], box[2], box[3])
    if isinstance(box, dict):  # AndroidWorld's BoundingBox(x_min, x_max, y_min, y_max)
        try:
            return (box["x_min"], box["y_min"], box["x_max"], box["y_max"])
        except KeyError:
            return None
    return None


def _contains(element: dict[str, Any], x: float, y: float) -> bool:
    box = _bbox(element)
    return box is not None and box[0] <= x < box[2] and box[1] <= y < box[3]


def _area(element: dict[str, Any]) -> float:
    box = _bbox(element)
    return (box[2] - box[0]) * (box[3] - box[1]) if box else float("inf")


def _checkable(element: dict[str, Any]) -> bool:
    if element.get("is_checkable") is True:
        return True
    cls = str(element.get("class_name") or "").rsplit(".", 1)[-1]
    return any(kind in cls for kind in _CHECKABLE_CLASSES)


def _android_editable(element: dict[str, Any]) -> bool:
    return element.get("is_editable") is True or "EditText" in str(element.get("class_name") or "")


def _interactive(element: dict[str, Any]) -> bool:
    return element.get("is_clickable") is True or _android_editable(element) or _checkable(element)


def _label(element: dict[str, Any]) -> str:
    return str(element.get("text") or element.get("content_description") or "")


def _android_target(world: dict[str, Any], action: AndroidAction) -> int | None:
    """The element an action aims at: by index (error when out of range) or by point."""
    elements = world["screen"]
    if action.index is not None:
        if action.index >= len(elements):
            count = len(elements)
            known = f" (indices 0-{count - 1})" if count else ""
            raise Failed(
                f"Error: UI element index {action.index} is out of range; the screen has "
                f"{count} UI element{'s' if count != 1 else ''}{known}"
            )
        return int(action.index)
    if action.x is not None and action.y is not None:
        hits = [i for i, el in enumerate(elements) if _contains(el, action.x, action.y)]
        if hits:
            return min(hits, key=lambda i: (not _interactive(elements[i]), _area(elements[i]), -i))
    return None


def _receiver(elements: list[dict[str, Any]], index: int) -> int | None:
    """The element a tap on ``elements[index]`` lands on: itself, or the smallest interactive
    element under its centre (a tap on a row's label goes to the row)."""
    element = elements[index]
    if _interactive(element):
        return index
    box = _bbox(element)
    if box is None:
        return None
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    under = [i for i, el in enumerate(elements) if _interactive(el) and _contains(el, cx, cy)]
    return min(under, key=lambda i: (_area(elements[i]), -i)) if under else None


def _android_focus(elements: list[dict[str, Any]], index: int) -> None:
    for i, element in enumerate(elements):
        if "is_focused" in element or i == index:
            element["is_focused"] = i == index


def _open_screen(world: dict[str, Any], elements: list[dict[str, Any]], app: str | None) -> None:
    world["stack"].append({"screen": world["screen"], "app": world["app"]})
    world["screen"], world["app"] = elements, app


def _leave_app(world: dict[str, Any]) -> None:
    if world["app"] is not None:
        world["apps"][world["app"].casefold()] = world["screen"]


def _searchable(element: dict[str, Any]) -> bool:
    words = " ".join(str(element.get(k) or "") for k in ("resource_name", "hint_text", "content_description"))
    return "search" in words.casefold()


def _filter_rows(elements: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """The screen with the list rows (clickable texts sharing a resource name) that do not
    contain ``query`` left out; the rows kept move up into the places of the first ones."""
    names: dict[str, int] = {}
    for element in elements:
        if element.get("is_clickable") and not _android_editable(element) and element.get("text"):
            key = str(element.get("resource_name"))
            names[key] = names.get(key, 0) + 1

    def is_row(element: dict[str, Any]) -> bool:
        shared = names.get(str(element.get("resource_name")), 0) > 1
        return shared and bool(element.get("is_clickable")) and not _android_editable(element)

    rows = [el for el in elements if is_row(el)]
    kept = [el for el in rows if query.casefold() in str(el.get("text") or "").casefold()]
    places = [el.get("bbox") for el in rows]
    for element, place in zip(kept, places):
        element["bbox"] = place
    kept_ids = {id(el) for el in kept}
    return [el for el in elements if not is_row(el) or id(el) in kept_ids]


def _enter(world: dict[str, Any]) -> None:
    """The Enter key on the focused field: a search box filters its list, a text field takes a newline."""
    elements = world["screen"]
    focused = [i for i, el in enumerate(elements) if el.get("is_focused") and _android_editable(el)]
    if not focused:
        raise Unknown("Enter goes to no text field; what it does on this screen is not known offline")
    field = elements[focused[0]]
    text = str(field.get("text") or "")
    if _searchable(field):
        if text and text != field.get("hint_text"):
            world["screen"] = _filter_rows(elements, text)
        return
    field["text"] = text + "\n"


def _android_apply(world: dict[str, Any], action: AndroidAction, context: dict[str, Any]) -> None:
    kind = action.action_type
    elements = world["screen"]
    if kind in ("status", "answer", "wait"):
        return
    if kind in ("click", "double_tap", "long_press"):
        target = _android_target(world, action)
        receiver = None if target is None else _receiver(elements, target)
        if receiver is None:  # a tap on nothing interactive changes nothing
            return
        element = elements[receiver]
        if kind == "long_press":
            raise Unknown(f"what a long press on {_label(element)!r} opens is not known offline")
        if _checkable(element) and kind == "click":
            radio = "RadioButton" in str(element.get("class_name"))
            element["is_checked"] = True if radio else not element.get("is_checked", False)
        elif _android_editable(element):
            _android_focus(elements, receiver)
        else:
            label = _label(element)
            remembered = world["apps"].pop(label.casefold(), None) if world["app"] is None else None
            if remembered is not None and kind == "click":  # an app icon: the app as it was left
                _open_screen(world, remembered, label)
                return
            screen = lookup(context.get("screens"), label, fold=str.casefold)
            if screen is None or kind != "click":
                raise Unknown(
                    f"what {kind} on {_label(element) or element.get('class_name')!r} opens is not known offline"
                )
            # an icon on the launcher opens its app; anything else, a screen of the app in front
            app = label if world["app"] is None else world["app"]
            _open_screen(world, _android_screen_text(screen, f"screen {label!r}"), app)
        return
    if kind == "input_text":
        target = _android_target(world, action)
        if target is None:
            focused = [i for i, el in enumerate(elements) if el.get("is_focused") and _android_editable(el)]
            if not focused:
                return  # no field has the focus: the keys go nowhere
            target = focused[0]
        element = elements[target]
        if not _android_editable(element):
            raise Unknown(f"{_label(element)!r} is not a text field; tapping it has an unknown effect")
        old = element.get("text")
        if action.clear_text or old is None or old == element.get("hint_text"):
            old = ""
        element["text"] = str(old) + (action.text or "")
        _android_focus(elements, target)
        return
    if kind == "scroll":
        if not any(el.get("is_scrollable") for el in elements):
            return
        raise Unknown("what a scroll reveals is not known offline")
    if kind == "open_app":
        name = (action.app_name or "").strip()
        if world["app"] is not None and world["app"].casefold() == name.casefold():
            return  # the app is in front already
        remembered = world["apps"].pop(name.casefold(), None)
        screen = (
            remembered if remembered is not None else lookup(context.get("screens"), name, fold=str.casefold)
        )
        if screen is None:
            raise Unknown(f"the screens of {name} are not known offline (context['screens'] can supply them)")
        _leave_app(world)
        parsed = screen if isinstance(screen, list) else _android_screen_text(screen, f"screen {name!r}")
        _open_screen(world, parsed, name)
        return
    if kind == "navigate_home":
        _leave_app(world)
        world.update(screen=copy.deepcopy(world["home"]), app=None, stack=[])
        return
    if kind == "navigate_back":
        if world["stack"]:
            previous = world["stack"].pop()
            if previous["app"] != world["app"]:
                _leave_app(world)  # backing out of the app: what was set there stays set
            world["screen"], world["app"] = previous["screen"], previous["app"]
        elif world["app"] is not None:  # back from the app's first screen: the launcher
            _leave_app(world)
            world.update(screen=copy.deepcopy(world["home"]), app=None)
        return  # back on the home screen does nothing
    if kind == "keyboard_enter":
        _enter(world)
        return
    raise Unknown(f"what {kind} leads to is not known offline")


def android_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline android world's answer to an AndroidWorld JSON action."""
    phone_action = AndroidAction.model_validate(action)
    world = _android_world(state, context)
    shown = json.dumps(phone_action.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    if world.get("notation") is None:  # a screen notation not known here: carried forward as it is
        meta: dict[str, Any] = {
            UNKNOWN_EFFECT: True,
            "offline_unknown_action": shown,
            "offline_reason": "the screen is written in a notation the offline world does not read;"
            " it is carried forward unchanged",
        }
        return OfflineResult(text=str(world.get("raw", "")), is_error=False, metadata=meta)
    world, meta, error = run_calls(world, [(shown, phone_action)], lambda w, a: _android_apply(w, a, context))
    state[ANDROID_STATE_KEY] = world
    if phone_action.action_type == "answer":
        meta["offline_answer"] = phone_action.text
    elif phone_action.action_type == "status":
        meta["offline_goal_status"] = phone_action.goal_status
    screen = write_android_screen(world["screen"], world.get("notation") or {"kind": "json"})
    text = screen if error is None else f"{error}\n{screen}".rstrip("\n")
    return OfflineResult(text=text, is_error=error is not None, metadata=meta)
