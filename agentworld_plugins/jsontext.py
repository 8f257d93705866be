"""``json.dumps(value, indent=2)``, written faster.

CPython's ``json`` module encodes with its C accelerator only when there is no ``indent``; with
one, every value goes through a stack of Python generators. The turn prompts the world model was
trained on show actions indented by two spaces, and the offline world's servers answer the same
way (``JSON.stringify(value, null, 2)``), so each step writes such text two or three times.
:func:`dumps_indented` gives the same characters as ``json.dumps(value, indent=2, ...)``: plain
JSON data (dicts with string keys, lists, tuples, strings, numbers, booleans, None) is written
here with the C string encoder; anything else (another key type, NaN, a ``default`` conversion,
a value nested deeper than :data:`MAX_DEPTH`) is left to ``json.dumps`` itself, whole.

:func:`dumps_body` writes a chat request body as ``json.dumps`` does, with each message's JSON
kept by the message object: the requests of a session repeat its earlier turns and its system
prompt, tens of kilobytes each time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

__all__ = ["MAX_DEPTH", "dumps_body", "dumps_indented"]

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


# -- request bodies ----------------------------------------------------------------------------------

#: the JSON of chat messages already encoded, by the message object: (message, its items, JSON)
_MESSAGES: dict[int, tuple[dict[str, Any], tuple[tuple[str, Any], ...], str]] = {}
_MESSAGES_CHARS = [0]
#: the most characters of message JSON kept (cleared when full), and the shortest message kept
MESSAGES_KEPT_CHARS = 32 * 1024 * 1024
_SHORTEST_KEPT = 256


def dumps_body(payload: dict[str, Any]) -> str:
    """``json.dumps(payload)``, exactly, for a chat request body: the JSON of each message in its
    ``messages`` is kept by the message object, so a conversation's earlier turns (the same
    objects in every request of a session) and its system prompt are encoded once.

    A kept message is used again only while it holds the very same values (any change to it, a
    new content string or another key, encodes it anew); messages with other than text values
    (tool calls, content parts) are encoded every time."""
    parts = []
    for key, value in payload.items():
        if not isinstance(key, str):
            return json.dumps(payload)
        encoded = (
            _dumps_messages(value) if key == "messages" and isinstance(value, list) else json.dumps(value)
        )
        parts.append(f"{encode_basestring_ascii(key)}: {encoded}")
    return "{" + ", ".join(parts) + "}"


def _dumps_messages(messages: list[Any]) -> str:
    parts = []
    for message in messages:
        kept = _MESSAGES.get(id(message))
        if kept is not None and kept[0] is message and _same(kept[1], message):
            parts.append(kept[2])
            continue
        text = json.dumps(message)
        if (
            isinstance(message, dict)
            and len(text) >= _SHORTEST_KEPT
            and all(isinstance(v, str) for v in message.values())
        ):
            if _MESSAGES_CHARS[0] + len(text) > MESSAGES_KEPT_CHARS:
                _MESSAGES.clear()
                _MESSAGES_CHARS[0] = 0
            _MESSAGES[id(message)] = (message, tuple(message.items()), text)  # held: its id stays its own
            _MESSAGES_CHARS[0] += len(text)
        parts.append(text)
    return "[" + ", ".join(parts) + "]"


def _same(items: tuple[tuple[str, Any], ...], message: dict[str, Any]) -> bool:
    if len(items) != len(message):
        return False
    return all(k is key and v is value for (k, v), (key, value) in zip(items, message.items()))
