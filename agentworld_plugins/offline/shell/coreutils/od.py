"""od: octal (and hex, decimal, character) dumps, in GNU od's layout."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _UsageError
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_C_NAMES = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
_A_NAMES = ["nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
            "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us",
            "sp"]  # fmt: skip


def _field_width(kind: str, size: int) -> int:
    """The widest value of a type, as GNU od sizes its columns (without the leading space)."""
    if kind in "ca":
        return 3
    bits = 8 * size
    if kind == "o":
        return math.ceil(bits / 3)
    if kind == "x":
        return 2 * size
    if kind == "u":
        return len(str(2**bits - 1))
    return len(str(-(2 ** (bits - 1))))  # d


def _render(kind: str, size: int, chunk: bytes, width: int) -> list[str]:
    out = []
    for k in range(0, len(chunk), size):
        word = chunk[k : k + size].ljust(size, b"\x00")
        if kind == "c":
            b = word[0]
            text = _C_NAMES.get(b) or (chr(b) if 32 <= b < 127 else f"{b:03o}")
        elif kind == "a":
            b = word[0] & 0x7F
            text = _A_NAMES[b] if b <= 32 else ("del" if b == 127 else chr(b))
        else:
            value = int.from_bytes(word, "little", signed=kind == "d")
            text = {"o": f"{value:0{_field_width('o', size)}o}", "x": f"{value:0{2 * size}x}"}.get(
                kind, str(value)
            )
        out.append(" " + text.rjust(width - 1))
    return out


def _types(p: _Proc, specs: list[str]) -> list[tuple[str, int]]:
    types: list[tuple[str, int]] = []
    for spec in specs:
        i = 0
        while i < len(spec):
            kind = spec[i]
            if kind not in "acdoux":
                raise _UsageError(f"invalid character '{kind}' in type string {quote_always(spec)}")
            i += 1
            digits = ""
            while i < len(spec) and spec[i].isdigit():
                digits += spec[i]
                i += 1
            letter = {"C": 1, "S": 2, "I": 4, "L": 8}.get(spec[i] if i < len(spec) else "")
            if letter is not None:
                i += 1
            size = 1 if kind in "ac" else int(digits) if digits else letter or (4 if kind in "du" else 2)
            if size not in (1, 2, 4, 8):
                raise _UsageError(
                    f"invalid type string {quote_always(spec)};\nthis system doesn't provide a {size}-byte integral type"
                )
            if i < len(spec) and spec[i] == "z":
                i += 1
            types.append((kind, size))
    return types


@applet("od")
def _u_od(p: _Proc) -> int:
    args = list(p.args)
    radix = "o"
    specs: list[str] = []
    limit: int | None = None
    skip = 0
    verbose = False
    files: list[str] = []
    shorthands = {
        "-c": "c",
        "-b": "o1",
        "-x": "x2",
        "-o": "o2",
        "-d": "u2",
        "-s": "d2",
        "-i": "dI",
        "-l": "dL",
    }
    i = 0
    while i < len(args):
        a = args[i]
        value = None
        if a[:2] in ("-A", "-t", "-N", "-j") and len(a) > 2:
            a, value = a[:2], a[2:]
        elif a[:2] in ("-A", "-t", "-N", "-j"):
            if i + 1 >= len(args):
                raise _UsageError(f"option requires an argument -- '{a[1]}'")
            value = args[i + 1]
            i += 1
        elif a.startswith("--address-radix="):
            a, value = "-A", a.split("=", 1)[1]
        elif a.startswith("--format="):
            a, value = "-t", a.split("=", 1)[1]
        elif a.startswith("--read-bytes="):
            a, value = "-N", a.split("=", 1)[1]
        elif a.startswith("--skip-bytes="):
            a, value = "-j", a.split("=", 1)[1]
        if a == "-A":
            if value not in ("o", "d", "x", "n"):
                raise _UsageError(
                    f"invalid output address radix '{value}'; it must be one character from [doxn]"
                )
            radix = value
        elif a == "-t":
            specs.append(value or "")
        elif a == "-N":
            limit = int(value or "0", 0)
        elif a == "-j":
            skip = int(value or "0", 0)
        elif a in ("-v", "--output-duplicates"):
            verbose = True
        elif a in shorthands:
            specs.append(shorthands[a])
        elif a.startswith("-") and a != "-":
            raise _UsageError(f"invalid option -- '{a[1:2]}'")
        else:
            files.append(a)
        i += 1
    types = _types(p, specs or ["o2"])
    data = b""
    status = 0
    for name in files or ["-"]:
        try:
            want = None if limit is None else skip + limit - len(data)
            data += p.read(name, want).encode("utf-8", "surrogateescape")
        except FsError as exc:
            p.err(f"{name}: {exc.strerror}")
            status = 1
    data = data[skip:]
    if limit is not None:
        data = data[:limit]
    per_byte = max((_field_width(k, s) + 1) / s for k, s in types)
    offset = {"o": "{:07o}", "d": "{:07d}", "x": "{:06x}", "n": ""}[radix]
    pad = " " * len(offset.format(0)) if offset else ""
    out: list[str] = []
    previous = None
    starred = False
    for start in range(0, len(data), 16):
        chunk = data[start : start + 16]
        if chunk == previous and not verbose and len(chunk) == 16:
            if not starred:
                out.append("*\n")
                starred = True
            continue
        previous, starred = chunk, False
        for n, (kind, size) in enumerate(types):
            fields = _render(kind, size, chunk, math.ceil(per_byte * size))
            head = offset.format(start + skip) if n == 0 and offset else pad
            out.append(head + "".join(fields) + "\n")
    if offset:
        out.append(offset.format(len(data) + skip) + "\n")
    p.out("".join(out))
    return status
