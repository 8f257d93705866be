"""hexdump and hd: util-linux 2.38's format-driven dump (``-C``, ``-b -c -d -o -x``, ``-e``, ``-f``).

A format is a list of format units (``[reps/][bytes] "printf text"``), each cut into print units,
one conversion each (``%x``, ``%_p``, ``%_ax``...); a block of input (the longest format's size)
goes through every format. A block like the one before is shown once, then ``*`` (``-v``: all).
The end of the data pads the print units past it with blanks, and ``%_A`` prints where it ended.
"""

from __future__ import annotations

import math
import posixpath
import struct
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..limits import current
from ..longopts import NO, OPTIONAL, REQUIRED, Fatal, getopt_long
from ..pipes import streaming
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Input, _Proc

#: blocks shown between two writes (and charges to the step budget)
BATCH = 256
#: bytes shown per unit of work
BYTES_PER_UNIT = 1
#: bytes read (shown or squeezed into a ``*``) per unit of work, and how many are charged at once
SQUEEZE_BYTES_PER_UNIT = 16
SQUEEZE_CHARGE = 65536
VERSION = "from util-linux 2.38.1"

_SPACE = " \t\n\v\f\r"
_SPEC = ".#-+ 0123456789"
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_C_NAMES = {0: "\\0", 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
_U_NAMES = ["nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr", "so",
            "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs",
            "rs", "us"]  # fmt: skip

_OFFSET = '"%07.7_Ax\n"'
_CANONICAL = ['"%08.8_Ax\n"', '"%08.8_ax  " 8/1 "%02x " "  " 8/1 "%02x " ', '"  |" 16/1 "%_p" "|\\n"']
_SHORTHANDS = {
    "b": [_OFFSET, '"%07.7_ax " 16/1 "%03o " "\\n"'],
    "c": [_OFFSET, '"%07.7_ax " 16/1 "%3_c " "\\n"'],
    "C": _CANONICAL,
    "d": [_OFFSET, '"%07.7_ax " 8/2 "  %05u " "\\n"'],
    "o": [_OFFSET, '"%07.7_ax " 8/2 " %06o " "\\n"'],
    "x": [_OFFSET, '"%07.7_ax " 8/2 "   %04x " "\\n"'],
}
_DEFAULT = [_OFFSET, '"%07.7_ax " 8/2 "%04x " "\\n"']

_HELP = """
Usage:
 {0} [options] <file>...

Display file contents in hexadecimal, decimal, octal, or ascii.

Options:
 -b, --one-byte-octal      one-byte octal display
 -c, --one-byte-char       one-byte character display
 -C, --canonical           canonical hex+ASCII display
 -d, --two-bytes-decimal   two-byte decimal display
 -o, --two-bytes-octal     two-byte octal display
 -x, --two-bytes-hex       two-byte hexadecimal display
 -L, --color[=<mode>]      interpret color formatting specifiers
                             colors are enabled by default
 -e, --format <format>     format string to be used for displaying data
 -f, --format-file <file>  file that contains format strings
 -n, --length <length>     interpret only length bytes of input
 -s, --skip <offset>       skip offset bytes from the beginning
 -v, --no-squeezing        output identical lines

 -h, --help                display this help
 -V, --version             display version

Arguments:
 <length> and <offset> arguments may be followed by the suffixes for
   GiB, TiB, PiB, EiB, ZiB, and YiB (the "iB" is optional)

For more details see hexdump(1).
"""


def parse_size(text: str) -> int | None:
    """util-linux's ``strtosize``: a number (``0x``: hex, ``0``: octal) and an optional suffix
    (``K``, ``KiB``: 1024; ``KB``: 1000; up to ``Y``); None where it is not one."""
    s = text.lstrip(_SPACE)
    if not s or s.startswith("-"):
        return None
    s = s[1:] if s.startswith("+") else s
    base, digits = 10, "0123456789"
    if s[:2].lower() == "0x":
        base, digits, s = 16, "0123456789abcdefABCDEF", s[2:]
    elif s.startswith("0"):
        base, digits = 8, "01234567"
    end = 0
    while end < len(s) and s[end] in digits:
        end += 1
    if end == 0 and base != 8:
        return None
    value = int(s[:end], base) if end else 0
    suffix = s[end:]
    if not suffix:
        return value
    power = "KMGTPEZY".find(suffix[0].upper()) + 1
    unit = {"": 1024, "iB": 1024, "ib": 1024, "B": 1000, "b": 1000}.get(suffix[1:])
    if power == 0 or unit is None:
        return None
    return value * unit**power


# -- formats -------------------------------------------------------------------------------------


@dataclass
class _Pr:
    """A print unit: text, then (unless ``kind`` is "text") one conversion of ``bcnt`` bytes."""

    kind: str
    text: str
    conv: str = ""
    flags: str = ""
    width: int = 0
    prec: int | None = None
    bcnt: int = 0
    #: the last print unit of a repeated unit ends in a blank, left off its last time
    nospace: bool = False


@dataclass
class _Fu:
    """A format unit: ``reps`` times its print units, ``bcnt`` bytes each time."""

    fmt: str
    reps: int = 1
    bcnt: int = 0
    setrep: bool = False
    ignore: bool = False
    prs: list[_Pr] = field(default_factory=list)


@dataclass
class _Fs:
    """A format string (one ``-e``, one line of ``-f``, one of a shorthand's)."""

    fus: list[_Fu] = field(default_factory=list)
    bcnt: int = 0


def _skip_space(s: str, i: int) -> int:
    while i < len(s) and s[i] in _SPACE:
        i += 1
    return i


def _number(s: str, i: int) -> tuple[int, int]:
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    return int(s[i:j]), j


def _escape(text: str) -> str:
    """The backslash escapes of a format's text (``\\n``, ``\\t``...; ``\\x`` is ``x``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            i += 1
            c = _ESCAPES.get(text[i], text[i])
        out.append(c)
        i += 1
    return "".join(out)


def add_format(fmt: str) -> _Fs:
    """A format string cut into format units (``bad format {...}`` where it is not one)."""
    fs = _Fs()
    i = 0
    while True:
        i = _skip_space(fmt, i)
        if i >= len(fmt):
            return fs
        fu = _Fu("")
        fs.fus.append(fu)
        if fmt[i].isdigit():
            fu.reps, i = _number(fmt, i)
            if i >= len(fmt) or (fmt[i] not in _SPACE and fmt[i] != "/"):
                raise Fatal(f"bad format {{{fmt}}}")
            fu.setrep = True
            i = _skip_space(fmt, i + 1)
        if i < len(fmt) and fmt[i] == "/":
            i = _skip_space(fmt, i + 1)
        if i < len(fmt) and fmt[i].isdigit():
            fu.bcnt, i = _number(fmt, i)
            if i >= len(fmt) or fmt[i] not in _SPACE:
                raise Fatal(f"bad format {{{fmt}}}")
            i = _skip_space(fmt, i + 1)
        end = fmt.find('"', i + 1)
        if i >= len(fmt) or fmt[i] != '"' or end < 0:
            raise Fatal(f"bad format {{{fmt}}}")
        fu.fmt = _escape(fmt[i + 1 : end])
        i = end + 1


def _block_size(fs: _Fs) -> int:
    """The bytes a format string shows of a block, as hexdump counts them before it checks them."""
    size = 0
    for fu in fs.fus:
        if fu.bcnt:
            size += fu.bcnt * fu.reps
            continue
        bcnt, fmt, i = 0, fu.fmt, 0
        while i < len(fmt):
            if fmt[i] != "%":
                i += 1
                continue
            i += 1
            while i < len(fmt) and fmt[i] in _SPEC[1:]:
                i += 1
            prec = 0
            if i < len(fmt) and fmt[i] == ".":
                i += 1
                if i < len(fmt) and fmt[i].isdigit():
                    prec, i = _number(fmt, i)
            c = fmt[i : i + 1]
            if c and c in "diouxX":
                bcnt += 4
            elif c and c in "efgEG":
                bcnt += 8
            elif c == "s":
                bcnt += prec
            elif c == "c" or (c == "_" and fmt[i + 1 : i + 2] in ("c", "p", "u") and fmt[i + 1 : i + 2]):
                bcnt += 1
            if c == "_":
                i += 1
            i += 1
        size += bcnt * fu.reps
    return size


def _spec_parts(spec: str) -> tuple[str, int, int | None]:
    """printf's flags, width and precision (None: none) in the text between ``%`` and the conversion."""
    i = 0
    while i < len(spec) and spec[i] in "#-+ 0":
        i += 1
    flags = spec[:i]
    j = i
    while j < len(spec) and spec[j].isdigit():
        j += 1
    width = int(spec[i:j]) if j > i else 0
    prec = None
    if j < len(spec) and spec[j] == ".":
        k = j + 1
        while k < len(spec) and spec[k].isdigit():
            k += 1
        prec = int(spec[j + 1 : k] or "0")
    return flags, width, prec


class _Rules:
    """hexdump's ``rewrite_rules``: print units and their byte counts, checked."""

    def __init__(self, blocksize: int) -> None:
        self.blocksize = blocksize
        #: the format unit whose ``%_A`` prints where the data ended
        self.endfu: _Fu | None = None

    def rewrite(self, fs: _Fs) -> None:
        for fu in fs.fus:
            self.units(fu)
            if not fu.bcnt:
                fu.bcnt = sum(pr.bcnt for pr in fu.prs)
        for n, fu in enumerate(fs.fus):
            if n == len(fs.fus) - 1 and fs.bcnt < self.blocksize and not fu.setrep and fu.bcnt:
                fu.reps += (self.blocksize - fs.bcnt) // fu.bcnt
            if fu.reps > 1 and fu.prs and fu.prs[-1].text[-1:] in tuple(_SPACE) and fu.prs[-1].kind == "text":
                fu.prs[-1].nospace = True

    def units(self, fu: _Fu) -> None:
        fmt, i, nconv = fu.fmt, 0, 0
        while i < len(fmt):
            p1 = fmt.find("%", i)
            if p1 < 0:
                fu.prs.append(_Pr("text", fmt[i:]))
                return
            pr, i = self.unit(fu, fmt, i, p1)
            fu.prs.append(pr)
            if pr.kind != "address" and fu.bcnt:
                nconv += 1
                if nconv > 1:
                    raise Fatal("byte count with multiple conversion characters")

    def unit(self, fu: _Fu, fmt: str, start: int, p1: int) -> tuple[_Pr, int]:
        """The print unit of the conversion at ``p1`` (text from ``start``), and where the next begins."""
        usable, prec = "bcnt", 0
        p1 += 1
        if fu.bcnt:
            while p1 < len(fmt) and fmt[p1] in _SPEC:
                p1 += 1
        else:
            while p1 < len(fmt) and fmt[p1] in _SPEC[1:]:
                p1 += 1
            usable = "none"
            if p1 < len(fmt) and fmt[p1] == ".":
                p1 += 1
                if p1 < len(fmt) and fmt[p1].isdigit():
                    usable = "prec"
                    prec, p1 = _number(fmt, p1)
        flags, width, precision = _spec_parts(fmt[fmt.index("%", start) + 1 : p1])
        pr = _Pr("", fmt[start : fmt.index("%", start)], flags=flags, width=width, prec=precision)
        cs = fmt[p1 : p1 + 1]
        end = p1 + 1
        if cs == "c":
            pr.kind, pr.conv, pr.bcnt = "char", "c", self.count(fu, (1,), cs)
        elif cs and cs in "diouxX":
            pr.kind = "int" if cs in "di" else "uint"
            pr.conv, pr.bcnt = cs, self.count(fu, (1, 2, 4, 8), cs, 4)
        elif cs and cs in "efgEG":
            pr.kind, pr.conv, pr.bcnt = "dbl", cs, self.count(fu, (4, 8), cs, 8)
        elif cs == "s":
            if usable == "none":
                raise Fatal("%s requires a precision or a byte count")
            pr.kind, pr.conv, pr.bcnt = "str", "s", fu.bcnt if usable == "bcnt" else prec
        elif cs == "_":
            end = self.underscore(fu, fmt, p1, pr)
        else:
            raise Fatal(f"bad conversion character %{cs}")
        if fmt[end : end + 2] == "_L":  # a color unit: skipped, as colors are off off a terminal
            close = fmt.rfind("]", end)
            if close < 0:
                raise Fatal("bad conversion character %_L")
            end = close + 1
        return pr, end

    def underscore(self, fu: _Fu, fmt: str, p1: int, pr: _Pr) -> int:
        """``%_a``/``%_A`` (addresses), ``%_c``, ``%_p``, ``%_u``: where the unit ends."""
        kind = fmt[p1 + 1 : p1 + 2]
        if kind in ("a", "A"):
            if kind == "A":
                self.endfu = fu
                fu.ignore = True
            radix = fmt[p1 + 2 : p1 + 3]
            if not radix or radix not in "dox":
                raise Fatal(f"bad conversion character %{fmt[p1 : p1 + 3]}")
            pr.kind, pr.conv = "address", radix
            return p1 + 3
        if kind and kind in "cpu":
            pr.kind, pr.conv = {"c": "_c", "p": "_p", "u": "_u"}[kind], kind
            pr.bcnt = self.count(fu, (1,), fmt[p1 : p1 + 2])
            return p1 + 2
        raise Fatal(f"bad conversion character %{fmt[p1 : p1 + 2]}")

    @staticmethod
    def count(fu: _Fu, allowed: tuple[int, ...], shown: str, default: int = 1) -> int:
        if not fu.bcnt:
            return default
        if fu.bcnt not in allowed:
            raise Fatal(f"bad byte count for conversion character {shown}")
        return fu.bcnt


# -- printf --------------------------------------------------------------------------------------


def _c_int(pr: _Pr, value: int, conv: str) -> str:
    """C's printf of an integer (``0`` yields to a precision, ``#`` as C has it)."""
    flags = pr.flags
    mag = abs(value)
    digits = format(mag, {"o": "o", "x": "x", "X": "X"}.get(conv, "d"))
    if pr.prec is not None:
        digits = "" if pr.prec == 0 and mag == 0 else digits.rjust(pr.prec, "0")
    prefix = ""
    if conv in "di":
        prefix = "-" if value < 0 else "+" if "+" in flags else " " if " " in flags else ""
    elif "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag:
            prefix = "0" + conv
    body = prefix + digits
    if len(body) >= pr.width:
        return body
    if "-" in flags:
        return body.ljust(pr.width)
    if "0" in flags and pr.prec is None:
        return prefix + digits.rjust(pr.width - len(prefix), "0")
    return body.rjust(pr.width)


def _c_str(pr: _Pr, text: str, prec: bool = True) -> str:
    """C's printf of a string (or, ``prec`` False, of a character)."""
    if prec and pr.prec is not None:
        text = text[: pr.prec]
    return text.ljust(pr.width) if "-" in pr.flags else text.rjust(pr.width)


def _c_float(pr: _Pr, value: float) -> str:
    if math.isnan(value):
        text = ("-" if math.copysign(1, value) < 0 else "+" if "+" in pr.flags else "") + "nan"
        return _c_str(_Pr("", "", flags=pr.flags.replace("0", ""), width=pr.width), text, False)
    spec = "%" + pr.flags + (str(pr.width) if pr.width else "") + ("" if pr.prec is None else f".{pr.prec}")
    return (spec + pr.conv) % value


def _char(b: int) -> str:
    """A byte as the text that keeps it (surrogateescape above 0x7f)."""
    return chr(b) if b < 128 else chr(0xDC00 + b)


def _printable(b: int) -> bool:
    return 32 <= b < 127


def _render(pr: _Pr, block: bytes, at: int, address: int) -> str:
    """One print unit of the block's bytes at ``at``."""
    kind = pr.kind
    if kind == "text":
        return pr.text
    if kind == "bpad":
        return pr.text + " " * pr.width
    if kind == "address":
        return pr.text + _c_int(pr, address, pr.conv)
    chunk = block[at : at + pr.bcnt]
    if kind in ("int", "uint"):
        return pr.text + _c_int(pr, int.from_bytes(chunk, "little", signed=kind == "int"), pr.conv)
    b = chunk[0] if chunk else 0
    if kind == "_p":
        return pr.text + _c_str(pr, _char(b) if _printable(b) else ".", False)
    if kind == "_c":
        return pr.text + _conv_c(pr, b)
    if kind == "_u":
        return pr.text + _conv_u(pr, b)
    if kind == "char":
        return pr.text + _c_str(pr, _char(b), False)
    if kind == "dbl":
        (value,) = struct.unpack("<f" if pr.bcnt == 4 else "<d", chunk.ljust(pr.bcnt, b"\0"))
        return pr.text + _c_float(pr, value)
    raw = block[at:]
    raw = raw[: raw.find(0)] if 0 in raw else raw
    return pr.text + _c_str(pr, "".join(map(_char, raw)))


def _conv_c(pr: _Pr, b: int) -> str:
    """``%_c``: C escapes, the character, or three octal digits."""
    if b in _C_NAMES:
        return _c_str(pr, _C_NAMES[b])
    if _printable(b):
        return _c_str(pr, chr(b), False)
    return _c_str(pr, f"{b:03o}")


def _conv_u(pr: _Pr, b: int) -> str:
    """``%_u``: ASCII names for control characters, the character, or hex."""
    if b <= 0x1F:
        return _c_str(pr, _U_NAMES[b])
    if b == 0x7F:
        return _c_str(pr, "del")
    if _printable(b):
        return _c_str(pr, chr(b), False)
    return _c_int(pr, b, "x")


def _bpad(pr: _Pr) -> None:
    """Past the end of the data a conversion prints blanks as wide as its field."""
    pr.kind = "bpad"


#: the print units whose text depends only on one byte
_BYTEWISE = ("int", "uint", "char", "_p", "_c", "_u")


@dataclass(frozen=True)
class _Step:
    """A step of a plan: a text; a table of what each byte value prints; a Python format of an
    integer (``size`` bytes); or a print unit to render. ``at``: the offset in the block it reads."""

    at: int = 0
    text: str = ""
    table: list[str] | None = None
    spec: str | None = None
    size: int = 0
    signed: bool = False
    pr: _Pr | None = None


def _step(pr: _Pr, at: int, last: bool) -> _Step:
    """How a plan shows one print unit of a whole block."""
    if pr.kind == "text":
        return _Step(text=pr.text[:-1] if last and pr.nospace else pr.text)
    if pr.bcnt == 1 and pr.kind in _BYTEWISE:
        return _Step(at, table=[_render(pr, bytes([b]), 0, 0) for b in range(256)])
    if pr.kind in ("int", "uint") and pr.prec is None and "#" not in pr.flags:
        # Python's % prints these as C's printf does
        spec = pr.text.replace("%", "%%") + "%" + pr.flags + (str(pr.width) if pr.width else "") + pr.conv
        return _Step(at, spec=spec, size=pr.bcnt, signed=pr.kind == "int")
    return _Step(at, pr=pr)


def _plan(fs: _Fs) -> list[_Step]:
    """What a format string prints for a whole block, worked out once: texts as they are, each
    one-byte conversion as a table of its 256 texts."""
    steps: list[_Step] = []
    at = 0
    for fu in fs.fus:
        if fu.ignore:
            break
        for cnt in range(fu.reps, 0, -1):
            for pr in fu.prs:
                steps.append(_step(pr, at, cnt == 1))
                at += pr.bcnt
    return steps


def _run_plan(steps: list[_Step], block: bytes, address: int, out: list[str]) -> None:
    for step in steps:
        if step.table is not None:
            out.append(step.table[block[step.at]])
        elif step.spec is not None:
            out.append(
                step.spec % int.from_bytes(block[step.at : step.at + step.size], "little", signed=step.signed)
            )
        elif step.pr is not None:
            out.append(_render(step.pr, block, step.at, address + step.at))
        else:
            out.append(step.text)


# -- input ---------------------------------------------------------------------------------------


@dataclass
class _Source:
    name: str
    data: bytes
    pos: int = 0
    error: str | None = None


def _stdin_bytes(stdin: _Input, want: int | None) -> bytes:
    """What hexdump reads of stdin: all of it, or (``-n``) enough of it (``yes | hexdump -n 8``)."""
    if want is None:
        return stdin.read().encode("utf-8", "surrogateescape")
    parts: list[bytes] = []
    size = 0
    while size < want and (chunk := stdin.read_chunk()) is not None:
        parts.append(chunk.encode("utf-8", "surrogateescape"))
        size += len(parts[-1])
    return b"".join(parts)


class _Reader:
    """hexdump's ``next``/``doskip``: the operands (or stdin) one after the other, ``-s`` bytes
    skipped first (across files), errors warned about as each is opened."""

    def __init__(self, p: _Proc, pname: str, names: list[str], skip: int, length: int) -> None:
        self.p = p
        self.pname = pname
        self.names = names
        self.index = 0
        self.done = False
        self.skip = skip
        self.length = length
        self.address = 0
        self.status = 0
        self.stdin_dead = False
        self.source: _Source | None = None
        #: bytes read that are not charged yet (reading is charged apart from showing)
        self.unpaid = 0

    def warn(self, message: str) -> None:
        self.p.ctx.err.write(f"{self.pname}: {message}\n")

    def _open(self, name: str) -> _Source | None:
        want = None if self.length < 0 else self.skip + self.length
        try:
            text = self.p.read_path(self.p.path(name), want)  # `-` is a file's name here
            return _Source(name, text.encode("utf-8", "surrogateescape"))
        except FsError as exc:
            if exc.code == "EISDIR":
                return _Source(name, b"", error=exc.strerror)
            self.warn(f"{name}: {exc.strerror}")
            self.status = 1
            return None

    def next(self) -> bool:
        """Open the next input; False when there is none."""
        while True:
            if self.index < len(self.names):
                name = self.names[self.index]
                self.index += 1
                source = self._open(name)
                if source is None:
                    self.stdin_dead = True
                    continue
                self.stdin_dead = False
                self.done = True
                if self.skip and self._skip_file(source):
                    continue
            else:
                if self.done:
                    return False
                self.done = True
                source = self._stdin()
            self.source = source
            return True

    def _skip_file(self, source: _Source) -> bool:
        """``-s`` on a named file: True where it skips all of it."""
        if source.error is None and self.skip > len(source.data):
            self.skip -= len(source.data)
            self.address += len(source.data)
            return True
        source.pos = self.skip
        self.address += self.skip
        self.skip = 0
        return False

    def _stdin(self) -> _Source:
        stdin = self.p.ctx.stdin
        if self.stdin_dead:
            if self.skip:
                raise Fatal("stdin: Bad file descriptor")
            return _Source("stdin", b"")
        if not self.skip:
            return _Source("stdin", _stdin_bytes(stdin, None if self.length < 0 else self.length))
        if not stdin.seekable:
            raise Fatal("stdin: Illegal seek")
        data = stdin.data.encode("utf-8", "surrogateescape")
        stdin.read()
        self.address += self.skip
        source = _Source("stdin", data, self.skip)
        self.skip = 0
        return source

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the current input (b"": its end, or an error, warned)."""
        source = self.source
        if source is None:
            return b""
        if source.error is not None:
            self.warn(f"{source.name}: {source.error}")
            source.error = None
            return b""
        if self.length >= 0:
            size = min(size, self.length)
        chunk = source.data[source.pos : source.pos + size]
        source.pos += len(chunk)
        self.unpaid += len(chunk)
        if self.unpaid >= SQUEEZE_CHARGE:
            current().spend(self.unpaid // SQUEEZE_BYTES_PER_UNIT)
            self.unpaid = 0
        return chunk


# -- display -------------------------------------------------------------------------------------


class _Display:
    """hexdump's ``get``/``display``: blocks of input through the formats, squeezing repeats."""

    def __init__(
        self, reader: _Reader, formats: list[_Fs], blocksize: int, endfu: _Fu | None, verbose: bool
    ) -> None:
        self.reader = reader
        self.formats = formats
        self.blocksize = blocksize
        self.endfu = endfu
        self.vflag = "all" if verbose else "first"
        self.eaddress = 0
        self.ateof = True
        self.saved: bytes | None = None
        self.started = False
        self.pending: list[str] = []
        self.plans: list[list[_Step]] = []

    def get(self) -> bytes | None:
        """The next block to show (the last one padded with zeroes), or None at the end."""
        r, size = self.reader, self.blocksize
        if self.started:
            r.address += size
        self.started = True
        buf = b""
        while True:
            if r.length == 0 or (self.ateof and not r.next()):
                if not buf:
                    return None
                self.eaddress = r.address + len(buf)
                return buf + bytes(size - len(buf))
            if r.stdin_dead:
                r.warn("all input file arguments failed")
                return None
            chunk = r.read(size - len(buf))
            if not chunk:
                self.ateof = True
                continue
            self.ateof = False
            if r.length >= 0:
                r.length -= len(chunk)
            buf += chunk
            if len(buf) < size:
                continue
            if self.vflag in ("all", "first") or buf != self.saved:
                if self.vflag in ("dup", "first"):
                    self.vflag = "wait"
                self.saved = buf
                return buf
            if self.vflag == "wait":
                self.pending.append("*\n")
            self.vflag = "dup"
            r.address += size
            buf = b""

    def show(self, block: bytes) -> None:
        if not self.eaddress:  # a whole block: the formats' plans
            self.plans = self.plans or [_plan(fs) for fs in self.formats]
            address = self.reader.address
            for steps in self.plans:
                _run_plan(steps, block, address, self.pending)
            return
        out = self.pending
        for fs in self.formats:
            address, at = self.reader.address, 0
            for fu in fs.fus:
                if fu.ignore:
                    break
                for cnt in range(fu.reps, 0, -1):
                    for pr in fu.prs:
                        if address >= self.eaddress and pr.kind not in ("text", "bpad"):
                            _bpad(pr)
                        text = _render(pr, block, at, address)
                        out.append(text[:-1] if cnt == 1 and pr.nospace else text)
                        address += pr.bcnt
                        at += pr.bcnt

    def end(self) -> None:
        """``%_A``: where the data ended (nothing for no data at all)."""
        if self.endfu is None:
            return
        if not self.eaddress:
            if not self.reader.address:
                return
            self.eaddress = self.reader.address
        for pr in self.endfu.prs:
            if pr.kind == "address":
                self.pending.append(_render(pr, b"", 0, self.eaddress))
            elif pr.kind == "text":
                self.pending.append(pr.text)

    def run(self) -> Iterator[str]:
        """The output, a batch of blocks at a time."""
        count = 0
        while (block := self.get()) is not None:
            if count % BATCH == 0:
                current().spend(1 + BATCH * self.blocksize // BYTES_PER_UNIT)
            self.show(block)
            count += 1
            if count % BATCH == 0:
                yield self.flush()
        self.end()
        yield self.flush()

    def flush(self) -> str:
        text = "".join(self.pending)
        self.pending = []
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


# -- the command ---------------------------------------------------------------------------------

_LONGS = {
    "one-byte-octal": (NO, "b"),
    "one-byte-char": (NO, "c"),
    "canonical": (NO, "C"),
    "two-bytes-decimal": (NO, "d"),
    "two-bytes-octal": (NO, "o"),
    "two-bytes-hex": (NO, "x"),
    "format": (REQUIRED, "e"),
    "format-file": (REQUIRED, "f"),
    "color": (OPTIONAL, "L"),
    "length": (REQUIRED, "n"),
    "skip": (REQUIRED, "s"),
    "no-squeezing": (NO, "v"),
    "help": (NO, "h"),
    "version": (NO, "V"),
}


@dataclass
class _Args:
    formats: list[_Fs] = field(default_factory=list)
    length: int = -1
    skip: int = 0
    verbose: bool = False
    files: list[str] = field(default_factory=list)


def _format_file(p: _Proc, name: str) -> Iterator[str]:
    """The format lines of ``-f FILE`` (blank lines and ``#`` comments left out)."""
    try:
        text = p.read(name)
    except FsError as exc:
        if exc.code == "EISDIR":  # it opens, and reading it gives no line
            return
        raise Fatal(f"can't read {name}: {exc.strerror}") from None
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(_SPACE)
        if stripped and not stripped.startswith("#"):
            yield stripped


def _size(value: str, what: str) -> int:
    size = parse_size(value)
    if size is None:
        raise Fatal(f"failed to parse {what}: '{value}': Invalid argument")
    return size


def _parse(p: _Proc, pname: str) -> _Args | str:
    """The options, in order (formats are added as they come); a str: the help or version to print."""
    args = _Args()
    if pname == "hd":
        args.formats.extend(add_format(f) for f in _CANONICAL)
    found, args.files = getopt_long(list(p.args), "bcCde:f:L::n:os:vxhV", _LONGS)
    for key, value in found:
        if key in _SHORTHANDS:
            args.formats.extend(add_format(f) for f in _SHORTHANDS[key])
        elif key == "e":
            args.formats.append(add_format(value or ""))
        elif key == "f":
            args.formats.extend(add_format(line) for line in _format_file(p, value or ""))
        elif key == "L":
            if value is not None and value not in ("auto", "never", "always"):
                raise Fatal(f"unsupported color mode: '{value}'")
        elif key == "n":
            args.length = _size(value or "", "length")
        elif key == "s":
            args.skip = _size(value or "", "offset")
        elif key == "v":
            args.verbose = True
        elif key == "h":
            return _HELP.format(pname)
        elif key == "V":
            return f"{pname} {VERSION}\n"
    if not args.formats:
        args.formats.extend(add_format(f) for f in _DEFAULT)
    return args


def _hexdump(p: _Proc, pname: str) -> Generator[str, None, int]:
    args = _parse(p, pname)
    if isinstance(args, str):
        yield args
        return 0
    blocksize = 0
    for fs in args.formats:
        fs.bcnt = _block_size(fs)
        blocksize = max(blocksize, fs.bcnt)
    rules = _Rules(blocksize)
    for fs in args.formats:
        rules.rewrite(fs)
    reader = _Reader(p, pname, args.files, args.skip, args.length)
    yield from _Display(reader, args.formats, blocksize, rules.endfu, args.verbose).run()
    return reader.status


@applet("hexdump", "hd")
@streaming()
def _u_hexdump(p: _Proc) -> Generator[str, None, int]:
    """hexdump (hd: hexdump -C): bytes shown through printf-like formats."""
    pname = posixpath.basename(p.name)
    try:
        return (yield from _hexdump(p, pname))
    except Fatal as exc:
        p.ctx.err.write(f"{pname}: {exc.message}\n")
        if exc.try_help:
            p.ctx.err.write(f"Try '{pname} --help' for more information.\n")
        return exc.status
