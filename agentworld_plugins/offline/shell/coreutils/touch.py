"""touch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _UsageError
from ..getopt import _getopt
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("touch")
def _u_touch(p: _Proc) -> int:
    opts, names = _getopt(p.args, "acmd:t:r:", {"no-create": "c", "date=": "d", "reference=": "r"})
    if not names:
        raise _UsageError("missing file operand")
    status = 0
    for name in names:
        path = p.path(name)
        if "c" in opts and not p.fs.exists(path):
            continue
        try:
            p.fs.touch(path)
        except FsError as exc:
            p.err(f"cannot touch {quote_always(name)}: {exc.strerror}")
            status = 1
    return status
