"""date and sleep."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dates import format_date, parse_date
from ..durations import duration
from ..errors import _UsageError
from ..getopt import argmatch
from ..limits import current
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


#: -I's precisions (--rfc-3339 writes the same with a blank for the T); the clock is UTC
_ISO = {"date": "%Y-%m-%d", "hours": "%Y-%m-%dT%H+00:00", "minutes": "%Y-%m-%dT%H:%M+00:00",
        "seconds": "%Y-%m-%dT%H:%M:%S+00:00", "ns": "%Y-%m-%dT%H:%M:%S,%N+00:00"}  # fmt: skip


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
        elif a.startswith(("-I", "--iso-8601", "--rfc-3339")):
            rfc = a.startswith("--rfc-3339")
            word = a.split("=", 1)[1] if "=" in a else a[2:] if a.startswith("-I") else ""
            if rfc and not word:
                raise _UsageError("option '--rfc-3339' requires an argument")
            word = word or "date"
            choices = ["date", "seconds", "ns"] if rfc else ["hours", "minutes", "date", "seconds", "ns"]
            chosen = argmatch(word, choices, "--rfc-3339" if rfc else "--iso-8601", status=1)
            fmt = _ISO[chosen].replace("T", " ").replace(",", ".") if rfc else _ISO[chosen]
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
