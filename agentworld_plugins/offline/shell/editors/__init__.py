"""sed and diff (importing registers them)."""

from __future__ import annotations

from . import diff, sed

__all__ = ["diff", "sed"]
