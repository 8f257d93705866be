"""awk's values: numbers, strings and numeric strings, their conversions, comparisons and printf."""

from __future__ import annotations

import math
import re
from typing import Any

from ...strtod import strtod


class AwkFatal(Exception):
    """A run-time error: mawk's ``awk: run time error: message`` and where it happened (or, not
    ``runtime``, the plain ``awk: message``), status 2."""

    def __init__(self, message: str, runtime: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.runtime = runtime


class StrNum(str):
    """An input string that looks numeric (its number in ``num``), or the uninitialized value."""

    num: float


def strnum(text: str) -> str:
    """An input value: a :class:`StrNum` where ``text`` looks numeric as mawk tests it (blanks
    around; a digit, sign or dot first; a digit or dot last; all of it read by strtod), else the
    plain string."""
    core = text.strip(" \t\n")
    if core and core[0] in "0123456789+-." and core[-1] in "0123456789.":
        num, end = strtod(core)
        if end == len(core):
            value = StrNum(text)
            value.num = num
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
        return strtod(v)[0]
    raise TypeError("attempt to use array in a scalar context")


#: mawk's longs are 64 bits
_LONG = 1 << 63


def num_str(x: float, fmt: str) -> str:
    """A number as mawk shows it: a whole number a long holds as that integer (2^63 as the largest
    long, as mawk clamps it), anything else by ``fmt`` (CONVFMT or OFMT)."""
    if x == x and -_LONG <= x <= _LONG and x == int(x):
        return str(min(int(x), _LONG - 1))
    if x != x:
        return "-nan" if math.copysign(1, x) < 0 else "nan"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    try:
        return format_printf(fmt, [x])
    except (ValueError, TypeError, AwkFatal):
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


_SPEC = re.compile(r"%([-+ #0']*)(\*|\d*)(?:\.(\*|\d*))?([hl]*)(.?)", re.DOTALL)


class PrintfError(AwkFatal):
    """printf stopped: mawk's message, and the text it wrote before (which printf has sent out)."""

    def __init__(self, message: str, written: str) -> None:
        super().__init__(message)
        self.written = written


def to_long(x: float) -> int:
    """mawk's d_to_L: clamped to a long (NaN, as x86 converts it, the smallest)."""
    if x != x:
        return -_LONG
    if x >= float(_LONG - 1):
        return _LONG - 1
    return int(x) if -x <= float(_LONG - 1) else -(_LONG - 1)


def to_ulong(x: float) -> int:
    """mawk's d_to_UL: clamped to an unsigned long, a negative number in two's complement."""
    top = (1 << 64) - 1
    if x != x or x >= float(top):
        return top
    if x < 0:
        return (int(x) & top) if -x < float(top) else 1
    return int(x)


def _alt_octal(n: int, flags: str, width: int, prec: str | None) -> str:
    """C's ``%#o``: octal digits with a leading 0 (Python's ``#`` writes ``0o``)."""
    digits = format(n, "o")
    if prec is not None:
        digits = "" if not int(prec or 0) and not n else digits.zfill(int(prec or 0))
    if not digits.startswith("0"):
        digits = "0" + digits
    if "-" in flags:
        return digits.ljust(width)
    return digits.zfill(width) if "0" in flags and prec is None else digits.rjust(width)


def format_printf(fmt: str, args: list[Any], convfmt: str = "%.6g", who: str = "sprintf") -> str:
    """mawk's printf/sprintf: C conversions over awk values; too few arguments or a conversion it
    does not know end the program (:class:`PrintfError`)."""
    out: list[str] = []
    pos = 0
    k = 0
    number = 0  # conversions so far, %% among them

    def arg() -> Any:
        nonlocal k
        if k >= len(args):
            raise PrintfError(f'not enough arguments passed to {who}("{fmt}")', "".join(out))
        k += 1
        return args[k - 1]

    def bad() -> PrintfError:
        return PrintfError(f'improper conversion(number {number}) in {who}("{fmt}")', "".join(out))

    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        number += 1
        flags, width, prec, size, conv = m.groups()
        if m.group(0) == "%%":
            out.append("%")
            continue
        if width == "*":
            w = int(to_num(arg()))
            if w < 0:
                flags, w = flags + "-", -w
            width = str(w)
        if prec == "*":
            prec = str(max(0, int(to_num(arg()))))
        spec = "%" + flags.replace("'", "") + (width or "") + ("." + prec if prec is not None else "")
        value = arg()
        if not conv:
            raise bad()
        if conv in "di":
            x = to_num(value)
            n = to_ulong(x) if conv == "d" and x >= float(_LONG - 1) else to_long(x)
            if size in ("h", "hh"):  # C's short or char, kept to its bits
                bits = 16 if size == "h" else 8
                n = (n + (1 << bits - 1)) % (1 << bits) - (1 << bits - 1)
            out.append((spec + "d") % n)
        elif conv in "oxXu":
            n = to_ulong(to_num(value))
            if conv == "o" and "#" in flags:
                out.append(_alt_octal(n, flags, int(width or 0), prec))
            else:
                out.append((spec + ("d" if conv == "u" else conv)) % n)
        elif conv in "eEfgG" and not size:
            out.append((spec + conv) % to_num(value))
        elif conv == "c" and not size:
            if isinstance(value, str) and not isinstance(value, StrNum):
                char = value[:1] or "\0"  # a string's first byte (its NUL when empty)
            else:  # a number's byte
                char = chr(to_long(to_num(value)) & 0xFF)
            out.append((spec.replace("0", "") + "s") % char)
        elif conv == "s" and not size:
            out.append((spec + "s") % to_str(value, convfmt))
        else:
            raise bad()
    out.append(fmt[pos:])
    return "".join(out)
