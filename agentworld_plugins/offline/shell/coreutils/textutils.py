"""fold, comm, shuf and column (util-linux's, which agents use beside coreutils)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _count_arg, _InvalidCount, _lines
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..quoting import locale_quote, quote_always, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _column_after(column: int, c: str, count_bytes: bool) -> int:
    if count_bytes:
        return column + len(c.encode("utf-8", "surrogateescape"))
    if c == "\b":
        return max(0, column - 1)
    if c == "\r":
        return 0
    if c == "\t":
        return column + 8 - column % 8
    return column + 1


def _fold_line(line: str, width: int, spaces: bool, count_bytes: bool) -> str:
    """One input line (without its newline) folded as GNU fold does."""
    out: list[str] = []
    buf: list[str] = []
    column = 0
    i = 0
    while i < len(line):
        c = line[i]
        new = _column_after(column, c, count_bytes)
        if new > width:
            if spaces:
                blank = next((k for k in range(len(buf) - 1, -1, -1) if buf[k] in " \t"), -1)
                if blank >= 0:
                    out.append("".join(buf[: blank + 1]) + "\n")
                    buf = buf[blank + 1 :]
                    column = 0
                    for ch in buf:
                        column = _column_after(column, ch, count_bytes)
                    continue
            if not buf:
                buf.append(c)
                column = new
                i += 1
                continue
            out.append("".join(buf) + "\n")
            buf = []
            column = 0
            continue
        buf.append(c)
        column = new
        i += 1
    out.append("".join(buf))
    return "".join(out)


@applet("fold")
def _u_fold(p: _Proc) -> int:
    args: list[str] = []
    for a in p.args:  # the obsolete -N (and -bN, -s12) mean -w N
        m = re.fullmatch(r"-([bs]*)(\d+)", a)
        args.extend(([f"-{m.group(1)}"] if m.group(1) else []) + [f"-w{m.group(2)}"] if m else [a])
    opts, files = _getopt(args, "bsw:", {"bytes": "b", "spaces": "s", "width=": "w"})
    raw = _last(opts, "w", "80") or "80"
    if not raw.isdigit() or int(raw) < 1:
        reason = ": Numerical result out of range" if raw.isdigit() else ""
        p.err(f"invalid number of columns: {locale_quote(raw)}{reason}")
        return 1
    width = int(raw)
    status = 0
    for name in files or ["-"]:
        try:
            text = p.read(name)
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            status = 1
            continue
        current().spend(1 + len(text) // 16)
        pieces = text.split("\n")
        p.out("\n".join(_fold_line(line, width, "s" in opts, "b" in opts) for line in pieces))
    return status


@applet("comm")
def _u_comm(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "123z",
        {
            "check-order": "c",
            "nocheck-order": "C",
            "output-delimiter=": "d",
            "total": "t",
            "zero-terminated": "z",
        },
    )
    if len(files) < 2:
        raise _UsageError(
            "missing operand" if not files else f"missing operand after {locale_quote(files[0])}"
        )
    if len(files) > 2:
        raise _UsageError(f"extra operand {locale_quote(files[2])}")
    texts = []
    for name in files:
        try:
            texts.append(p.read(name))
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            return 1
    sep = "\0" if "z" in opts else "\n"
    a, b = (t.split(sep)[:-1] if t.endswith(sep) else t.split(sep) if t else [] for t in texts)
    current().spend(2 + len(a) + len(b))
    delim = _last(opts, "d", "\t") or "\t"
    shown = [k for k in (1, 2, 3) if str(k) not in opts]
    prefix = {k: delim * sum(1 for j in shown if j < k) for k in shown}
    out: list[str] = []
    counts = [0, 0, 0]
    check = "C" not in opts
    warned = [False, False]
    unsorted = False
    i = j = 0

    def ordered(lines: list[str], k: int, which: int) -> None:
        nonlocal unsorted
        if check and k > 0 and lines[k] < lines[k - 1] and not warned[which]:
            warned[which] = True
            unsorted = True
            out.append(f"\0ERRcomm: file {which + 1} is not in sorted order\n")

    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and a[i] < b[j]):
            ordered(a, i, 0)
            column, line, i = 1, a[i], i + 1
        elif i >= len(a) or b[j] < a[i]:
            ordered(b, j, 1)
            column, line, j = 2, b[j], j + 1
        else:
            column, line, i, j = 3, a[i], i + 1, j + 1
        counts[column - 1] += 1
        if column in prefix:
            out.append(prefix[column] + line + sep)
    if "t" in opts:
        out.append(delim.join(str(c) for c in counts) + delim + "total" + sep)
    for piece in out:
        if piece.startswith("\0ERR"):
            p.ctx.err.write(piece[4:])
        else:
            p.out(piece)
    if unsorted:
        p.err("input is not in sorted order")
        return 1
    return 0


@applet("shuf")
def _u_shuf(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "ei:n:o:rz",
        {"echo": "e", "input-range=": "i", "head-count=": "n", "output=": "o", "repeat": "r",
         "zero-terminated": "z", "random-source=": None},
    )  # fmt: skip
    if "e" in opts:
        items = list(operands)
    elif "i" in opts:
        spec = _last(opts, "i") or ""
        m = re.fullmatch(r"(\d+)-(\d+)", spec)
        if not m or int(m.group(1)) > int(m.group(2)) + 1:
            p.err(f"invalid input range: {locale_quote(spec)}")
            return 1
        lo, hi = int(m.group(1)), int(m.group(2))
        current().reserve((hi - lo) * 8)
        items = [str(k) for k in range(lo, hi + 1)]
    else:
        if len(operands) > 1:
            raise _UsageError(f"extra operand {quote_always(operands[1])}")
        name = operands[0] if operands else "-"
        try:
            items = _lines(p.read(name))
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            return 1
    count: int | None = None
    if "n" in opts:
        try:
            count = _count_arg(p, _last(opts, "n") or "")
        except _InvalidCount:
            return 1
    rng = p.vm.device_random()
    budget = current()
    if "r" in opts:
        if not items:
            if count:
                p.err("no lines to repeat")
                return 1
            return 0
        n = count if count is not None else 1 << 62
        chosen = []
        for _ in range(n):
            budget.spend(2)
            chosen.append(rng.choice(items))
    else:
        budget.spend(1 + 2 * len(items))
        chosen = list(items)
        rng.shuffle(chosen)
        if count is not None:
            chosen = chosen[:count]
    end = "\0" if "z" in opts else "\n"
    text = "".join(item + end for item in chosen)
    target = _last(opts, "o")
    if target:
        from ..applet_io import _write_or_err

        return 0 if _write_or_err(p, target, text) else 1
    p.out(text)
    return 0


@applet("column")
def _u_column(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "ts:o:c:xnNeR:",
        {"table": "t", "separator=": "s", "output-separator=": "o", "output-width=": "c", "fillrows": "x"},
    )
    lines: list[str] = []
    for name in files or ["-"]:
        try:
            lines.extend(_lines(p.read(name)))
        except FsError as exc:
            p.ctx.err.write(f"column: cannot open {name}: {exc.strerror}\n")
            return 1
    current().spend(1 + 2 * len(lines))
    if "t" in opts:
        seps = _last(opts, "s", " \t") or " \t"
        splitter = re.compile("[" + re.escape(seps) + "]+")
        rows = [splitter.split(line.strip(seps)) for line in lines if line.strip(seps)]
        widths: list[int] = []
        for row in rows:
            for k, cell in enumerate(row):
                if k >= len(widths):
                    widths.append(0)
                widths[k] = max(widths[k], len(cell))
        gap = _last(opts, "o", "  ") or "  "
        out = []
        for row in rows:
            cells = [cell.ljust(widths[k]) if k < len(row) - 1 else cell for k, cell in enumerate(row)]
            out.append(gap.join(cells) + "\n")
        p.out("".join(out))
        return 0
    entries = [line for line in lines if line.strip()]
    if not entries:
        return 0
    width = int(_last(opts, "c", "") or p.vm.vars.get("COLUMNS", "") or 80)
    longest = (max(len(e) for e in entries) + 8) & ~7
    columns = width // longest
    if columns <= 1:
        p.out("".join(e + "\n" for e in entries))
        return 0
    rows_n = -(-len(entries) // columns)
    out = []
    for r in range(rows_n):
        row_out: list[str] = []
        chars, end = 0, longest
        picks = [r * columns + k for k in range(columns)] if "x" in opts else None
        base = r
        for col in range(columns):
            index = picks[col] if picks is not None else base
            if index >= len(entries):
                break
            row_out.append(entries[index])
            chars += len(entries[index])
            base += rows_n
            nxt = picks[col + 1] if picks is not None and col + 1 < columns else base
            if nxt >= len(entries) or col + 1 >= columns:
                break
            while chars < end:
                row_out.append("\t")
                chars = (chars + 8) & ~7
            end += longest
        out.append("".join(row_out) + "\n")
    p.out("".join(out))
    return 0
