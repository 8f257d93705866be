"""Reading a script as bash does: one complete command at a time.

bash reads a script (or a ``-c`` string) a complete command at a time and runs it before it reads
the next: the commands before a syntax error have run when bash reports it (and stops, status 2).
:func:`script_pieces` does the same. Each line that completes a command on its own is one piece;
a construct over several lines (``if ... fi``, a here-document, an open quote, a trailing ``|``)
grows its piece, twice as many lines at each try, until bashlex parses it. Pieces are parsed by
:func:`~.parser._parse`, which caches them by text, and simple lines skip bashlex entirely
(:mod:`.simple`): a 100,000-line script parses in a fraction of the time one parse of the whole
text took, and the lines that repeat (``x=$((x+1))``) parse once.

Syntax the offline shell does not run (``select``, ``coproc``) cannot say whether its piece
is complete; from there the rest of the text is one piece, as the whole text once was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .errors import _ShellSyntaxError, _Unsupported
from .parser import _parse, _Source

#: a line that ends in an unescaped backslash goes on in the next line
_CONTINUED = re.compile(r"(?<!\\)(\\\\)*\\$")


@dataclass
class Piece:
    """A part of a script that ends where a complete command does (or the text does)."""

    text: str
    #: the line of the script the piece starts on
    first_line: int
    nodes: list[Any]
    src: _Source | None
    #: the syntax error (``_ShellSyntaxError``) or unsupported syntax (``_Unsupported``) that
    #: parsing it raised; ``nodes`` is then empty
    error: Exception | None = None


def script_pieces(text: str, parse: Any = _parse) -> Iterator[Piece]:
    """``text`` as pieces to run in order; a piece with an ``error`` is the last one that
    matters (the caller reports it and stops, or runs on past unsupported syntax)."""
    if "\n" not in text.rstrip("\n"):  # one line: one piece (the common case, kept cheap)
        yield _piece(text, 1, parse)
        return
    lines = text.split("\n")
    n = len(lines)
    i = 0
    while i < n:
        size = 1
        while True:
            end = min(i + size, n)
            chunk = "\n".join(lines[i:end]) + ("\n" if end < n else "")
            if end < n and _CONTINUED.search(lines[end - 1]):
                size *= 2  # `echo a \` goes on in the next line
                continue
            piece = _piece(chunk, i + 1, parse)
            if isinstance(piece.error, _ShellSyntaxError) and piece.error.incomplete and end < n:
                size *= 2
                continue
            if isinstance(piece.error, _Unsupported) and end < n:
                # whether this piece is complete cannot be known: the rest is one piece
                yield _piece("\n".join(lines[i:]), i + 1, parse)
                return
            if piece.text.strip() or piece.error is not None:
                yield piece
            if piece.error is not None:
                return
            i = end
            break


def _piece(text: str, first_line: int, parse: Any) -> Piece:
    try:
        nodes, src = parse(text)
    except (_ShellSyntaxError, _Unsupported) as exc:
        return Piece(text, first_line, [], None, exc)
    if first_line != 1:  # a cached parse may serve several lines: each gets its own numbering
        src = src.at_line(first_line)
    return Piece(text, first_line, nodes, src)
