"""seq."""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..limits import reserve
from ..pipes import streaming
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


#: numbers per chunk written (a few dozen KiB: under a pipe's capacity, as GNU seq's buffer is)
_BATCH = 8192


@applet("seq")
@streaming()
def _u_seq(p: _Proc) -> Generator[str, None, int]:
    """seq, streaming: ``seq 1 1e15 | head -3`` ends when head does."""
    args = list(p.args)
    sep = "\n"
    width = False
    fmt = None
    while args and args[0].startswith("-") and not re.fullmatch(r"-\d+(\.\d+)?", args[0]):
        a = args.pop(0)
        if a == "-s" and args:
            sep = args.pop(0)
        elif a.startswith("-s"):
            sep = a[2:]
        elif a == "-w":
            width = True
        elif a == "-f" and args:
            fmt = args.pop(0)
        else:
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
    if not args:
        raise _UsageError("missing operand")
    if len(args) > 3:
        raise _UsageError(f"extra operand {quote_always(args[3])}")
    try:
        nums = [float(a) for a in args]
    except ValueError:
        bad = next(a for a in args if not re.fullmatch(r"-?\d+(\.\d+)?", a))
        p.err(f"invalid floating point argument: {quote_always(bad)}")
        p.try_help()
        return 1
    first, step, last = 1.0, 1.0, nums[-1]
    if len(nums) >= 2:
        first = nums[0]
    if len(nums) == 3:
        step = nums[1]
    if step == 0:
        p.err(f"invalid Zero increment value: {quote_always(args[1])}")
        return 1
    integral = all(re.fullmatch(r"-?\d+", a) for a in args)
    decimals = max((len(a.split(".")[1]) for a in args if "." in a), default=0)
    if (last - first) / step > 10**12 and not p.ctx.lazy:  # only the step budget would end it
        reserve(int((last - first) / step))  # (a reader that stops early can: it streams then)
    if integral and not fmt and not width:  # the common case, made fast: whole numbers by range()
        stop = int(last) + (1 if step > 0 else -1)
        numbers = range(int(first), stop, int(step))
        for k in range(0, len(numbers), _BATCH):
            p.vm._budget.spend(_BATCH)
            yield ("" if not k else sep) + sep.join(map(str, numbers[k : k + _BATCH]))
        if numbers:
            yield "\n"
        return 0
    count = 0
    v = first
    chunk: list[float] = []
    w = max(len(_text(x, fmt, integral, decimals)) for x in (first, last)) if width else 0
    wrote = False
    # written as it is made, a chunk at a time: the step's budget bounds it, no silent cap
    while (step > 0 and v <= last + 1e-12) or (step < 0 and v >= last - 1e-12):
        chunk.append(v)
        count += 1
        v = first + step * count
        if len(chunk) == _BATCH:
            p.vm._budget.spend(_BATCH)
            yield ("" if not wrote else sep) + sep.join(
                _text(x, fmt, integral, decimals).zfill(w) for x in chunk
            )
            wrote = True
            chunk = []
    if chunk:
        yield ("" if not wrote else sep) + sep.join(_text(x, fmt, integral, decimals).zfill(w) for x in chunk)
        wrote = True
    if wrote:
        yield "\n"
    return 0


def _text(x: float, fmt: str | None, integral: bool, decimals: int) -> str:
    if fmt:
        return fmt % x
    if integral:
        return str(int(x))
    return f"{x:.{decimals}f}"
