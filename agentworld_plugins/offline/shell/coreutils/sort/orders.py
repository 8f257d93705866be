"""The orders of GNU sort that read a key as something other than text: ``-g``'s strtod
numbers, ``-h``'s unit suffixes, ``-M``'s month names, ``-V``'s version strings (gnulib's
filevercmp)."""

from __future__ import annotations

import re

from ...strtod import strtod

_UNITS = {"K": 1, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7, "Y": 8, "R": 9, "Q": 10}
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_HUMAN = re.compile(r"[ \t\n]*(-?)([0-9]*)(?:\.([0-9]*))?(.?)", re.DOTALL)
#: a file name's suffix filevercmp sets aside: (\.[A-Za-z~][A-Za-z0-9~]*)* at the end
_SUFFIX = re.compile(r"(?:\.[A-Za-z~][A-Za-z0-9~]*)*$")


def general_number(text: str) -> float | None:
    """``-g``: the number strtod reads at the start (None: none there)."""
    value, end = strtod(text)
    return value if end else None


def human_order(text: str) -> int:
    """``-h``: the unit a number carries (K 1, M 2, ...; negative numbers' negative), 0 for a
    number without one or with no digit other than 0."""
    m = _HUMAN.match(text)
    assert m is not None
    sign, whole, frac, unit = m.groups()
    if not (whole + (frac or "")).strip("0"):
        return 0
    order = _UNITS.get(unit, 0)
    return -order if sign else order


def month_of(text: str) -> int:
    """``-M``: 1 to 12 for a key that starts (after blanks) with a month's abbreviation, in any
    case; 0 for anything else."""
    head = text.lstrip(" \t\n")[:3].upper()
    return _MONTHS.index(head) + 1 if head in _MONTHS else 0


def _order(text: str, pos: int) -> int:
    """verrevcmp's weight of a character: ~ first, then the end, digits, letters, the rest."""
    if pos >= len(text):
        return -1
    c = text[pos]
    if c.isascii() and c.isdigit():
        return 0
    if c.isascii() and c.isalpha():
        return ord(c)
    if c == "~":
        return -2
    return ord(c) + 256


def _digit(text: str, pos: int) -> bool:
    return pos < len(text) and "0" <= text[pos] <= "9"


def _verrevcmp(a: str, b: str) -> int:
    i = j = 0
    while i < len(a) or j < len(b):
        first_diff = 0
        while (i < len(a) and not _digit(a, i)) or (j < len(b) and not _digit(b, j)):
            ac, bc = _order(a, i), _order(b, j)
            if ac != bc:
                return ac - bc
            i += 1
            j += 1
        while i < len(a) and a[i] == "0":
            i += 1
        while j < len(b) and b[j] == "0":
            j += 1
        while _digit(a, i) and _digit(b, j):
            if not first_diff:
                first_diff = ord(a[i]) - ord(b[j])
            i += 1
            j += 1
        if _digit(a, i):
            return 1
        if _digit(b, j):
            return -1
        if first_diff:
            return first_diff
    return 0


def version_compare(a: str, b: str) -> int:
    """``-V``: gnulib's filevercmp: "" first, then ".", "..", other names starting with a dot,
    the rest; compared without their suffixes (``.tar.gz``), then whole if that ties."""
    if not a or not b:
        return (not b) - (not a)
    if a.startswith(".") or b.startswith("."):
        if not (a.startswith(".") and b.startswith(".")):
            return -1 if a.startswith(".") else 1
        for special in (".", ".."):  # "." first, then ".."
            if a == special:
                return -(b != special)
            if b == special:
                return 1
    a_prefix = _SUFFIX.search(a, 1).start()  # type: ignore[union-attr]
    b_prefix = _SUFFIX.search(b, 1).start()  # type: ignore[union-attr]
    result = _verrevcmp(a[:a_prefix], b[:b_prefix])
    if result or (a_prefix == len(a) and b_prefix == len(b)):
        return result
    return _verrevcmp(a, b)
