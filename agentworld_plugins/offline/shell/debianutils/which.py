"""which."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("which")
def _u_which(p: _Proc) -> int:
    show_all = "-a" in p.args
    names = [a for a in p.args if not a.startswith("-")]
    if not names:
        return 1
    status = 0
    for name in names:
        if "/" in name:
            path = p.path(name)
            if p.fs.is_file(path) and p.fs.stat(path).mode & 0o111:
                p.out(name + "\n")
            else:
                status = 1
            continue
        found = []
        for d in p.vm.vars.get("PATH", "").split(":"):
            path = posixpath.join(d or ".", name)
            full = p.path(path)
            if p.fs.is_file(full) and p.fs.stat(full).mode & 0o111:
                found.append(path)
                if not show_all:
                    break
        if not found:
            status = 1
        for path in found:
            p.out(path + "\n")
    return status
