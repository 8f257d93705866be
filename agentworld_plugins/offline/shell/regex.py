"""Compiling the regular expressions of grep, sed and friends: linear time, or counted work.

Python's :mod:`re` backtracks: ``(a+)+$`` against thirty ``a`` and a ``b`` takes minutes (and
holds the interpreter, so every other session waits), where GNU grep (a DFA) answers at once.
:func:`compile_regex` sends every pattern RE2 can take (``google-re2``, the ``re2`` extra) to RE2,
which matches in linear time, and the rest (back-references, look-arounds) to the budgeted
backtracker of :mod:`.backtrack`, whose every step is counted against the step's work budget.
Without RE2 a pattern that could blow up also goes to the backtracker, other patterns to
:mod:`re`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from .limits import current

_RE2: Any = None  # the module once imported, False when not installed
#: characters RE2 reads per unit of work, and the work of one call (its wrapper's ~4 us)
MATCH_CHARS_PER_UNIT = 64
MATCH_CALL_WORK = 4
#: what makes a pattern more than a string of literals, classes and anchors for re
_REPEATS = re.compile(r"[*+?{|]|\\[0-9]")


class RegexTooComplex(re.error):
    """A pattern that could backtrack exponentially and no linear-time engine can take (an
    :class:`re.error`, so programs report it where they report a bad pattern)."""

    def __init__(self, pattern: str) -> None:
        super().__init__(
            "Regular expression too big (nested repetition; the offline world needs google-re2 for it)"
        )
        self.pattern = pattern


class _Linear:
    """An RE2 pattern behind :mod:`re`'s methods. RE2 reads UTF-8: lone surrogates (bytes that
    were not UTF-8) are matched as U+FFFD, one character each, so positions stay right."""

    __slots__ = ("_rx", "pattern")

    def __init__(self, rx: Any, pattern: str) -> None:
        self._rx = rx
        self.pattern = pattern

    @staticmethod
    def _clean(text: str) -> str:
        current().spend(MATCH_CALL_WORK + len(text) // MATCH_CHARS_PER_UNIT)  # linear in the text
        if text.isascii():
            return text
        return _SURROGATE.sub("\ufffd", text)

    def search(self, text: str, *args: Any) -> Any:
        return self._rx.search(self._clean(text), *args)

    def match(self, text: str, *args: Any) -> Any:
        return self._rx.match(self._clean(text), *args)

    def fullmatch(self, text: str, *args: Any) -> Any:
        return self._rx.fullmatch(self._clean(text), *args)

    def finditer(self, text: str, *args: Any) -> Any:
        return self._rx.finditer(self._clean(text), *args)

    def findall(self, text: str, *args: Any) -> Any:
        return self._rx.findall(self._clean(text), *args)

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        return str(self._rx.sub(repl, self._clean(text), count))

    def subn(self, repl: Any, text: str, count: int = 0) -> tuple[str, int]:
        new, number = self._rx.subn(repl, self._clean(text), count)
        return str(new), int(number)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return list(self._rx.split(self._clean(text), maxsplit))


_SURROGATE = re.compile("[\udc80-\udcff]")


def _re2() -> Any:
    global _RE2
    if _RE2 is None:
        try:
            import re2  # type: ignore[import-not-found,import-untyped]

            _RE2 = re2
        except ImportError:
            _RE2 = False
    return _RE2


def may_backtrack(pattern: str) -> bool:
    """Whether ``pattern`` (Python syntax) repeats a group that itself holds a repetition or
    a back-reference: the shapes (``(a+)+``, ``(a*b?)*``, ``(x+x+)+y``) whose matching can take
    exponential time in a backtracking engine."""
    stack: list[bool] = []  # per open group: whether it holds a quantifier
    inner = False  # whether the atom just closed holds a quantifier
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 < n and pattern[i + 1].isdigit() and stack:
                stack[-1] = True
            i += 2
            inner = False
            continue
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            inner = False
            continue
        if c == "(":
            stack.append(False)
            i += 1
            if pattern.startswith("?", i):  # (?:, (?P<..>, (?i) ...: skip the marker
                i += 1
            inner = False
            continue
        if c == ")":
            inner = stack.pop() if stack else False
            i += 1
            repeated = i < n and (pattern[i] in "*+" or re.match(r"\{\d*,\d*\}", pattern[i:]) is not None)
            if repeated and inner:
                return True
            if stack and inner:
                stack[-1] = True
            continue
        if c in "*+?{":
            if stack:
                stack[-1] = True
            if c == "{":
                m = re.match(r"\{\d*(,\d*)?\}", pattern[i:])
                i += m.end() if m else 1
                continue
        inner = False
        i += 1
    return False


def _re2_pattern(pattern: str, flags: int) -> Any:
    """``pattern`` (Python syntax) compiled by RE2, or None where RE2 has no such construct."""
    engine = _re2()
    if not engine:
        return None
    options = engine.Options()
    options.log_errors = False
    inline = "".join(f for f, bit in (("i", re.I), ("m", re.M), ("s", re.S)) if flags & bit)
    try:
        return engine.compile(f"(?{inline}){pattern}" if inline else pattern, options)
    except Exception:  # re2's own error type: a construct it does not have
        return None


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str, flags: int = 0) -> Any:
    """A compiled pattern with :mod:`re`'s methods (search, match, finditer, sub, subn).

    Matched in linear time by RE2 wherever RE2 has the pattern's constructs; back-references
    and look-arounds go to the budgeted backtracker (:mod:`.backtrack`), whose every step is
    work. Raises :class:`re.error` for a bad pattern (in re's words)."""
    compiled = re.compile(pattern, flags)  # syntax errors in re's words, as callers report them
    if not _REPEATS.search(
        pattern.replace("(?:", "(")
    ):  # no repetition, no alternation, no look-around: re is linear
        return compiled
    linear = _re2_pattern(pattern, flags)
    if linear is not None:
        return _Linear(linear, pattern)
    if not _re2() and not may_backtrack(pattern):
        return compiled
    from .backtrack import BacktrackPattern

    return BacktrackPattern(pattern, flags)
