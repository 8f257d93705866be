"""GNU durations, as ``sleep`` and ``timeout`` read them (``5``, ``1.5m``, ``2h``, ``inf``)."""

from __future__ import annotations

import re

__all__ = ["duration"]

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"(\d+\.?\d*|\.\d+)([smhd]?)|inf(inity)?")


def duration(text: str) -> float | None:
    """Seconds of a GNU duration (``5``, ``1.5m``, ``inf``); None when it is not one."""
    m = _DURATION.fullmatch(text)
    if m is None:
        return None
    if m.group(1) is None:
        return float("inf")
    return float(m.group(1)) * _UNITS[m.group(2)]
