"""seq."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("seq")
def _u_seq(p: _Proc) -> int:
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
    values = []
    v = first
    count = 0
    while (step > 0 and v <= last + 1e-12) or (step < 0 and v >= last - 1e-12):
        values.append(v)
        count += 1
        if count > 1_000_000:
            break
        v = first + step * count
    if fmt:
        texts = [fmt % x for x in values]
    elif integral:
        texts = [str(int(x)) for x in values]
    else:
        texts = [f"{x:.{decimals}f}" for x in values]
    if width and texts:
        w = max(len(t) for t in texts)
        texts = [t.zfill(w) for t in texts]
    if texts:
        p.out(sep.join(texts) + "\n")
    return 0
