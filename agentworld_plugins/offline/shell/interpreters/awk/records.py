"""Reading records (RS: a newline, another character, a paragraph, a regex) and splitting them
into fields (FS: a blank, a character, a regex, nothing)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...applet_io import from_host

if TYPE_CHECKING:
    from ...proc import _Proc

_BLANKS = re.compile(r"[ \t\n]+")


class Reader:
    """The records of one input: a text read whole, or standard input read as it is needed."""

    def __init__(self, text: str, p: _Proc | None = None) -> None:
        self.text = from_host(text)
        self.pos = 0
        self.p = p  # standard input, read a line at a time while RS is a newline
        self.done = False
        #: the main input fell back to stdin because ARGV names no file
        self.stdin_all = False
        #: a command's exit status (what ``close`` of its pipe returns)
        self.status = 0

    @classmethod
    def stdin(cls, p: _Proc) -> Reader:
        return cls("", p)

    def _fill(self) -> None:
        """Take the rest of standard input (a record separator other than a newline needs it)."""
        if self.p is not None:
            self.text = self.text[self.pos :] + from_host(self.p.ctx.stdin.read())
            self.pos = 0
            self.p = None

    def next(self, rs: str) -> str | None:
        if self.done:
            return None
        if rs == "\n" and self.p is not None:
            if self.pos < len(self.text):
                self._fill()
            else:
                line = self.p.ctx.stdin.readline()
                if line is None:
                    self.done = True
                    return None
                return from_host(line[:-1] if line.endswith("\n") else line)
        self._fill()
        text, pos = self.text, self.pos
        if rs == "":
            while pos < len(text) and text[pos] == "\n":
                pos += 1
            if pos >= len(text):
                self.done = True
                return None
            m = re.compile(r"\n\n+").search(text, pos)
            end, after = (m.start(), m.end()) if m else (len(text.rstrip("\n")), len(text))
            self.pos = after
            return text[pos:end]
        if pos >= len(text):
            self.done = True
            return None
        if len(rs) == 1:
            end = text.find(rs, pos)
            if end < 0:
                self.pos = len(text)
                return text[pos:]
            self.pos = end + 1
            return text[pos:end]
        from ...patterns import posix_regex
        from ...regex import compile_regex

        m = compile_regex(posix_regex(rs, True), re.DOTALL).search(text, pos)
        if m is None or m.end() == m.start():
            self.pos = len(text)
            return text[pos:]
        self.pos = m.end()
        return text[pos : m.start()]


def split_fields(text: str, fs: str, awk: Any, paragraph: bool = False) -> list[str]:
    """``text`` split into fields by the field separator ``fs``, as awk splits a record."""
    if text == "":
        return []
    if fs == " ":
        return _BLANKS.split(text.strip(" \t\n"))
    if paragraph and fs != "\n":
        parts: list[str] = []
        for line in text.split("\n"):
            parts.extend(split_fields(line, fs, awk))
        return parts
    if fs == "":
        return list(text)
    if len(fs) == 1 and fs != "\\":
        return text.split(fs)
    rx = awk.regex(fs)
    out: list[str] = []
    pos = 0
    for m in rx.finditer(text):
        if m.end() == m.start():
            continue
        out.append(text[pos : m.start()])
        pos = m.end()
    out.append(text[pos:])
    return out
