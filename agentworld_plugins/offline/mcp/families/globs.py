"""Glob patterns as ``@modelcontextprotocol/server-filesystem`` matches them: minimatch on the
path relative to the search root, with ``dot: true`` and no ``matchBase``.

Facts (minimatch's documented rules): ``*`` and ``?`` stay inside one path segment and match
leading dots here; a ``**`` segment matches zero or more whole segments (so ``**/*.log`` matches
``a.log`` at the top); ``[...]`` / ``[!...]`` are classes; ``{a,b}`` and ``{1..3}`` expand; a
pattern without ``/`` matches only top-level paths (``*.txt`` is not ``sub/x.txt``); a backslash
escapes the next character. Patterns compile to one anchored regex each (no backtracking across
segments beyond what ``re`` does for ``[^/]*``), cached.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["glob_match"]

_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")
#: braces expanded at most to this many patterns (a hostile ``{a,b}{a,b}...`` stays bounded)
_MAX_EXPANSIONS = 256


def _expand(pattern: str) -> list[str]:
    """``pattern`` with its first brace group expanded, recursively (minimatch's braceExpand)."""
    depth, start = 0, -1
    for i, char in enumerate(pattern):
        if char == "\\":
            continue
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                body = pattern[start + 1 : i]
                options = _options(body)
                if options is None:  # "{a}" or "{}": literal braces
                    continue
                head, tail = pattern[:start], pattern[i + 1 :]
                out: list[str] = []
                for option in options:
                    out.extend(_expand(head + option + tail))
                    if len(out) >= _MAX_EXPANSIONS:
                        return out[:_MAX_EXPANSIONS]
                return out
    return [pattern]


def _options(body: str) -> list[str] | None:
    numeric = _RANGE.match(body)
    if numeric:
        a, b = int(numeric.group(1)), int(numeric.group(2))
        step = 1 if b >= a else -1
        return [str(n) for n in range(a, b + step, step)][:_MAX_EXPANSIONS]
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += char == "{"
        depth -= char == "}"
        current.append(char)
    parts.append("".join(current))
    return parts if len(parts) > 1 else None


def _segment(segment: str) -> str:
    out, i = [], 0
    while i < len(segment):
        char = segment[i]
        if char == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        if char == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = segment[i + 1 : end]
                negate = inner[:1] in ("!", "^")
                inner = inner[1:] if negate else inner
                inner = inner.replace("\\", "\\\\")
                out.append(f"[{'^/' if negate else ''}{inner}]" if negate else f"[{inner}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    regexes = []
    for expanded in _expand(pattern):
        parts = expanded.split("/")
        pieces: list[str] = []
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if part == "**":
                pieces.append("(?:[^/]*(?:/[^/]*)*)" if last else "(?:[^/]+/)*")
            else:
                pieces.append(_segment(part) + ("" if last else "/"))
        regexes.append("".join(pieces))
    try:
        return re.compile("(?:" + "|".join(f"(?:{r})" for r in regexes) + r")\Z", re.DOTALL)
    except re.error:
        return None


def glob_match(pattern: str, path: str) -> bool:
    """Whether ``path`` (relative, ``/``-separated) matches ``pattern`` as minimatch does."""
    if not pattern:
        return False
    regex = _compiled(pattern)
    return regex is not None and regex.match(path) is not None
