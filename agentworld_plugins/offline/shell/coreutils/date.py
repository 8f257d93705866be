"""date and sleep."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from ..datetext import parse_date
from ..durations import duration
from ..errors import _UsageError
from ..limits import current
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("date")
def _u_date(p: _Proc) -> int:
    args = list(p.args)
    now = p.fs.now()
    fmt = None
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("+"):
            fmt = a[1:]
        elif a in ("-u", "--utc", "--universal"):
            pass
        elif (a in ("-d", "--date") and i + 1 < len(args)) or a.startswith("--date="):
            if a.startswith("--date="):
                value = a.split("=", 1)[1]
            else:
                value = args[i + 1]
                i += 1
            when = parse_date(value, now)
            if when is None:
                p.err(f"invalid date {locale_quote(value)}")
                return 1
            now = when
        elif a in ("-I", "--iso-8601"):
            fmt = "%Y-%m-%d"
        elif a in ("-R", "--rfc-email"):
            fmt = "%a, %d %b %Y %H:%M:%S +0000"
        elif a.startswith("-"):
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
        else:
            p.err(f"invalid date {quote_always(a)}")
            return 1
        i += 1
    p.out(format_date(now, fmt) + "\n")
    return 0


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
            if d in "-_0^" and i + 2 < len(fmt):
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
            out.append(piece)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


@applet("sleep")
def _u_sleep(p: _Proc) -> int:
    if not p.args:
        raise _UsageError("missing operand")
    total = 0.0
    for a in p.args:
        seconds = duration(a)
        if seconds is None:
            p.err(f"invalid time interval {locale_quote(a)}")
            p.try_help()
            return 1
        total += seconds
    current().sleep(total)  # virtual time: a `timeout` around it ends it at its deadline, at once
    return 0
