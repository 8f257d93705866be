"""The simple commands of a shell command line, so targeting sees every program a line runs.

``cd /srv && curl -s URL | jq .`` runs ``cd``, ``curl`` and ``jq``; ``sudo`` / ``env`` prefixes
and ``VAR=value`` assignments are skipped, ``bash -c '...'`` and ``$(...)`` are looked into.
Parsed with bashlex; a line bashlex refuses is split on ``;``, ``&&``, ``||`` and ``|``.

>>> [c.program for c in simple_commands("FOO=1 sudo curl x | jq . && bash -c 'wget y'")]
['curl', 'jq', 'bash', 'wget']
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

#: commands a shell prefix runs on behalf of (``sudo rm x`` targets ``rm``)
PREFIXES = {"sudo", "env", "time", "nohup", "exec", "command", "builtin", "nice", "stdbuf", "timeout"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATOR = re.compile(r"\s*(?:\|\||&&|;|\||\n)\s*")
_SHELLS = {"bash", "sh", "dash", "zsh"}
#: how deep ``bash -c`` strings are looked into
_MAX_DEPTH = 3


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its program (basename, ``./x`` kept), arguments and its own text."""

    program: str
    args: list[str] = field(default_factory=list)
    text: str = ""


def program_of(words: list[str]) -> tuple[str, list[str]]:
    """The program of a simple command's words (prefixes and assignments skipped) and its arguments."""
    words = list(words)
    while words and (ASSIGNMENT.match(words[0]) or words[0] in PREFIXES):
        prefix = words.pop(0)
        if prefix == "timeout" and words and re.fullmatch(r"[\d.]+[smhd]?", words[0]):
            words.pop(0)  # timeout's duration
    if not words:
        return "", []
    first = words[0]
    program = first if first.startswith("./") else first.rsplit("/", 1)[-1]
    return program, words[1:]


def _from_words(words: list[str], text: str, depth: int) -> list[SimpleCommand]:
    program, args = program_of(words)
    if not program:
        return []
    found = [SimpleCommand(program, args, text)]
    if program in _SHELLS and "-c" in args and depth < _MAX_DEPTH:
        index = args.index("-c")
        if index + 1 < len(args):
            found.extend(_parse(args[index + 1], depth + 1))
    return found


def _walk(node: Any, source: str, depth: int, out: list[SimpleCommand]) -> None:
    kind = getattr(node, "kind", "")
    if kind == "command":
        words = [p.word for p in node.parts if getattr(p, "kind", "") in ("word", "assignment")]
        start, end = node.pos
        out.extend(_from_words(words, source[start:end], depth))
    for attr in ("parts", "list"):
        for child in getattr(node, attr, None) or []:
            _walk(child, source, depth, out)
    inner = getattr(node, "command", None)
    if inner is not None and kind in ("commandsubstitution", "processsubstitution"):
        _walk(inner, source, depth, out)


def _fallback(command: str, depth: int) -> list[SimpleCommand]:
    found: list[SimpleCommand] = []
    for piece in _SEPARATOR.split(command.strip()):
        try:
            words = shlex.split(piece, comments=True)
        except ValueError:
            words = piece.split()
        found.extend(_from_words(words, piece, depth))
    return found


def _parse(command: str, depth: int) -> list[SimpleCommand]:
    import bashlex

    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises several types (ParsingError, NotImplementedError, ...)
        return _fallback(command, depth)
    found: list[SimpleCommand] = []
    for node in nodes:
        _walk(node, command, depth, found)
    return found


@lru_cache(maxsize=1024)
def _cached(command: str) -> tuple[SimpleCommand, ...]:
    return tuple(_parse(command, 0))


def simple_commands(command: str) -> list[SimpleCommand]:
    """Every simple command ``command`` runs, in order (empty for an empty line)."""
    if not command.strip():
        return []
    return list(_cached(command))


def programs(command: str) -> list[str]:
    """The programs of :func:`simple_commands`, without repeats, in order."""
    seen: list[str] = []
    for simple in simple_commands(command):
        if simple.program not in seen:
            seen.append(simple.program)
    return seen
