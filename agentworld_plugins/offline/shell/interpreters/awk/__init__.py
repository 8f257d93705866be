"""awk with POSIX semantics (``awk``, ``gawk --posix`` behaviour where awks differ little):
patterns and ranges, BEGIN/END, fields, ``-F``, ``-v``, ``-f``, printf, arrays, user functions,
the built-in functions, getline, output redirection and pipes, ``system()``. Regular expressions
run on the offline world's linear-time engine; every statement, record and string is counted
against the step's work and memory budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....vfs import FsError
from ...registry import applet
from .interp import Awk
from .parse import AwkSyntaxError, parse, unescape
from .values import AwkFatal

if TYPE_CHECKING:
    from ...proc import _Proc

_USAGE = "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n" \
         "Usage: awk [POSIX or GNU style options] [--] 'program' file ...\n"  # fmt: skip


@applet("awk", "gawk", "mawk", "nawk")
def _u_awk(p: _Proc) -> int:
    args = list(p.args)
    fs: str | None = None
    assigns: list[tuple[str, str]] = []
    sources: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        if a in ("--posix", "--traditional", "-P"):
            i += 1
            continue
        if a == "--version" or (a == "-W" and i + 1 < len(args) and args[i + 1] == "version"):
            p.out("GNU Awk 5.2.1, API 3.2\n")
            return 0
        opt, value = a[:2], a[2:]
        if opt in ("-F", "-v", "-f"):
            if not value:
                if i + 1 >= len(args):
                    p.ctx.err.write(f"{p.name}: option requires an argument -- {opt[1]}\n{_USAGE}")
                    return 2
                i += 1
                value = args[i]
            if opt == "-F":
                fs = "\t" if value == "t" else unescape(value)
            elif opt == "-v":
                name, eq, val = value.partition("=")
                if not eq or not name.isidentifier():
                    p.ctx.err.write(f"{p.name}: fatal: `{value}' is not a legal variable name\n")
                    return 2
                assigns.append((name, unescape(val)))
            else:
                try:
                    sources.append(p.read(value))
                except FsError as exc:
                    p.ctx.err.write(f"{p.name}: fatal: can't open source file `{value}' for reading: "
                                    f"{exc.strerror}\n")  # fmt: skip
                    return 2
            i += 1
            continue
        p.ctx.err.write(f"{p.name}: not an option: {a}\n")
        return 2
    operands = args[i:]
    if not sources:
        if not operands:
            p.ctx.err.write(_USAGE)
            return 2
        sources.append(operands.pop(0))
    src = "\n".join(sources)
    try:
        prog = parse(src)
    except AwkSyntaxError as exc:
        lines = src.split("\n")
        shown = lines[exc.line - 1] if 0 < exc.line <= len(lines) else ""
        p.ctx.err.write(
            f"{p.name}: cmd. line:{exc.line}: {shown}\n{p.name}: cmd. line:{exc.line}: {exc.message}\n"
        )
        return 2
    except RecursionError:
        p.ctx.err.write(f"{p.name}: cmd. line:1: fatal: program nested too deeply\n")
        return 2
    awk = Awk(p, prog, ["awk", *operands], assigns)
    if fs is not None:
        awk.globals["FS"] = fs
    try:
        return awk.run()
    except AwkFatal as exc:
        p.ctx.err.write(f"{p.name}: cmd. line:1: fatal: {exc.message}\n")
        return 2
    except TypeError as exc:
        p.ctx.err.write(f"{p.name}: cmd. line:1: fatal: {exc}\n")
        return 2
    except RecursionError:
        p.ctx.err.write(f"{p.name}: cmd. line:1: fatal: expression nested too deeply\n")
        return 2
