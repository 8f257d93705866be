"""The engines behind the tool families of the offline MCP world (see :mod:`..classify`).

Each engine keeps its state in the session's world dict, answers with a :class:`Answer` and
never raises for bad input: an error is an answer with ``is_error`` set, in the words the
impersonated system uses (SQLite's, Node's ``fs``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    """What a family engine says: ``text`` for the client, ``data`` to lay over an ``outputSchema``."""

    text: str
    is_error: bool = False
    data: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)


#: strings longer than this are echoed as a preview of :data:`PREVIEW_KEEP` characters
PREVIEW_OVER = 1000
PREVIEW_KEEP = 200


def preview(value: Any) -> Any:
    """``value`` with every long string cut to a short preview that says how long it was."""
    if isinstance(value, str):
        if len(value) <= PREVIEW_OVER:
            return value
        return f"{value[:PREVIEW_KEEP]}... [{len(value)} characters]"
    if isinstance(value, dict):
        return {k: preview(v) for k, v in value.items()}
    if isinstance(value, list):
        return [preview(v) for v in value]
    return value
