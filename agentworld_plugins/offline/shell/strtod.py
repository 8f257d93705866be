"""C's strtod, as programs written in C read a number at the start of a string (mawk's strings,
GNU sort -g)."""

from __future__ import annotations

import math
import re

#: what C's strtod reads at the start of a string (mawk converts strings with it): a decimal or
#: hexadecimal number, inf, infinity or nan, after blanks
_STRTOD = re.compile(
    r"[ \t\n\v\f\r]*([-+]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?i:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)))"
)


def strtod(text: str) -> tuple[float, int]:
    """C's strtod: the number at the start of ``text`` and where it ends (0: none)."""
    m = _STRTOD.match(text)
    if m is None:
        return 0.0, 0
    word = m.group(1)
    sign = -1.0 if word.startswith("-") else 1.0
    body = word.lstrip("+-")
    low = body[:3].lower()
    if low == "inf":
        return sign * math.inf, m.end()
    if low == "nan":
        return math.copysign(math.nan, sign), m.end()
    if body[:2] in ("0x", "0X"):
        digits = body if "p" in body.lower() else body + "p0"
        return sign * float.fromhex(digits), m.end()
    return sign * float(body), m.end()
