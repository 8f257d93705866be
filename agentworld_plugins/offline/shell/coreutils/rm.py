"""rm."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError, Node
from ..errors import _UsageError
from ..getopt import _getopt
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("rm")
def _u_rm(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "rRfivdI",
        {
            "recursive": "r",
            "force": "f",
            "verbose": "v",
            "dir": "d",
            "no-preserve-root": "nopreserve",
            "preserve-root": None,
            "interactive=": None,
        },
    )
    recursive = "r" in opts or "R" in opts
    force = "f" in opts
    if not names:
        if force:
            return 0
        raise _UsageError("missing operand")
    status = 0
    fs = p.fs
    for name in names:
        path = p.path(name)
        if posixpath.basename(name.rstrip("/")) in (".", ".."):
            p.err(f"refusing to remove '.' or '..' directory: skipping {quote_always(name)}")
            status = 1
            continue
        if path == "/" and recursive:
            if "nopreserve" in opts:
                fs.clear()
                continue
            p.err("it is dangerous to operate recursively on '/'")
            p.err("use --no-preserve-root to override this failsafe")
            status = 1
            continue
        try:
            node = fs.lstat(path)
        except FsError as exc:
            if not force:
                p.err(f"cannot remove {quote_always(name)}: {exc.strerror}")
                status = 1
            continue
        try:
            if isinstance(node, DirNode):
                if recursive:
                    fs.rmtree(path)
                elif "d" in opts:
                    fs.rmdir(path)
                else:
                    p.err(f"cannot remove {quote_always(name)}: Is a directory")
                    status = 1
                    continue
            else:
                fs.remove(path)
        except FsError as exc:
            p.err(f"cannot remove {quote_always(name)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out("".join(_removed_lines(name, node)))
    return status


def _removed_lines(name: str, node: Node) -> list[str]:
    """What ``rm -v`` prints for a removed entry (contents first for a directory)."""
    if not isinstance(node, DirNode):
        return [f"removed {quote_always(name)}\n"]
    lines: list[str] = []
    for child in sorted(node.children):
        lines.extend(_removed_lines(f"{name.rstrip('/')}/{child}", node.children[child]))
    lines.append(f"removed directory {quote_always(name)}\n")
    return lines
