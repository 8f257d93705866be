"""OSWorld ``computer_13`` actions turned into pyautogui commands as desktop-env's controller does.

desktop-env's ``PythonController.execute_action`` takes ``{"action_type": ..., "parameters":
{...}}`` (or the parameters beside ``action_type``), picks the command by which parameters are
present, writes the values into the command as they are (``str`` of each, so ``x="abc"`` makes
``pyautogui.click(x=abc, y=2)``, which then fails where it runs) and raises a plain ``Exception``
for what it does not know: ``Unknown parameters: {...}``, ``Unknown action type: ...``,
``Keys must be a list of keys`` (``HOTKEY`` with ``keys='ctrl+s'``), ``Key must be one of [...]``
(a key pyautogui does not name). ``DRAG_TO`` without ``x`` and ``y`` sends nothing. ``SCROLL``
sends ``hscroll`` and ``vscroll`` separately. The action type is case-sensitive; ``WAIT``,
``FAIL`` and ``DONE`` send nothing. ``MOVE_TO``'s random duration and easing are left out.

>>> computer13_commands({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "s"]}})
["pyautogui.hotkey('ctrl', 's')"]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["KEYBOARD_KEYS", "Computer13Error", "computer13_commands", "computer13_to_code"]

_NAMED_KEYS = (
    "accept add alt altleft altright apps backspace browserback browserfavorites browserforward "
    "browserhome browserrefresh browsersearch browserstop capslock clear convert ctrl ctrlleft "
    "ctrlright decimal del delete divide down end enter esc escape execute "
    + " ".join(sorted(f"f{n}" for n in range(1, 25)))  # sorted as text: f1 f10 f11 ... f2
    + " final fn hanguel hangul hanja help home insert junja kana kanji launchapp1 launchapp2 "
    "launchmail launchmediaselect left modechange multiply nexttrack nonconvert "
    + " ".join(f"num{n}" for n in range(10))
    + " numlock pagedown pageup pause pgdn pgup playpause prevtrack print printscreen prntscrn "
    "prtsc prtscr return right scrolllock select separator shift shiftleft shiftright sleep stop "
    "subtract tab up volumedown volumemute volumeup win winleft winright yen command option "
    "optionleft optionright"
).split()
#: the key names pyautogui (and so desktop-env) accepts, single characters first
KEYBOARD_KEYS: tuple[str, ...] = (
    tuple("\t\n\r " + "".join(chr(c) for c in range(33, 65)))
    + tuple("[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
    + tuple(_NAMED_KEYS)
)
_KEYS = frozenset(KEYBOARD_KEYS)
_SPECIAL = ("WAIT", "FAIL", "DONE")


class Computer13Error(Exception):
    """An action desktop-env's controller raises for: ``kind`` is the exception's class name."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}" if kind != "Exception" else message)


def _unknown(params: Any) -> Computer13Error:
    return Computer13Error("Exception", f"Unknown parameters: {params}")


def _key(value: Any) -> str:
    if not isinstance(value, str):
        raise Computer13Error("AttributeError", f"'{type(value).__name__}' object has no attribute 'lower'")
    if value.lower() not in _KEYS:
        raise Computer13Error("Exception", f"Key must be one of {list(KEYBOARD_KEYS)}")
    return value


def _point(params: dict[str, Any]) -> str:
    return f"x={params['x']}, y={params['y']}"


def _click(params: dict[str, Any]) -> list[str]:
    has_point = "x" in params and "y" in params
    parts = []
    if "button" in params:
        if not has_point and ("x" in params or "y" in params):
            raise _unknown(params)
        parts.append(f"button='{params['button']}'")
    elif not has_point:
        raise _unknown(params)
    if has_point:
        parts.append(_point(params))
    if "num_clicks" in params:
        parts.append(f"clicks={params['num_clicks']}")
    return [f"pyautogui.click({', '.join(parts)})"]


def _at(function: str) -> Callable[[dict[str, Any]], list[str]]:
    def command(params: dict[str, Any]) -> list[str]:
        if "x" in params and "y" in params:
            return [f"pyautogui.{function}({_point(params)})"]
        raise _unknown(params)

    return command


def _move_to(params: dict[str, Any]) -> list[str]:
    if "x" in params and "y" in params:
        return [f"pyautogui.moveTo({params['x']}, {params['y']})"]
    raise _unknown(params)


def _button(function: str) -> Callable[[dict[str, Any]], list[str]]:
    def command(params: dict[str, Any]) -> list[str]:
        if "button" in params:
            return [f"pyautogui.{function}(button='{params['button']}')"]
        raise _unknown(params)

    return command


def _drag_to(params: dict[str, Any]) -> list[str]:
    if "x" in params and "y" in params:
        return [
            f"pyautogui.dragTo({params['x']}, {params['y']}, duration=1.0, button='left', mouseDownUp=True)"
        ]
    return []  # desktop-env sends nothing and raises nothing


def _scroll(params: dict[str, Any]) -> list[str]:
    commands = [f"pyautogui.hscroll({params['dx']})"] if "dx" in params else []
    if "dy" in params:
        commands.append(f"pyautogui.vscroll({params['dy']})")
    if not commands:
        raise _unknown(params)
    return commands


def _typing(params: dict[str, Any]) -> list[str]:
    if "text" not in params:
        raise _unknown(params)
    return [f"pyautogui.typewrite({params['text']!r})"]


def _one_key(function: str) -> Callable[[dict[str, Any]], list[str]]:
    def command(params: dict[str, Any]) -> list[str]:
        if "key" not in params:
            raise _unknown(params)
        return [f"pyautogui.{function}('{_key(params['key'])}')"]

    return command


def _hotkey(params: dict[str, Any]) -> list[str]:
    if "keys" not in params:
        raise _unknown(params)
    keys = params["keys"]
    if not isinstance(keys, list):
        raise Computer13Error("Exception", "Keys must be a list of keys")
    for key in keys:
        _key(key)
    return ["pyautogui.hotkey('" + "', '".join(keys) + "')"]


#: action type -> (command with no parameters at all, command for the parameters given)
_ACTIONS: dict[str, tuple[str | None, Callable[[dict[str, Any]], list[str]]]] = {
    "MOVE_TO": ("pyautogui.moveTo()", _move_to),
    "CLICK": ("pyautogui.click()", _click),
    "MOUSE_DOWN": ("pyautogui.mouseDown()", _button("mouseDown")),
    "MOUSE_UP": ("pyautogui.mouseUp()", _button("mouseUp")),
    "RIGHT_CLICK": ("pyautogui.rightClick()", _at("rightClick")),
    "DOUBLE_CLICK": ("pyautogui.doubleClick()", _at("doubleClick")),
    "DRAG_TO": (None, _drag_to),
    "SCROLL": (None, _scroll),
    "TYPING": (None, _typing),
    "PRESS": (None, _one_key("press")),
    "KEY_DOWN": (None, _one_key("keyDown")),
    "KEY_UP": (None, _one_key("keyUp")),
    "HOTKEY": (None, _hotkey),
}


def computer13_commands(action: Any) -> list[str]:
    """The pyautogui commands desktop-env's controller sends for ``action``, in order (none for
    ``WAIT``/``FAIL``/``DONE``); raises :class:`Computer13Error` where the controller raises."""
    if isinstance(action, str) and action in _SPECIAL:
        return []
    if not isinstance(action, dict):
        shown = type(action).__name__
        raise Computer13Error(
            "TypeError", f"'{shown}' object is not subscriptable (a computer_13 action is a dict)"
        )
    if "action_type" not in action:
        raise Computer13Error("KeyError", "'action_type'")
    kind = action["action_type"]
    params = (
        action["parameters"]
        if "parameters" in action
        else {k: v for k, v in action.items() if k != "action_type"}
    )
    if not isinstance(kind, str) or kind not in _ACTIONS:
        if kind in _SPECIAL:
            return []
        raise Computer13Error("Exception", f"Unknown action type: {kind}")
    bare, command = _ACTIONS[kind]
    if bare is not None and params == {}:
        return [bare]
    if not isinstance(params, dict):
        if isinstance(params, (str, list, tuple)):  # `"x" in params` works; nothing matches
            if kind in ("DRAG_TO",):
                return []
            raise _unknown(params)
        raise Computer13Error("TypeError", f"argument of type '{type(params).__name__}' is not iterable")
    return command(params)


def computer13_to_code(action: Any) -> str:
    """The commands of :func:`computer13_commands` as one pyautogui script (``""`` for none)."""
    return "\n".join(computer13_commands(action))
