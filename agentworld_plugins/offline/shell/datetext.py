"""Dates as GNU tools read them (``date -d``, ``touch -d``): the forms the offline shell knows."""

from __future__ import annotations

import calendar
import re
import time

_UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "day": 86400, "week": 604800,
          "fortnight": 1209600}  # fmt: skip


def parse_date(text: str, now: int) -> int | None:
    """The epoch time of a ``date -d`` string (UTC): ``@N``, ``now``/``today``/``yesterday``/
    ``tomorrow``, ISO dates and times, ``N unit(s) [ago]``; None where GNU date would refuse it."""
    value = text.strip().lower()
    m = re.fullmatch(r"@(-?\d+)", value)
    if m:
        return int(m.group(1))
    if value in ("", "now", "today"):
        return now
    if value in ("yesterday", "tomorrow"):
        return now + (86400 if value == "tomorrow" else -86400)
    m = re.fullmatch(
        r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ](\d{1,2}):(\d\d)(?::(\d\d))?)?(?: ?(utc|z|[-+]\d\d:?\d\d))?",
        value,
    )
    if m:
        y, mo, d, hh, mm, ss, zone = m.groups()
        try:
            base = calendar.timegm(time.struct_time((int(y), int(mo), int(d), int(hh or 0), int(mm or 0),
                                                     int(ss or 0), 0, 0, 0)))  # fmt: skip
            time.strptime(f"{y}-{mo}-{d}", "%Y-%m-%d")
        except ValueError:
            return None
        if zone and zone not in ("utc", "z"):
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            base -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
        return base
    total = 0
    rest = value
    found = False
    for m in re.finditer(r"([-+]?\d+)?\s*(second|sec|minute|min|hour|day|week|fortnight)s?\b", value):
        found = True
        total += int(m.group(1) or 1) * _UNITS[m.group(2)]
        rest = rest.replace(m.group(0), "", 1)
    rest = rest.strip()
    if found and rest in ("", "ago"):
        return now - total if rest == "ago" else now + total
    return None
