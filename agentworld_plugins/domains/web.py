"""Web: BrowserGym high-level actions on a browser, answered with the page's accessibility tree."""

from __future__ import annotations

import ast
import difflib
import re
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, RootModel, field_validator
from pydantic_core import PydanticCustomError

from .. import pyast
from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")

_REQUIRED = object()


@dataclass(frozen=True)
class _Param:
    """One parameter of a BrowserGym action: its name, value kind and default (if optional)."""

    name: str
    kind: str
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def describe(self) -> str:
        if self.required:
            return f"{self.name}: {_KIND_NAMES[self.kind]}"
        return f"{self.name}={self.default!r}"


#: how each kind of value is named in signatures and error messages
_KIND_NAMES = {
    "str": "str",
    "number": "float",
    "int": "int",
    "bool": "bool",
    "strs": "str | list[str]",
    "button": "'left' | 'middle' | 'right'",
    "modifiers": "list[" + " | ".join(repr(m) for m in MODIFIERS) + "]",
}


def _p(name: str, kind: str, default: Any = _REQUIRED) -> _Param:
    return _Param(name, kind, default)


_BID = _p("bid", "str")
_X, _Y = _p("x", "number"), _p("y", "number")
_BUTTON = _p("button", "button", "left")

#: the BrowserGym high-level action functions and their parameters
_SIGNATURES: dict[str, tuple[_Param, ...]] = {
    # chat and task control
    "noop": (_p("wait_ms", "number", 1000),),
    "send_msg_to_user": (_p("text", "str"),),
    "report_infeasible": (_p("reason", "str"),),
    # element actions (by bid)
    "scroll": (_p("delta_x", "number"), _p("delta_y", "number")),
    "scroll_at": (_X, _Y, _p("dx", "number"), _p("dy", "number")),
    "fill": (_BID, _p("value", "str"), _p("enable_autocomplete_menu", "bool", False)),
    "select_option": (_BID, _p("options", "strs")),
    "click": (_BID, _BUTTON, _p("modifiers", "modifiers", [])),
    "dblclick": (_BID, _BUTTON, _p("modifiers", "modifiers", [])),
    "hover": (_BID,),
    "press": (_BID, _p("key_comb", "str")),
    "focus": (_BID,),
    "clear": (_BID,),
    "drag_and_drop": (_p("from_bid", "str"), _p("to_bid", "str")),
    "upload_file": (_BID, _p("file", "strs")),
    # navigation and tabs
    "go_back": (),
    "go_forward": (),
    "goto": (_p("url", "str"),),
    "tab_close": (),
    "tab_focus": (_p("index", "int"),),
    "new_tab": (),
    "keyboard_press": (_p("key", "str"),),
    # coordinate actions
    "mouse_move": (_X, _Y),
    "mouse_click": (_X, _Y, _BUTTON),
    "mouse_dblclick": (_X, _Y, _BUTTON),
    "mouse_down": (_X, _Y, _BUTTON),
    "mouse_up": (_X, _Y, _BUTTON),
    "mouse_drag_and_drop": (
        _p("from_x", "number"),
        _p("from_y", "number"),
        _p("to_x", "number"),
        _p("to_y", "number"),
    ),
    "keyboard_type": (_p("text", "str"),),
    "keyboard_insert_text": (_p("text", "str"),),
    "keyboard_down": (_p("key", "str"),),
    "keyboard_up": (_p("key", "str"),),
    "mouse_upload_file": (_X, _Y, _p("file", "strs")),
}


def _signature(name: str) -> str:
    return f"{name}({', '.join(p.describe() for p in _SIGNATURES[name])})"


#: action name -> its signature as shown to agents, e.g. ``click(bid: str, button='left', modifiers=[])``
WEB_ACTIONS: dict[str, str] = {name: _signature(name) for name in _SIGNATURES}


class WebActionError(ValueError):
    """A BrowserGym action string that does not parse or does not fit a function's signature.

    ``problems`` holds one message per problem; ``expected`` the signature(s) concerned.
    """

    def __init__(self, problems: list[str], expected: str) -> None:
        self.problems = problems
        self.expected = expected
        super().__init__("; ".join(problems))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "number": _is_number,
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "strs": lambda v: isinstance(v, str) or _is_str_list(v),
    "button": lambda v: isinstance(v, str) and v in BUTTONS,
    "modifiers": lambda v: _is_str_list(v) and all(m in MODIFIERS for m in v),
}


def _bind_call(call: ast.Call) -> tuple[str, dict[str, Any], list[str]]:
    """Bind one call's arguments to its function's parameters: (name, arguments, problems)."""
    func = call.func
    if not isinstance(func, ast.Name):
        shown = ast.unparse(func)
        return (
            shown,
            {},
            [
                f"{shown}() is not a BrowserGym action; call one of the functions by its bare name "
                "(free Python/Playwright code, BrowserGym's 'python' action set, is not supported: "
                "nothing runs a real browser)"
            ],
        )
    name = func.id
    params = _SIGNATURES.get(name)
    if params is None:
        close = difflib.get_close_matches(name, WEB_ACTIONS, n=3, cutoff=0.6)
        suggestion = (
            f"did you mean {', '.join(close)}?" if close else f"known actions: {', '.join(WEB_ACTIONS)}"
        )
        return name, {}, [f"unknown action {name!r}; {suggestion}"]

    sig = WEB_ACTIONS[name]
    problems: list[str] = []
    given: dict[str, ast.expr] = {}
    positional = call.args
    if any(isinstance(a, ast.Starred) for a in positional) or any(k.arg is None for k in call.keywords):
        return (
            name,
            {},
            [f"{name}() arguments must be written out, not unpacked with * or ** (expected {sig})"],
        )
    if len(positional) > len(params):
        problems.append(
            f"{name}() takes at most {len(params)} argument{'s' if len(params) != 1 else ''} "
            f"({len(positional)} given) (expected {sig})"
        )
    for param, arg in zip(params, positional):
        given[param.name] = arg
    names = {p.name for p in params}
    for kw in call.keywords:
        if kw.arg is None:  # ruled out above; keeps type checkers content
            continue
        if kw.arg not in names:
            problems.append(f"{name}() got an unexpected keyword argument {kw.arg!r} (expected {sig})")
        elif kw.arg in given:
            problems.append(f"{name}() got multiple values for argument {kw.arg!r} (expected {sig})")
        else:
            given[kw.arg] = kw.value

    bound: dict[str, Any] = {}
    for param in params:
        node = given.get(param.name)
        if node is None:
            if param.required:
                problems.append(f"{name}() missing required argument {param.name!r} (expected {sig})")
            else:
                default = param.default
                bound[param.name] = list(default) if isinstance(default, list) else default
            continue
        try:
            value = pyast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            problems.append(
                f"{name}() argument {param.name!r} must be a literal value, not {ast.unparse(node)!r} "
                f"(expected {sig})"
            )
            continue
        if not _CHECKS[param.kind](value):
            problems.append(
                f"{name}() argument {param.name!r} must be {_KIND_NAMES[param.kind]}, got {value!r} "
                f"(expected {sig})"
            )
            continue
        bound[param.name] = list(value) if isinstance(value, tuple) else value
    return name, bound, problems


def _snippet(node: ast.AST, limit: int = 60) -> str:
    try:
        shown = ast.unparse(node)
    except RecursionError:
        return type(node).__name__
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _clean(text: str) -> str:
    return textwrap.dedent(text).strip()


def parse_web_action(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Parse a BrowserGym action string into ``[(function name, bound arguments), ...]``.

    One call per line (several lines run in order); arguments must be Python literals. Defaults
    are filled in, so ``click('12')`` gives ``[("click", {"bid": "12", "button": "left",
    "modifiers": []})]``. Raises :class:`WebActionError` naming the function, the argument and
    the expected signature.
    """
    if not isinstance(text, str):
        raise WebActionError([f"an action must be a string, got {type(text).__name__}"], "a string")
    source = _clean(text)
    if not source:
        raise WebActionError(["empty action; write a call such as click('12')"], "click('12')")
    try:
        with warnings.catch_warnings():  # agent text is not our code: no SyntaxWarnings
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = pyast.parse(source, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}, column {exc.offset}: " if exc.lineno else ""
        raise WebActionError(
            [f"not a valid action string ({where}{exc.msg}); write calls such as click('12')"], "click('12')"
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise WebActionError([f"not a valid action string ({exc})"], "click('12')") from None
    if not tree.body:
        raise WebActionError(["no action call found; write a call such as click('12')"], "click('12')")

    actions: list[tuple[str, dict[str, Any]]] = []
    problems: list[str] = []
    expected: list[str] = []
    several = len(tree.body) > 1
    for stmt in tree.body:
        prefix = f"line {stmt.lineno}: " if several else ""
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            problems.append(f"{prefix}expected a call such as click('12'), got {_snippet(stmt)!r}")
            continue
        try:
            name, bound, found = _bind_call(stmt.value)
        except RecursionError:
            problems.append(f"{prefix}the call is nested too deeply to read")
            continue
        if name in WEB_ACTIONS and WEB_ACTIONS[name] not in expected:
            expected.append(WEB_ACTIONS[name])
        problems.extend(prefix + p for p in found)
        actions.append((name, bound))
    if problems:
        raise WebActionError(problems, " / ".join(expected) or "a BrowserGym action call")
    return actions


class WebAction(RootModel[str]):
    """A BrowserGym high-level action string, e.g. ``fill('14', 'wireless mouse')``.

    Several calls may be written one per line; they run in order.
    """

    @field_validator("root", mode="after")
    @classmethod
    def _check(cls, value: str) -> str:
        try:
            parse_web_action(value)
        except WebActionError as exc:
            raise PydanticCustomError(
                "web_action", "{message}", {"message": str(exc), "expected": exc.expected}
            ) from None
        return _clean(value)

    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """The parsed calls, with defaults filled (see :func:`parse_web_action`)."""
        return parse_web_action(self.root)


_ERROR_LINE = re.compile(r"^\s*(?:Error|ERROR)\s*:|^\s*[A-Za-z_.]*Error: ", re.MULTILINE)
_LAST_ACTION_ERROR = re.compile(r"^\W*last_action_error\W*?[:=]\s*(?P<value>[^\n]*)$", re.MULTILINE)
_EMPTY_VALUES = {"", "''", '""', "None", "null"}
_PAGE_ERROR = re.compile(r"net::ERR_[A-Z_]+|^\s*(?:Title:|RootWebArea)[^\n]*\b404 Not Found", re.MULTILINE)


def observation_reports_error(text: str) -> bool:
    """Whether a web observation reports a failure.

    True when a line starts with ``Error:`` (or ``SomethingError:``, as Playwright words it), when
    a ``last_action_error`` field has a non-empty value, when Chromium's ``net::ERR_...`` appears,
    or when the page's title (``Title:`` line or ``RootWebArea`` name) reads ``404 Not Found``.
    Error messages that are page content (``StaticText 'Error: ...'``) do not count.
    """
    if _ERROR_LINE.search(text) or _PAGE_ERROR.search(text):
        return True
    for match in _LAST_ACTION_ERROR.finditer(text):
        if match.group("value").strip().rstrip(",") not in _EMPTY_VALUES:
            return True
    return False


class WebDomain(Domain):
    """BrowserGym web tasks (WebArena, WorkArena, MiniWoB, open web).

    The agent sends BrowserGym high-level action strings (``click('12')``, ``fill('14', 'x')``,
    ``goto('https://...')``); the world model answers with the page after the action as URL,
    title, an optional ``Error:`` line and the flattened accessibility tree (``[bid] role 'name'``).
    The first turn carries the starting page under ``**Current State:**``.
    """

    name = "web"
    description = "BrowserGym browser actions answered with the page's accessibility tree."
    Action = WebAction
    example_action: ClassVar[Any] = "click('12')"
    action_fence = None
    has_state = True
    requires_block = True
    sampling = Sampling(temperature=0.6, max_tokens=8192)

    def action_hint(self) -> str:
        return (
            "a valid web action is a BrowserGym call such as click('12'), fill('14', 'text') or "
            "goto('https://example.com'); one call per line"
        )

    def render_action(self, action: BaseModel) -> str:
        return str(action.model_dump())

    def is_error(self, text: str, action: BaseModel) -> bool:
        return observation_reports_error(text)


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(WebDomain())
