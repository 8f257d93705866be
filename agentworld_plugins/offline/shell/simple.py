"""A fast path past bashlex for the simplest lines: one simple command of plain words.

bashlex takes some 100 us to parse even ``echo $i``; a script of 100,000 such lines spent most of
its step budget parsing. A line that is only assignments and words made of plain characters,
``$NAME``/``${NAME}``, ``$((...))`` and quotes without escapes or substitutions (``x=$((x+1))``,
``echo "$i" done``, ``cp a.txt /tmp/``) is split here by one regular expression into the same
nodes bashlex builds (``command`` with ``assignment`` and ``word`` parts, positions into the
text). Anything else (operators, redirections, reserved words, ``$(...)``, backslashes, ``#``,
``{``, ``!``, ``[[``) is left to bashlex.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import bashlex.ast

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_PARAM = rf"\$(?:{_NAME}|[0-9?#$@*-]|\{{{_NAME}\}})"
_ARITH = rf"\$\(\((?:[^()'\"`\\\n$]|\${_NAME})*\)\)"
_PLAIN = r"[A-Za-z0-9_./:,+%@=~*?-]"
_DQUOTED = rf'"(?:[^"\\$`!\n]|{_PARAM}|{_ARITH})*"'
_SQUOTED = r"'[^'\n]*'"
_WORD = rf"(?:{_PLAIN}|{_PARAM}|{_ARITH}|{_SQUOTED}|{_DQUOTED})+|\[|\]"
_LINE = re.compile(rf"[ \t]*(?:{_WORD})(?:[ \t]+(?:{_WORD}))*[ \t]*\n?")
_TOKEN = re.compile(_WORD)
_ASSIGNMENT = re.compile(rf"{_NAME}\+?=")
_ARITH_RX = re.compile(r"\$\(\((.*?)\)\)")

#: words that are syntax where a command starts (bash's reserved words)
RESERVED = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "case",
        "esac",
        "for",
        "select",
        "while",
        "until",
        "do",
        "done",
        "function",
        "in",
        "time",
        "coproc",
    ]
)


def simple_command(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    """The nodes of ``text`` when it is one simple command of plain words, with the text they
    point into (``$((...))`` rewritten as the parser's pre-pass does) and the arithmetic it took
    out; else None (the caller parses it with bashlex). Lines that repeat (a script's ``x=$((x+1))``) are split
    once: the nodes are only read, never changed."""
    return _cached(text) if len(text) <= 512 else _split(text)


@lru_cache(maxsize=4096)
def _cached(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    return _split(text)


def _split(text: str) -> tuple[list[Any], str, dict[str, str]] | None:
    if not _LINE.fullmatch(text):
        return None

    arith: dict[str, str] = {}
    if "$((" in text:
        if "'" in text:  # `'$((x))'` is literal: leave quoting rules to the full parser
            return None

        def name(m: re.Match[str]) -> str:
            key = f"__AWARITH{len(arith)}"
            arith[key] = m.group(1)
            return "${" + key + "}"

        text = _ARITH_RX.sub(name, text)  # as parser._prepare rewrites it
    parts: list[Any] = []
    command_seen = False
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if not command_seen and _ASSIGNMENT.match(word):
            parts.append(bashlex.ast.node(kind="assignment", word=word, pos=m.span(), parts=[]))
            continue
        if not command_seen and word in RESERVED:
            return None
        command_seen = True
        parts.append(bashlex.ast.node(kind="word", word=word, pos=m.span(), parts=[]))
    if not parts:
        return None
    command = bashlex.ast.node(kind="command", parts=parts, pos=(parts[0].pos[0], parts[-1].pos[1]))
    return [command], text, arith
