"""hexdump and hd: util-linux 2.38's format-driven dump (``-C``, ``-b -c -d -o -x``, ``-e``, ``-f``).

A format is a list of format units (``[reps/][bytes] "printf text"``), each cut into print units,
one conversion each (``%x``, ``%_p``, ``%_ax``...); a block of input (the longest format's size)
goes through every format. A block like the one before is shown once, then ``*`` (``-v``: all).
The end of the data pads the print units past it with blanks, and ``%_A`` prints where it ended.
"""

from __future__ import annotations

import posixpath
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...applet_io import lines_with_ends, stdin_bytes
from ...limits import current
from ...longopts import NO, OPTIONAL, REQUIRED, Fatal, getopt_long
from ...pipes import streaming
from ...registry import applet
from .formats import (
    SPACE,
    Fs,
    Fu,
    Rules,
    Step,
    add_format,
    block_size,
    bpad,
    parse_size,
    plan,
    render,
    run_plan,
)

if TYPE_CHECKING:
    from ...proc import _Proc

#: blocks shown between two writes (and charges to the step budget)
BATCH = 256
#: bytes shown per unit of work
BYTES_PER_UNIT = 1
#: bytes read (shown or squeezed into a ``*``) per unit of work, and how many are charged at once
SQUEEZE_BYTES_PER_UNIT = 16
SQUEEZE_CHARGE = 65536
VERSION = "from util-linux 2.38.1"

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


@dataclass
class _Source:
    name: str
    data: bytes
    pos: int = 0
    error: str | None = None


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
            return _Source("stdin", stdin_bytes(stdin, None if self.length < 0 else self.length))
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
        self, reader: _Reader, formats: list[Fs], blocksize: int, endfu: Fu | None, verbose: bool
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
        self.plans: list[list[Step]] = []

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
            self.plans = self.plans or [plan(fs) for fs in self.formats]
            address = self.reader.address
            for steps in self.plans:
                run_plan(steps, block, address, self.pending)
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
                            bpad(pr)
                        text = render(pr, block, at, address)
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
                self.pending.append(render(pr, b"", 0, self.eaddress))
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
    formats: list[Fs] = field(default_factory=list)
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
    for line in lines_with_ends(text):
        stripped = line.lstrip(SPACE)
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
        fs.bcnt = block_size(fs)
        blocksize = max(blocksize, fs.bcnt)
    rules = Rules(blocksize)
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
