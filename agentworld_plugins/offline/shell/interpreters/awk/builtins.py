"""awk's built-in functions: strings, regex substitution, arithmetic, I/O."""

from __future__ import annotations

import calendar
import math
import re
from typing import TYPE_CHECKING, Any

from ...dates import format_date
from .records import split_fields
from .values import UNINIT, AwkFatal, format_printf, strnum, to_num, to_str

if TYPE_CHECKING:
    from .interp import Awk
    from .parse import Node


def _arity(name: str, args: list[Node], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise AwkFatal(f"{name}: called with {len(args)} arguments")


def _substr(text: str, start: float, length: float | None) -> str:
    """mawk's substr: the start truncated to an integer; a start before 1 shortens the length by
    as much less (``substr(s, 0, 2)`` is two characters, ``substr(s, -1, 3)`` four)."""
    size = len(text)
    if not size:
        return ""
    count = size if length is None else _to_int(length)
    i = _to_int(start) - 1
    if i > size:
        count = 0
    if i < 0:
        count -= i + 1
        i = 0
    count = min(count, size - i)
    return text[i : i + count] if count > 0 else ""


def _to_int(x: float) -> int:
    """mawk's d_to_i: truncated, clamped to a C int (NaN as 0)."""
    if x != x:
        return 0
    return (
        max(-(2**31 - 1), min(2**31 - 1, int(x)))
        if math.isfinite(x)
        else (2**31 - 1 if x > 0 else -(2**31 - 1))
    )


_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _mktime(spec: str) -> float:
    """mktime("YYYY MM DD HH MM SS"): the seconds since the epoch (the world's local time is UTC),
    -1 for anything else."""
    parts = spec.split()
    if not 6 <= len(parts) <= 7 or not all(re.fullmatch(r"-?\d+", part) for part in parts):
        return -1.0
    y, mo, d, hh, mm, ss = (int(part) for part in parts[:6])
    y, mo = divmod(y * 12 + mo - 1, 12)  # out-of-range fields carry over, as mktime(3) does
    try:
        first = calendar.timegm((y, mo + 1, 1, 0, 0, 0, 0, 0, 0))
    except (OverflowError, ValueError):
        return -1.0
    return float(first + (d - 1) * 86400 + hh * 3600 + mm * 60 + ss)


def _replacement(repl: str, matched: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(repl):
        c = repl[i]
        if c == "\\" and i + 1 < len(repl) and repl[i + 1] in "&\\":
            out.append(repl[i + 1])
            i += 2
            continue
        out.append(matched if c == "&" else c)
        i += 1
    return "".join(out)


def substitute(rx: Any, repl: str, text: str, count: int) -> tuple[str, int]:
    """``text`` with the leftmost (``count`` 1) or every (0) match of ``rx`` replaced, as awk's
    sub/gsub do (an empty match just after a match is not replaced)."""
    out: list[str] = []
    pos = 0
    done = 0
    prev_end = -1
    n = len(text)
    while pos <= n:
        m = rx.search(text, pos)
        if m is None:
            break
        start, end = m.span()
        if start == end and start == prev_end:
            if start >= n:
                break
            out.append(text[pos : start + 1])
            pos = start + 1
            continue
        out.append(text[pos:start])
        out.append(_replacement(repl, m.group(0)))
        done += 1
        prev_end = end
        if start == end:
            if start < n:
                out.append(text[start])
            pos = start + 1
        else:
            pos = end
        if count and done >= count:
            break
    if pos <= n:
        out.append(text[pos:])
    return "".join(out), done


def call_builtin(awk: Awk, name: str, args: list[Node]) -> Any:
    fmt = awk.convfmt
    budget = awk.budget

    def s(k: int) -> str:
        return to_str(awk.scalar(args[k]), fmt)

    def n(k: int) -> float:
        return to_num(awk.scalar(args[k]))

    if name == "length":
        _arity(name, args, 0, 1)
        if not args:
            return float(len(awk.record))
        if args[0][0] == "var":
            value = awk.scope(args[0][1]).get(args[0][1])
            if isinstance(value, dict):
                return float(len(value))
        return float(len(s(0)))
    if name == "substr":
        _arity(name, args, 2, 3)
        text = s(0)
        budget.spend(1 + len(text) // 512)
        return _substr(text, n(1), n(2) if len(args) > 2 else None)
    if name == "index":
        _arity(name, args, 2, 2)
        return float(s(0).find(s(1)) + 1)
    if name == "split":
        _arity(name, args, 2, 3)
        text = s(0)
        if args[1][0] != "var":
            raise AwkFatal("split: second argument is not an array")
        arr = awk.array(args[1][1])
        if len(args) > 2:
            sep_node = args[2]
            sep = sep_node[1] if sep_node[0] == "regex" else s(2)
            if sep_node[0] == "regex" and len(sep) == 1 and sep != " ":
                sep = "[" + sep + "]" if sep not in "\\^" else "\\" + sep
        else:
            sep = to_str(awk.globals["FS"], fmt)
        parts = split_fields(text, sep, awk)
        budget.spend(len(parts) * 4 + len(text) // 64)
        arr.load([strnum(part) for part in parts])
        return float(len(parts))
    if name in ("sub", "gsub"):
        _arity(name, args, 2, 3)
        rx = awk.regex_of(args[0])
        repl = s(1)
        target = args[2] if len(args) > 2 else ("field", ("num", 0.0))
        if target[0] not in ("var", "index", "field"):
            text = to_str(awk.scalar(target), fmt)
            return float(substitute(rx, repl, text, 1 if name == "sub" else 0)[1])
        target = awk.place(target)
        text = to_str(awk.lvalue(target), fmt)
        budget.spend(1 + len(text) // 64)
        new, count = substitute(rx, repl, text, 1 if name == "sub" else 0)
        if count:
            awk.assign(target, new)
        return float(count)
    if name == "match":
        _arity(name, args, 2, 2)
        text = s(0)
        m = awk.regex_of(args[1]).search(text)
        start, length = (m.start() + 1, m.end() - m.start()) if m else (0, -1)
        awk.globals["RSTART"], awk.globals["RLENGTH"] = float(start), float(length)
        return float(start)
    if name == "sprintf":
        if not args:
            raise AwkFatal("sprintf: no arguments")
        values = [awk.scalar(a) for a in args]
        text = format_printf(to_str(values[0], fmt), values[1:], fmt)
        budget.hold(len(text))
        return text
    if name in ("sin", "cos", "exp", "log", "sqrt", "int"):
        _arity(name, args, 1, 1)
        x = n(0)
        if name == "int":
            return float(math.trunc(x)) if math.isfinite(x) else x
        if name == "log":
            return math.log(x) if x > 0 else (-math.inf if x == 0 else -math.nan)
        if name == "sqrt":
            return math.sqrt(x) if x >= 0 else -math.nan
        if name == "exp":
            try:
                return math.exp(x)
            except OverflowError:
                return math.inf
        return math.sin(x) if name == "sin" else math.cos(x)
    if name == "atan2":
        _arity(name, args, 2, 2)
        return math.atan2(n(0), n(1))
    if name == "rand":
        _arity(name, args, 0, 0)
        awk.rng_state = (awk.rng_state * 1103515245 + 12345) % (1 << 31)
        return awk.rng_state / float(1 << 31)
    if name == "srand":
        _arity(name, args, 0, 1)
        previous = awk.seed
        awk.seed = n(0) if args else float(awk.p.fs.now())
        awk.rng_state = int(awk.seed) % (1 << 31)
        return previous
    if name in ("tolower", "toupper"):
        _arity(name, args, 1, 1)
        return s(0).translate(_LOWER if name == "tolower" else _UPPER)  # ASCII letters only, as mawk
    if name == "systime":
        return float(awk.p.fs.now())
    if name == "strftime":  # the offline world's clock is UTC, local time included
        fmt_text = s(0) if args else "%c"
        when = n(1) if len(args) > 1 else float(awk.p.fs.now())
        return format_date(int(when) if math.isfinite(when) else 0, fmt_text)
    if name == "mktime":
        return _mktime(s(0))
    if name == "system":
        _arity(name, args, 1, 1)
        return float(awk.run_command(s(0), "")[0])
    if name == "close":
        _arity(name, args, 1, 2)
        return float(awk.close(s(0)))
    if name == "fflush":
        return 0.0
    return UNINIT
