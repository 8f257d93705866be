"""find's ``-printf`` formats (GNU findutils 4.9) and its ``-ls`` lines.

A format is read once (its warnings and errors then, as GNU find reads it while parsing the
expression) into segments: literal text, a directive with its flags, width and precision, or
``\\c`` (stop). :func:`render` writes one file's line from them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from ..vfs import DirNode, FileNode, FsError, LinkNode, Node, VirtualFS, mode_string
from .escapes import _byte
from .fileinfo import _blocks, _nlink, inode_number, ls_time

#: the fraction GNU find prints after whole seconds (nanoseconds and a tenth digit)
FRACTION = ".0000000000"
#: st_dev of the machine's one filesystem (``stat``'s ``Device: 0,54``) and its type (``df -T``)
DEVICE = 54
FS_TYPE = "overlay"

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_SPEC = re.compile(r"[-+ #0]*\d*(?:\.\d*)?")
#: strftime letters GNU find hands to strftime (glibc's); others print as ``%`` and the letter
_STRFTIME = set("aAbBcCdDeFgGhHIjklmMnprRsStTuUVwWxXyYzZ+@")
_KNOWN = set("%aAbcCdDfFgGhHiklmMnpPsStTuUyYZ")


class FormatError(Exception):
    """A format find refuses (``find: error: ...``, status 1)."""


@dataclass(frozen=True)
class Directive:
    letter: str
    spec: str = ""  # flags, width and precision as written (``-10``, ``.3``)
    time_letter: str = ""  # the k of %Ak, %Ck, %Tk


STOP = Directive("\\c")
Segment = str | Directive


@dataclass
class Visit:
    """What a directive may name: the file as find shows it, where it is, its start point."""

    shown: str
    path: str
    node: Node
    depth: int
    start: str


def parse(fmt: str, warn: list[str]) -> list[Segment]:
    """The segments of ``fmt``; GNU's warnings (unknown directives or escapes) go to ``warn``."""
    out: list[Segment] = []
    text: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c == "\\":
            i += 1
            if i >= n:
                warn.append("warning: escape `\\' followed by nothing at all")
                text.append("\\")
                break
            e = fmt[i]
            if e in _ESCAPES:
                text.append(_ESCAPES[e])
                i += 1
            elif e == "c":
                if text:
                    out.append("".join(text))
                    text = []
                out.append(STOP)
                i += 1
            elif e in "01234567":
                j = i
                while j < n and j - i < 3 and fmt[j] in "01234567":
                    j += 1
                text.append(_byte(int(fmt[i:j], 8) & 0xFF))
                i = j
            else:
                warn.append(f"warning: unrecognized escape `\\{e}'")
                text.append("\\" + e)
                i += 1
            continue
        if c != "%":
            text.append(c)
            i += 1
            continue
        m = _SPEC.match(fmt, i + 1)
        spec = m.group(0) if m else ""
        j = i + 1 + len(spec)
        if j >= n:
            raise FormatError("error: % at end of format string")
        letter = fmt[j]
        if letter in "{[(":
            raise FormatError(f"error: the format directive `%{letter}' is reserved for future use")
        if letter == "%":
            text.append("%" + spec)
            i = j + 1
            continue
        if letter not in _KNOWN:
            warn.append(f"warning: unrecognized format directive `%{letter}'")
            text.append("%" + spec + letter)
            i = j + 1
            continue
        if text:
            out.append("".join(text))
            text = []
        if letter in "ACT":
            if j + 1 >= n:
                warn.append(f"warning: format directive `%{letter}' should be followed by another character")
                out.append("%" + spec + letter)
                break
            out.append(Directive(letter, spec, fmt[j + 1]))
            i = j + 2
            continue
        out.append(Directive(letter, spec))
        i = j + 1
    if text:
        out.append("".join(text))
    return out


def _split(spec: str) -> tuple[str, str]:
    """A directive's flags and the width and precision after them."""
    rest = spec.lstrip("-+ #0")
    return spec[: len(spec) - len(rest)], rest


def _pad(value: str, spec: str) -> str:
    """A string directive laid out as C's ``%<spec>s`` lays it out (other flags do nothing)."""
    flags, rest = _split(spec)
    width, _, prec = rest.partition(".")
    if "." in rest:
        value = value[: int(prec or 0)]
    if width and len(value) < int(width):
        return value.ljust(int(width)) if "-" in flags else value.rjust(int(width))
    return value


def _number(value: int, spec: str, octal: bool = False) -> str:
    """A numeric directive (``%d``, ``%m``) laid out as C's ``%<spec>d`` / ``%<spec>o``."""
    flags, rest = _split(spec)
    width_text, dot, prec_text = rest.partition(".")
    digits = f"{abs(value):o}" if octal else str(abs(value))
    if dot:
        prec = int(prec_text or 0)
        digits = "" if prec == 0 and value == 0 else digits.rjust(prec, "0")
    if octal and "#" in flags and not digits.startswith("0"):
        digits = "0" + digits
    sign = (
        "-" if value < 0 else "+" if "+" in flags and not octal else " " if " " in flags and not octal else ""
    )
    width = int(width_text or 0)
    body = sign + digits
    if len(body) >= width:
        return body
    if "-" in flags:
        return body.ljust(width)
    if "0" in flags and not dot:
        return sign + digits.rjust(width - len(sign), "0")
    return body.rjust(width)


def ctime(epoch: int) -> str:
    """``%a``/``%c``/``%t``: ctime(3)'s form with GNU find's fraction of a second."""
    t = time.gmtime(epoch)
    return (
        time.strftime("%a %b ", t)
        + f"{t.tm_mday:2d} "
        + time.strftime("%H:%M:%S", t)
        + FRACTION
        + f" {t.tm_year}"
    )


def time_part(epoch: int, letter: str) -> str:
    """``%Tk``: the strftime letter ``k`` of a time in UTC, with GNU find's fractions."""
    if letter not in _STRFTIME:
        return "%" + letter  # glibc's strftime prints what it does not know
    t = time.gmtime(epoch)
    if letter == "@":
        return f"{epoch}{FRACTION}"
    if letter == "+":
        return time.strftime("%Y-%m-%d+%H:%M:%S", t) + FRACTION
    if letter in "TX":
        return time.strftime("%H:%M:%S", t) + FRACTION
    if letter == "S":
        return time.strftime("%S", t) + FRACTION
    if letter == "c":
        return time.strftime("%a %b ", t) + f"{t.tm_mday:2d} " + time.strftime("%H:%M:%S %Y", t)
    if letter == "s":
        return str(epoch)
    if letter == "Z":
        return "UTC"
    if letter == "z":
        return "+0000"
    if letter in "ek":
        return f"{t.tm_mday if letter == 'e' else t.tm_hour:2d}"
    if letter == "l":
        return f"{(t.tm_hour % 12) or 12:2d}"
    return time.strftime("%" + letter, t)


def type_letter(node: Node | None) -> str:
    if node is None:
        return "N"
    return "d" if isinstance(node, DirNode) else "l" if isinstance(node, LinkNode) else "f"


def _followed(fs: VirtualFS, path: str, node: Node) -> str:
    """``%Y``: the type of what a link points to (``N``: nothing, ``L``: a loop)."""
    if not isinstance(node, LinkNode):
        return type_letter(node)
    try:
        return type_letter(fs.stat(path))
    except FsError as exc:
        return "L" if exc.code == "ELOOP" else "N"


def _sparseness(node: Node) -> str:
    size = getattr(node, "size", 0)
    return "1" if size == 0 else f"{_blocks(node) * 1024 / size:g}"


def _value(d: Directive, v: Visit, fs: VirtualFS) -> str:
    node, shown, letter = v.node, v.shown, d.letter
    if letter == "p":
        return shown
    if letter == "f":
        return shown if "/" not in shown.rstrip("/") else shown[shown.rstrip("/").rindex("/") + 1 :]
    if letter == "h":
        cut = shown.rfind("/")
        return "." if cut < 0 else shown[:cut]
    if letter == "P":
        rest = shown[len(v.start) :]
        return rest[1:] if rest.startswith("/") else rest
    if letter == "H":
        return v.start
    if letter == "s":
        return str(getattr(node, "size", 0))
    if letter == "k":
        return str(_blocks(node))
    if letter == "b":
        return str(_blocks(node) * 2)
    if letter == "M":
        return mode_string(node)
    if letter == "y":
        return type_letter(node)
    if letter == "Y":
        return _followed(fs, v.path, node)
    if letter == "l":
        return node.target if isinstance(node, LinkNode) else ""
    if letter in "ug":
        return "root"
    if letter in "UG":
        return "0"
    if letter == "n":
        return str(_nlink(node))
    if letter == "i":
        return str(inode_number(v.path))
    if letter == "D":
        return str(DEVICE)
    if letter == "F":
        return FS_TYPE
    if letter == "S":
        return _sparseness(node)
    if letter in "act":
        return ctime(node.mtime)
    if letter in "ACT":
        return time_part(node.mtime, d.time_letter)
    return ""  # %Z: no SELinux context (reported by the caller)


def render(segments: list[Segment], v: Visit, fs: VirtualFS, errors: list[str]) -> str:
    """One file's output; ``%Z`` failures (GNU's ``getfilecon failed``) go to ``errors``."""
    out: list[str] = []
    for seg in segments:
        if isinstance(seg, str):
            out.append(seg)
        elif seg is STOP:
            break
        elif seg.letter == "d":
            out.append(_number(v.depth, seg.spec))
        elif seg.letter == "m":
            out.append(_number(v.node.mode & 0o7777, seg.spec, octal=True))
        else:
            if seg.letter == "Z":
                errors.append(f"getfilecon failed: \u2018{v.shown}\u2019: No data available")
            out.append(_pad(_value(seg, v, fs), seg.spec))
    return "".join(out)


def ls_line(v: Visit, now: int) -> str:
    """``-ls``: the line GNU find prints (``ls -dils`` with find's column widths)."""
    node = v.node
    size = getattr(node, "size", 0) if isinstance(node, (FileNode, DirNode, LinkNode)) else 0
    line = (
        f"{inode_number(v.path):9d} {_blocks(node):6d} {mode_string(node)} {_nlink(node):3d} "
        f"{'root':<8} {'root':<8} {size:8d} {ls_time(node.mtime, now)} {v.shown}"
    )
    if isinstance(node, LinkNode):
        line += f" -> {node.target}"
    return line + "\n"
