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
        counter = _Counter(order)
        try:
            if name == "-":
                has_stdin = True
                for chunk in p.ctx.stdin.chunks():  # counted as read: nothing is held
                    counter.feed(chunk)
            else:
                path = p.path(name)
                if p.fs.is_dir(path):
                    p.err(f"{quote_if_needed(name)}: Is a directory")
                    rows.append(([0] * len(order), name))
                    status = 1
                    continue
                text = p.read(name)
                regular_total += len(text.encode("utf-8", "surrogateescape"))
                counter.feed(text)
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            status = 1
            continue
        rows.append((counter.values(), None if name == "-" and not files else name))
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


class _Counter:
    """wc's counts of one input, fed a chunk at a time (words and lines may span chunks)."""

    def __init__(self, order: list[str]) -> None:
        self.order = order
        self.counts = dict.fromkeys("lwcmL", 0)
        self.in_word = False
        self.line_length = 0

    def feed(self, text: str) -> None:
        if not text:
            return
        counts = self.counts
        if "l" in self.order:
            counts["l"] += text.count("\n")
        if "w" in self.order:
            words = len(text.split())
            if self.in_word and not text[0].isspace():
                words -= 1  # the last chunk's final word goes on here
            counts["w"] += words
            self.in_word = not text[-1].isspace()
        if "c" in self.order or "m" in self.order:
            data = text.encode("utf-8", "surrogateescape")
            counts["c"] += len(data)
            if "m" in self.order:
                counts["m"] += len(data.decode("utf-8", "replace"))
        if "L" in self.order:
            pieces = text.split("\n")
            self.line_length += len(pieces[0])
            longest = max(self.line_length, *(len(piece) for piece in pieces[1:]), 0)
            counts["L"] = max(counts["L"], longest)
            if len(pieces) > 1:
                self.line_length = len(pieces[-1])

    def values(self) -> list[int]:
        return [self.counts[k] for k in self.order]
