"""expand, unexpand and join, as GNU coreutils 9.1 lays out their columns.

expand and unexpand count columns in bytes (a backspace goes one back) against tab stops given
as GNU reads them (``-t 4``, ``-t 2,5,9``, ``/N`` or ``+N`` after the last stop). join merges
two sorted files on a field the way GNU's loop does, so its order warnings come where GNU's do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _Inputs, lines_with_ends
from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..quoting import locale_quote, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@dataclass
class _Stops:
    """Tab stops: the explicit ones, then every ``repeat`` columns (``relative``: counted from
    the last explicit stop, as ``+N``; else multiples of it, as ``/N``)."""

    explicit: list[int]
    repeat: int = 0
    relative: bool = False

    def next_after(self, column: int) -> int | None:
        """The first stop past ``column``; None past the last one."""
        for stop in self.explicit:
            if stop > column:
                return stop
        if not self.repeat:
            return None
        base = self.explicit[-1] if self.relative and self.explicit else 0
        return base + ((column - base) // self.repeat + 1) * self.repeat


def _stops(values: list[str]) -> _Stops:
    explicit: list[int] = []
    repeat, relative = 0, False
    for value in values:
        for item in (part for part in re.split(r"[,\s]+", value) if part):
            kind = item[0] if item[0] in "/+" else ""
            digits = item[len(kind) :]
            if not digits.isdigit():
                bad = next(k for k, c in enumerate(digits) if not c.isdigit())
                raise _Refused(f"tab size contains invalid character(s): {locale_quote(digits[bad:])}")
            number = int(digits)
            if kind:
                repeat, relative = number, kind == "+"
                continue
            if number == 0:
                raise _Refused("tab size cannot be 0")
            if explicit and number <= explicit[-1]:
                raise _Refused("tab sizes must be ascending")
            explicit.append(number)
    if not explicit and not repeat:
        return _Stops([], 8)
    if len(explicit) == 1 and not repeat:
        return _Stops([], explicit[0])  # one number: a stop every that many columns
    return _Stops(explicit, repeat, relative)


def _tab_options(p: _Proc, extra: str, longs: dict[str, str | None]) -> tuple[dict, list[str], _Stops]:
    args = [f"-t{a[1:]}" if re.fullmatch(r"-\d+(,\d+)*", a) else a for a in p.args]  # `-4`: `-t 4`
    opts, files = _getopt(args, "t:" + extra, {"tabs=": "t", **longs})
    return opts, files, _stops(opts.get("t", []))


def _charged(text: str) -> bytes:
    """An input's bytes (columns are counted in bytes), their work counted against the budget."""
    data = text.encode("utf-8", "surrogateescape")
    current().spend(1 + len(data) // 16)
    return data


@applet("expand")
def _u_expand(p: _Proc) -> int:
    opts, files, stops = _tab_options(p, "i", {"initial": "i"})
    inputs = _Inputs(p, files)
    for _, text in inputs:
        data = _charged(text)
        p.out(_expand(data, stops, "i" in opts).decode("utf-8", "surrogateescape"))
    return inputs.status


def _expand(data: bytes, stops: _Stops, initial: bool) -> bytes:
    out = bytearray()
    for line in lines_with_ends(data):
        column, leading = 0, True
        for byte in line:
            if byte == 9 and (leading or not initial):
                stop = stops.next_after(column)
                width = 1 if stop is None else stop - column
                out += b" " * width
                column += width
                continue
            if byte == 8:
                column -= 1 if column else 0
            elif byte != 10:
                column += 1
            leading = leading and byte in (32, 9)
            out.append(byte)
    return bytes(out)


@applet("unexpand")
def _u_unexpand(p: _Proc) -> int:
    opts, files, stops = _tab_options(p, "a", {"all": "a", "first-only": "first-only"})
    whole_lines = ("a" in opts or "t" in opts) and "first-only" not in opts
    inputs = _Inputs(p, files)
    for _, text in inputs:
        data = _charged(text)
        out = b"".join(_unexpand_line(line, stops, whole_lines) for line in lines_with_ends(data))
        p.out(out.decode("utf-8", "surrogateescape"))
    return inputs.status


def _unexpand_line(line: bytes, stops: _Stops, whole_line: bool) -> bytes:
    """GNU's state machine: blanks are held until it is known whether they reach a tab stop;
    a single blank just before a stop stays a blank unless more blanks follow it."""
    out = bytearray()
    pending = bytearray()
    column, convert, prev_blank, one_before_stop = 0, True, False, False
    for byte in line:
        if convert:
            blank = byte in (32, 9)
            if blank:
                stop = stops.next_after(column)
                convert = stop is not None
            if blank and convert:
                assert stop is not None
                if byte == 9:
                    column = stop
                    if pending:
                        pending[0] = 9
                else:
                    column += 1
                    if not (prev_blank and column == stop):
                        one_before_stop = one_before_stop or column == stop
                        pending.append(byte)
                        prev_blank = True
                        continue
                    pending[:1] = b"\t"
                    byte = 9
                pending = pending[:1] if one_before_stop else bytearray()
            elif byte == 8:
                column -= 1 if column else 0
            elif not blank:
                column += 1
            if pending:
                if len(pending) > 1 and one_before_stop:
                    pending[0] = 9
                out += pending
                pending, one_before_stop = bytearray(), False
            prev_blank = blank
            convert = convert and (whole_line or blank)
        out.append(byte)
    return bytes(out + pending)


@dataclass
class _Line:
    text: str
    fields: list[str] = field(default_factory=list)


@dataclass
class _Join:
    """join's settings: the key fields, separator, what to print and how."""

    keys: tuple[int, int]
    tab: str | None
    ignore_case: bool
    unpaired: set[int]
    paired: bool
    outlist: list[tuple[int, int]] | None
    empty: str | None
    check: str  # "default", "on" or "off"
    names: tuple[str, str]
    auto: bool = False
    warned: list[bool] = field(default_factory=lambda: [False, False])
    unpairable_seen: bool = False


def _split(text: str, tab: str | None) -> list[str]:
    if tab is not None:
        return text.split(tab)
    return text.replace("\t", " ").split()


def _key(job: _Join, line: _Line, which: int) -> str:
    k = job.keys[which]
    value = line.fields[k] if k < len(line.fields) else ""
    return value.lower() if job.ignore_case else value


def _cmp(job: _Join, a: _Line, b: _Line) -> int:
    x, y = _key(job, a, 0), _key(job, b, 1)
    return (x > y) - (x < y)


def _field_spec(p: _Proc, spec: str) -> list[tuple[int, int]]:
    out = []
    for item in (part for part in re.split(r"[,\s]+", spec) if part):
        if item == "0":
            out.append((0, 0))
            continue
        m = re.fullmatch(r"([^.]*)\.(.*)", item)
        if m is None or m.group(1) not in ("1", "2"):
            raise _Refused(f"invalid file number in field spec: {locale_quote(item)}")
        if not m.group(2).isdigit() or int(m.group(2)) < 1:
            raise _Refused(f"invalid field number: {locale_quote(m.group(2))}")
        out.append((int(m.group(1)), int(m.group(2)) - 1))
    return out


def _field_number(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise _Refused(f"invalid field number: {locale_quote(value)}")
    return int(value) - 1


@applet("join")
def _u_join(p: _Proc) -> int:
    longs: dict[str, str | None] = {
        "ignore-case": "i", "check-order": "check-order", "nocheck-order": "nocheck-order",
        "header": "header", "zero-terminated": "z",
    }  # fmt: skip
    opts, files = _getopt(p.args, "a:e:ij:o:t:v:1:2:z", longs)
    if len(files) < 2:
        raise _UsageError(f"missing operand after {locale_quote(files[0])}" if files else "missing operand")
    if len(files) > 2:
        raise _UsageError(f"extra operand '{files[2]}'")
    job = _settings(p, opts, (files[0], files[1]))
    sep = "\0" if "z" in opts else "\n"
    lines = []
    for name in files:
        try:
            text = p.read(name)
        except FsError as exc:
            p.err(f"{quote_if_needed(name)}: {exc.strerror}")
            return 1
        chunks = text.split(sep)
        if chunks and chunks[-1] == "":
            chunks.pop()
        current().spend(1 + len(chunks))
        lines.append([_Line(chunk, _split(chunk, job.tab)) for chunk in chunks])
    return _JoinRun(p, job, lines[0], lines[1], sep, "header" in opts).run()


def _settings(p: _Proc, opts: dict, names: tuple[str, str]) -> _Join:
    keys = [0, 0]
    for letter, which in (("j", (0, 1)), ("1", (0,)), ("2", (1,))):
        value = _last(opts, letter)
        if value is not None:
            for k in which:
                keys[k] = _field_number(value)
    tab = _last(opts, "t")
    if tab is not None and len(tab) > 1:
        raise _Refused(f"multi-character tab {locale_quote(tab)}")
    unpaired, paired = set(), True
    for letter in ("a", "v"):
        for value in opts.get(letter, []):
            if value not in ("1", "2"):  # sic: GNU calls it a field number
                raise _Refused(f"invalid field number: {locale_quote(value)}")
            unpaired.add(int(value))
            paired = paired and letter == "a"
    spec = _last(opts, "o")
    outlist = None if spec is None or spec == "auto" else _field_spec(p, spec)
    check = "on" if "check-order" in opts else "off" if "nocheck-order" in opts else "default"
    empty = _last(opts, "e")
    return _Join(
        (keys[0], keys[1]), tab, "i" in opts, unpaired, paired, outlist, empty, check, names, spec == "auto"
    )


class _OrderError(Exception):
    """``--check-order`` met a line out of order: join stops."""


class _JoinRun:
    """GNU join's merge loop over two files' lines."""

    def __init__(self, p: _Proc, job: _Join, a: list[_Line], b: list[_Line], sep: str, header: bool) -> None:
        self.p, self.job, self.sep, self.header = p, job, sep, header
        self.lines = (a, b)
        self.at = [0, 0]
        self.prev: list[_Line | None] = [None, None]
        self.out: list[str] = []
        self.widths = (len(a[0].fields) if a else 0, len(b[0].fields) if b else 0)

    def _get(self, which: int) -> _Line | None:
        source = self.lines[which]
        if self.at[which] >= len(source):
            return None
        line = source[self.at[which]]
        self.at[which] += 1
        previous = self.prev[which]
        job = self.job
        checked = job.check == "on" or (job.check == "default" and job.unpairable_seen)
        if (
            checked
            and previous is not None
            and not job.warned[which]
            and _cmp_same(job, previous, line, which) > 0
        ):
            self._flush()
            self.p.err(f"{job.names[which]}:{self.at[which]}: is not sorted: {line.text}")
            job.warned[which] = True
            if job.check == "on":
                raise _OrderError()
        self.prev[which] = line
        return line

    def _flush(self) -> None:
        self.p.out("".join(self.out))
        self.out = []

    def run(self) -> int:
        try:
            self._merge()
        except _OrderError:
            return 1
        self._flush()
        if any(self.job.warned):
            self.p.err("input is not in sorted order")
            return 1
        return 0

    def _merge(self) -> None:
        job = self.job
        if self.header:
            first, second = self._get_plain(0), self._get_plain(1)
            if first or second:
                self._print(first, second)
        seq1 = [x for x in [self._get(0)] if x]
        seq2 = [x for x in [self._get(1)] if x]
        while seq1 and seq2:
            current().spend(1)
            diff = _cmp(job, seq1[0], seq2[0])
            if diff:
                which, seq = (0, seq1) if diff < 0 else (1, seq2)
                if which + 1 in job.unpaired:
                    self._print(seq[0], None) if which == 0 else self._print(None, seq[0])
                job.unpairable_seen = True
                nxt = self._get(which)
                seq[:] = [nxt] if nxt else []
                continue
            more1 = self._gather(0, seq1, seq2[0])
            more2 = self._gather(1, seq2, seq1[0])
            if job.paired:
                for x in seq1:
                    for y in seq2:
                        self._print(x, y)
            seq1[:] = [more1] if more1 else []
            seq2[:] = [more2] if more2 else []
        self._rest(0, seq1, bool(seq2))
        self._rest(1, seq2, bool(seq1))

    def _get_plain(self, which: int) -> _Line | None:
        source = self.lines[which]
        if self.at[which] >= len(source):
            return None
        self.at[which] += 1
        return source[self.at[which] - 1]

    def _gather(self, which: int, seq: list[_Line], other: _Line) -> _Line | None:
        """Read on while lines match ``other``'s key; the first that does not is returned."""
        while True:
            line = self._get(which)
            if line is None:
                return None
            if (_cmp(self.job, line, other) if which == 0 else -_cmp(self.job, other, line)) != 0:
                return line
            seq.append(line)

    def _rest(self, which: int, seq: list[_Line], other_left: bool) -> None:
        job = self.job
        if not seq or (which + 1 not in job.unpaired and job.check == "off"):
            return
        if other_left:
            job.unpairable_seen = True
        show = which + 1 in job.unpaired
        line: _Line | None = seq[0]
        while line is not None:
            if show:
                self._print(line, None) if which == 0 else self._print(None, line)
            elif job.warned[which]:
                break
            line = self._get(which)

    def _print(self, a: _Line | None, b: _Line | None) -> None:
        job = self.job
        sep = job.tab if job.tab is not None else " "
        fill = job.empty
        outlist = job.outlist
        if outlist is None and job.auto:
            outlist = [(0, 0)]
            outlist += [(1, k) for k in range(self.widths[0]) if k != job.keys[0]]
            outlist += [(2, k) for k in range(self.widths[1]) if k != job.keys[1]]
        if outlist is not None:
            parts = [self._field(a, b, spec, fill) for spec in outlist]
        else:
            key_line, key = (a, job.keys[0]) if a is not None else (b, job.keys[1])
            assert key_line is not None
            parts = [key_line.fields[key] if key < len(key_line.fields) else (fill or "")]
            for line, k in ((a, job.keys[0]), (b, job.keys[1])):
                if line is not None:
                    parts += [f for i, f in enumerate(line.fields) if i != k]
        self.out.append(sep.join(parts) + self.sep)
        if len(self.out) > 256:
            self._flush()

    def _field(self, a: _Line | None, b: _Line | None, spec: tuple[int, int], fill: str | None) -> str:
        which, k = spec
        if which == 0:
            line, k = (a, self.job.keys[0]) if a is not None else (b, self.job.keys[1])
        else:
            line = a if which == 1 else b
        if line is not None and k < len(line.fields):
            return line.fields[k]
        return fill or ""


def _cmp_same(job: _Join, a: _Line, b: _Line, which: int) -> int:
    """Two lines of the same file compared on that file's key."""
    k = job.keys[which]
    x = a.fields[k] if k < len(a.fields) else ""
    y = b.fields[k] if k < len(b.fields) else ""
    if job.ignore_case:
        x, y = x.lower(), y.lower()
    return (x > y) - (x < y)
