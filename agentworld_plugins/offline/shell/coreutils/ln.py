"""ln."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _join
from ..errors import _UsageError
from ..getopt import _getopt
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("ln")
def _u_ln(p: _Proc) -> int:
    opts, names = _getopt(p.args, "sfnvrT", {"symbolic": "s", "force": "f", "verbose": "v", "relative": "r"})
    if not names:
        raise _UsageError("missing file operand")
    if len(names) == 1:
        names.append(posixpath.basename(names[0].rstrip("/")))
    *targets, dest = names
    dest_path = p.path(dest)
    status = 0
    for target in targets:
        link_path = (
            posixpath.join(dest_path, posixpath.basename(target.rstrip("/")))
            if p.fs.is_dir(dest_path) and len(names) > 1 and not ("n" in opts and p.fs.is_link(dest_path))
            else dest_path
        )
        shown = _join(dest, posixpath.basename(target.rstrip("/"))) if link_path != dest_path else dest
        if p.fs.lexists(link_path):
            if "f" in opts:
                p.fs.remove(link_path) if not p.fs.is_dir(link_path) or p.fs.is_link(link_path) else None
            else:
                kind = "symbolic link" if "s" in opts else "hard link"
                p.err(f"failed to create {kind} {quote_always(shown)}: File exists")
                status = 1
                continue
        try:
            if "s" in opts:
                p.fs.symlink(target, link_path)
            else:
                src = p.path(target)
                if p.fs.is_dir(src):
                    p.err(f"{quote_always(target)}: hard link not allowed for directory")
                    status = 1
                    continue
                p.fs.copy(src, link_path)
        except FsError as exc:
            kind = "symbolic link" if "s" in opts else "hard link"
            if exc.code == "ENOENT" and "s" not in opts:
                p.err(f"failed to access {quote_always(target)}: No such file or directory")
            else:
                p.err(f"failed to create {kind} {quote_always(shown)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out(f"{quote_always(shown)} -> {quote_always(target)}\n")
    return status
