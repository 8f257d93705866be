"""Version control over the virtual filesystem (importing registers ``git``)."""

from __future__ import annotations

from . import git

__all__ = ["git"]
