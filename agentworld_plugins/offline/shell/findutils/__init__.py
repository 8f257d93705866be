"""find, grep and xargs (importing registers them)."""

from __future__ import annotations

from . import find, grep, xargs

__all__ = ["find", "grep", "xargs"]
