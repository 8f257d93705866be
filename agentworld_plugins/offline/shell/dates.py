"""Dates as GNU tools read and write them (``date -d``, ``touch -d``, ``date +FORMAT``,
``ls --time-style=+FORMAT``), in UTC, the machine's zone."""

from __future__ import annotations

import calendar
import re
import time
from typing import Any

#: the relative units GNU date reads, as (calendar field, amount): years, months and days move
#: the calendar date (``Jan 31 +1 month`` is ``Feb 31``, that is ``Mar 2``), the rest add seconds
_UNITS = {"year": ("y", 1), "month": ("m", 1), "fortnight": ("d", 14), "week": ("d", 7), "day": ("d", 1),
          "hour": ("s", 3600), "minute": ("s", 60), "min": ("s", 60), "second": ("s", 1), "sec": ("s", 1)}  # fmt: skip
_ORDINALS = {"last": -1, "this": 0, "next": 1, "first": 1, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}  # fmt: skip
_DAYS = {"sunday": 6, "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
         "sun": 6, "mon": 0, "tue": 1, "tues": 1, "wed": 2, "wednes": 2, "thu": 3, "thur": 3, "thurs": 3,
         "fri": 4, "sat": 5}  # fmt: skip
_ZONES = ("utc", "ut", "gmt", "z")
_MONTHS = {name: k + 1 for k, names in enumerate(("january", "february", "march", "april", "may", "june", "july",
           "august", "september", "october", "november", "december")) for name in (names, names[:3])}  # fmt: skip
_MONTHS.update(sept=9)
_TOKEN = re.compile(
    r"(?P<date>\d{4}-\d{1,2}-\d{1,2})(?:t(?P<ttime>\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?))?"
    r"|(?P<us>\d{1,2}/\d{1,2}/\d{2,4})"
    r"|(?P<time>\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?)"
    r"|(?P<zone>[-+]\d\d:\d\d)"
    r"|(?P<number>[-+]?\s*\d+)"  # GNU lets blanks follow the sign: "+ 1 day"
    r"|(?P<word>[a-z]+)\.?"
    r"|(?P<skip>,)"
)


class _Parsed:
    """What a ``date -d`` string says: the fields it sets and the relative moves it asks for."""

    def __init__(self) -> None:
        self.date: tuple[int, int, int] | None = None
        self.clock: tuple[int, int, int] | None = None
        self.offset = 0  # seconds east of UTC the string's time is in
        self.weekday: tuple[int, int] | None = None  # (ordinal, day: Monday 0)
        self.moves = {"y": 0, "m": 0, "d": 0, "s": 0}


def parse_date(text: str, now: int) -> int | None:
    """The epoch time of a ``date -d`` string (UTC, the machine's zone), None where GNU date
    would refuse it: ``@N``; items in any order: ISO (``2024-01-31``, ``...T10:00``) and US
    (``1/31/2024``) dates, times (``10:00[:30]``, ``am``/``pm``, a zone offset right after:
    ``10:00 +3``), ``utc``; relative items (``+1 month``, ``2 days ago``, ``next week``,
    ``tomorrow``, ``90 minutes``, units from years to seconds) applied as GNU applies them;
    day names (``friday``, ``next fri``), which a date overrides."""
    value = text.strip().lower()
    m = re.fullmatch(r"@(-?\d+)", value)
    if m:
        return int(m.group(1))
    parsed = _items(value)
    return None if parsed is None else _resolve(parsed, now)


def _items(value: str) -> _Parsed | None:
    parsed = _Parsed()
    tokens: list[tuple[str, str, re.Match[str]]] = []
    pos = 0
    while pos < len(value):
        if value[pos].isspace():
            pos += 1
            continue
        m = _TOKEN.match(value, pos)
        if m is None or m.lastgroup is None:
            return None
        if m.lastgroup != "skip":
            kind = "date" if m.group("date") else m.lastgroup
            tokens.append((kind, re.sub(r"\s+", "", m.group(kind)), m))
        pos = m.end()
    i = 0
    while i < len(tokens):
        kind, text, m = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        i += 1
        if kind in ("date", "us"):
            if parsed.date is not None:
                return None
            if kind == "date":
                y, mo, d = (int(x) for x in text.split("-"))
            else:
                mo, d, y = (int(x) for x in text.split("/"))
                y += 2000 if y < 69 else 1900 if y < 100 else 0
            if not _valid_date(y, mo, d):
                return None
            parsed.date = (y, mo, d)
            if kind == "us" or m.group("ttime") is None:
                continue
        if kind in ("date", "time"):
            if parsed.clock is not None or not _set_clock(parsed, m.group("ttime") or text):
                return None
            if nxt is not None and nxt[0] == "word" and nxt[1] in ("am", "pm") and parsed.clock:
                hh, mm, ss = parsed.clock
                if not 1 <= hh <= 12:
                    return None
                parsed.clock = (hh % 12 + (12 if nxt[1] == "pm" else 0), mm, ss)
                i += 1
                nxt = tokens[i] if i < len(tokens) else None
            if nxt is not None and (nxt[0] == "zone" or (nxt[0] == "number" and nxt[1][0] in "+-")):
                offset = _offset(nxt[1])
                if offset is None:
                    return None
                parsed.offset = offset
                i += 1
            continue
        if kind == "zone":
            return None
        if kind == "number" and nxt is not None and nxt[0] == "word" and nxt[1] in _MONTHS:  # 5 jan [2024]
            i += 1
            if not _named_month(parsed, _MONTHS[nxt[1]], text, tokens, i):
                return None
            i += _year_after(tokens, i)
            continue
        if kind == "number":
            if nxt is not None and nxt[0] == "word" and (unit := _unit(nxt[1])):
                i += 1
                i += _move(parsed, int(text), unit, tokens, i)
                continue
            return None
        word = text
        if word in _MONTHS and nxt is not None and nxt[0] == "number":  # jan 5 [2024]
            i += 1
            if not _named_month(parsed, _MONTHS[word], nxt[1], tokens, i):
                return None
            i += _year_after(tokens, i)
            continue
        if word in _ZONES:
            continue
        if word in ("now", "today"):
            continue
        if word in ("tomorrow", "yesterday"):
            parsed.moves["d"] += 1 if word == "tomorrow" else -1
            continue
        if word in _ORDINALS and nxt is not None and nxt[0] == "word":
            if unit := _unit(nxt[1]):
                i += 1
                i += _move(parsed, _ORDINALS[word], unit, tokens, i)
                continue
            if nxt[1] in _DAYS and parsed.weekday is None:
                parsed.weekday = (_ORDINALS[word], _DAYS[nxt[1]])
                i += 1
                continue
            return None
        if unit := _unit(word):
            i += _move(parsed, 1, unit, tokens, i)
            continue
        if word in _DAYS and parsed.weekday is None:
            parsed.weekday = (0, _DAYS[word])
            continue
        return None
    return parsed


def _year_after(tokens: list[Any], i: int) -> int:
    """1 when a year (a number of 4 digits) follows a month name's day, else 0."""
    return 1 if i < len(tokens) and tokens[i][0] == "number" and re.fullmatch(r"\d{4}", tokens[i][1]) else 0


def _named_month(parsed: _Parsed, month: int, day: str, tokens: list[Any], i: int) -> bool:
    """``jan 5`` / ``5 jan``, with the year after it if there is one (else this year's)."""
    if parsed.date is not None or not day.isdigit():
        return False
    year = int(tokens[i][1]) if _year_after(tokens, i) else 0
    if not _valid_date(year or 2000, month, int(day)):
        return False
    parsed.date = (year, month, int(day))
    return True


def _unit(word: str) -> tuple[str, int] | None:
    return _UNITS.get(word[:-1] if word.endswith("s") and word[:-1] in _UNITS else word)


def _move(parsed: _Parsed, count: int, unit: tuple[str, int], tokens: list[Any], i: int) -> int:
    """One relative item: ``count`` of ``unit``, backwards when ``ago`` follows it (then 1, the
    tokens it took beyond the unit, else 0)."""
    back = _ago(tokens, i)
    field, amount = unit
    parsed.moves[field] += count * amount * (-1 if back else 1)
    return back


def _ago(tokens: list[Any], i: int) -> int:
    return 1 if i < len(tokens) and tokens[i][0] == "word" and tokens[i][1] == "ago" else 0


def _set_clock(parsed: _Parsed, text: str) -> bool:
    parts = text.split(":")
    hh, mm = int(parts[0]), int(parts[1])
    ss = int(float(parts[2])) if len(parts) > 2 else 0
    if hh > 24 or mm > 59 or ss > 60:
        return False
    parsed.clock = (hh, mm, ss)
    return True


def _offset(text: str) -> int | None:
    """A zone offset after a time (``+3``, ``-0530``, ``+05:30``) in seconds east of UTC."""
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    if len(digits) <= 2:
        hours, minutes = int(digits), 0
    elif len(digits) == 4:
        hours, minutes = int(digits[:2]), int(digits[2:])
    else:
        return None
    if hours > 24 or minutes > 59:
        return None
    return sign * (hours * 3600 + minutes * 60)


def _valid_date(y: int, mo: int, d: int) -> bool:
    return 1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]


def _resolve(parsed: _Parsed, now: int) -> int:
    """The time ``parsed`` names, reckoned as GNU's ``parse_datetime`` reckons it: the fields
    given (the rest from ``now``; midnight when a date or a day name is given without a time),
    the day name (unless a date is given), then years and months, days, and seconds."""
    t = time.gmtime(now)
    y, mo, d = parsed.date or (t.tm_year, t.tm_mon, t.tm_mday)
    if y == 0:  # a month name without a year: this year's
        y = t.tm_year
    if parsed.clock is not None:
        hh, mm, ss = parsed.clock
    elif parsed.date is not None or parsed.weekday is not None:
        hh = mm = ss = 0
    else:
        hh, mm, ss = t.tm_hour, t.tm_min, t.tm_sec
    if parsed.weekday is not None and parsed.date is None:
        ordinal, day = parsed.weekday
        wday = calendar.weekday(y, mo, d)
        d += (day - wday + 7) % 7 + 7 * (ordinal - (1 if ordinal > 0 and wday != day else 0))
    months = y * 12 + (mo - 1) + parsed.moves["y"] * 12 + parsed.moves["m"]
    y, mo = divmod(months, 12)
    days = d + parsed.moves["d"]
    epoch = calendar.timegm((y, mo + 1, 1, hh, mm, ss, 0, 0, 0)) + (days - 1) * 86400
    return epoch - parsed.offset + parsed.moves["s"]


def format_date(epoch: int, fmt: str | None = None) -> str:
    """``date`` output for a UTC time: the default form or a ``+FORMAT``."""
    t = time.gmtime(epoch)
    if fmt is None:
        return time.strftime("%a %b ", t) + f"{t.tm_mday:2d} " + time.strftime("%H:%M:%S UTC %Y", t)
    out = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%" and i + 1 < len(fmt):
            d = fmt[i + 1]
            pad = ""
            if d in "-_0^#" and i + 2 < len(fmt):
                pad, d = d, fmt[i + 2]
                i += 1
            if d == "s":
                piece = str(epoch)
            elif d == "N":
                piece = "000000000"
            elif d == "Z":
                piece = "UTC"
            elif d == "z":
                piece = "+0000"
            elif d == "e":
                piece = f"{t.tm_mday:2d}"
            elif d == "P":
                piece = time.strftime("%p", t).lower()
            elif d == "n":
                piece = "\n"
            elif d == "t":
                piece = "\t"
            else:
                piece = time.strftime("%" + d, t)
            if pad == "-":
                piece = piece.lstrip("0 ") or "0"
            elif pad == "_":
                piece = re.sub(r"^0", " ", piece)
            elif pad == "^":
                piece = piece.upper()
            elif pad == "#":  # the other case: names upper, %p and %Z lower
                piece = piece.lower() if d in "pZ" else piece.upper()
            out.append(piece)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)
