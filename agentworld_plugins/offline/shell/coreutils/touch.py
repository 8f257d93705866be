"""touch."""

from __future__ import annotations

import calendar
import re
import time
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..dates import parse_date
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("touch")
def _u_touch(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "acmhd:t:r:",
        {"no-create": "c", "date=": "d", "reference=": "r", "no-dereference": "h", "time=": None},
    )
    if not names:
        raise _UsageError("missing file operand")
    when = _when(p, opts)
    if when is False:
        return 1
    status = 0
    follow = "h" not in opts
    for name in names:
        path = p.path(name)
        exists = p.fs.exists(path) if follow else p.fs.lexists(path)
        if ("c" in opts or not follow) and not exists:
            if not follow and "c" not in opts:
                p.err(f"setting times of {quote_always(name)}: No such file or directory")
                status = 1
            continue
        try:
            if follow or not p.fs.is_link(path):
                p.fs.touch(path)
            node = p.fs.stat(path, follow)
            if when is not None or not follow:
                node.mtime = p.fs.now() if when is None else when
        except FsError as exc:
            p.err(f"cannot touch {quote_always(name)}: {exc.strerror}")
            status = 1
    return status


def _when(p: _Proc, opts: dict[str, list[str]]) -> int | bool | None:
    """The time ``-d``, ``-t`` or ``-r`` names (None: now; False: refused, reported)."""
    if "r" in opts:
        ref = _last(opts, "r") or ""
        try:
            return p.fs.stat(p.path(ref)).mtime
        except FsError as exc:
            p.err(f"failed to get attributes of {quote_always(ref)}: {exc.strerror}")
            return False
    if "t" in opts:
        stamp = _last(opts, "t") or ""
        found = _stamp(stamp, time.gmtime(p.fs.now()).tm_year)
        if found is None:
            p.err(f"invalid date format {locale_quote(stamp)}")
            return False
        return found
    if "d" in opts:
        text = _last(opts, "d") or ""
        found = parse_date(text, p.fs.now())
        if found is None:
            p.err(f"invalid date format {locale_quote(text)}")
            return False
        return found
    return None


def _stamp(text: str, year: int) -> int | None:
    """``-t [[CC]YY]MMDDhhmm[.ss]`` in UTC."""
    m = re.fullmatch(r"((?:\d\d){0,2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?", text)
    if m is None:
        return None
    head, mo, d, hh, mm, ss = m.groups()
    if head:
        year = int(head) if len(head) == 4 else (1900 if int(head) >= 69 else 2000) + int(head)
    try:
        time.strptime(f"{year}-{mo}-{d} {hh}:{mm}:{ss or '00'}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return calendar.timegm((year, int(mo), int(d), int(hh), int(mm), int(ss or 0), 0, 0, 0))
