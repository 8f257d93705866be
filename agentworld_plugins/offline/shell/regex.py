"""Compiling the regular expressions of grep, sed and friends without exponential backtracking.

Python's :mod:`re` backtracks: ``(a+)+$`` against thirty ``a`` and a ``b`` takes minutes, where
GNU grep (a DFA) answers at once. :func:`compile_regex` keeps :mod:`re` (exact semantics, fast)
for patterns that cannot blow up, and sends those with a quantifier inside a repeated group to
RE2 (``google-re2``, the ``offline`` extra), which matches in linear time. Without RE2, or for a
pattern RE2 cannot take (back-references, look-arounds), such a pattern is refused with
:class:`RegexTooComplex` before it runs; the program reports it and exits 2.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_RE2: Any = None  # the module once imported, False when not installed


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


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str, flags: int = 0) -> Any:
    """A compiled pattern with :mod:`re`'s methods (search, match, finditer, sub, subn).
    Raises :class:`re.error` for a bad pattern and :class:`RegexTooComplex` as described above."""
    compiled = re.compile(pattern, flags)  # syntax errors in re's words, as callers report them
    if not may_backtrack(pattern):
        return compiled
    engine = _re2()
    if engine:
        options = engine.Options()
        options.log_errors = False
        inline = "".join(f for f, bit in (("i", re.I), ("m", re.M), ("s", re.S)) if flags & bit)
        try:
            return _Linear(engine.compile(f"(?{inline}){pattern}" if inline else pattern, options), pattern)
        except Exception:  # re2's own error type: a construct it does not have
            pass
    raise RegexTooComplex(pattern)
