"""mkdir and rmdir."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("mkdir")
def _u_mkdir(p: _Proc) -> int:
    opts, dirs = _getopt(p.args, "pvm:", {"parents": "p", "verbose": "v", "mode=": "m"})
    if not dirs:
        raise _UsageError("missing operand")
    mode = 0o755
    if "m" in opts:
        try:
            mode = int(_last(opts, "m") or "755", 8)
        except ValueError:
            p.err(f"invalid mode {quote_always(_last(opts, 'm') or '')}")
            return 1
    status = 0
    for d in dirs:
        path = p.path(d)
        try:
            if "p" in opts:
                missing = []
                probe = d.rstrip("/") or "/"
                while probe not in ("", ".", "/") and not p.fs.exists(p.path(probe)):
                    missing.append(probe)
                    probe = posixpath.dirname(probe)
                p.fs.mkdir(path, parents=True, mode=mode)
                if "v" in opts:
                    for created in reversed(missing):
                        p.out(f"{p.name}: created directory {quote_always(created)}\n")
            else:
                p.fs.mkdir(path, mode=mode)
                if "v" in opts:
                    p.out(f"{p.name}: created directory {quote_always(d)}\n")
        except FsError as exc:
            shown = d
            if exc.path and exc.path != path and path.startswith(exc.path):
                shown = d.rstrip("/")[: len(d.rstrip("/")) - (len(path) - len(exc.path))]
            p.err(f"cannot create directory {locale_quote(shown)}: {exc.strerror}")
            status = 1
    return status


@applet("rmdir")
def _u_rmdir(p: _Proc) -> int:
    opts, names = _getopt(
        p.args, "pv", {"parents": "p", "verbose": "v", "ignore-fail-on-non-empty": "ignore"}
    )
    if not names:
        raise _UsageError("missing operand")
    status = 0
    for name in names:
        targets = [name]
        if "p" in opts:
            cur = name.rstrip("/")
            while "/" in cur:
                cur = posixpath.dirname(cur)
                if cur:
                    targets.append(cur)
        for t in targets:
            try:
                p.fs.rmdir(p.path(t))
                if "v" in opts:
                    p.out(f"{p.name}: removing directory, {quote_always(t)}\n")
            except FsError as exc:
                if exc.code == "ENOTEMPTY" and "ignore" in opts:
                    break
                p.err(f"failed to remove {quote_always(t)}: {exc.strerror}")
                status = 1
                break
    return status
