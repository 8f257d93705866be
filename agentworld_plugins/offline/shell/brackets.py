"""Finding closing brackets and splitting ${...} operands outside quotes; pattern replacement."""

from __future__ import annotations

import functools

from .limits import BYTES_PER_UNIT, current, hold
from .parser import _unquoted
from .patterns import _unescape_glob, glob_regex, has_glob


def _match_closing(text: str, i: int, pair: str = "()", commas: list[int] | None = None) -> int:
    """Index of the bracket closing one opened just before ``text[i]`` (``len(text)`` if none);
    quoted and backslash-escaped characters do not count. Top-level commas go in ``commas``."""
    opening, closing = pair[0], pair[1]
    depth = 1
    for j in _unquoted(text, i):
        c = text[j]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return j
        elif c == "," and depth == 1 and commas is not None:
            commas.append(j)
    return len(text)


_match_paren = functools.partial(_match_closing, pair="()")


_match_brace = functools.partial(_match_closing, pair="{}")


def _split_unescaped(text: str, sep: str) -> tuple[str, str, str]:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == sep:
            return text[:i], sep, text[i + 1 :]
        i += 1
    return text, "", ""


def _replace_glob(val: str, pattern: str, rep: str, mode: str, nocase: bool = False) -> str:
    """``${val/pattern/rep}``: mode ``""`` (the first match), ``/`` (all), ``#`` (at the start),
    ``%`` (at the end); ``nocase``: letters match either case (``shopt -s nocasematch``)."""
    if not pattern:  # an empty pattern matches only at an anchor
        return rep + val if mode == "#" else val + rep if mode == "%" else val
    if (
        not has_glob(pattern) and not nocase
    ):  # a plain string: str methods, linear, sized before they allocate
        literal = _unescape_glob(pattern)
        if mode == "#":
            return rep + val[len(literal) :] if val.startswith(literal) else val
        if mode == "%":
            return val[: len(val) - len(literal)] + rep if val.endswith(literal) else val
        count = val.count(literal) if mode == "/" else min(1, val.count(literal))
        hold(len(val) + count * (len(rep) - len(literal)))
        current().spend(count // 16)  # each replacement is work of its own
        return val.replace(literal, rep, -1 if mode == "/" else 1)
    budget = current()
    rx = glob_regex(pattern, nocase)
    if mode == "#":
        for k in range(len(val), -1, -1):
            budget.spend(1 + k // BYTES_PER_UNIT)
            if rx.match(val[:k]):
                return rep + val[k:]
        return val
    if mode == "%":
        for k in range(len(val) + 1):
            budget.spend(1 + (len(val) - k) // BYTES_PER_UNIT)
            if rx.match(val[k:]):
                return val[:k] + rep
        return val
    out: list[str] = []
    i = 0
    replaced = False
    while i <= len(val):
        budget.spend(1)  # a glob tried at every position of a long value: bounded by the work
        if not (replaced and mode != "/"):
            for k in range(len(val), i, -1):
                budget.spend(1 + (k - i) // BYTES_PER_UNIT)
                if rx.match(val[i:k]):
                    out.append(rep)
                    i = k
                    replaced = True
                    break
            else:
                if i < len(val):
                    out.append(val[i])
                i += 1
                continue
            continue
        out.append(val[i:])
        break
    return "".join(out)
