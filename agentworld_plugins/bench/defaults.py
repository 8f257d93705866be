"""The published evaluation's sampling, for both inference and judging (FORMATS.md)."""

from __future__ import annotations

DEFAULT_TEMPERATURE = 0.6
DEFAULT_MAX_TOKENS = 32768
