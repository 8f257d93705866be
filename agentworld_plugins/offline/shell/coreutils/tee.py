"""tee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..applet_io import _write_or_err
from ..getopt import _getopt
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("tee")
def _u_tee(p: _Proc) -> int:
    opts, files = _getopt(p.args, "ai", {"append": "a", "ignore-interrupts": "i"})
    text = p.stdin()
    status = 0
    for name in files:
        if p.path(name) != "/dev/null" and not _write_or_err(p, name, text, append="a" in opts):
            status = 1
    p.out(text)
    return status
