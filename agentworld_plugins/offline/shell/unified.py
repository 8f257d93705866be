"""Unified diffs (``diff -u``, ``git diff``), shared by the programs that print them."""

from __future__ import annotations


def unified(a: str, b: str, from_name: str, to_name: str, from_date: str = "", to_date: str = "") -> str:
    """``diff -u`` of two texts: the ``---``/``+++`` header (none when both names are empty),
    hunks, and ``\\ No newline at end of file`` after a last line without one."""
    import difflib

    lines = list(
        difflib.unified_diff(
            a.splitlines(keepends=True), b.splitlines(keepends=True), from_name, to_name, from_date, to_date
        )
    )
    if not from_name and not to_name:
        lines = lines[2:]
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
