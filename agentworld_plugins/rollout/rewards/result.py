"""What a reward check returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RewardResult:
    """A check's score in [0, 1] and one line saying why."""

    score: float
    detail: str = ""

    def __bool__(self) -> bool:
        """True when the check passed in full (``assert world.check(...)`` reads that way)."""
        return self.score >= 1.0
