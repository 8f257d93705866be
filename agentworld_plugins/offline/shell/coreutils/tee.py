"""tee."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _write_or_err
from ..getopt import _getopt
from ..limits import current
from ..pipes import streaming
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("tee")
@streaming()
def _u_tee(p: _Proc) -> Generator[str, None, int]:
    """tee, streaming: the files get what it read before its reader stopped (``yes | tee f | head``)."""
    opts, files = _getopt(p.args, "ai", {"append": "a", "ignore-interrupts": "i"})
    status = 0
    paths: list[str] = []
    for name in files:  # created (or emptied) first, as tee opens them before reading
        path = p.path(name)
        if path == "/dev/null":
            continue
        if _write_or_err(p, name, "", append="a" in opts):
            paths.append(path)
        else:
            status = 1
    for chunk in p.ctx.stdin.chunks():
        for path in paths:
            current().charge(len(chunk))
            try:
                p.fs.append(path, chunk)
            except FsError:
                pass
        yield chunk
    return status
