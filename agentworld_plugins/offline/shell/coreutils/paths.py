"""Path names: basename, dirname, realpath, readlink."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("basename")
def _u_basename(p: _Proc) -> int:
    opts, names = _getopt(p.args, "as:z", {"multiple": "a", "suffix=": "s", "zero": "z"})
    if not names:
        raise _UsageError("missing operand")
    suffix = _last(opts, "s")
    if "a" not in opts and suffix is None:
        if len(names) > 2:
            raise _UsageError(f"extra operand {quote_always(names[2])}")
        if len(names) == 2:
            suffix = names.pop()
    for name in names:
        base = name.rstrip("/")
        base = posixpath.basename(base) if base else "/"
        if suffix and base.endswith(suffix) and base != suffix:
            base = base[: -len(suffix)]
        p.out(base + "\n")
    return 0


@applet("dirname")
def _u_dirname(p: _Proc) -> int:
    _, names = _getopt(p.args, "z", {"zero": "z"})
    if not names:
        raise _UsageError("missing operand")
    for name in names:
        stripped = name.rstrip("/") or "/"
        if "/" not in stripped:
            p.out(".\n")
            continue
        d = stripped[: stripped.rfind("/")].rstrip("/") or "/"
        p.out(d + "\n")
    return 0


@applet("realpath")
def _u_realpath(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "emsqzL",
        {
            "canonicalize-existing": "e",
            "canonicalize-missing": "m",
            "no-symlinks": "s",
            "quiet": "q",
            "relative-to=": "rel",
        },
    )
    if not names:
        raise _UsageError("missing operand")
    status = 0
    for name in names:
        path = p.path(name)
        if "m" not in opts and not p.fs.exists(posixpath.dirname(path) if "e" not in opts else path):
            p.err(f"{name}: No such file or directory")
            status = 1
            continue
        p.out((path if "s" in opts else p.fs.realpath(path)) + "\n")
    return status


@applet("readlink")
def _u_readlink(p: _Proc) -> int:
    opts, names = _getopt(
        p.args, "fenmqsvz", {"canonicalize": "f", "canonicalize-existing": "e", "no-newline": "n"}
    )
    status = 1 if not names else 0
    for name in names:
        path = p.path(name)
        if "f" in opts or "e" in opts or "m" in opts:
            if "e" in opts and not p.fs.exists(path):
                status = 1
                continue
            p.out(p.fs.realpath(path) + "\n")
            continue
        try:
            p.out(p.fs.readlink(path) + ("" if "n" in opts else "\n"))
        except FsError:
            status = 1
    return status
