"""hexdump's format strings: parsed into format and print units, and rendered per block the way
util-linux renders them (C printf's flags, ``%_a``/``%_A`` addresses, ``%_c``/``%_p``/``%_u`` bytes)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from ...longopts import Fatal

SPACE = " \t\n\v\f\r"
_SPEC = ".#-+ 0123456789"
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_C_NAMES = {0: "\\0", 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
_U_NAMES = ["nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr", "so",
            "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs",
            "rs", "us"]  # fmt: skip


def parse_size(text: str) -> int | None:
    """util-linux's ``strtosize``: a number (``0x``: hex, ``0``: octal) and an optional suffix
    (``K``, ``KiB``: 1024; ``KB``: 1000; up to ``Y``); None where it is not one."""
    s = text.lstrip(SPACE)
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
class Fu:
    """A format unit: ``reps`` times its print units, ``bcnt`` bytes each time."""

    fmt: str
    reps: int = 1
    bcnt: int = 0
    setrep: bool = False
    ignore: bool = False
    prs: list[_Pr] = field(default_factory=list)


@dataclass
class Fs:
    """A format string (one ``-e``, one line of ``-f``, one of a shorthand's)."""

    fus: list[Fu] = field(default_factory=list)
    bcnt: int = 0


def _skip_space(s: str, i: int) -> int:
    while i < len(s) and s[i] in SPACE:
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


def add_format(fmt: str) -> Fs:
    """A format string cut into format units (``bad format {...}`` where it is not one)."""
    fs = Fs()
    i = 0
    while True:
        i = _skip_space(fmt, i)
        if i >= len(fmt):
            return fs
        fu = Fu("")
        fs.fus.append(fu)
        if fmt[i].isdigit():
            fu.reps, i = _number(fmt, i)
            if i >= len(fmt) or (fmt[i] not in SPACE and fmt[i] != "/"):
                raise Fatal(f"bad format {{{fmt}}}")
            fu.setrep = True
            i = _skip_space(fmt, i + 1)
        if i < len(fmt) and fmt[i] == "/":
            i = _skip_space(fmt, i + 1)
        if i < len(fmt) and fmt[i].isdigit():
            fu.bcnt, i = _number(fmt, i)
            if i >= len(fmt) or fmt[i] not in SPACE:
                raise Fatal(f"bad format {{{fmt}}}")
            i = _skip_space(fmt, i + 1)
        end = fmt.find('"', i + 1)
        if i >= len(fmt) or fmt[i] != '"' or end < 0:
            raise Fatal(f"bad format {{{fmt}}}")
        fu.fmt = _escape(fmt[i + 1 : end])
        i = end + 1


def block_size(fs: Fs) -> int:
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


class Rules:
    """hexdump's ``rewrite_rules``: print units and their byte counts, checked."""

    def __init__(self, blocksize: int) -> None:
        self.blocksize = blocksize
        #: the format unit whose ``%_A`` prints where the data ended
        self.endfu: Fu | None = None

    def rewrite(self, fs: Fs) -> None:
        for fu in fs.fus:
            self.units(fu)
            if not fu.bcnt:
                fu.bcnt = sum(pr.bcnt for pr in fu.prs)
        for n, fu in enumerate(fs.fus):
            if n == len(fs.fus) - 1 and fs.bcnt < self.blocksize and not fu.setrep and fu.bcnt:
                fu.reps += (self.blocksize - fs.bcnt) // fu.bcnt
            if fu.reps > 1 and fu.prs and fu.prs[-1].text[-1:] in tuple(SPACE) and fu.prs[-1].kind == "text":
                fu.prs[-1].nospace = True

    def units(self, fu: Fu) -> None:
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

    def unit(self, fu: Fu, fmt: str, start: int, p1: int) -> tuple[_Pr, int]:
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

    def underscore(self, fu: Fu, fmt: str, p1: int, pr: _Pr) -> int:
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
    def count(fu: Fu, allowed: tuple[int, ...], shown: str, default: int = 1) -> int:
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


def render(pr: _Pr, block: bytes, at: int, address: int) -> str:
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


def bpad(pr: _Pr) -> None:
    """Past the end of the data a conversion prints blanks as wide as its field."""
    pr.kind = "bpad"


#: the print units whose text depends only on one byte
_BYTEWISE = ("int", "uint", "char", "_p", "_c", "_u")


@dataclass(frozen=True)
class Step:
    """A step of a plan: a text; a table of what each byte value prints; a Python format of an
    integer (``size`` bytes); or a print unit to render. ``at``: the offset in the block it reads."""

    at: int = 0
    text: str = ""
    table: list[str] | None = None
    spec: str | None = None
    size: int = 0
    signed: bool = False
    pr: _Pr | None = None


def _step(pr: _Pr, at: int, last: bool) -> Step:
    """How a plan shows one print unit of a whole block."""
    if pr.kind == "text":
        return Step(text=pr.text[:-1] if last and pr.nospace else pr.text)
    if pr.bcnt == 1 and pr.kind in _BYTEWISE:
        return Step(at, table=[render(pr, bytes([b]), 0, 0) for b in range(256)])
    if pr.kind in ("int", "uint") and pr.prec is None and "#" not in pr.flags:
        # Python's % prints these as C's printf does
        spec = pr.text.replace("%", "%%") + "%" + pr.flags + (str(pr.width) if pr.width else "") + pr.conv
        return Step(at, spec=spec, size=pr.bcnt, signed=pr.kind == "int")
    return Step(at, pr=pr)


def plan(fs: Fs) -> list[Step]:
    """What a format string prints for a whole block, worked out once: texts as they are, each
    one-byte conversion as a table of its 256 texts."""
    steps: list[Step] = []
    at = 0
    for fu in fs.fus:
        if fu.ignore:
            break
        for cnt in range(fu.reps, 0, -1):
            for pr in fu.prs:
                steps.append(_step(pr, at, cnt == 1))
                at += pr.bcnt
    return steps


def run_plan(steps: list[Step], block: bytes, address: int, out: list[str]) -> None:
    for step in steps:
        if step.table is not None:
            out.append(step.table[block[step.at]])
        elif step.spec is not None:
            out.append(
                step.spec % int.from_bytes(block[step.at : step.at + step.size], "little", signed=step.signed)
            )
        elif step.pr is not None:
            out.append(render(step.pr, block, step.at, address + step.at))
        else:
            out.append(step.text)


# -- input ---------------------------------------------------------------------------------------
