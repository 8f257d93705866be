"""xxd: vim's hex dump and its reverse, as Debian's ``xxd 2022-01-14`` prints them.

The options are xxd's own: an argument is known by its first two characters, after one or two
dashes (``-ps``, ``-cols 8``, ``--len 8``); the last of ``-b -e -i -p`` wins; numbers are read as
C's ``strtol`` reads them (``0x10``, ``010``). Errors are xxd's: its usage text (status 1), ``Sorry, cannot
seek.`` (4), ``Sorry, cannot seek backwards.`` (5), an input that cannot be opened (2), an output
that cannot be (3).
"""

from __future__ import annotations

import posixpath
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import stdin_bytes
from ..limits import current, reserve
from ..pipes import streaming
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

#: bytes handled between two charges to the step budget
BLOCK = 4096
#: bytes of input per unit of work
BYTES_PER_UNIT = 4
#: the widest line of a normal, bits or little-endian dump
COLS_MAX = 256
NORMAL, POSTSCRIPT, CINCLUDE, BITS, LITTLE = "normal", "postscript", "cinclude", "bits", "little"
VERSION = "xxd 2022-01-14 by Juergen Weigert et al."
ULONG = 1 << 64

_USAGE = """\
Usage:
       {0} [options] [infile [outfile]]
    or
       {0} -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -E          show characters in EBCDIC. Default ASCII.
    -e          little-endian dump (incompatible with -ps,-i,-r).
    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).
    -h          print this summary.
    -i          output in C include file style.
    -l len      stop after <len> octets.
    -n name     set the variable name used in C include output (-i).
    -o off      add <off> to the displayed file position.
    -ps         output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -r -s off   revert with <off> added to file positions found in hexdump.
    -d          show offset in decimal instead of hex.
    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.
    -u          use upper case hex letters.
    -v          show version: "{1}".
"""

#: how xxd -E shows the bytes 0x40-0xff (the bytes below are all '.')
_EBCDIC_SHOWN = (
    " ...........<(+|&.........!$*);~-/.........,%_>?.........`:#@'=\".abcdefghi.......jklmnopqr^"
    ".......stuvwxyz...[...............]..{ABCDEFGHI......}JKLMNOPQR......\\.STUVWXYZ......0123456789......"
)
_ASCII = "".join(chr(b) if 32 <= b < 127 else "." for b in range(256))
_EBCDIC = "." * 64 + _EBCDIC_SHOWN
_HEX_VALUE = [int(chr(b), 16) if chr(b) in "0123456789abcdefABCDEF" else -1 for b in range(256)]
_FLAGS = {"-b": BITS, "-e": LITTLE, "-p": POSTSCRIPT, "-i": CINCLUDE}


class _Quit(Exception):
    """xxd ends with ``status`` (its message already written)."""

    def __init__(self, status: int) -> None:
        self.status = status


def _strtol(text: str, bits: int = 64) -> int:
    """C's ``strtol(text, NULL, 0)``: the leading number (``0x``: hex, ``0``: octal), 0 where none."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = 1
    if s[:1] in ("+", "-"):
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    base = 10
    if s[:2].lower() == "0x" and s[2:3] and s[2] in "0123456789abcdefABCDEF":
        base, s = 16, s[2:]
    elif s[:1] == "0":
        base = 8
    digits = "0123456789abcdef"[:base]
    end = 0
    while end < len(s) and s[end].lower() in digits:
        end += 1
    value = sign * int(s[:end], base) if end else 0
    top = 1 << (bits - 1)
    return max(-top, min(top - 1, value))


@dataclass
class _Opts:
    """What xxd's command line asks for."""

    autoskip: bool = False
    hextype: str = NORMAL
    upper: bool = False
    capitalize: bool = False
    decimal: bool = False
    revert: bool = False
    ebcdic: bool = False
    cols: int = 0
    cols_given: bool = False
    group: int = -1
    display: int = 0
    seek: int = 0
    seek_given: bool = False
    relative: bool = False
    negative: bool = False
    length: int = -1
    name: str | None = None
    operands: list[str] = field(default_factory=list)


class _Parser:
    """xxd's option loop: each argument is matched on its first two characters."""

    def __init__(self, p: _Proc, pname: str) -> None:
        self.p = p
        self.pname = pname
        self.args = list(p.args)
        self.opts = _Opts()

    def usage(self) -> _Quit:
        self.p.ctx.err.write(_USAGE.format(self.pname, VERSION))
        return _Quit(1)

    def value(self, pp: str, *keywords: str) -> str:
        """An option's value: the rest of the argument, or (after the long name) the next one."""
        rest = pp[2:]
        if rest and not any(rest.startswith(k) for k in keywords):
            return rest
        if len(self.args) < 2:
            raise self.usage()
        return self.args.pop(1)

    def parse(self) -> _Opts:
        o = self.opts
        while self.args:
            a = self.args[0]
            pp = a[1:] if a.startswith("--") and len(a) > 2 else a
            if pp == "--":
                self.args.pop(0)
                break
            if not self.option(pp[:2], pp):
                if pp.startswith("-") and len(pp) > 1:
                    raise self.usage()
                break
            self.args.pop(0)
        o.operands = self.args
        return o

    def option(self, key: str, pp: str) -> bool:
        """Apply one option; False where ``pp`` is none xxd knows."""
        o = self.opts
        if key == "-a":
            o.autoskip = not o.autoskip
        elif key in _FLAGS:
            o.hextype = _FLAGS[key]
        elif key in ("-u", "-C", "-d", "-r", "-E"):
            setattr(
                o,
                {"-u": "upper", "-C": "capitalize", "-d": "decimal", "-r": "revert", "-E": "ebcdic"}[key],
                True,
            )
        elif key == "-v":
            self.p.ctx.err.write(VERSION + "\n")
            raise _Quit(0)
        elif key == "-c":
            if pp[2:].startswith("apitalize"):
                o.capitalize = True
            else:
                o.cols, o.cols_given = _strtol(self.value(pp, "ols"), 32), True
        elif key == "-g":
            o.group = _strtol(self.value(pp, "roup"), 32)
        elif key == "-o":
            o.display = _strtol(self.value(pp, "ffset")) % ULONG
        elif key == "-s":
            self.seek(self.value(pp, "kip", "eek"))
        elif key == "-l":
            o.length = _strtol(self.value(pp, "en"))
        elif key == "-n":
            o.name = self.value(pp, "ame")
        else:
            return False
        return True

    def seek(self, text: str) -> None:
        o = self.opts
        o.seek_given = True
        o.relative = text.startswith("+")
        text = text[o.relative :]
        o.negative = text.startswith("-")
        o.seek = _strtol(text[o.negative :])


@dataclass
class _Source:
    """An opened input: its bytes from the start, where reading starts, and how it can move."""

    data: bytes
    pos: int = 0
    seekable: bool = True
    stdin: bool = False
    #: the error the first read runs into (a directory opens, but reading it fails)
    error: str | None = None


def _open_input(p: _Proc, pname: str, name: str | None, want: int | None) -> _Source:
    """The input operand (none, or ``-``: stdin), or xxd's error (status 2)."""
    if name is None or name == "-":
        stdin = p.ctx.stdin
        if stdin.seekable:
            before = stdin.data[: stdin.pos].encode("utf-8", "surrogateescape")
            data = stdin.data.encode("utf-8", "surrogateescape")
            stdin.read()
            return _Source(data, len(before), stdin=True)
        return _Source(stdin_bytes(stdin, want), seekable=False, stdin=True)
    try:
        return _Source(p.read(name, want).encode("utf-8", "surrogateescape"))
    except FsError as exc:
        if exc.code == "EISDIR":
            return _Source(b"", error=exc.strerror)
        p.ctx.err.write(f"{pname}: {name}: {exc.strerror}\n")
        raise _Quit(2) from None


def _wanted(o: _Opts) -> int | None:
    """The most bytes of the input xxd can use (None: all of it)."""
    if o.revert or o.length < 0 or (o.seek_given and o.negative):
        return None
    return max(0, o.seek) + o.length if o.seek_given else o.length


def _seek(o: _Opts, src: _Source, pname: str, p: _Proc) -> int:
    """Move to ``-s``'s offset; the offset dumps are numbered from."""
    if not o.seek_given:
        return 0
    if src.seekable:
        if o.relative:
            target = src.pos - o.seek if o.negative else src.pos + o.seek
        else:
            target = len(src.data) - o.seek if o.negative else o.seek
        if target >= 0:
            src.pos = target
            return target
    if not o.negative and 0 <= o.seek <= len(src.data) - src.pos:
        src.pos += o.seek
        return o.seek
    p.ctx.err.write(f"{pname}: Sorry, cannot seek.\n")
    raise _Quit(4)


def _settle(o: _Opts, pname: str, p: _Proc) -> None:
    """Fill in the default columns and grouping; xxd's complaints about bad ones."""
    if not o.cols_given or (not o.cols and o.hextype != POSTSCRIPT):
        o.cols = {POSTSCRIPT: 30, CINCLUDE: 12, BITS: 6}.get(o.hextype, 16)
    if o.group < 0:
        o.group = {BITS: 1, NORMAL: 2, LITTLE: 4}.get(o.hextype, 0)
    wide = o.hextype in (NORMAL, BITS, LITTLE) and o.cols > COLS_MAX
    if (o.hextype == POSTSCRIPT and o.cols < 0) or (o.hextype != POSTSCRIPT and o.cols < 1) or wide:
        p.ctx.err.write(f"{pname}: invalid number of columns (max. {COLS_MAX}).\n")
        raise _Quit(1)
    if o.group < 1 or o.group > o.cols:
        o.group = o.cols
    elif o.hextype == LITTLE and o.group & (o.group - 1):
        p.ctx.err.write(f"{pname}: number of octets per group must be a power of 2 with -e.\n")
        raise _Quit(1)


class _Squeeze:
    """xxd -a's ``*``: the second of a run of all-zero lines is held back, three or more make one
    ``*`` (the run's last line shows where the dump ends)."""

    def __init__(self) -> None:
        self.seen = 0
        self.held = ""

    def feed(self, line: str, nonzero: int) -> str:
        """What to print for ``line`` (``nonzero``: 0 for a line of zeroes, -1 for the end)."""
        if not nonzero and self.seen == 1:
            self.held = line
        if not nonzero:
            self.seen += 1
            if self.seen != 1:
                return ""
        out = ""
        if nonzero:
            if nonzero < 0:
                self.seen -= 1
            if self.seen == 2:
                out += self.held
            if self.seen > 2:
                out += "*\n"
        if nonzero >= 0 or self.seen > 0:
            out += line
        if nonzero:
            self.seen = 0
        return out


class _Liner:
    """The lines of a normal (hex, bits or little-endian) dump, laid out as xxd lays them."""

    def __init__(self, o: _Opts) -> None:
        self.o = o
        g = o.group
        self.bits = o.hextype == BITS
        self.little = o.hextype == LITTLE
        self.grplen = 8 * g + 1 if self.bits else 2 * g + 1
        self.width = (self.grplen * o.cols - 1) // g
        self.chars = _EBCDIC if o.ebcdic else _ASCII
        self.simple = not self.little or (o.cols % g == 0 and not g & (g - 1))

    def address(self, offset: int) -> str:
        value = offset % ULONG
        if self.o.decimal:
            return f"{value - ULONG if value >= ULONG // 2 else value:08d}:"
        return f"{value:08x}:"

    def digits(self, chunk: bytes) -> str:
        if self.bits:
            return "".join(f"{b:08b}" for b in chunk)
        return chunk.hex().upper() if self.o.upper else chunk.hex()

    def line(self, offset: int, chunk: bytes) -> str:
        head = self.address(offset)
        shown = "".join(self.chars[b] for b in chunk)
        if not self.simple:
            return self.scattered(head, chunk, shown)
        g = self.o.group
        groups = [chunk[i : i + g] for i in range(0, len(chunk), g)]
        if self.little:
            cells = [self.digits(grp[::-1]).rjust(2 * g) for grp in groups]
        else:
            cells = [self.digits(grp) for grp in groups]
        return f"{head} {' '.join(cells).ljust(self.width)}  {shown}\n"

    def scattered(self, head: str, chunk: bytes, shown: str) -> str:
        """xxd -e with a line that is no whole number of groups: each byte where xxd puts it,
        the later ones over the earlier (as xxd writes them into one buffer)."""
        g = self.o.group
        base = len(head) + 1
        text = self.width + 2 + len(chunk)
        buf = [" "] * (base + text + 2 * self.grplen * self.o.cols)
        buf[: len(head)] = head
        for p, b in enumerate(chunk):
            c = base + (self.grplen * (p ^ (g - 1))) // g
            buf[c : c + 2] = self.digits(bytes([b]))
            buf[base + self.width + 2 + p] = shown[p]
        return "".join(buf[: base + text]) + "\n"


def _limited(o: _Opts, src: _Source) -> bytes:
    """The bytes a dump shows: from the position, at most ``-l`` of them."""
    end = len(src.data) if o.length < 0 else min(len(src.data), src.pos + o.length)
    return src.data[src.pos : max(src.pos, end)]


def _blocks(data: bytes, size: int) -> list[tuple[int, bytes]]:
    """``data`` in blocks of about :data:`BLOCK` bytes, each a whole number of ``size`` bytes."""
    step = size * max(1, BLOCK // max(1, size))
    return [(i, data[i : i + step]) for i in range(0, len(data), step)]


def _charge(block: bytes) -> None:
    current().spend(1 + len(block) // BYTES_PER_UNIT)


def _dump(o: _Opts, data: bytes, start: int) -> Iterator[str]:
    """The normal, bits and little-endian dumps."""
    liner = _Liner(o)
    squeeze = _Squeeze()
    last = ""
    cols = o.cols
    for at, block in _blocks(data, cols):
        _charge(block)
        out: list[str] = []
        for i in range(0, len(block), cols):
            chunk = block[i : i + cols]
            last = liner.line(start + o.display + at + i, chunk)
            if len(chunk) < cols:
                out.append(squeeze.feed(last, 1))
                last = ""
            else:
                out.append(squeeze.feed(last, any(chunk) if o.autoskip else 1))
        yield "".join(out)
    if o.autoskip and (not data or len(data) % cols == 0):
        yield squeeze.feed(last, -1)


def _postscript(o: _Opts, data: bytes) -> Iterator[str]:
    """xxd -p: plain hex, ``-c`` bytes a line (``-c 0``: all on one line)."""
    for _, block in _blocks(data, o.cols or BLOCK):
        _charge(block)
        digits = block.hex().upper() if o.upper else block.hex()
        if o.cols:
            step = 2 * o.cols
            yield "".join(digits[i : i + step] + "\n" for i in range(0, len(digits), step))
        else:
            yield digits
    if not o.cols:
        yield "\n"


def _c_name(name: str, capitalize: bool) -> str:
    """A file name as xxd -i makes a C identifier of it (each byte not a letter or digit: ``_``)."""
    raw = name.encode("utf-8", "surrogateescape")
    out = "__" if raw[:1].isdigit() else ""
    for b in raw:
        c = chr(b)
        out += (c.upper() if capitalize else c) if c.isascii() and c.isalnum() else "_"
    return out


def _include(o: _Opts, src: _Source, pname: str, p: _Proc) -> Iterator[str]:
    """xxd -i: a C array (named after the file, or ``-n``), ``-c`` values a line."""
    name = o.name if o.name is not None or src.stdin else o.operands[0]
    ident = _c_name(name, o.capitalize) if name is not None else None
    if ident is not None:
        yield f"unsigned char {ident}[] = {{\n"
    _read_error(o, src, pname, p)
    data = _limited(o, src)
    form = "0X{:02X}" if o.upper else "0x{:02x}"
    for at, block in _blocks(data, o.cols):
        _charge(block)
        lines = [
            ", ".join(form.format(b) for b in block[i : i + o.cols]) for i in range(0, len(block), o.cols)
        ]
        yield ("  " if not at else ",\n  ") + ",\n  ".join(lines)
    if data:
        yield "\n"
    if ident is not None:
        yield f"}};\nunsigned int {ident}_{'LEN' if o.capitalize else 'len'} = {len(data)};\n"


def _read_error(o: _Opts, src: _Source, pname: str, p: _Proc) -> None:
    """The error of an input that opened but cannot be read, where xxd reads it."""
    if src.error is not None and o.length != 0:
        p.ctx.err.write(f"{pname}: {src.error}\n")
        raise _Quit(2)


class _Patch:
    """xxd -r's output: a file patched in place (it is not truncated), or stdout, which cannot
    seek (a gap is written as zeroes; going back is an error)."""

    def __init__(self, old: bytes | None) -> None:
        self.seekable = old is not None
        self.buf = bytearray(old or b"")
        self.pos = 0

    def seek(self, target: int) -> bool:
        """Move to ``target``; False where that means going back on stdout."""
        if self.seekable and target >= 0:
            self.pos = target
            return True
        if target < self.pos:
            return False
        self._fill(target)
        return True

    def _fill(self, target: int) -> None:
        gap = target - len(self.buf)
        if gap > 0:
            current().spend(1 + gap // BYTES_PER_UNIT)
            reserve(gap)
            self.buf.extend(bytes(gap))
        self.pos = target

    def put(self, byte: int) -> None:
        if self.pos >= len(self.buf):
            self._fill(self.pos)
            self.buf.append(byte)
        else:
            self.buf[self.pos] = byte
        self.pos += 1


def _revert(data: bytes, cols: int, postscript: bool, base: int, out: _Patch) -> bool:
    """xxd -r (``postscript``: -r -p): the bytes of a dump, each line at its address (plus
    ``base``). False where it would have to seek back on stdout."""
    ign_garb, n1, n2, n3, p = True, -1, 0, 0, cols
    have = want = 0
    i, size, charged = 0, len(data), 0
    while i < size:
        if i >= charged:
            _charge(data[i : i + BLOCK])
            charged = i + BLOCK
        c = data[i]
        i += 1
        if c == 13 or (postscript and c in (32, 10, 9)):
            continue
        n3, n2, n1 = n2, n1, _HEX_VALUE[c]
        if n1 < 0 and ign_garb:
            continue
        ign_garb = False
        if not postscript and p >= cols:
            if n1 < 0:
                p = 0
            else:
                want = ((want << 4) | n1) % ULONG
            continue
        if base + want != have:
            if not out.seek(base + want):
                return False
            have = base + want
        if n2 >= 0 and n1 >= 0:
            out.put((n2 << 4) | n1)
            have, want, n1 = have + 1, want + 1, -1
            p += 1
            if not postscript and p >= cols:
                i, c = _eol(data, i)
        elif n1 < 0 and n2 < 0 and n3 < 0:
            i, c = _eol(data, i)
        if c == 10:
            if not postscript:
                want = 0
            p, ign_garb = cols, True
    return True


def _eol(data: bytes, i: int) -> tuple[int, int]:
    """Skip to the end of the line: the index after its newline and the newline (-1: none)."""
    end = data.find(b"\n", i - 1)
    return (len(data), -1) if end < 0 else (end + 1, 10)


def _open_output(p: _Proc, pname: str, o: _Opts) -> tuple[str | None, bytes | None]:
    """The output operand (none, or ``-``: stdout): its path and (for -r) what it holds."""
    if len(o.operands) < 2 or o.operands[1] == "-":
        return None, None
    name = o.operands[1]
    path = p.path(name)
    try:
        if not o.revert:
            p.fs.write(path, "")
            return path, None
        try:
            old = p.fs.read(path)
        except FsError as exc:
            if exc.code != "ENOENT":
                raise
            p.fs.write(path, "")
            old = ""
        return path, old.encode("utf-8", "surrogateescape") if isinstance(old, str) else old
    except FsError as exc:
        p.ctx.err.write(f"{pname}: {name}: {exc.strerror}\n")
        raise _Quit(3) from None


def _run_revert(
    p: _Proc, pname: str, o: _Opts, src: _Source, path: str | None, old: bytes | None
) -> Generator[str, None, int]:
    if o.hextype not in (NORMAL, POSTSCRIPT):
        p.ctx.err.write(f"{pname}: Sorry, cannot revert this type of hexdump\n")
        return 255
    data = b"" if src.error else src.data
    out = _Patch(old if path is not None else None)
    base = -o.seek if o.negative else o.seek
    done = _revert(data, o.cols, o.hextype == POSTSCRIPT, base, out)
    text = bytes(out.buf).decode("utf-8", "surrogateescape")
    if path is None:
        yield text
    else:
        current().charge(len(out.buf))
        p.fs.write(path, text)
    if not done:
        p.ctx.err.write(f"{pname}: Sorry, cannot seek backwards.\n")
        return 5
    return 0


def _chunks(p: _Proc, pname: str, o: _Opts, src: _Source) -> Iterator[str]:
    """The dump, a block at a time."""
    start = _seek(o, src, pname, p)
    if o.hextype == CINCLUDE:
        yield from _include(o, src, pname, p)
        return
    _read_error(o, src, pname, p)
    if o.hextype == POSTSCRIPT:
        yield from _postscript(o, _limited(o, src))
    else:
        yield from _dump(o, _limited(o, src), start)


def _run(p: _Proc, pname: str, o: _Opts) -> Generator[str, None, int]:
    _settle(o, pname, p)
    if len(o.operands) > 2:
        p.ctx.err.write(_USAGE.format(pname, VERSION))
        return 1
    src = _open_input(p, pname, o.operands[0] if o.operands else None, _wanted(o))
    path, old = _open_output(p, pname, o)
    if o.revert:
        return (yield from _run_revert(p, pname, o, src, path, old))
    if path is None:
        yield from _chunks(p, pname, o, src)
        return 0
    parts: list[str] = []
    try:  # the output operand gets what was made, even where xxd stops with an error
        for chunk in _chunks(p, pname, o, src):
            current().charge(len(chunk))
            parts.append(chunk)
    finally:
        try:
            p.fs.write(path, "".join(parts))
        except FsError:
            pass
    return 0


@applet("xxd")
@streaming()
def _u_xxd(p: _Proc) -> Generator[str, None, int]:
    """xxd: a hex (or bits, plain, C) dump of a file or stdin, or (-r) the bytes of one."""
    pname = posixpath.basename(p.name)
    try:
        return (yield from _run(p, pname, _Parser(p, pname).parse()))
    except _Quit as quit:
        return quit.status
