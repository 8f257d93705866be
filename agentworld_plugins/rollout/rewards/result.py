"""What a reward check returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RewardResult:
    """A check's score in [0, 1] and one line saying why."""

    score: float
    detail: str = ""
