"""Unified diffs (``diff -u``, ``git diff``), shared by the programs that print them."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from .applet_io import lines_with_ends

Opcode = tuple[str, int, int, int, int]


class _Fixed(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """A matcher whose edit script was chosen elsewhere (GNU diff's, :mod:`.gnu_diff`)."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self.codes = codes

    def get_opcodes(self) -> list[Opcode]:  # type: ignore[override]
        return self.codes


def hunk_range(start: int, stop: int) -> str:
    """A hunk header's range of lines ``start`` to ``stop`` (half-open, from 0): ``N`` for one
    line, ``N,COUNT`` else, an empty range starting after the line before it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _hunks(a: list[str], b: list[str], codes: list[Opcode], head: list[str], context: int) -> Iterator[str]:
    for k, group in enumerate(_Fixed(codes).get_grouped_opcodes(context)):
        if not k:
            yield from head
        yield f"@@ -{hunk_range(group[0][1], group[-1][2])} +{hunk_range(group[0][3], group[-1][4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def unified(
    a: str,
    b: str,
    from_name: str,
    to_name: str,
    from_date: str = "",
    to_date: str = "",
    codes: list[Opcode] | None = None,
    context: int = 3,
) -> str:
    """``diff -u`` of two texts: the ``---``/``+++`` header (none when both names are empty),
    hunks, and ``\\ No newline at end of file`` after a last line without one. ``codes``: the
    edit script to show (default difflib's); ``context``: the unchanged lines shown around each
    change (``-U``), hunks whose context would touch or overlap merged into one."""
    left, right = lines_with_ends(a), lines_with_ends(b)
    if codes is None:
        lines = list(difflib.unified_diff(left, right, from_name, to_name, from_date, to_date, context))
        if not from_name and not to_name:
            lines = lines[2:]
    else:
        head = []
        if from_name or to_name:
            head = [
                f"--- {from_name}{chr(9) + from_date if from_date else ''}\n",
                f"+++ {to_name}{chr(9) + to_date if to_date else ''}\n",
            ]
        lines = list(_hunks(left, right, codes, head, context))
    return marked(lines)


def marked(lines: list[str]) -> str:
    """The lines of a diff joined, ``\\ No newline at end of file`` after one without a newline."""
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
