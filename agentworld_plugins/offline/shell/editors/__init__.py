"""sed, diff and patch (importing registers them)."""

from __future__ import annotations

from . import diff, patch, sed

__all__ = ["diff", "patch", "sed"]
