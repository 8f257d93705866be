"""GNU patch's reading of a patch: its file patches (unified, context and normal diffs) and
their hunks, and where a hunk's old lines are found in a file (offsets and fuzz)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .applet_io import lines_with_ends
from .limits import current

_UNIFIED = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CONTEXT_RANGE = re.compile(r"(\*\*\*|---) (\d+)(?:,(\d+))? (?:\*\*\*\*|----)")
_NORMAL = re.compile(r"(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?\n?")
_NO_NEWLINE = "\\"


class Malformed(Exception):
    """A patch GNU patch gives up on (``malformed patch at line N: ...``)."""


@dataclass
class Hunk:
    """One hunk, as a unified sequence of ``(tag, text)`` lines (tags `` ``, ``-``, ``+``)."""

    old_start: int
    new_start: int
    lines: list[tuple[str, str]] = field(default_factory=list)

    def old(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "+"]

    def new(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "-"]

    def prefix(self) -> int:
        """How many context lines open the hunk."""
        n = 0
        for tag, _ in self.lines:
            if tag != " ":
                break
            n += 1
        return n

    def suffix(self) -> int:
        """How many context lines close the hunk."""
        n = 0
        for tag, _ in reversed(self.lines):
            if tag != " ":
                break
            n += 1
        return n if n < len(self.lines) else 0

    def reversed(self) -> Hunk:
        swap = {"+": "-", "-": "+", " ": " "}
        return Hunk(self.new_start, self.old_start, [(swap[t], x) for t, x in self.lines])


@dataclass
class FilePatch:
    """The patch of one file: its names, the text before its first hunk, its hunks."""

    kind: str
    names: dict[str, str | None]
    heads: list[str]
    leading: list[str]
    at: int
    hunks: list[Hunk] = field(default_factory=list)
    git: bool = False
    #: why reading its hunks stopped (``malformed patch at line N: ...``)
    error: str | None = None


def _name(line: str) -> str:
    """The file name of a ``---``/``+++``/``***`` header line, without its timestamp."""
    rest = line[4:].rstrip("\n")
    if rest.startswith('"') and '"' in rest[1:]:
        return rest[1 : rest.index('"', 1)]
    return rest.split("\t")[0].rstrip(" ") if "\t" in rest else rest.rstrip(" ")


def _text(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


def _cut_newline(lines: list[tuple[str, str]]) -> None:
    """``\\ No newline at end of file``: the line before it loses its newline."""
    if lines:
        tag, text = lines[-1]
        lines[-1] = (tag, text[:-1] if text.endswith("\n") else text)


class Reader:
    """Splits patch text into :class:`FilePatch` es the way GNU patch finds them."""

    def __init__(self, text: str) -> None:
        self.lines = lines_with_ends(text)
        current().spend(1 + len(self.lines))
        self.i = 0

    def _at(self, k: int) -> str:
        return self.lines[k] if k < len(self.lines) else ""

    def _kind(self, k: int) -> str | None:
        line, nxt, third = self._at(k), self._at(k + 1), self._at(k + 2)
        if line.startswith("--- ") and nxt.startswith("+++ ") and _UNIFIED.match(third):
            return "unified"
        if line.startswith("*** ") and nxt.startswith("--- ") and third.startswith("***************"):
            return "context"
        if _NORMAL.fullmatch(line):
            return "normal"
        return None

    def patches(self) -> list[FilePatch]:
        found: list[FilePatch] = []
        start = 0
        index: str | None = None
        git: tuple[str, str] | None = None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.startswith("Index: "):
                index = line[7:].strip()
            if line.startswith("diff --git "):
                parts = line[11:].split()
                git = (parts[0], parts[-1]) if len(parts) >= 2 else None
            kind = self._kind(self.i)
            if kind is None:
                self.i += 1
                continue
            names: dict[str, str | None] = {"index": index}
            heads: list[str] = []
            if kind != "normal":
                heads = [self.lines[self.i], self.lines[self.i + 1]]
                names["old"], names["new"] = _name(heads[0]), _name(heads[1])
                self.i += 2
            if git:
                names["git_old"], names["git_new"] = git
            fp = FilePatch(kind, names, heads, self.lines[start : self.i], self.i + 1, git=git is not None)
            found.append(fp)
            try:
                getattr(self, "_" + kind)(fp)
            except Malformed as exc:
                fp.error = str(exc)
                return found
            start, index, git = self.i, None, None
        return found

    def _unified(self, fp: FilePatch) -> None:
        while m := _UNIFIED.match(self._at(self.i)):
            old_n = 1 if m.group(2) is None else int(m.group(2))
            new_n = 1 if m.group(4) is None else int(m.group(4))
            hunk = Hunk(int(m.group(1)) + (old_n == 0), int(m.group(3)) + (new_n == 0))
            self.i += 1
            while old_n > 0 or new_n > 0:
                if self.i >= len(self.lines):
                    if old_n != new_n:
                        raise Malformed("unexpected end of file in patch")
                    hunk.lines += [(" ", "\n")] * old_n
                    break
                line = self.lines[self.i]
                tag = line[0] if line != "\n" else " "
                if tag == _NO_NEWLINE:
                    _cut_newline(hunk.lines)
                    self.i += 1
                    continue
                if tag not in " -+" or (tag != "+" and old_n <= 0) or (tag != "-" and new_n <= 0):
                    raise Malformed(f"malformed patch at line {self.i + 1}: {line}")
                hunk.lines.append((tag, _text(line[1:]) if line != "\n" else "\n"))
                old_n -= tag != "+"
                new_n -= tag != "-"
                self.i += 1
            if self._at(self.i).startswith(_NO_NEWLINE):
                _cut_newline(hunk.lines)
                self.i += 1
            fp.hunks.append(hunk)

    def _section(self, head: str) -> tuple[int, int, list[tuple[str, str]]]:
        m = _CONTEXT_RANGE.match(self._at(self.i))
        if not m or m.group(1) != head:
            raise Malformed(f"malformed patch at line {self.i + 1}: {self._at(self.i)}")
        first = int(m.group(2))
        last = first if m.group(3) is None else int(m.group(3))
        count = last - first + 1 if first or m.group(3) else 0
        self.i += 1
        body: list[tuple[str, str]] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.startswith(_NO_NEWLINE):
                _cut_newline(body)
            elif line[:2] in ("  ", "- ", "+ ", "! ") and len(body) < count:
                body.append((line[0], _text(line[2:])))
            else:
                break
            self.i += 1
        return first, count, body

    def _context(self, fp: FilePatch) -> None:
        while self._at(self.i).startswith("***************"):
            self.i += 1
            old_first, _, old = self._section("***")
            new_first, new_count, new = self._section("---")
            hunk = Hunk(old_first + (not old and not _has_old(new)), new_first + (not new_count))
            hunk.lines = _merge(old, new)
            fp.hunks.append(hunk)

    def _normal(self, fp: FilePatch) -> None:
        while m := _NORMAL.fullmatch(self._at(self.i)):
            a1, a2, cmd, b1, b2 = m.groups()
            first, last = int(a1), int(a2 or a1)
            nfirst, nlast = int(b1), int(b2 or b1)
            self.i += 1
            lines: list[tuple[str, str]] = []
            if cmd != "a":
                lines += self._normal_lines("< ", last - first + 1, "-")
            if cmd == "c":
                if self._at(self.i) != "---\n":
                    raise Malformed(f"malformed patch at line {self.i + 1}: {self._at(self.i)}")
                self.i += 1
            if cmd != "d":
                lines += self._normal_lines("> ", nlast - nfirst + 1, "+")
            hunk = Hunk(first + (cmd == "a"), nfirst + (cmd == "d"), lines)
            fp.hunks.append(hunk)

    def _normal_lines(self, mark: str, count: int, tag: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        while len(out) < count:
            line = self._at(self.i)
            if not line.startswith(mark):
                raise Malformed(f"malformed patch at line {self.i + 1}: {line}")
            out.append((tag, _text(line[2:])))
            self.i += 1
            if self._at(self.i).startswith(_NO_NEWLINE):
                _cut_newline(out)
                self.i += 1
        return out


def _has_old(new: list[tuple[str, str]]) -> bool:
    return any(tag == " " for tag, _ in new)


def _merge(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A context hunk's two sections as one unified sequence of lines."""
    if not old:
        return [(" " if t == " " else "+", x) for t, x in new]
    if not new:
        return [(" " if t == " " else "-", x) for t, x in old]
    out: list[tuple[str, str]] = []
    i = j = 0
    while i < len(old) or j < len(new):
        if i < len(old) and old[i][0] != " ":
            out.append(("-", old[i][1]))
            i += 1
        elif j < len(new) and new[j][0] != " ":
            out.append(("+", new[j][1]))
            j += 1
        else:
            out.append((" ", old[i][1] if i < len(old) else new[j][1]))
            i, j = i + 1, j + 1
    return out


def matches(src: list[str], pattern: list[str], at: int, head: int, tail: int) -> bool:
    """Whether ``pattern`` less ``head`` lines at its start and ``tail`` at its end is in
    ``src`` from line ``at`` (from 1) on."""
    base = at - 1
    current().spend(1 + len(pattern) // 8)
    for k in range(head, len(pattern) - tail):
        if base + k >= len(src) or src[base + k] != pattern[k]:
            return False
    return True


def locate(hunk: Hunk, src: list[str], guess: int, frozen: int, fuzz: int) -> int:
    """Where (a line from 1) GNU patch finds the old lines of ``hunk`` with ``fuzz``: searched
    from ``guess`` outward, forward then back, never before line ``frozen``; 0 if nowhere."""
    pattern = hunk.old()
    prefix, suffix = hunk.prefix(), hunk.suffix()
    context = max(prefix, suffix)
    head, tail = fuzz + prefix - context, fuzz + suffix - context
    if not pattern:
        return guess
    max_where = len(src) - (len(pattern) - tail) + 1
    min_where = frozen + 1 - (prefix - head)
    max_pos, max_neg = max_where - guess, guess - min_where
    max_off = max(max_pos, max_neg)
    if guess <= max_neg:
        max_neg = guess - 1
    if head < 0 and hunk.old_start <= 1:
        if tail < 0 and (len(pattern) != len(src) or prefix < frozen):
            return 0
        offset = 1 - guess
        if frozen <= prefix and offset <= max_pos and matches(src, pattern, 1, 0, max(tail, 0)):
            return 1
        return 0
    head = max(head, 0)
    if tail < 0:
        offset = guess - (len(src) - len(pattern) + 1)
        if offset <= max_neg and matches(src, pattern, guess - offset, head, 0):
            return guess - offset
        return 0
    for offset in range(max_off + 1):
        if offset <= max_pos and matches(src, pattern, guess + offset, head, tail):
            return guess + offset
        if 0 < offset <= max_neg and matches(src, pattern, guess - offset, head, tail):
            return guess - offset
    return 0
