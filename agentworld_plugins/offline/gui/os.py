"""The offline os world: the desktop's accessibility table, focus, mouse and clipboard carried forward."""

from __future__ import annotations

import ast
from typing import Any

from pydantic import BaseModel

from ... import pyast
from ...domains.base import OfflineResult
from ...domains.formats.os import (
    DEFAULT_OS_DESKTOP,
    os_cell_text,
    os_point,
    os_text_cell,
    parse_os_table,
    render_os_table,
)
from ...domains.os import OsAction
from ...errors import ConfigError
from .shared import OS_STATE_KEY, UNKNOWN_EFFECT, Unknown, initial_text, run_calls

_OS_EDITABLE = frozenset(
    {"entry", "text", "terminal", "password-text", "paragraph", "document-text", "spin-button"}
)
_OS_MULTILINE = frozenset({"text", "paragraph", "document-text"})
_OS_TOGGLES = frozenset({"check-box", "toggle-button", "check-menu-item"})
_OS_RADIOS = frozenset({"radio-button", "radio-menu-item"})
#: clicking these shows nothing new (it at most focuses their window)
_OS_INERT = frozenset(
    {
        "frame",
        "window",
        "panel",
        "filler",
        "section",
        "separator",
        "static",
        "heading",
        "scroll-pane",
        "status-bar",
        "tool-bar",
        "menu-bar",
        "page-tab-list",
        "table",
        "list",
        "image",
    }
)


def _column(table: dict[str, Any], name: str) -> int | None:
    for i, column in enumerate(table["columns"]):
        if column == name or column.startswith(name + " "):
            return i
    return None


def _cell(table: dict[str, Any], row: int, name: str) -> str:
    column = _column(table, name)
    return table["rows"][row][column] if column is not None else ""


def _box(table: dict[str, Any], row: int) -> tuple[float, float, float, float] | None:
    position = os_point(_cell(table, row, "position"))
    size = os_point(_cell(table, row, "size"))
    if not (position and size):
        return None
    x, y = position
    return (x, y, x + size[0], y + size[1])


def _os_world(state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The desktop: ``{table, focus, mouse, select_all, clipboard}``; focus is a row number, kept
    here because the table does not show it (it starts on the front window's last text field)."""
    world = state.get(OS_STATE_KEY)
    if world is not None:
        return world
    table = parse_os_table(initial_text(context, DEFAULT_OS_DESKTOP))
    if len(table["columns"]) < 2:
        raise ConfigError(
            "the os initial_state is not an accessibility table",
            hint="give a tab-separated table with the header tag, name, text, class, description, "
            "position (top-left x&y), size (w&h), as the os prompt shows",
        )
    fields = [i for i in range(len(table["rows"])) if _cell(table, i, "tag") in _OS_EDITABLE]
    world = {
        "table": table,
        "focus": fields[-1] if fields else None,
        "mouse": None,
        "select_all": False,
        "clipboard": None,
    }
    state[OS_STATE_KEY] = world
    return world


def _os_hit(table: dict[str, Any], x: float, y: float) -> int | None:
    """The row under ``(x, y)``: the smallest box among the rows of the front-most window there."""
    candidates: list[int] = []
    for row in range(len(table["rows"]) - 1, -1, -1):
        box = _box(table, row)
        if box is None or not (box[0] <= x < box[2] and box[1] <= y < box[3]):
            continue
        candidates.append(row)
        if _cell(table, row, "tag") in ("frame", "window", "dialog", "alert"):
            break  # the window in front hides what lies behind it
    if not candidates:
        return None
    return min(candidates, key=lambda r: (_row_area(table, r), -r))


def _row_area(table: dict[str, Any], row: int) -> float:
    box = _box(table, row)
    return (box[2] - box[0]) * (box[3] - box[1]) if box else float("inf")


def _os_field(world: dict[str, Any]) -> tuple[int, str]:
    focus = world["focus"]
    tag = _cell(world["table"], focus, "tag") if focus is not None else ""
    if focus is None or tag not in _OS_EDITABLE:
        raise Unknown("no text field is known to have the keyboard focus")
    return focus, tag


def _os_type(world: dict[str, Any], text: str) -> None:
    row, tag = _os_field(world)
    table = world["table"]
    column = _column(table, "text")
    if column is None:
        raise Unknown("the table has no text column to show typed text in")
    current = "" if world["select_all"] else os_cell_text(table["rows"][row][column])
    for ch in text.replace("\r\n", "\n"):
        if ch in "\r\n\t" and tag not in _OS_MULTILINE:
            raise Unknown(f"{'Tab' if ch == chr(9) else 'Enter'} in a {tag} has an effect not known offline")
        current = current[:-1] if ch == "\b" else current + ("\n" if ch == "\r" else ch)
    table["rows"][row][column] = os_text_cell(current)
    world["select_all"] = False


_KEY_TEXT = {"enter": "\n", "return": "\n", "tab": "\t", "space": " ", "backspace": "\b"}
_KEY_ALIASES = {
    "control": "ctrl",
    "ctrlleft": "ctrl",
    "ctrlright": "ctrl",
    "shiftleft": "shift",
    "shiftright": "shift",
}


def _os_key(world: dict[str, Any], key: str) -> None:
    lowered = key.lower()
    if len(key) == 1:
        _os_type(world, key)
    elif lowered in _KEY_TEXT:
        _os_type(world, _KEY_TEXT[lowered])
    elif lowered in ("delete", "del"):
        _os_field(world)
        if world["select_all"]:
            _os_type(world, "")  # typing nothing over a selection empties the field
    else:
        raise Unknown(f"what the key {key!r} does is not known offline")


def _os_hotkey(world: dict[str, Any], keys: list[str]) -> None:
    combo = tuple(_KEY_ALIASES.get(k.lower(), k.lower()) for k in keys)
    if len(combo) == 1:
        _os_key(world, keys[0])
        return
    row, tag = _os_field(world)
    table = world["table"]
    terminal = tag == "terminal"
    if combo == ("ctrl", "a") and not terminal:
        world["select_all"] = True
    elif combo in (("ctrl", "c"), ("ctrl", "x")) and not terminal:
        if not world["select_all"]:
            if combo[1] == "x":
                raise Unknown("what is selected, and so cut, is not known offline")
            world["clipboard"] = None  # copying an unknown selection
            return
        world["clipboard"] = os_cell_text(_cell(table, row, "text"))
        if combo[1] == "x":
            _os_type(world, "")
    elif combo == (("ctrl", "shift", "v") if terminal else ("ctrl", "v")):
        if world["clipboard"] is None:
            raise Unknown("the clipboard's content is not known offline")
        _os_type(world, world["clipboard"])
    else:
        raise Unknown(f"the shortcut {'+'.join(combo)} is not known offline")


def _os_click(world: dict[str, Any], x: float, y: float, clicks: int, button: str) -> None:
    world["mouse"] = [x, y]
    table = world["table"]
    row = _os_hit(table, x, y)
    if row is None:
        return  # empty desktop: nothing visible happens
    tag, name = _cell(table, row, "tag"), _cell(table, row, "name")
    if button not in ("left", "primary"):
        raise Unknown(f"what a {button} click on {tag} {name!r} does is not known offline")
    if tag in _OS_EDITABLE:
        world["focus"], world["select_all"] = row, False
    elif tag in _OS_TOGGLES | _OS_RADIOS:
        column = _column(table, "description")
        if column is None:
            raise Unknown("the table has no description column to show the checked state in")
        tokens = [t.strip() for t in table["rows"][row][column].split(",") if t.strip()]
        checked = "checked" in tokens
        if tag in _OS_RADIOS:
            checked = True
        elif clicks % 2:
            checked = not checked
        tokens = [t for t in tokens if t != "checked"] + (["checked"] if checked else [])
        table["rows"][row][column] = ", ".join(tokens)
    elif tag not in _OS_INERT:
        raise Unknown(f"what clicking {tag} {name!r} does is not known offline")


_CLICKS = {"click": 1, "leftClick": 1, "doubleClick": 2, "tripleClick": 3, "rightClick": 1, "middleClick": 1}
_BUTTONS = {"rightClick": "right", "middleClick": "middle"}
_INERT_CALLS = frozenset(
    {
        "time.sleep",
        "pyautogui.sleep",
        "pyautogui.position",
        "pyautogui.size",
        "pyautogui.screenshot",
        "pyautogui.onScreen",
        "pyautogui.keyDown",
        "pyautogui.keyUp",
    }
)


def _bind(call: ast.Call, names: tuple[str, ...]) -> dict[str, Any]:
    """A call's literal arguments by parameter name; non-literal arguments are an unknown effect."""
    bound: dict[str, Any] = {}
    try:
        for name, node in zip(names, call.args):
            bound[name] = pyast.literal_eval(node)
        for keyword in call.keywords:
            if keyword.arg is None:
                raise ValueError("** arguments")
            bound[keyword.arg] = pyast.literal_eval(keyword.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise Unknown("the arguments are not literal values") from None
    if len(call.args) > len(names) or any(isinstance(a, ast.Starred) for a in call.args):
        raise Unknown("the arguments do not fit the function")
    return bound


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _point(world: dict[str, Any], args: dict[str, Any]) -> tuple[float, float]:
    x, y = args.get("x"), args.get("y")
    if isinstance(x, (tuple, list)) and len(x) >= 2:
        x, y = x[0], x[1]
    if x is None and y is None and world["mouse"] is not None:
        x, y = world["mouse"]
    if not (_number(x) and _number(y)):
        raise Unknown("where the pointer is, is not known offline")
    return float(x), float(y)  # type: ignore[arg-type]


def _os_call(world: dict[str, Any], function: str, call: ast.Call) -> None:
    if function in _INERT_CALLS:
        return
    short = function.removeprefix("pyautogui.")
    if short in _CLICKS:
        args = _bind(call, ("x", "y", "clicks", "interval", "button"))
        x, y = _point(world, args)
        clicks = args.get("clicks", _CLICKS[short])
        if short != "click" or not isinstance(clicks, int):
            clicks = _CLICKS[short]
        _os_click(world, x, y, clicks, str(args.get("button", _BUTTONS.get(short, "left"))))
    elif short == "moveTo":
        world["mouse"] = list(_point(world, _bind(call, ("x", "y"))))
    elif short in ("moveRel", "move"):
        args = _bind(call, ("xOffset", "yOffset"))
        dx, dy = args.get("xOffset", 0), args.get("yOffset", 0)
        if world["mouse"] is None or not (_number(dx) and _number(dy)):
            raise Unknown("where the pointer is, is not known offline")
        world["mouse"] = [world["mouse"][0] + dx, world["mouse"][1] + dy]
    elif short in ("write", "typewrite"):
        message = _bind(call, ("message", "interval")).get("message")
        if isinstance(message, str):
            _os_type(world, message)
        elif isinstance(message, (list, tuple)) and all(isinstance(k, str) for k in message):
            for key in message:
                _os_key(world, key)
        else:
            raise Unknown("write() needs a string or a list of key names")
    elif short == "press":
        args = _bind(call, ("keys", "presses", "interval"))
        keys, presses = args.get("keys"), args.get("presses", 1)
        keys = [keys] if isinstance(keys, str) else keys
        if not (isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys)):
            raise Unknown("press() needs a key name or a list of them")
        if not isinstance(presses, int) or presses < 0:
            raise Unknown("press() needs a whole number of presses")
        for _ in range(presses):
            for key in keys:
                _os_key(world, key)
    elif short == "hotkey":
        keys = list(_bind(call, tuple(f"key{i}" for i in range(len(call.args)))).values())
        if len(keys) == 1 and isinstance(keys[0], (list, tuple)):
            keys = list(keys[0])
        if not keys or not all(isinstance(k, str) for k in keys):
            raise Unknown("hotkey() needs key names")
        _os_hotkey(world, keys)
    else:
        raise Unknown(f"what {function}() does is not known offline")


def _resolve(func: ast.expr, aliases: dict[str, str]) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases:
        return f"{aliases[func.value.id]}.{func.attr}"
    if isinstance(func, ast.Name):
        return aliases.get(func.id)
    return None


def _os_statement(world: dict[str, Any], stmt: ast.stmt, aliases: dict[str, str]) -> None:
    """Apply one statement; ``aliases`` maps the names in scope to what they import."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            top = alias.name.split(".")[0]
            aliases[alias.asname or top] = alias.name if alias.asname else top
    elif isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if alias.name != "*":
                aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    elif isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
        return
    elif isinstance(stmt, ast.Assign) and all(
        str(_resolve(t, aliases)).startswith("pyautogui.") for t in stmt.targets
    ):
        return  # pyautogui settings such as PAUSE or FAILSAFE
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        function = _resolve(stmt.value.func, aliases)
        if function is None:
            raise Unknown("only pyautogui and time calls are modelled offline")
        _os_call(world, function, stmt.value)
    else:
        raise Unknown("only pyautogui and time calls are modelled offline")


def os_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline os world's answer to pyautogui code (read with :mod:`ast`, never run) or
    ``WAIT``/``DONE``/``FAIL``."""
    world = _os_world(state, context)
    code = OsAction.model_validate(action).root
    if code in ("WAIT", "DONE", "FAIL"):
        meta: dict[str, Any] = {UNKNOWN_EFFECT: False, "offline_special": code}
    else:
        # OSWorld runs each action with pyautogui and time imported
        aliases = {"pyautogui": "pyautogui", "time": "time"}
        statements = [(ast.unparse(stmt), stmt) for stmt in pyast.parse(code).body]
        world, meta, _ = run_calls(world, statements, lambda w, stmt: _os_statement(w, stmt, aliases))
        state[OS_STATE_KEY] = world
    return OfflineResult(text=render_os_table(world["table"]), is_error=False, metadata=meta)
