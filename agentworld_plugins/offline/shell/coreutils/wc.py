"""wc."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError
from ..getopt import _getopt
from ..quoting import quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("wc")
def _u_wc(p: _Proc) -> int:
    opts, files = _getopt(
        p.args, "lwcmL", {"lines": "l", "words": "w", "bytes": "c", "chars": "m", "max-line-length": "L"}
    )
    order = [k for k in "lwmcL" if k in opts] or ["l", "w", "c"]
    inputs = files or ["-"]
    rows: list[tuple[list[int], str | None]] = []
    status = 0
    regular_total = 0
    has_stdin = False
    for name in inputs:
        try:
            if name == "-":
                has_stdin = True
                text = p.stdin()
            else:
                path = p.path(name)
                if p.fs.is_dir(path):
                    p.err(f"{quote_if_needed(name)}: Is a directory")
                    rows.append(([0] * len(order), name))
                    status = 1
                    continue
                text = p.read(name)
                regular_total += len(text.encode("utf-8", "surrogateescape"))
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            status = 1
            continue
        data = text.encode("utf-8", "surrogateescape")
        values = {
            "l": text.count("\n"),
            "w": len(text.split()),
            "c": len(data),
            "m": len(data.decode("utf-8", "replace")),
            "L": max((len(line) for line in text.split("\n")), default=0),
        }
        rows.append(([values[k] for k in order], None if name == "-" and not files else name))
    if len(inputs) > 1:
        totals = [sum(r[0][k] for r in rows) for k in range(len(order))]
        if "L" in order:
            totals[order.index("L")] = max((r[0][order.index("L")] for r in rows), default=0)
        rows.append((totals, "total"))
    if len(order) == 1 and len(inputs) == 1:
        width = 1
    else:
        width = len(str(regular_total)) if regular_total else 1
        if has_stdin or any(p.fs.is_dir(p.path(n)) for n in files if n != "-"):
            width = max(width, 7)
    for counts, label in rows:
        line = " ".join(str(v).rjust(width) for v in counts)
        p.out(line + (f" {label}" if label is not None else "") + "\n")
    return status
