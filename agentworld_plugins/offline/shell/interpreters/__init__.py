"""awk, python and bash as programs (importing registers them)."""

from __future__ import annotations

from . import awk, bash, python

__all__ = ["awk", "bash", "python"]
