"""touch."""

from __future__ import annotations

import calendar
import re
import time
from typing import TYPE_CHECKING, Any

from ...vfs import FsError
from ..datetext import parse_date
from ..errors import _UsageError
from ..getopt import _getopt
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("touch")
def _u_touch(p: _Proc) -> int:
    opts, names = _getopt(p.args, "acmd:t:r:", {"no-create": "c", "date=": "d", "reference=": "r"})
    if not names:
        raise _UsageError("missing file operand")
    when = _when(p, opts)
    if when is False:
        return 1
    status = 0
    for name in names:
        path = p.path(name)
        if "c" in opts and not p.fs.exists(path):
            continue
        try:
            p.fs.touch(path)
            if when is not None:
                p.fs.set_mtime(path, when)
        except FsError as exc:
            p.err(f"cannot touch {quote_always(name)}: {exc.strerror}")
            status = 1
    return status


def _when(p: _Proc, opts: dict[str, Any]) -> int | bool | None:
    """The time ``-d DATE``, ``-t STAMP`` or ``-r FILE`` names (None: now; False: reported)."""
    if "r" in opts:
        try:
            return p.fs.stat(p.path(opts["r"][-1])).mtime
        except FsError as exc:
            p.err(f"failed to get attributes of {quote_always(opts['r'][-1])}: {exc.strerror}")
            return False
    if "d" in opts:
        value = opts["d"][-1]
        when = parse_date(value, p.fs.now())
    elif "t" in opts:
        value = opts["t"][-1]
        when = _stamp(value, p.fs.now())
    else:
        return None
    if when is None:
        p.err(f"invalid date format {locale_quote(value)}")
        return False
    return when


def _stamp(value: str, now: int) -> int | None:
    """``[[CC]YY]MMDDhhmm[.ss]`` as the epoch time (UTC)."""
    m = re.fullmatch(r"(\d{2,4})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?", value)
    if m is None or (m.group(1) and len(m.group(1)) == 3):
        return None
    year_text, mo, d, hh, mm, ss = m.groups()
    if year_text is None:
        year = time.gmtime(now).tm_year
    elif len(year_text) == 2:
        year = int(year_text) + (1900 if int(year_text) >= 69 else 2000)
    else:
        year = int(year_text)
    try:
        time.strptime(f"{year}-{mo}-{d} {hh}:{mm}:{ss or '00'}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return calendar.timegm((year, int(mo), int(d), int(hh), int(mm), int(ss or 0), 0, 0, 0))
