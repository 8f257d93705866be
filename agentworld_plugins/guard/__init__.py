"""The consistency guard: world-model observations checked (and repaired) against the facts
earlier turns established. See :mod:`.core` and docs/guard.md."""

from __future__ import annotations

from .core import (
    DEFAULT_POLICIES,
    POLICIES,
    Checker,
    Contradiction,
    GuardedBackend,
    Verdict,
    guard_summary,
    parse_policy,
)

__all__ = [
    "DEFAULT_POLICIES",
    "POLICIES",
    "Checker",
    "Contradiction",
    "GuardedBackend",
    "Verdict",
    "guard_summary",
    "parse_policy",
]
