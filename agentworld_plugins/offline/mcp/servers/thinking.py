"""``@modelcontextprotocol/server-sequential-thinking``: a thought log with branches.

Facts taken from the server (2026.8.31, ``dist/lib.js`` and ``dist/index.js``): each call is
kept in the history; a ``thoughtNumber`` past ``totalThoughts`` raises the total to it; a call
with both ``branchFromThought`` and ``branchId`` files the thought under that branch; the answer
is ``JSON.stringify({thoughtNumber, totalThoughts, nextThoughtNeeded, branches,
thoughtHistoryLength}, null, 2)`` and the same object as ``structuredContent``.
"""

from __future__ import annotations

from typing import Any

from ....jsontext import dumps_indented

__all__ = ["ThoughtLog"]


def _number(value: Any) -> Any:
    # the server coerces numbers (z.coerce.number): "3" is 3
    if isinstance(value, str):
        try:
            return int(value) if value.strip().lstrip("-").isdigit() else float(value)
        except ValueError:
            return value
    return value


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


class ThoughtLog:
    """The server's history and branches; ``call`` answers ``(text, structured, is_error)``."""

    def __init__(self) -> None:
        self.history = 0
        self.branches: dict[str, int] = {}  # branch id -> thoughts filed under it, in first-seen order

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, Any, bool]:
        number, total = _number(arguments.get("thoughtNumber")), _number(arguments.get("totalThoughts"))
        if isinstance(number, (int, float)) and isinstance(total, (int, float)) and number > total:
            total = number
        self.history += 1
        branch_id = arguments.get("branchId")
        if arguments.get("branchFromThought") and branch_id:
            self.branches[str(branch_id)] = self.branches.get(str(branch_id), 0) + 1
        result = {
            "thoughtNumber": number,
            "totalThoughts": total,
            "nextThoughtNeeded": _flag(arguments.get("nextThoughtNeeded")),
            "branches": list(self.branches),
            "thoughtHistoryLength": self.history,
        }
        return dumps_indented(result, ensure_ascii=False), result, False
