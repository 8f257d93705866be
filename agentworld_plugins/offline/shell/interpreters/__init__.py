"""python and bash as programs (importing registers them)."""

from __future__ import annotations

from . import bash, python

__all__ = ["bash", "python"]
