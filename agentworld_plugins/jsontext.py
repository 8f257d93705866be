"""``json.dumps(value, indent=2)``, written faster.

CPython's ``json`` module encodes with its C accelerator only when there is no ``indent``; with
one, every value goes through a stack of Python generators. The turn prompts the world model was
trained on show actions indented by two spaces, and the offline world's servers answer the same
way (``JSON.stringify(value, null, 2)``), so each step writes such text two or three times.
:func:`dumps_indented` gives the same characters as ``json.dumps(value, indent=2, ...)``: plain
JSON data (dicts with string keys, lists, tuples, strings, numbers, booleans, None) is written
here with the C string encoder; anything else (another key type, NaN, a ``default`` conversion,
a value nested deeper than :data:`MAX_DEPTH`) is left to ``json.dumps`` itself, whole.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

__all__ = ["MAX_DEPTH", "dumps_indented"]

#: nesting this deep is left to ``json.dumps`` (its own recursion and error messages)
MAX_DEPTH = 100


class _NotPlain(Exception):
    """A value the fast writer leaves to ``json.dumps``."""


def dumps_indented(
    value: Any, *, ensure_ascii: bool = True, default: Callable[[Any], Any] | None = None
) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=ensure_ascii, default=default)``, exactly."""
    encode = encode_basestring_ascii if ensure_ascii else encode_basestring
    out: list[str] = []
    try:
        _write(value, "\n", out, encode, 0)
    except _NotPlain:
        return json.dumps(value, indent=2, ensure_ascii=ensure_ascii, default=default)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str], encode: Callable[[str], str], depth: int) -> None:
    if isinstance(value, str):
        out.append(encode(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _NotPlain
        out.append(float.__repr__(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        if depth >= MAX_DEPTH:
            raise _NotPlain
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            out.append(separator)
            out.append(encode(key))
            out.append(": ")
            _write(item, inner, out, encode, depth + 1)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        if depth >= MAX_DEPTH:
            raise _NotPlain
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, inner, out, encode, depth + 1)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise _NotPlain
