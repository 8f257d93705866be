"""tar (GNU tar 1.34), split in its command line, its create mode and its list/extract modes."""

from __future__ import annotations

from . import main

__all__ = ["main"]
