"""awk, python and bash as programs (importing registers them)."""

from __future__ import annotations

from . import awk, bash
from .wasi_python import command as python

__all__ = ["awk", "bash", "python"]
