"""python and python3: the sandboxed WASI CPython (this package) where it is installed, else only
their known answers (version, missing script)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ....vfs import DirNode, FsError
from ...constants import PYTHON_VERSION
from ...quoting import quote_always
from ...registry import applet
from . import hint, run_python

if TYPE_CHECKING:
    from ...proc import _Proc


@applet("python", "python3", "python3.12")
def _u_python(p: _Proc) -> int:
    status = run_python(p)
    if status is not None:
        return status
    args = p.args
    if args and args[0] in ("--version", "-V"):
        p.out(f"Python {PYTHON_VERSION}\n")
        return 0
    if args and not args[0].startswith("-"):
        path = p.path(args[0])
        try:
            node = p.fs.stat(path)
        except FsError:
            p.ctx.err.write(
                f"{p.name}: can't open file {quote_always(path)}: [Errno 2] No such file or directory\n"
            )
            return 2
        if isinstance(node, DirNode) and not p.fs.exists(posixpath.join(path, "__main__.py")):
            p.ctx.err.write(f"{p.name}: can't find '__main__' module in {quote_always(args[0])}\n")
            return 1
    status = p.not_simulated()
    hint(p)
    return status
