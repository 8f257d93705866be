"""sed scripts parsed into a flat program, with GNU sed 4.9's syntax and error messages.

A script (the ``-e`` pieces and ``-f`` files joined by newlines, as GNU joins them) becomes a
list of :class:`Command`: blocks are jumps (``{`` jumps past its ``}`` when its address does not
select the line), branches carry the index of their label, so the runner is a loop over an index.
Errors name the piece as GNU does (``-e expression #2, char 5: ...``, ``file s.sed line 3: ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...limits import current
from ...patterns import _regex_error, posix_regex
from ...regex import MATCH_CHARS_PER_UNIT, compile_regex

#: the version ``v`` compares with
VERSION = (4, 9)
#: the commands that take no argument
_PLAIN = "=dDgGhHnNpPxzF"
#: the commands that do not read the pattern space
_BLIND = "btTNG=aiRrF"
_SANDBOXED = "e/r/w commands disabled in sandbox mode"
_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class SedError(Exception):
    """A script GNU sed refuses (the message is complete: prefix and reason)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        #: 1 for a bad script; 4 (GNU's panic) for a jump to a label that is nowhere
        self.status = status


class Regex:
    """A sed regular expression: its POSIX text compiled to the shell's matchers. ``$`` (without
    ``M``) matches only at the very end of the pattern space, also one that ends in a newline."""

    __slots__ = ("_at_end", "_plain", "_python", "rx")

    def __init__(self, text: str, extended: bool, icase: bool, multiline: bool) -> None:
        python = _OPEN_LOW.sub("{0,", posix_regex(text, extended))  # {,n} is {0,n}
        flags = re.S | (re.I if icase else 0) | (re.M if multiline else 0)
        self.rx: Any = compile_regex(python, flags)
        self._python = (python, flags)
        #: a pattern :mod:`re` matches in linear time, unaccounted by the matcher
        self._plain = isinstance(self.rx, re.Pattern)
        self._at_end: Any = None if multiline or "$" not in python else False

    def groups(self) -> int:
        return int(re.compile(*self._python).groups)

    def _for(self, text: str) -> Any:
        if self._plain:
            current().spend(len(text) // MATCH_CHARS_PER_UNIT)  # RE2's wrapper counts its own
        if self._at_end is not None and text.endswith("\n"):
            if self._at_end is False:
                python, flags = self._python
                self._at_end = compile_regex(_end_anchors(python), flags)
            return self._at_end
        return self.rx

    def search(self, text: str) -> Any:
        return self._for(text).search(text)

    def finditer(self, text: str) -> Any:
        return self._for(text).finditer(text)


_OPEN_LOW = re.compile(r"(?<!\\)\{,")


def _end_anchors(python: str) -> str:
    """``python`` with its ``$`` anchors as ``\\Z`` (the end of the text only)."""
    out: list[str] = []
    i, depth = 0, False
    while i < len(python):
        c = python[i]
        if c == "\\":
            out.append(python[i : i + 2])
            i += 2
            continue
        if c == "[" and not depth:
            depth = True
        elif c == "]" and depth:
            depth = False
        out.append("\\Z" if c == "$" and not depth else c)
        i += 1
    return "".join(out)


@dataclass(eq=False)
class Addr:
    """One address: ``line`` (n), ``last``, ``re`` (rx, None: the last regex used), ``step``
    (n~step), ``zero`` (0 of ``0,/re/``); as a second address also ``plus`` (+n), ``mult`` (~n)."""

    kind: str
    n: int = 0
    step: int = 0
    rx: Regex | None = None


@dataclass(eq=False)
class Command:
    name: str
    a1: Addr | None = None
    a2: Addr | None = None
    neg: bool = False
    #: the text of a/i/c, the file of r/R/w/W, the exit code of q/Q, the width of l, y's table
    arg: Any = None
    #: where b/t/T jump and where a ``{`` that does not select goes
    target: int = -1
    label: str = ""
    # s
    rx: Regex | None = None
    rep: list[tuple[str, Any]] = field(default_factory=list)
    glob: bool = False
    nth: int = 1
    pflag: int = 0
    eflag: bool = False
    #: neither the command nor its addresses look at the pattern space (b, N, G, ...)
    blind: bool = False
    #: a two-address range: selecting since a line, up to ``end`` (a line number) where known
    active: bool = False
    end: int = 0
    #: the range started once (a line-number start can start it only once)
    started: bool = False


@dataclass
class Program:
    commands: list[Command]
    #: the script began with ``#n`` and a newline: as ``-n``
    quiet: bool = False
    #: the files w/W and s///w write (created, empty, before the first line is read)
    wfiles: list[str] = field(default_factory=list)


def parse(pieces: list[tuple[str, str | None]], extended: bool, sandbox: bool = False) -> Program:
    """Pieces are (text, file name or None for an ``-e``/script argument); ``sandbox``
    (``--sandbox``) refuses e, r, R, w, W and s///e, s///w."""
    return _Parser(pieces, extended, sandbox).program()


class _Parser:
    def __init__(self, pieces: list[tuple[str, str | None]], extended: bool, sandbox: bool) -> None:
        self.sandbox = sandbox
        self.s = "\n".join(text for text, _ in pieces)
        self.n = len(self.s)
        self.i = 0
        self.extended = extended
        self.seen_regex = False
        self.pieces: list[tuple[int, int, str | None, int]] = []  # start, end, file, -e number
        start, number = 0, 0
        for text, name in pieces:
            number += name is None
            self.pieces.append((start, start + len(text), name, number))
            start += len(text) + 1

    # errors and characters

    def fail(self, message: str, pos: int | None = None) -> SedError:
        pos = self.i if pos is None else pos
        for start, end, name, number in self.pieces:
            if pos <= end + 1 or (start, end, name, number) == self.pieces[-1]:
                if name is not None:
                    line = self.s.count("\n", start, min(pos, end)) + 1
                    return SedError(f"file {name} line {line}: {message}")
                return SedError(f"-e expression #{number}, char {min(pos, end + 1) - start}: {message}")
        return SedError(message)  # pragma: no cover - there is always a piece

    def peek(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def blanks(self) -> None:
        while self.i < self.n and self.s[self.i] in " \t":
            self.i += 1

    def end_of_command(self) -> None:
        """After a command: blanks, then ``;``, a newline, ``}``, ``#`` or the end."""
        self.blanks()
        c = self.peek()
        if c in (";", "\n"):
            self.i += 1
        elif c not in ("", "}", "#"):
            raise self.fail("extra characters after command", self.i + 1)

    def to_eol(self) -> str:
        j = self.s.find("\n", self.i)
        j = self.n if j < 0 else j
        text, self.i = self.s[self.i : j], min(j + 1, self.n)
        return text

    # the program

    def program(self) -> Program:
        s = self.s
        prog = Program([], quiet=s.startswith("#n") and (len(s) == 2 or s[2] == "\n"))
        blocks: list[tuple[Command, int]] = []
        labels: dict[str, int] = {}
        cmds = prog.commands
        while True:
            while self.i < self.n and s[self.i] in " \t\n;":
                self.i += 1
            if self.i >= self.n:
                break
            a1 = self.address(first=True)
            a2 = None
            if a1 is not None:
                self.blanks()
                if self.peek() == ",":
                    self.i += 1
                    self.blanks()
                    a2 = self.address(first=False)
                    if a2 is None:
                        raise self.fail("unexpected `,'", self.i + 1)
            self.blanks()
            neg = False
            if self.peek() == "!":
                neg = True
                self.i += 1
                self.blanks()
                if self.peek() == "!":
                    raise self.fail("multiple `!'s", self.i + 1)
            if self.i >= self.n:
                raise self.fail("missing command")
            name = s[self.i]
            self.i += 1
            if a1 is not None and a1.kind == "zero" and (a2 is None or a2.kind != "re"):
                raise self.fail("invalid usage of line address 0")
            cmd = Command(name, a1, a2, neg)
            if name == "#":
                if a1 is not None:
                    raise self.fail("comments don't accept any addresses")
                self.to_eol()
                continue
            if name in ":}v" and a1 is not None:
                raise self.fail(f"{name} doesn't want any addresses" if name != "}" else "unexpected `}'")
            if name in "qQ" and a2 is not None:
                raise self.fail("command only uses one address")
            if name == "{":
                cmd.blind = not any(a is not None and a.kind == "re" for a in (a1, a2))
                blocks.append((cmd, len(cmds)))
                cmds.append(cmd)
                continue
            if name == "}":
                if not blocks:
                    raise self.fail("unexpected `}'")
                blocks.pop()[0].target = len(cmds)
                self.end_of_command()
                continue
            if name == ":":
                self.blanks()
                label = self.label()
                if not label:
                    raise self.fail('":" lacks a label')
                labels.setdefault(label, len(cmds))
                continue
            self.argument(cmd, prog)
            cmd.blind = name in _BLIND and not any(a is not None and a.kind == "re" for a in (a1, a2))
            cmds.append(cmd)
        if blocks:
            raise self.fail("unmatched `{'", self.pieces[0][0])
        for cmd in cmds:
            if cmd.name in "btT":
                if cmd.label and cmd.label not in labels:
                    raise SedError(f"can't find label for jump to `{cmd.label}'", 4)
                cmd.target = labels[cmd.label] if cmd.label else len(cmds)
        return prog

    def label(self, ends: str = "; \t\n") -> str:
        """A label: up to a blank, ``;`` or a newline (then the command ends)."""
        start = self.i
        while self.i < self.n and self.s[self.i] not in ends:
            self.i += 1
        text = self.s[start : self.i]
        self.blanks()
        if self.peek() in (";", "\n"):
            self.i += 1
        return text

    def argument(self, cmd: Command, prog: Program) -> None:
        name = cmd.name
        if self.sandbox and name in "erRwW":
            raise self.fail(_SANDBOXED)
        if name in _PLAIN:
            self.end_of_command()
        elif name in "btT":
            self.blanks()
            cmd.label = self.label("; \t\n}")
        elif name in "aic":
            cmd.arg = self.text()
        elif name in "qQlL":
            if name == "L":
                raise self.fail("unknown command: `L'")
            self.blanks()
            start = self.i
            while self.peek().isdigit():
                self.i += 1
            cmd.arg = int(self.s[start : self.i]) if self.i > start else None
            self.end_of_command()
        elif name in "rRwW":
            self.blanks()
            cmd.arg = self.to_eol()
            if not cmd.arg:
                raise self.fail("missing filename in r/R/w/W commands")
            if name in "wW":
                prog.wfiles.append(cmd.arg)
        elif name == "s":
            self.substitute(cmd, prog)
        elif name == "y":
            self.transliterate(cmd)
        elif name == "e":
            self.blanks()
            cmd.arg = self.to_eol()
        elif name == "v":
            self.blanks()
            version = self.label()
            wanted = tuple(int(x) for x in re.findall(r"\d+", version)[:2])
            if wanted > VERSION:
                raise self.fail("expected newer version of sed")
        else:
            raise self.fail(f"unknown command: `{name}'")

    # addresses

    def address(self, first: bool) -> Addr | None:
        c = self.peek()
        if c.isdigit():
            n = self.number()
            if self.peek() == "~" and first:
                self.i += 1
                step = self.number() if self.peek().isdigit() else 0
                return Addr("zero" if n == step == 0 else "step", n, step)
            return Addr("zero" if n == 0 and first else "line", n)
        if c in ("+", "~") and not first and self.i + 1 < self.n and self.s[self.i + 1].isdigit():
            self.i += 1
            return Addr("plus" if c == "+" else "mult", self.number())
        if c == "$":
            self.i += 1
            return Addr("last")
        if c == "/" or c == "\\":
            if c == "\\":
                self.i += 1
                if self.i >= self.n:
                    raise self.fail("unexpected `,'" if not first else "unterminated address regex")
            delim = self.s[self.i]
            self.i += 1
            text = self.delimited(delim, "unterminated address regex", regex=True)
            icase = multiline = False
            while self.peek() in ("I", "M"):
                icase |= self.peek() == "I"
                multiline |= self.peek() == "M"
                self.i += 1
            return Addr("re", rx=self.regex(text, icase, multiline))
        return None

    def number(self) -> int:
        start = self.i
        while self.peek().isdigit():
            self.i += 1
        return int(self.s[start : self.i])

    def delimited(self, delim: str, unterminated: str, regex: bool = False) -> str:
        """The text up to an unescaped ``delim`` (consumed); ``\\delim`` is ``delim`` itself,
        ``\\n`` is kept for the regex and a newline ends nothing but the script. In a regex a
        bracket expression is read whole (``s/[/]/x/``: its ``/`` ends nothing)."""
        out: list[str] = []
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c == "[" and regex:
                end = _bracket_end(s, self.i)
                if end < 0:
                    newline = s.find("\n", self.i)
                    self.i = self.n if newline < 0 else newline
                    break
                out.append(s[self.i : end])
                self.i = end
                continue
            if c == "\\" and self.i + 1 < self.n:
                d = s[self.i + 1]
                out.append(d if d == delim else ("\\n" if d == "\n" else c + d))
                self.i += 2
                continue
            if c == delim:
                self.i += 1
                return "".join(out)
            if c == "\n" and delim != "\n":
                break
            out.append(c)
            self.i += 1
        raise self.fail(unterminated)

    def regex(self, text: str, icase: bool, multiline: bool) -> Regex | None:
        if not text:
            if not self.seen_regex:
                raise self.fail("no previous regular expression", self.pieces[0][0])
            return None  # the last regex used
        self.seen_regex = True
        try:
            _check_intervals(text, self.extended)
            return Regex(_numeric_escapes(text, self.extended), self.extended, icase, multiline)
        except re.error as exc:
            message = str(exc)
            if "min repeat greater than max repeat" in message:
                message = "Invalid content of \\{\\}"
            elif not message.startswith(("Unmatched \\{", "Invalid content")):
                message = _regex_error(exc)
            raise self.fail(message) from None

    # commands with arguments

    def text(self) -> str | None:
        """The text of a/i/c: ``a\\`` then lines (``\\`` at a line's end goes on), or GNU's one-line
        ``a text`` (leading blanks dropped); escapes are read. None: ``a\\`` at the end (no text)."""
        self.blanks()
        if self.i >= self.n:
            raise self.fail("expected \\ after `a', `c' or `i'")
        s = self.s
        if s[self.i] == "\\":
            self.i += 1
            if self.i >= self.n:
                return None
            if s[self.i] == "\n":
                self.i += 1
        out: list[str] = []
        while self.i < self.n:
            c = s[self.i]
            if c == "\\":
                if self.i + 1 < self.n:
                    d = s[self.i + 1]
                    out.append(_ESCAPES.get(d, d) if d != "\n" else "\n")
                self.i = min(self.i + 2, self.n)  # a backslash that ends the script: nothing
                continue
            self.i += 1
            if c == "\n":
                break
            out.append(c)
        return "".join(out)

    def substitute(self, cmd: Command, prog: Program) -> None:
        delim = self.peek()
        if delim in ("", "\n", "\\"):
            raise self.fail("unterminated `s' command")
        self.i += 1
        pattern = self.delimited(delim, "unterminated `s' command", regex=True)
        replacement = self.delimited_replacement(delim)
        icase = multiline = False
        number = False
        while self.i < self.n:
            c = self.s[self.i]
            if c == "g":
                if cmd.glob:
                    raise self.fail("multiple `g' options to `s' command", self.i + 1)
                cmd.glob = True
            elif c == "p":
                if cmd.pflag:
                    raise self.fail("multiple `p' options to `s' command", self.i + 1)
                cmd.pflag = 1
            elif c.isdigit():
                if number:
                    raise self.fail("multiple number options to `s' command", self.i + 1)
                number = True
                cmd.nth = self.number()
                if cmd.nth == 0:
                    raise self.fail("number option to `s' command may not be zero")
                continue
            elif c in "iI":
                icase = True
            elif c in "mM":
                multiline = True
            elif c == "e":
                if self.sandbox:
                    raise self.fail(_SANDBOXED, self.i + 1)
                cmd.eflag = True
            elif c == "w":
                if self.sandbox:
                    raise self.fail(_SANDBOXED, self.i + 1)
                self.i += 1
                self.blanks()
                cmd.arg = self.to_eol()
                if not cmd.arg:
                    raise self.fail("missing filename in r/R/w/W commands")
                prog.wfiles.append(cmd.arg)
                break
            elif c in " \t":
                pass  # GNU reads on past blanks: `s/a/b/ g`
            elif c in ";\n}#":
                self.end_of_command()
                break
            else:
                raise self.fail("unknown option to `s'", self.i + 1)
            self.i += 1
        end = self.i
        cmd.rx = self.regex(pattern, icase, multiline)
        cmd.rep = self.replacement(replacement)
        groups = cmd.rx.groups() if cmd.rx is not None else 9
        for kind, value in cmd.rep:
            if kind == "group" and value > groups:
                raise self.fail(f"invalid reference \\{value} on `s' command's RHS", end)

    def delimited_replacement(self, delim: str) -> str:
        """The replacement's raw text (escapes kept but for ``\\delim``, read later)."""
        out: list[str] = []
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c == "\\" and self.i + 1 < self.n:
                d = s[self.i + 1]
                out.append(d if d == delim and d not in "&\\" else c + d)
                self.i += 2
                continue
            if c == delim:
                self.i += 1
                return "".join(out)
            if c == "\n":
                break
            out.append(c)
            self.i += 1
        raise self.fail("unterminated `s' command")

    @staticmethod
    def replacement(text: str) -> list[tuple[str, Any]]:
        """Parts: ("text", str), ("group", n; 0 is ``&``), ("case", one of uUlLE)."""
        parts: list[tuple[str, Any]] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(("text", "".join(buf)))
                buf.clear()

        i = 0
        while i < len(text):
            c = text[i]
            if c == "\\" and i + 1 < len(text):
                d = text[i + 1]
                numeric = _NUMERIC.match(text, i) if d in "xodc" else None
                if numeric is not None:
                    buf.append(_char(numeric))
                    i = numeric.end()
                    continue
                i += 2
                if d.isdigit():
                    flush()
                    parts.append(("group", int(d)))
                elif d in "uUlLE":
                    flush()
                    parts.append(("case", d))
                elif d == "\n":
                    buf.append("\n")
                else:
                    buf.append(_ESCAPES.get(d, d))
                continue
            if c == "&":
                flush()
                parts.append(("group", 0))
            else:
                buf.append(c)
            i += 1
        flush()
        return parts

    def transliterate(self, cmd: Command) -> None:
        delim = self.peek()
        if delim in ("", "\n", "\\"):
            raise self.fail("unterminated `y' command")
        self.i += 1
        src = _y_text(self.delimited(delim, "unterminated `y' command"))
        dst = _y_text(self.delimited(delim, "unterminated `y' command"))
        if len(src) != len(dst):
            raise self.fail("strings for `y' command are different lengths")
        cmd.arg = str.maketrans(src, dst)
        self.end_of_command()


_NUMERIC = re.compile(r"\\(?:x([0-9A-Fa-f]{1,2})|o([0-7]{1,3})|d([0-9]{1,3})|c(.)|([afnrtv]))", re.S)
_CONTROL = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _bracket_end(s: str, i: int) -> int:
    """The index after the ``]`` closing the bracket expression at ``s[i]``; -1 if none does
    before the end of the line."""
    j = i + 1
    if j < len(s) and s[j] == "^":
        j += 1
    if j < len(s) and s[j] == "]":
        j += 1
    while j < len(s) and s[j] != "\n":
        if s[j] == "[" and j + 1 < len(s) and s[j + 1] in ".:=":
            close = s.find(s[j + 1] + "]", j + 2)
            if close < 0:
                return -1
            j = close + 2
            continue
        if s[j] == "]":
            return j + 1
        j += 1
    return -1


_INTERVAL = re.compile(r"(\d*)(?:(,)(\d*))?")


def _check_intervals(text: str, extended: bool) -> None:
    """GNU's errors for a bad interval: ``\\{`` never closed, ``{2,1}``."""
    opener = "{" if extended else "\\{"
    closer = "}" if extended else "\\}"
    i = 0
    while (i := text.find(opener, i)) >= 0:
        if not extended and i > 0 and text[i - 1] == "\\" and (i < 2 or text[i - 2] != "\\"):
            i += 1
            continue
        m = _INTERVAL.match(text, i + len(opener))
        assert m is not None
        if not text.startswith(closer, m.end()):
            if extended:
                i += 1
                continue  # a literal brace in an ERE
            raise re.error("Unmatched \\{")
        low, comma, high = m.groups()
        if (not low and not comma) or (low and high and int(low) > int(high)):
            raise re.error("Invalid content of \\{\\}")
        i = m.end()


def _char(m: re.Match[str]) -> str:
    """The character of ``\\xHH``, ``\\oNNN``, ``\\dNNN`` or ``\\cX``."""
    hexa, octal, decimal, control, letter = m.groups()
    if letter is not None:
        return _CONTROL[letter]
    if control is not None:
        return chr(ord(control.upper()) ^ 0x40)
    return chr(int(hexa, 16) if hexa else int(octal, 8) if octal else int(decimal))


def _numeric_escapes(text: str, extended: bool) -> str:
    """A regex with GNU's ``\\xHH``-style escapes made literal characters (``\\\\`` kept)."""
    if "\\" not in text:
        return text
    special = ".[]*^$\\/" + ("(){}|+?" if extended else "")

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "\\\\":
            return m.group(0)
        ch = _char(m)
        return "\\" + ch if ch in special else ch

    return re.sub(r"\\\\|" + _NUMERIC.pattern, one, text, flags=re.S)


def _y_text(raw: str) -> str:
    """A y string: ``\\\\`` a backslash, ``\\n`` a newline (``\\delim`` was read already)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        numeric = _NUMERIC.match(raw, i)
        if numeric is not None:
            out.append(_char(numeric))
            i = numeric.end()
            continue
        if raw[i] == "\\" and i + 1 < len(raw):
            d = raw[i + 1]
            out.append("\n" if d == "n" else ("\\" if d == "\\" else _ESCAPES.get(d, "\\" + d)))
            i += 2
            continue
        out.append(raw[i])
        i += 1
    return "".join(out)
