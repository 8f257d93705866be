"""Backslash escapes of $'...', echo -e and printf."""

from __future__ import annotations

import re

_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _byte(value: int) -> str:
    """The byte ``value`` as text: ASCII as itself, 0x80-0xFF as its ``surrogateescape`` stand-in
    (so ``\\xc3\\xa9`` becomes the two bytes of é, not the two characters Ã©)."""
    value &= 0xFF
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def _utf8(text: str) -> str:
    """Escaped bytes that form valid UTF-8 joined into their characters; the rest kept as bytes."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """A ``$'...'`` string starting after the quote: its value and the index past it."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            return _utf8("".join(out)), i + 1
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d in _ESCAPES:
                out.append(_ESCAPES[d])
                i += 2
                continue
            m = re.match(r"x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{1,4})", text[i + 1 :])
            if m:
                if m.group(3):
                    out.append(chr(int(m.group(3), 16)))
                else:
                    out.append(_byte(int(m.group(1), 16) if m.group(1) else int(m.group(2), 8)))
                i += 1 + m.end()
                continue
            out.append(c + d)
            i += 2
            continue
        out.append(c)
        i += 1
    return _utf8("".join(out)), n


def _echo_escapes(text: str, printf_format: bool = False) -> tuple[str, bool]:
    """``echo -e`` / ``printf %b`` escapes; the flag says output stops here (``\\c``). In a
    ``printf`` format, ``\\NNN`` is octal without a leading zero."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if printf_format and d in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1 :])
                assert m is not None
                out.append(_byte(int(m.group(0), 8)))
                i += 1 + m.end()
                continue
            if d == "c":
                return _utf8("".join(out)), True
            if d in "ntrabfvEe\\":
                out.append(_ESCAPES[d])
                i += 2
                continue
            if d == "0":
                m = re.match(r"[0-7]{0,3}", text[i + 2 :])
                digits = m.group(0) if m else ""
                out.append(_byte(int(digits or "0", 8)))
                i += 2 + len(digits)
                continue
            if d == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
                if m:
                    out.append(_byte(int(m.group(0), 16)))
                    i += 2 + m.end()
                    continue
            if d in "uU":  # a character by its code point: \uHHHH, \UHHHHHHHH
                m = re.match(r"[0-9A-Fa-f]{1,4}" if d == "u" else r"[0-9A-Fa-f]{1,8}", text[i + 2 :])
                if m and int(m.group(0), 16) <= 0x10FFFF:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + m.end()
                    continue
            out.append(c)
            i += 1
            continue
        out.append(c)
        i += 1
    return _utf8("".join(out)), False
