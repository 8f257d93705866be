"""diff and cmp."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import lines_with_ends
from ..errors import _UsageError
from ..getopt import _getopt
from ..gnu_diff import opcodes
from ..quoting import quote_always
from ..registry import applet
from ..unified import unified

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("cmp")
def _u_cmp(p: _Proc) -> int:
    _, files = _getopt(p.args, "sl")
    if len(files) < 2:
        raise _UsageError(f"missing operand after {quote_always(files[0])}" if files else "missing operand")
    try:
        a, b = p.read(files[0]), p.read(files[1])
    except FsError as exc:
        p.err(f"{exc.path}: {exc.strerror}")
        return 2
    if a == b:
        return 0
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            line = a[:k].count("\n") + 1
            if "-s" not in p.args:
                p.out(f"{files[0]} {files[1]} differ: byte {k + 1}, line {line}\n")
            return 1
    if "-s" not in p.args:
        shorter = files[0] if len(a) < len(b) else files[1]
        p.ctx.err.write(f"cmp: EOF on {shorter} after byte {min(len(a), len(b))}\n")
    return 1


@applet("diff")
def _u_diff(p: _Proc) -> int:
    opts, files = _getopt(p.args, "uqrNwBi", {"unified": "u", "brief": "q", "recursive": "r"})
    if len(files) != 2:
        p.err(f"missing operand after {quote_always(files[-1])}" if files else "missing operand")
        p.err(f"Try '{p.name} --help' for more information.")
        return 2
    texts = []
    for name in files:
        try:
            if p.fs.is_dir(p.path(name)):
                p.unknown()
                return 0
            texts.append(p.read(name))
        except FsError as exc:
            p.err(f"{name}: {exc.strerror}")
            return 2
    if texts[0] == texts[1]:
        return 0
    if "q" in opts:
        p.out(f"Files {files[0]} and {files[1]} differ\n")
        return 1
    a, b = lines_with_ends(texts[0]), lines_with_ends(texts[1])
    codes = opcodes(a, b, 3 if "u" in opts else 0)
    if "u" in opts:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", time.gmtime(p.fs.now()))
        p.out(unified(texts[0], texts[1], files[0], files[1], stamp, stamp, codes))
        return 1
    out: list[str] = []

    def rng(lo: int, hi: int) -> str:
        return f"{lo + 1}" if hi - lo == 1 else f"{lo + 1},{hi}"

    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            continue
        if tag == "replace":
            out.append(f"{rng(i1, i2)}c{rng(j1, j2)}\n")
        elif tag == "delete":
            out.append(f"{rng(i1, i2)}d{j1}\n")
        else:
            out.append(f"{i1}a{rng(j1, j2)}\n")
        out.extend(
            "< " + line if line.endswith("\n") else "< " + line + "\n\\ No newline at end of file\n"
            for line in a[i1:i2]
        )
        if tag == "replace":
            out.append("---\n")
        out.extend(
            "> " + line if line.endswith("\n") else "> " + line + "\n\\ No newline at end of file\n"
            for line in b[j1:j2]
        )
    p.out("".join(out))
    return 1
