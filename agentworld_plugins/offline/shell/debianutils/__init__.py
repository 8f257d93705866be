"""which (importing registers it)."""

from __future__ import annotations

from . import which

__all__ = ["which"]
