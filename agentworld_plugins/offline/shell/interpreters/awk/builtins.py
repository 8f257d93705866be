"""awk's built-in functions: strings, regex substitution, arithmetic, I/O."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .records import split_fields
from .values import UNINIT, AwkFatal, format_printf, strnum, to_num, to_str

if TYPE_CHECKING:
    from .interp import Awk
    from .parse import Node


def _arity(name: str, args: list[Node], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise AwkFatal(f"{name}: called with {len(args)} arguments")


def _substr(text: str, start: float, length: float | None) -> str:
    """POSIX substr: characters from position ``start`` (1-based, rounded), ``length`` of them."""
    if start != start:
        return ""
    begin = _round(start)
    end = math.inf if length is None else (begin + _round(length) if length == length else begin)
    if length is not None and length != length:
        return ""
    lo = max(begin, 1)
    hi = min(end, len(text) + 1)
    if hi <= lo:
        return ""
    return text[int(lo) - 1 : int(hi) - 1]


def _round(x: float) -> float:
    if x in (math.inf, -math.inf):
        return x
    return float(round(x))  # round half to even, as C's rint in the default mode


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
            return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
        if name == "sqrt":
            return math.sqrt(x) if x >= 0 else math.nan
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
        text = s(0)
        return text.lower() if name == "tolower" else text.upper()
    if name == "system":
        _arity(name, args, 1, 1)
        return float(awk.run_command(s(0), "")[0])
    if name == "close":
        _arity(name, args, 1, 2)
        return float(awk.close(s(0)))
    if name == "fflush":
        return 0.0
    return UNINIT
