"""Size and depth limits on untrusted input, checked before it is parsed.

Actions and request bodies come from agents and clients nobody vetted. Python's ``json`` recurses
once per nesting level (a 1,000-deep array raises ``RecursionError``), ``int()`` refuses a
literal over 4,300 digits with ``ValueError``, and ``repr`` of a 5,000-deep list overflows the
stack. These helpers turn each of those into a :class:`LimitError` naming what was too big, so a
caller can answer with its own documented error (an ``ActionValidationError``, an HTTP 400).

>>> loads_limited('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads_limited("[" * 500 + "]" * 500)
Traceback (most recent call last):
...
LimitError: JSON nested deeper than 64 levels
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_NUMBER_DIGITS",
    "MAX_TEXT_CHARS",
    "LimitError",
    "check_depth",
    "check_json_text",
    "loads_limited",
]

#: deepest nesting of lists and objects accepted (an action or a JSON body)
MAX_DEPTH = 64
#: longest integer literal accepted (Python's own int/str conversion limit is 4,300 digits)
MAX_NUMBER_DIGITS = 1000
#: longest action text accepted, in characters
MAX_TEXT_CHARS = 4_000_000
# an int of more than this many bits has more than MAX_NUMBER_DIGITS decimal digits
_MAX_INT_BITS = int(MAX_NUMBER_DIGITS * math.log2(10)) + 1

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class LimitError(ValueError):
    """Input over a size or depth limit; ``str()`` says which."""


def check_json_text(text: str, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_TEXT_CHARS) -> None:
    """Raise :class:`LimitError` when ``text`` is too long or its brackets nest too deep.

    Brackets inside JSON strings do not count. Cheap for ordinary text: the exact scan runs only
    when the text holds more brackets than ``max_depth``.
    """
    if len(text) > max_chars:
        raise LimitError(f"text of {len(text):,} characters is over the limit of {max_chars:,}")
    if text.count("[") + text.count("{") <= max_depth:
        return
    skeleton = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if skeleton and max(accumulate(_STEP[c] for c in skeleton)) > max_depth:
        raise LimitError(f"JSON nested deeper than {max_depth} levels")


def _parse_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise LimitError(f"a number of {digits:,} digits is over the limit of {MAX_NUMBER_DIGITS:,}")
    return int(literal)


def _parse_float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_DIGITS:
        raise LimitError(
            f"a number of {len(literal):,} characters is over the limit of {MAX_NUMBER_DIGITS:,}"
        )
    value = float(literal)
    if not math.isfinite(value):
        raise LimitError(f"the number {literal[:40]} is out of range")
    return value


def _reject_constant(name: str) -> Any:
    raise LimitError(f"{name} is not a JSON number")


def loads_limited(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_TEXT_CHARS) -> Any:
    """``json.loads`` with the limits checked first; raises ``json.JSONDecodeError`` or :class:`LimitError`.

    ``bytes`` must be UTF-8 (``UnicodeDecodeError`` otherwise). ``NaN`` and ``Infinity`` are
    refused: they are not JSON and cannot be written back by a strict encoder.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    check_json_text(text, max_depth=max_depth, max_chars=max_chars)
    try:
        value = json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_reject_constant
        )
    except RecursionError:  # deeper than the interpreter allows, whatever max_depth says
        raise LimitError(f"JSON nested deeper than {max_depth} levels") from None
    if _SURROGATE_ESCAPE.search(text) and not _encodable(value):
        raise LimitError("a string holds an unpaired surrogate (\\ud800-\\udfff), which is not Unicode text")
    return value


def _encodable(value: Any) -> bool:
    """Whether every string in ``value`` (keys included) can be written as UTF-8."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def check_depth(value: Any, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_TEXT_CHARS) -> None:
    """Raise :class:`LimitError` when a Python value nests too deep or holds an oversized int/str.

    Iterative, so a value nested 100,000 deep is measured without recursing.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > max_depth:
                raise LimitError(f"value nested deeper than {max_depth} levels")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict):
                stack.extend((key, depth + 1) for key in item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and item.bit_length() > _MAX_INT_BITS:
            raise LimitError(f"an integer over {MAX_NUMBER_DIGITS:,} digits")
        elif isinstance(item, str) and len(item) > max_chars:
            raise LimitError(f"text of {len(item):,} characters is over the limit of {max_chars:,}")
