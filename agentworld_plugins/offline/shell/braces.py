"""Brace expansion: a{b,c} and {1..3}."""

from __future__ import annotations

import re

from .brackets import _match_closing
from .limits import current, reserve
from .parser import _unquoted


def brace_expand(word: str, limit: int | None = None) -> list[str]:
    """Bash brace expansion (``a{b,c}``, ``{1..3}``) of a raw word, quotes respected.

    No silent cap: an expansion bigger than the step's memory budget is refused before it is
    made (:class:`~.limits.ResourceLimit`); ``limit`` (words) returns the word unexpanded past it,
    for callers that want a small cap of their own (glob patterns)."""
    n = len(word)
    current().spend(1 + n // 4)  # the word is read through once more
    for i in _unquoted(word):
        if word[i] == "{" and not (i > 0 and word[i - 1] == "$"):
            commas: list[int] = []
            end = _match_closing(word, i + 1, "{}", commas)
            if end >= n:
                return [word]
            prefix, suffix = word[:i], word[end + 1 :]
            if commas:
                bounds = [i, *commas, end]
                alts = [word[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
                out: list[str] = []
                size = 0
                budget = current()
                for alt in alts:
                    budget.spend(1)
                    more = brace_expand(prefix + alt + suffix, limit)
                    out.extend(more)
                    if limit is not None and len(out) > limit:
                        return [word]
                    size += sum(len(w) + 1 for w in more)
                    reserve(size)
                return out
            inner = word[i + 1 : end]
            m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
            letters = re.fullmatch(r"([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?", inner)
            items: list[str] = []
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                step = abs(int(m.group(3))) if m.group(3) else 1
                step = step or 1
                width = max(len(m.group(1)), len(m.group(2))) if re.match(r"-?0\d", m.group(1) + "") else 0
                rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
                digits = max(len(m.group(1)), len(m.group(2)), width) + 1
                if limit is not None and len(rng) > limit:
                    return [word]
                reserve(len(rng) * (digits + len(prefix) + len(suffix)))
                items = [str(x).zfill(width) if width else str(x) for x in rng]
            elif letters:
                a, b = ord(letters.group(1)), ord(letters.group(2))
                step = abs(int(letters.group(3))) or 1 if letters.group(3) else 1
                rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
                items = [chr(x) for x in rng]
            if items:
                out = []
                budget = current()
                for item in items:
                    budget.spend(1)
                    out.extend(brace_expand(prefix + item + suffix, limit))
                return out
    return [word]
