"""Reading BrowserGym actions out of an agent's text exactly as BrowserGym's action sets do.

BrowserGym's ``BrowserEnv`` maps each action through ``HighLevelActionSet().to_python_code``.
That parser looks for Python-like calls whose arguments are literals (quoted strings without
prefixes, numbers, lists, tuples, dicts with string keys, ``True``/``False``/``None``), keyword
arguments after the positional ones, commas optional between the two groups, ``#`` comments
skipped everywhere outside strings. With ``strict=False`` (the default) it tries every position
of the text in turn, so a call is found inside prose, code fences, quotes or after ``page.``;
with ``strict=True`` the whole text must be calls. Then: no call at all is
``ValueError: Received an empty action.``, several calls when ``multiaction=False`` is
``ValueError: Received a multi-action, ...``, and any call whose name the action set lacks
(``print``, ``step`` in "step (1)", ``mouse_click`` in the default set) rejects the whole action
with ``NameError: Invalid action type '...'``. The calls of an accepted action then run one after
the other as Python, so a call whose arguments do not fit its function fails there, after the
calls before it took effect.

:class:`BrowserGymActionSet` does all of that (written from the grammar, not BrowserGym's code);
:meth:`BrowserGymActionSet.plan` says which calls run and what ``last_action_error`` reads.

>>> BrowserGymActionSet().plan("I will search.\\n```python\\nfill('12', 'mouse')\\nclick('13')\\n```")
("fill('12', 'mouse')\\nclick('13')", '')
>>> BrowserGymActionSet().plan("mouse_click(10, 20)")
('', "NameError: Invalid action type 'mouse_click'.")
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentworld_plugins.domains.web import WebActionError, parse_web_action

__all__ = [
    "ACTION_SUBSETS",
    "DEFAULT_SUBSETS",
    "ActionCall",
    "BrowserGymActionError",
    "BrowserGymActionSet",
]

#: BrowserGym's action subsets (``noop`` is always in a set)
ACTION_SUBSETS: dict[str, tuple[str, ...]] = {
    "chat": ("send_msg_to_user",),
    "infeas": ("report_infeasible",),
    "bid": (
        "scroll",
        "fill",
        "select_option",
        "click",
        "dblclick",
        "hover",
        "press",
        "focus",
        "clear",
        "drag_and_drop",
        "upload_file",
    ),
    "coord": (
        "scroll_at",
        "mouse_move",
        "mouse_up",
        "mouse_down",
        "mouse_click",
        "mouse_dblclick",
        "mouse_drag_and_drop",
        "mouse_upload_file",
        "keyboard_down",
        "keyboard_up",
        "keyboard_press",
        "keyboard_type",
        "keyboard_insert_text",
    ),
    "nav": ("go_back", "go_forward", "goto"),
    "tab": ("tab_close", "tab_focus", "new_tab"),
}
#: the subsets of ``HighLevelActionSet()`` (BrowserEnv's default ``action_mapping``)
DEFAULT_SUBSETS = ("chat", "infeas", "bid", "nav", "tab")

_WHITE = " \n\t\r"  # the characters the parser skips between tokens (not \f, \v or NBSP)
_KEYWORD_BODY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_LATIN1 = "ªµºÀ-ÖØ-öø-ÿ"
_NAME = re.compile(rf"[A-Z_a-z{_LATIN1}][0-9A-Z_a-z{_LATIN1}·]*")
# numbers: a mantissa with an exponent, a decimal, an integer (first that matches, in this order)
_NUMBERS = (
    (re.compile(r"[+-]?(?:\d+[eE][+-]?\d+|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?)"), float),
    (re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)"), float),
    (re.compile(r"[+-]?\d+"), int),
)
# quoted strings, no prefixes; the longest reading wins
_STRINGS = tuple(
    re.compile(pattern)
    for pattern in (
        r'"""(?:[^"\\]|""(?!")|"(?!"")|\\.)*"""',
        r"'''(?:[^'\\]|''(?!')|'(?!'')|\\.)*'''",
        r'"(?:[^"\n\r\\]|\\"|\\(?:[^x]|x[0-9a-fA-F]+))*"',
        r"'(?:[^'\n\r\\]|\\'|\\(?:[^x]|x[0-9a-fA-F]+))*'",
    )
)
_KEYWORDS: dict[str, Any] = {"True": True, "False": False, "None": None}
_MISSING = object()


class BrowserGymActionError(Exception):
    """An action BrowserGym rejects: ``kind`` is the exception's class name there."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(f"{kind}: {message}")


class _NoMatch(Exception):
    """The grammar does not match at the position tried (internal)."""


@dataclass(frozen=True)
class ActionCall:
    """One call as read: its name, positional and keyword arguments (in the order written)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def source(self) -> str:
        """The call as BrowserGym writes it into the code it runs (``repr`` of each argument)."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.name}({', '.join(parts)})"


class _Reader:
    """A recursive-descent reader of the action grammar over one text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, i: int) -> int:
        """Past whitespace and ``#`` comments (to the end of the line)."""
        text = self.text
        while True:
            while i < len(text) and text[i] in _WHITE:
                i += 1
            if i < len(text) and text[i] == "#":
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
                continue
            return i

    def punct(self, i: int, char: str) -> int:
        i = self.skip(i)
        if not self.text.startswith(char, i):
            raise _NoMatch
        return i + 1

    def name(self, i: int) -> tuple[str, int]:
        i = self.skip(i)
        match = _NAME.match(self.text, i)
        if match is None:
            raise _NoMatch
        return match.group(), match.end()

    def element(self, i: int) -> tuple[Any, int]:
        i = self.skip(i)
        if i >= len(self.text):
            raise _NoMatch
        char = self.text[i]
        if char in "'\"":
            return self.string(i)
        for pattern, convert in _NUMBERS:
            match = pattern.match(self.text, i)
            if match is not None:
                return convert(match.group()), match.end()
        if char == "{":
            return self.dict(i + 1)
        if char == "[":
            items, end = self.items(i + 1, "]")
            return items, end
        if char == "(":
            items, end = self.items(i + 1, ")")
            return tuple(items), end
        for word, value in _KEYWORDS.items():
            end = i + len(word)
            if (
                self.text.startswith(word, i)
                and (i == 0 or self.text[i - 1] not in _KEYWORD_BODY)
                and (end >= len(self.text) or self.text[end] not in _KEYWORD_BODY)
            ):
                return value, end
        raise _NoMatch

    def string(self, i: int) -> tuple[str, int]:
        ends = [m.end() for p in _STRINGS if (m := p.match(self.text, i)) is not None]
        if not ends:
            raise _NoMatch
        end = max(ends)
        with warnings.catch_warnings():  # "\d" and the like: a warning in Python, not an error
            warnings.simplefilter("ignore")
            value = ast.literal_eval(self.text[i:end])  # a bad escape raises, as BrowserGym's does
        return value, end

    def delimited(self, i: int, read: Any) -> tuple[list[Any], int]:
        """``read`` items separated by commas, a trailing comma allowed; none at all is fine."""
        try:
            first, i = read(i)
        except _NoMatch:
            return [], i
        found = [first]
        while True:
            try:
                after = self.punct(i, ",")
            except _NoMatch:
                return found, i
            try:
                item, i = read(after)
            except _NoMatch:
                return found, after
            found.append(item)

    def items(self, i: int, close: str) -> tuple[list[Any], int]:
        found, i = self.delimited(i, self.element)
        return found, self.punct(i, close)

    def dict_item(self, i: int) -> tuple[tuple[str, Any], int]:
        start = self.skip(i)
        if start >= len(self.text) or self.text[start] not in "'\"":
            raise _NoMatch
        key, i = self.string(start)
        i = self.punct(i, ":")
        value, i = self.element(i)
        return (key, value), i

    def dict(self, i: int) -> tuple[dict[str, Any], int]:
        pairs, i = self.delimited(i, self.dict_item)
        return dict(pairs), self.punct(i, "}")

    def named(self, i: int) -> tuple[tuple[str, Any], int]:
        key, i = self.name(i)
        i = self.punct(i, "=")
        value, i = self.element(i)
        return (key, value), i

    def call(self, i: int) -> tuple[ActionCall, int]:
        name, i = self.name(i)
        i = self.punct(i, "(")
        args, i = self.delimited(i, self.element)
        kwargs, i = self.delimited(i, self.named)
        i = self.punct(i, ")")
        return ActionCall(name, tuple(args), tuple(kwargs)), i

    def calls(self, i: int) -> tuple[list[ActionCall], int]:
        """One call or more, back to back; raises :class:`_NoMatch` when there is none at ``i``."""
        first, i = self.call(i)
        found = [first]
        while True:
            try:
                nxt, i = self.call(i)
            except _NoMatch:
                return found, i
            found.append(nxt)


def _where(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    column = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"(at char {i}), (line:{line}, col:{column})"


def search_calls(text: str) -> list[ActionCall]:
    """Every call found in ``text``, trying each position in turn (``strict=False``)."""
    reader = _Reader(text)
    found: list[ActionCall] = []
    i = 0
    while i <= len(text):
        start = reader.skip(i)
        try:
            calls, i = reader.calls(start)
        except _NoMatch:
            i = start + 1
            continue
        found.extend(calls)
    return found


def parse_calls(text: str) -> list[ActionCall]:
    """The calls ``text`` consists of (``strict=True``); raises ``ParseException`` otherwise."""
    reader = _Reader(text)
    start = reader.skip(0)
    try:
        calls, end = reader.calls(start)
    except _NoMatch:
        shown = f"found {text[start]!r}" if start < len(text) else "found end of text"
        raise BrowserGymActionError(
            "ParseException", f"Expected a call such as click('12'), {shown}  {_where(text, start)}"
        ) from None
    end = reader.skip(end)
    if end < len(text):
        raise BrowserGymActionError(
            "ParseException", f"Expected end of text, found {text[end]!r}  {_where(text, end)}"
        )
    return calls


@dataclass(frozen=True)
class BrowserGymActionSet:
    """The action set an env maps agent text through (default: ``HighLevelActionSet()``)."""

    names: frozenset[str] = field(
        default_factory=lambda: frozenset(
            ["noop"] + [n for subset in DEFAULT_SUBSETS for n in ACTION_SUBSETS[subset]]
        )
    )
    strict: bool = False
    multiaction: bool = True

    @classmethod
    def of(
        cls, subsets: Iterable[str], *, strict: bool = False, multiaction: bool = True
    ) -> BrowserGymActionSet:
        """The set made of BrowserGym's named subsets (``chat``, ``bid``, ``coord``, ...)."""
        names = ["noop"]
        for subset in subsets:
            if subset not in ACTION_SUBSETS:
                raise ValueError(
                    f"Unknown high-level action subspace: {subset} (known: {', '.join(ACTION_SUBSETS)})"
                )
            names.extend(ACTION_SUBSETS[subset])
        return cls(frozenset(names), strict, multiaction)

    @classmethod
    def from_mapping(cls, mapping: Any) -> BrowserGymActionSet | None:
        """The set behind an env's ``action_mapping``: the default one for ``"default"`` or a
        callable that is not a ``HighLevelActionSet``'s ``to_python_code``; that action set's
        names and options for one; None for None (the action is then Python code as it is)."""
        if mapping is None:
            return None
        owner = getattr(mapping, "__self__", None)
        actions = getattr(owner, "action_set", None)
        if isinstance(actions, dict) and getattr(mapping, "__name__", "") == "to_python_code":
            return cls(
                frozenset(str(n) for n in actions),
                bool(getattr(owner, "strict", False)),
                bool(getattr(owner, "multiaction", True)),
            )
        return cls()

    def read(self, action: Any) -> list[ActionCall]:
        """The calls of ``action`` as ``to_python_code`` reads them; raises
        :class:`BrowserGymActionError` with BrowserGym's exception class and message."""
        text = str(action).expandtabs()
        try:
            calls = parse_calls(text) if self.strict else search_calls(text)
        except (SyntaxError, ValueError) as exc:  # a string literal that does not evaluate
            raise BrowserGymActionError(type(exc).__name__, str(exc)) from None
        if not calls:
            raise BrowserGymActionError("ValueError", "Received an empty action.")
        if len(calls) > 1 and not self.multiaction:
            raise BrowserGymActionError(
                "ValueError", "Received a multi-action, only single-actions are allowed."
            )
        for call in calls:
            if call.name not in self.names:
                raise BrowserGymActionError("NameError", f"Invalid action type '{call.name}'.")
        return calls

    def plan(self, action: Any) -> tuple[str, str]:
        """``(code, error)``: the calls that run (one per line, ``""`` for none) and what
        ``last_action_error`` reads after them (``""`` when every call fits its function)."""
        try:
            calls = self.read(action)
        except BrowserGymActionError as exc:
            return "", str(exc)
        for call in calls:  # Python compiles the whole code first: a repeated keyword runs nothing
            keys = [k for k, _ in call.kwargs]
            repeated = next((k for k in keys if keys.count(k) > 1), None)
            if repeated is not None:
                return "", f"SyntaxError: keyword argument repeated: {repeated}"
        run: list[str] = []
        for call in calls:
            line = call.source()
            error = _call_error(line)
            if error:
                return "\n".join(run), error
            run.append(line)
        return "\n".join(run), ""


_BINDING = ("unexpected keyword", "missing required", "takes at most", "multiple values")


def _call_error(line: str) -> str:
    """What running one call of the code raises (``""`` when it fits its function)."""
    try:
        parse_web_action(line)
    except WebActionError as exc:
        kind = "TypeError" if any(b in str(exc) for b in _BINDING) else "ValueError"
        return f"{kind}: {exc}"
    return ""
