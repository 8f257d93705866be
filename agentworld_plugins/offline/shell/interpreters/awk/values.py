"""awk's values: numbers, strings and numeric strings, their conversions, comparisons and printf."""

from __future__ import annotations

import math
import re
from typing import Any

#: a string that looks like a number, from input (a field, getline, split, ARGV, -v):
#: compared as a number with numbers, as awk's "strnum"
_LOOKS_NUMERIC = re.compile(r"[ \t\n]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[ \t\n]*")
_LEADING_NUMBER = re.compile(r"[ \t\n]*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


class AwkFatal(Exception):
    """A run-time error: ``awk: cmd. line:N: fatal: message``, status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StrNum(str):
    """An input string that looks numeric (its number in ``num``), or the uninitialized value."""

    num: float


def strnum(text: str) -> str:
    """An input value: a :class:`StrNum` where ``text`` looks numeric, else the plain string."""
    if _LOOKS_NUMERIC.fullmatch(text):
        value = StrNum(text)
        value.num = float(text)
        return value
    return text


UNINIT = StrNum("")
UNINIT.num = 0.0


def to_num(v: Any) -> float:
    if isinstance(v, float):
        return v
    if isinstance(v, StrNum):
        return v.num
    if isinstance(v, str):
        m = _LEADING_NUMBER.match(v)
        if m:
            return float(m.group(1))
        low = v.lstrip(" \t\n")[:4].lower()
        if low.startswith(("+inf", "-inf")):
            return math.inf if low[0] == "+" else -math.inf
        if low.startswith(("+nan", "-nan")):
            return math.nan
        return 0.0
    raise TypeError("attempt to use array in a scalar context")


def num_str(x: float, fmt: str) -> str:
    """A number as awk shows it: an integral value as an integer, else by ``fmt`` (CONVFMT/OFMT)."""
    if x == x and x not in (math.inf, -math.inf) and x == int(x) and abs(x) < 1e16:
        return str(int(x))
    if x != x:
        return "-nan" if math.copysign(1, x) < 0 else "nan"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    try:
        return format_printf(fmt, [x])
    except (ValueError, TypeError):
        return f"{x:.6g}"


def to_str(v: Any, fmt: str = "%.6g") -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        return num_str(v, fmt)
    raise TypeError("attempt to use array in a scalar context")


def truth(v: Any) -> bool:
    if isinstance(v, float):
        return v != 0.0
    if isinstance(v, StrNum):
        return v.num != 0.0 if v is not UNINIT and v != "" else False
    if isinstance(v, str):
        return v != ""
    raise TypeError("attempt to use array in a scalar context")


def compare(a: Any, b: Any, fmt: str) -> int:
    """-1, 0 or 1: numerically where both are numbers or numeric strings, else as strings."""
    if isinstance(a, (float, StrNum)) and isinstance(b, (float, StrNum)):
        x, y = to_num(a), to_num(b)
    else:
        x, y = to_str(a, fmt), to_str(b, fmt)  # type: ignore[assignment]
    return (x > y) - (x < y)  # type: ignore[operator]


_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([a-zA-Z%])")


def format_printf(fmt: str, args: list[Any], convfmt: str = "%.6g") -> str:
    """awk's printf/sprintf: C conversions over awk values (missing arguments are empty/zero)."""
    out: list[str] = []
    pos = 0
    k = 0

    def arg() -> Any:
        nonlocal k
        value = args[k] if k < len(args) else UNINIT
        k += 1
        return value

    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, prec, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            w = int(to_num(arg()))
            if w < 0:
                flags, w = flags + "-", -w
            width = str(w)
        if prec == "*":
            prec = str(max(0, int(to_num(arg()))))
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        value = arg()
        if conv in "di":
            x = to_num(value)
            if x != x or x in (math.inf, -math.inf):
                out.append((spec + "s") % num_str(x, convfmt))
            else:
                out.append((spec + "d") % int(x))
        elif conv in "oxXu":
            x = int(to_num(value))
            if x < 0 and conv != "u":
                x &= (1 << 64) - 1
            out.append((spec + ("d" if conv == "u" else conv)) % x)
        elif conv in "eEfFgGaA":
            out.append((spec + ("e" if conv in "aA" else conv)) % to_num(value))
        elif conv == "c":
            if isinstance(value, float):
                text = chr(int(value)) if 0 <= int(value) < 0x110000 else ""
            else:
                text = to_str(value, convfmt)[:1]
            out.append((spec.replace("0", "") + "s") % text)
        elif conv == "s":
            out.append((spec + "s") % to_str(value, convfmt))
        else:  # an unknown conversion is copied as it is
            out.append(m.group(0))
    out.append(fmt[pos:])
    return "".join(out)
