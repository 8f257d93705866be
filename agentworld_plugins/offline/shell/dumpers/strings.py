"""strings: GNU binutils 2.40's runs of printable characters in files (the whole file, as ``-a``).

A string is at least ``-n`` (4) characters that are printable ASCII or a tab (``-w``: any
whitespace; ``-e S``: any byte above 0x7f), in characters of one byte (``-e s``, ``S``), two
(``-e l``, ``b``: little or big endian) or four (``-e L``, ``B``). ``-U`` shows UTF-8 characters
escaped (``e``, ``h``), as hex (``x``) or (``l``) by their first byte, as binutils 2.40 does.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError
from ..limits import current
from ..longopts import NO, REQUIRED, Fatal, getopt_long
from ..pipes import streaming
from ..proc import FD_PATH
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

#: bytes of input per unit of work
BYTES_PER_UNIT = 16

_USAGE = """\
Usage: {0} [option(s)] [file(s)]
 Display printable strings in [file(s)] (stdin by default)
 The options are:
  -a - --all                Scan the entire file, not just the data section [default]
  -d --data                 Only scan the data sections in the file
  -f --print-file-name      Print the name of the file before each string
  -n <number>               Locate & print any sequence of at least <number>
    --bytes=<number>         displayable characters.  (The default is 4).
  -t --radix={{o,d,x}}        Print the location of the string in base 8, 10 or 16
  -w --include-all-whitespace Include all whitespace as valid string characters
  -o                        An alias for --radix=o
  -T --target=<BFDNAME>     Specify the binary file format
  -e --encoding={{s,S,b,l,B,L}} Select character size and endianness:
                            s = 7-bit, S = 8-bit, {{b,l}} = 16-bit, {{B,L}} = 32-bit
  --unicode={{default|show|invalid|hex|escape|highlight}}
  -U {{d|s|i|x|e|h}}          Specify how to treat UTF-8 encoded unicode characters
  -s --output-separator=<string> String used to separate strings in output.
  @<file>                   Read options from <file>
  -h --help                 Display this information
  -v -V --version           Print the program's version number
{0}: supported targets: elf64-x86-64 elf32-i386 elf32-iamcu elf32-x86-64 pei-i386 pe-x86-64 pei-x86-64 \
elf64-little elf64-big elf32-little elf32-big pe-bigobj-x86-64 pe-i386 pdb srec symbolsrec verilog tekhex binary \
ihex plugin
"""
_BUGS = "Report bugs to <https://sourceware.org/bugzilla/>\n"
_VERSION = """\
GNU strings (GNU Binutils for Debian) 2.40
Copyright (C) 2023 Free Software Foundation, Inc.
This program is free software; you may redistribute it under the terms of
the GNU General Public License version 3 or (at your option) any later version.
This program has absolutely no warranty.
"""

_LONGS = {
    "all": (NO, "a"),
    "data": (NO, "d"),
    "print-file-name": (NO, "f"),
    "bytes": (REQUIRED, "n"),
    "radix": (REQUIRED, "t"),
    "include-all-whitespace": (NO, "w"),
    "encoding": (REQUIRED, "e"),
    "target": (REQUIRED, "T"),
    "output-separator": (REQUIRED, "s"),
    "unicode": (REQUIRED, "U"),
    "help": (NO, "h"),
    "version": (NO, "v"),
}
_UNICODE = {"d": "default", "l": "locale", "i": "invalid", "x": "hex", "e": "escape", "h": "highlight"}
#: a UTF-8 character of two to four bytes
_UTF8 = (
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
    rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)


class _Usage(Exception):
    """strings prints its usage on stderr and ends with status 1."""


@dataclass
class _Opts:
    minimum: int = 4
    filenames: bool = False
    radix: int = 0
    whitespace: bool = False
    encoding: str = "s"
    separator: str | None = None
    unicode: str = "default"


def _strtoul(text: str) -> tuple[int, str]:
    """C's ``strtoul(text, &rest, 0)`` (a minus negates, modulo 2**64): the value and the rest."""
    s = text.lstrip(" \t\n\v\f\r")
    negative = s[:1] == "-"
    if s[:1] in ("+", "-"):
        s = s[1:]
    base, digits = 10, "0123456789"
    if s[:2].lower() == "0x" and s[2:3] and s[2] in "0123456789abcdefABCDEF":
        base, digits, s = 16, "0123456789abcdefABCDEF", s[2:]
    elif s[:1] == "0":
        base, digits = 8, "01234567"
    end = 0
    while end < len(s) and s[end] in digits:
        end += 1
    if end == 0:
        return 0, text
    value = int(s[:end], base)
    return (-value if negative else value) % (1 << 64), s[end:]


def _minimum(text: str) -> int:
    """``-n``'s value, as strings keeps it (an unsigned int); fatal where it is no number."""
    value, rest = _strtoul(text)
    if rest:
        raise Fatal(f"invalid integer argument {text}")
    return value & 0xFFFFFFFF


def _parse(p: _Proc) -> tuple[_Opts, list[str]] | str:
    """The options and operands; a str: the help or version text to print."""
    o = _Opts()
    found, operands = getopt_long(list(p.args), "adfhHn:wot:e:T:s:U:Vv0123456789", _LONGS)
    numeric: str | None = None
    for key, value in found:
        value = value or ""
        if key in ("h", "H"):
            return _USAGE.format(p.name) + _BUGS
        if key in ("v", "V"):
            return _VERSION
        if key == "n":
            o.minimum = _minimum(value)
        elif key.isdigit():
            numeric = _numeric_argument(p.args, key)
        elif key in ("t", "e", "o"):
            _radix_or_encoding(o, key, value)
        elif key == "U":
            o.unicode = _unicode(value)
        else:
            _flag(o, key, value)
    if numeric is not None:
        o.minimum = _minimum(numeric)
    if o.minimum < 1:
        raise Fatal(f"invalid minimum string length {o.minimum}")
    if o.encoding not in ("s", "S", "b", "l", "B", "L"):
        raise _Usage()
    return o, operands


def _flag(o: _Opts, key: str, value: str) -> None:
    if key == "f":
        o.filenames = True
    elif key == "w":
        o.whitespace = True
    elif key == "s":
        o.separator = value
    # -a, -d (only object files' data: none here is one) and -T change nothing


def _radix_or_encoding(o: _Opts, key: str, value: str) -> None:
    if key == "o":
        o.radix = 8
        return
    if len(value) != 1:
        raise _Usage()
    if key == "e":
        o.encoding = value
    elif value in ("o", "d", "x"):
        o.radix = {"o": 8, "d": 10, "x": 16}[value]
    else:
        raise _Usage()


def _unicode(value: str) -> str:
    names = {v: v for v in _UNICODE.values()}
    mode = _UNICODE.get(value) if len(value) == 1 else names.get(value)
    if mode is None:
        raise Fatal(f"invalid argument to -U/--unicode: {value}")
    return mode


def _numeric_argument(args: list[str], digit: str) -> str:
    """The text ``-NUMBER`` gives (strings reads the argument the last digit option ended)."""
    index = max(n for n, a in enumerate(args) if a.startswith("-") and not a.startswith("--") and digit in a)
    if args[index].endswith(digit):
        return args[index][1:]
    return ("strings" if index == 0 else args[index - 1])[1:]


def _pattern(o: _Opts) -> re.Pattern[bytes]:
    """A run of at least ``-n`` characters strings shows."""
    graphic = rb"\t\x20-\x7e" + (rb"\n\v\f\r" if o.whitespace else b"")
    if o.encoding == "S":
        graphic += rb"\x80-\xff"
    one = b"[" + graphic + b"]"
    if o.encoding in ("s", "S") and o.unicode not in ("default", "invalid"):
        one = b"(?:" + one + b"|" + _UTF8 + b")"
    char = {
        "l": one + b"\x00",
        "b": b"\x00" + one,
        "L": one + b"\x00\x00\x00",
        "B": b"\x00\x00\x00" + one,
    }.get(o.encoding, one)
    return re.compile(b"(?:" + char + b"){%d,}" % o.minimum)


def _shown(o: _Opts, run: bytes) -> bytes:
    """The bytes strings writes for a run."""
    if o.encoding in ("l", "L"):
        return run[:: 2 if o.encoding == "l" else 4]
    if o.encoding in ("b", "B"):
        return run[1 if o.encoding == "b" else 3 :: 2 if o.encoding == "b" else 4]
    if o.unicode in ("default", "invalid"):
        return run
    return re.sub(_UTF8, lambda m: _unicode_char(o.unicode, m.group()), run)


def _unicode_char(mode: str, char: bytes) -> bytes:
    if mode == "locale":
        return char[:1]
    if mode == "hex":
        return b"<0x" + char.hex().encode() + b">"
    return b"\\u%04x" % ord(char.decode("utf-8"))


def _strings(o: _Opts, name: str, data: bytes) -> str:
    """What strings prints for one input."""
    current().spend(1 + len(data) // BYTES_PER_UNIT)
    if o.minimum > len(data):
        return ""
    sep = b"\n" if o.separator is None else o.separator.encode("utf-8", "surrogateescape")
    head = (name + ": ").encode("utf-8", "surrogateescape") if o.filenames else b""
    address = {8: "%7o ", 10: "%7d ", 16: "%7x "}.get(o.radix)
    out: list[bytes] = []
    for m in _pattern(o).finditer(data):
        where = (address % m.start()).encode() if address else b""
        out.append(head + where + _shown(o, m.group()) + sep)
    return b"".join(out).decode("utf-8", "surrogateescape")


def _file(p: _Proc, name: str) -> bytes | None:
    """A file operand's bytes; None, reported, where it cannot be read."""
    path = p.path(name)
    try:
        node = None if FD_PATH.fullmatch(path) else p.fs.stat(path)
    except FsError as exc:
        if exc.code == "ENOENT":
            p.ctx.err.write(f"{p.name}: '{name}': No such file\n")
        else:
            p.ctx.err.write(f"{p.name}: Warning: could not locate '{name}'.  reason: {exc.strerror}\n")
        return None
    if isinstance(node, DirNode):
        p.ctx.err.write(f"{p.name}: Warning: '{name}' is a directory\n")
        return None
    try:
        return p.read_path(path).encode("utf-8", "surrogateescape")
    except FsError as exc:
        p.ctx.err.write(f"{p.name}: {name}: {exc.strerror}\n")
        return None


def _run(p: _Proc) -> Generator[str, None, int]:
    parsed = _parse(p)
    if isinstance(parsed, str):
        yield parsed
        return 0
    o, operands = parsed
    if not operands:
        yield _strings(o, "{standard input}", p.stdin().encode("utf-8", "surrogateescape"))
        return 0
    status = 0
    names = [n for n in operands if n != "-"]
    for name in names:
        data = _file(p, name)
        if data is None:
            status = 1
        else:
            yield _strings(o, name, data)
    if not names:
        raise _Usage()
    return status


@applet("strings")
@streaming()
def _u_strings(p: _Proc) -> Generator[str, None, int]:
    """strings: the printable runs in files (or stdin)."""
    try:
        return (yield from _run(p))
    except Fatal as exc:
        p.ctx.err.write(f"{p.name}: {exc.message}\n")
        if exc.try_help:  # getopt's complaint, then the usage
            p.ctx.err.write(_USAGE.format(p.name))
        return exc.status
    except _Usage:
        p.ctx.err.write(_USAGE.format(p.name))
        return 1
