"""expr and yes."""

from __future__ import annotations

import operator
import re
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..arith import _c_div
from ..errors import _HelpRequested, _UsageError
from ..pipes import streaming
from ..proc import CHUNK
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("expr")
def _u_expr(p: _Proc) -> int:
    args = p.args
    try:
        if len(args) == 3 and args[1] in ("+", "-", "*", "/", "%"):
            a, b = int(args[0]), int(args[2])
            if args[1] in "/%" and b == 0:
                p.err("division by zero")
                return 2
            value = {
                "+": a + b,
                "-": a - b,
                "*": a * b,
                "/": _c_div(a, b) if b else 0,
                "%": a - _c_div(a, b) * b if b else 0,
            }[args[1]]
        elif len(args) == 3 and args[1] in ("=", "!=", "<", ">", "<=", ">="):
            a2: Any = args[0]
            b2: Any = args[2]
            if re.fullmatch(r"-?\d+", a2) and re.fullmatch(r"-?\d+", b2):
                a2, b2 = int(a2), int(b2)
            ops = {
                "=": operator.eq,
                "!=": operator.ne,
                "<": operator.lt,
                ">": operator.gt,
                "<=": operator.le,
                ">=": operator.ge,
            }
            value = int(ops[args[1]](a2, b2))
        elif len(args) == 2 and args[0] == "length":
            value = len(args[1])
        elif len(args) == 4 and args[0] == "substr":
            start, length = int(args[2]), int(args[3])
            text = args[1][start - 1 : start - 1 + length] if start > 0 and length > 0 else ""
            p.out(text + "\n")
            return 0 if text not in ("", "0") else 1
        elif len(args) == 3 and args[0] == "index":
            value = next((k + 1 for k, c in enumerate(args[1]) if c in args[2]), 0)
        elif len(args) == 1:
            p.out(args[0] + "\n")
            return 0 if args[0] not in ("", "0") else 1
        else:
            p.unknown()
            return 0
    except ValueError:
        p.err("non-integer argument")
        return 2
    p.out(f"{value}\n")
    return 0 if value else 1


@applet("yes")
@streaming()
def _u_yes(p: _Proc) -> Generator[str, None, int]:
    """Its line, forever: a pipe's reader that stops ends it (``yes | head -n 2``); otherwise
    the step's budget does, as a real ``yes`` runs until something kills it."""
    args = list(p.args)
    if args[:1] == ["--help"] or args[:1] == ["--version"]:
        raise _HelpRequested(version=args[0] == "--version")
    if args[:1] == ["--"]:
        args.pop(0)
    else:
        bad = next((a for a in args if a.startswith("-") and a != "-"), None)
        if bad is not None:
            raise _UsageError(
                f"unrecognized option '{bad}'" if bad.startswith("--") else f"invalid option -- '{bad[1]}'"
            )
    line = (" ".join(args) or "y") + "\n"
    chunk = line * max(1, CHUNK // len(line))
    while True:
        yield chunk
