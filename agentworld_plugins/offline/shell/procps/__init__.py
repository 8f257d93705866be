"""ps and kill (importing registers them)."""

from __future__ import annotations

from . import ps

__all__ = ["ps"]
