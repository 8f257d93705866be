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


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """A ``$'...'`` string starting after the quote: its value and the index past it."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d in _ESCAPES:
                out.append(_ESCAPES[d])
                i += 2
                continue
            m = re.match(r"x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{1,4})", text[i + 1 :])
            if m:
                num = m.group(1) or m.group(2) or m.group(3)
                base = 8 if m.group(2) else 16
                out.append(chr(int(num, base)))
                i += 1 + m.end()
                continue
            out.append(c + d)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), n


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
                out.append(chr(int(m.group(0), 8)))
                i += 1 + m.end()
                continue
            if d == "c":
                return "".join(out), True
            if d in "ntrabfvEe\\":
                out.append(_ESCAPES[d])
                i += 2
                continue
            if d == "0":
                m = re.match(r"[0-7]{0,3}", text[i + 2 :])
                digits = m.group(0) if m else ""
                out.append(chr(int(digits or "0", 8)))
                i += 2 + len(digits)
                continue
            if d == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + m.end()
                    continue
            out.append(c)
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), False
