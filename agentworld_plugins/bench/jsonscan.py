"""Finding JSON objects in free text with double-quoted strings respected (a ``}`` inside a string
closes nothing): what both judge parsers, the official one and our lenient one, scan answers with.

>>> object_end('score: {"a": "}"} done', 7)
17
"""

from __future__ import annotations

from collections.abc import Iterator


def json_chars(text: str, start: int = 0) -> Iterator[tuple[int, str, bool]]:
    """``(index, character, in_string)`` for each character of ``text`` from ``start``:
    ``in_string`` is whether a double-quoted string is open after it (backslash escapes
    respected), so an opening quote reads as inside and a closing one as outside."""
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        yield i, ch, in_string


def object_end(text: str, start: int) -> int | None:
    """The index just past the ``}`` that closes the object opened at ``start``; None when the
    text ends first."""
    depth = 0
    for i, ch, in_string in json_chars(text, start):
        if in_string:
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None
