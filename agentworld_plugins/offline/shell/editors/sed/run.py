"""Running a parsed sed program (:mod:`.script`) over its input, cycle by cycle, as GNU sed 4.9.

Every command executed, and every branch taken, spends the step's work budget
(:data:`SED_COMMAND_WORK`), so ``sed ':a;ba'`` ends with the shell's CPU-time answer; the
pattern and hold spaces are held against the memory budget as they grow (``G;h`` doubling,
``:a;N;ba`` on an endless pipe). ``e`` and ``s///e`` run a command: that is never done here,
it is answered as a program the offline world cannot simulate (noted as an unknown effect).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

from ....vfs import FsError
from ...limits import COPY_BYTES_PER_UNIT, current
from ...proc import CHUNK, _split_lines
from .script import Addr, Command, Program, Regex

if TYPE_CHECKING:
    from ...proc import _Proc

#: the work of one sed command executed (GNU's take a fraction of a microsecond each)
SED_COMMAND_WORK = 1
#: the width ``l`` wraps at (``-l N``; 0 never wraps)
LINE_WRAP = 70
_LIST_ESCAPES = {"\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                 "\t": "\\t", "\v": "\\v"}  # fmt: skip


class SedRuntimeError(Exception):
    """An error while running (``no previous regular expression``): status 1 after the output."""


class _Quit(Exception):
    def __init__(self, code: int | None, stop: bool) -> None:
        super().__init__(code)
        self.code = code
        #: the whole sed stops (q, Q, e); False: only the input ran out inside n/N
        self.stop = stop


class SedInput:
    """sed's input lines, read one ahead (so that ``$`` knows the last) and no further: a script
    that quits (``sed 5q``) leaves the rest of a pipe unread, as GNU sed does."""

    def __init__(
        self, lines: Iterator[tuple[str, str]], sep: str, give_back: Callable[[str], None] | None = None
    ) -> None:
        self.lines = lines
        self.sep = sep
        self.give_back = give_back
        self.ahead = next(self.lines, None)
        self.number = 0
        self.name = "-"
        #: the last line read had no separator (sed writes it back without one)
        self.unterminated = False

    @property
    def last(self) -> bool:
        return self.ahead is None

    def quit(self) -> None:
        """``q``/``Q``: the line read ahead goes back to a seekable stdin (GNU sed seeks back)."""
        if self.ahead is not None and self.give_back is not None:
            self.give_back(self.ahead[0])
            self.ahead = None

    def read(self) -> str | None:
        """The next line without its separator; None at the end."""
        got = self.ahead
        if got is None:
            return None
        line, self.name = got
        self.ahead = next(self.lines, None)
        self.number += 1
        self.unterminated = not line.endswith(self.sep)
        return line if self.unterminated else line[:-1]


class Runner:
    """One run of a program: the hold space, the queue of text to append, the output."""

    def __init__(self, prog: Program, p: _Proc, quiet: bool, sep: str, wrap: int,
                 wfiles: dict[str, list[str]], paths: dict[str, str]) -> None:  # fmt: skip
        self.prog = prog
        self.p = p
        self.quiet = quiet
        self.sep = sep
        self.wrap = wrap
        self.wfiles = wfiles
        #: the files r/R read, resolved before the first line (the shell's directory may change)
        self.paths = paths
        #: output not yet handed on (in blocks of :data:`CHUNK`)
        self.pending: list[str] = []
        self.pending_size = 0
        self.stopped = False
        #: where ``w /dev/stdout`` writes when that is not the output (``-i``)
        self.stdout: Callable[[str], None] | None = None
        vm = p.vm
        #: POSIXLY_CORRECT in the environment: N on the last line quits without printing
        self.posix = "POSIXLY_CORRECT" in vm.exported and "POSIXLY_CORRECT" in vm.vars
        self.hold = ""
        self.last_rx: Regex | None = None
        self.queue: list[str | tuple[str] | None] = []
        self.rfiles: dict[str, Iterator[str]] = {}
        self.missing_newline = False
        self.budget = current()
        #: the status to exit with where ``e`` was refused
        self.refused: int | None = None

    # output

    def write_out(self, text: str) -> None:
        self.pending.append(text)
        self.pending_size += len(text)

    def take(self) -> str:
        text = "".join(self.pending)
        self.pending.clear()
        self.pending_size = 0
        return text

    def write(self, text: str) -> None:
        if self.missing_newline:
            self.missing_newline = False
            self.write_out(self.sep)
        self.write_out(text)

    def emit(self, ps: str, source: SedInput, whole: bool) -> None:
        """The pattern space, with the separator unless its input line had none."""
        self.write(ps)
        if source.unterminated and not whole:
            self.missing_newline = True
        else:
            self.write_out(self.sep)

    def to_file(self, name: str, ps: str, unterminated: bool) -> None:
        """``w``: the space and its newline (none after a last line that had none)."""
        text = ps if unterminated else ps + self.sep
        if name == "/dev/stdout" and self.stdout is None:
            self.write(ps)
            if unterminated:
                self.missing_newline = True
            else:
                self.write_out(self.sep)
        elif name == "/dev/stdout" and self.stdout is not None:
            self.stdout(text)
        elif name == "/dev/stderr":
            self.p.ctx.err.write(text)
        else:
            self.wfiles.setdefault(name, []).append(text)

    def flush_queue(self) -> None:
        for item in self.queue:
            # each (even an empty `a\\`) first ends a last line that had no newline, as GNU does
            if isinstance(item, tuple):
                self.write(item[0])  # a file's text or a line of R: as it is
            else:
                self.write("" if item is None else item + "\n")
        self.queue.clear()

    def read_file(self, name: str) -> str | None:
        if name == "/dev/stdin":
            return self.p.ctx.stdin.read()
        try:
            return self.p.fs.read_text(self.paths.get(name) or self.p.path(name))
        except FsError:
            return None  # GNU: a file that cannot be read is silently ignored

    # addresses

    def match(self, addr: Addr, k: int, ps: str, source: SedInput) -> bool:
        kind = addr.kind
        if kind == "line":
            return k == addr.n
        if kind == "last":
            return source.last
        if kind == "step":
            return k == addr.n if addr.step <= 0 else k >= addr.n and (k - addr.n) % addr.step == 0
        if kind == "re":
            return self.regex(addr.rx).search(ps) is not None
        return False

    def regex(self, rx: Regex | None) -> Regex:
        if rx is None:
            rx = self.last_rx
            if rx is None:
                raise SedRuntimeError("no previous regular expression")
        self.last_rx = rx
        return rx

    def selected(self, cmd: Command, k: int, ps: str, source: SedInput) -> bool:
        a1, a2 = cmd.a1, cmd.a2
        if a1 is None:
            hit = True
        elif a2 is None:
            hit = self.match(a1, k, ps, source)
        else:
            hit = self.in_range(cmd, a1, a2, k, ps, source)
        return hit != cmd.neg

    def in_range(self, cmd: Command, a1: Addr, a2: Addr, k: int, ps: str, source: SedInput) -> bool:
        if cmd.active:
            if a2.kind == "re":
                if self.match(a2, k, ps, source):
                    cmd.active = False
                return True
            if a2.kind == "last":
                cmd.active = not source.last
                return True
            if k < cmd.end:
                return True
            cmd.active = False
            if k == cmd.end or a2.kind != "line":
                return True  # +N and ~N end on the line that reaches or passes the end
            # past a line-number end (n/N read over it): not selected, and may start again
        if a1.kind == "line":
            # a line-number start passed over by n/N still starts the range (once)
            if k < a1.n or (k > a1.n and cmd.started):
                return False
        elif not self.match(a1, k, ps, source):
            return False
        cmd.started = True
        kind, n = a2.kind, a2.n
        if kind == "line":
            cmd.active, cmd.end = n > k, n
        elif kind == "plus":
            cmd.active, cmd.end = n > 0, k + n
        elif kind == "mult":  # up to the next multiple of n after this line (GNU: 4,~4 is 4-8)
            cmd.active = n > 0
            cmd.end = (k // n + 1) * n if n > 0 else k
        elif kind == "last":
            cmd.active = not source.last
        else:
            cmd.active = True
        return True

    # the cycle

    def run(self, source: SedInput) -> Generator[str, None, int | None]:
        """Run over ``source``, yielding the output in blocks; returns the exit code of a
        ``q``/``Q`` (``stopped``: sed stops there)."""
        self.stopped = False
        for cmd in self.prog.commands:
            cmd.active = cmd.a1 is not None and cmd.a1.kind == "zero"
            cmd.started = False
        code = None
        try:
            yield from self.cycles(source)
        except _Quit as quit_:
            self.stopped = quit_.stop
            if quit_.stop:
                source.quit()
            code = quit_.code
        if self.pending:
            yield self.take()
        return code

    def cycles(self, source: SedInput) -> Generator[str, None, None]:
        cmds = self.prog.commands
        count = len(cmds)
        budget = self.budget
        sep = self.sep
        restart = False
        ps = ""
        # what N and G appended, joined to ps only when a command looks at it (`:a;N;$!ba`
        # would otherwise copy the growing space at each line)
        tail = io.StringIO()  # grows in place, amortized (a str's += copies once it is big)
        tail_size = 0
        while True:
            if not restart:
                read = source.read()
                if read is None:
                    return
                ps = read
            restart = False
            whole = False
            replaced = False
            k = source.number
            pc = 0
            action = "print"
            while pc < count:
                if self.pending_size >= CHUNK:
                    yield self.take()
                cmd = cmds[pc]
                pc += 1
                budget.spend(SED_COMMAND_WORK)
                if tail_size and not cmd.blind:
                    ps += tail.getvalue()
                    tail = io.StringIO()
                    tail_size = 0
                if not self.selected(cmd, k, ps, source):
                    if cmd.name == "{":
                        pc = cmd.target
                    continue
                name = cmd.name
                if name == "{":
                    continue
                if name == "s":
                    new = self.substitute(cmd, ps)
                    if new is not None:
                        ps, replaced = new, True
                        if cmd.pflag:
                            self.emit(ps, source, whole)
                        if cmd.arg:
                            self.to_file(cmd.arg, ps, source.unterminated)
                        if cmd.eflag:
                            self.refuse()
                elif name == "p":
                    self.emit(ps, source, whole)
                elif name == "d":
                    action = "delete"
                    break
                elif name == "D":
                    at = ps.find(sep)
                    if at < 0:
                        action = "delete"
                        break
                    ps = ps[at + 1 :]
                    action = "restart"
                    break
                elif name in "btT":
                    if name == "b" or (name == "t") == replaced:
                        if name != "b":
                            replaced = False
                        pc = cmd.target
                elif name == "h":
                    self.hold = ps
                elif name == "H":
                    self.grow(len(self.hold) + len(ps) + 1, len(ps))
                    hold, self.hold = self.hold, ""
                    hold += sep  # in place: CPython appends to a string only it holds
                    hold += ps
                    self.hold = hold
                elif name == "g":
                    ps = self.hold
                elif name == "G":
                    self.grow(len(self.hold) + len(ps) + tail_size + 1, len(self.hold))
                    tail.write(sep)
                    tail.write(self.hold)
                    tail_size += len(self.hold) + 1
                    whole = True
                elif name == "x":
                    ps, self.hold = self.hold, ps
                elif name in "nN":
                    if source.last:  # GNU (not POSIX): print the pattern space and end
                        ps += tail.getvalue()
                        if not self.quiet and not (self.posix and name == "N"):
                            self.emit(ps, source, whole)
                        self.flush_queue()
                        raise _Quit(None, False)
                    if name == "n" and not self.quiet:
                        self.emit(ps, source, whole)
                    self.flush_queue()
                    line = source.read() or ""
                    k = source.number
                    if name == "n":
                        ps, whole = line, False
                    else:
                        self.grow(len(ps) + tail_size + len(line) + 1, len(line))
                        tail.write(sep)
                        tail.write(line)
                        tail_size += len(line) + 1
                elif name == "P":
                    at = ps.find(sep)
                    self.write((ps if at < 0 else ps[:at]) + sep)
                elif name == "=":
                    self.write(f"{k}\n")
                elif name == "a":
                    self.queue.append(cmd.arg)
                elif name == "i":
                    if cmd.arg is not None:
                        self.write(cmd.arg + "\n")
                elif name == "c":
                    if (cmd.a2 is None or not cmd.active) and cmd.arg is not None:
                        self.write(cmd.arg + "\n")
                    action = "delete"
                    break
                elif name == "y":
                    ps = ps.translate(cmd.arg)
                elif name == "l":
                    self.write(self.listing(ps, self.wrap if cmd.arg is None else cmd.arg) + sep)
                elif name in "qQ":
                    if name == "q":
                        if not self.quiet:
                            self.emit(ps, source, whole)
                        self.flush_queue()
                    raise _Quit(cmd.arg or 0, True)
                elif name == "r":
                    text = self.read_file(cmd.arg)
                    if text:
                        self.queue.append((text,))
                elif name == "R":
                    got = self.read_line(cmd.arg)
                    if got is not None:
                        self.queue.append((got,))
                elif name == "w":
                    self.to_file(cmd.arg, ps, source.unterminated)
                elif name == "W":
                    at = ps.find(sep)
                    if at < 0:
                        self.to_file(cmd.arg, ps, source.unterminated)
                    else:
                        self.to_file(cmd.arg, ps[:at], False)
                elif name == "z":
                    ps = ""
                elif name == "F":
                    self.write(f"{source.name}\n")
                elif name == "e":
                    self.refuse()
            if tail_size:
                ps += tail.getvalue()
                tail = io.StringIO()
                tail_size = 0
            if action == "print" and not self.quiet:
                self.emit(ps, source, whole)
            self.flush_queue()
            restart = action == "restart"
            if self.pending_size >= CHUNK:
                yield self.take()

    def grow(self, size: int, added: int) -> None:
        """A space grows to ``size`` by ``added`` bytes: refused past the memory budget, the
        bytes appended counted as work (appending is linear, as in GNU's growing buffers)."""
        self.budget.reserve(size)
        self.budget.spend(1 + added // COPY_BYTES_PER_UNIT)

    def refuse(self) -> None:
        """``e``: a command would run; the offline world does not run it (noted, and by default
        a notice and status 126 end sed here; with unknown programs set to succeed, nothing)."""
        status = self.p.not_simulated()
        if status:
            self.refused = status
            raise _Quit(status, True)

    def read_line(self, name: str) -> str | None:
        lines = self.rfiles.get(name)
        if lines is None:
            text = self.read_file(name)
            lines = self.rfiles[name] = _split_lines([text or ""])
        return next(lines, None)

    def substitute(self, cmd: Command, ps: str) -> str | None:
        """``ps`` with cmd's substitution made, or None where nothing was replaced. An empty match
        right after the previous match does not count (``s/b*/-/g`` on abc is -a-c-)."""
        rx = self.regex(cmd.rx)
        out: list[str] = []
        copied = count = 0
        prev_end = -1
        size = len(ps)
        spend = self.budget.spend
        for m in rx.finditer(ps):  # one pass over the text (its work counted once)
            start, end = m.span()
            if count:
                spend(1)
            if start == end == prev_end:
                continue
            prev_end = end
            count += 1
            if count >= cmd.nth:
                out.append(ps[copied:start])
                out.append(self.expand(cmd.rep, m))
                copied = end
                if not cmd.glob:
                    break
        if copied == 0 and not out:
            return None
        out.append(ps[copied:])
        new = "".join(out)
        if len(new) > size:
            self.budget.reserve(len(new))
        return new

    @staticmethod
    def expand(rep: list[tuple[str, Any]], m: Any) -> str:
        out: list[str] = []
        mode = one = ""
        for kind, value in rep:
            if kind == "case":
                if value in "ul":
                    one = value
                else:
                    mode, one = ("" if value == "E" else value), ("" if value == "E" else one)
                continue
            piece = value if kind == "text" else (m.group(value) or "")
            if not piece:
                continue
            if mode:
                piece = piece.upper() if mode == "U" else piece.lower()
            if one:
                piece = (piece[0].upper() if one == "u" else piece[0].lower()) + piece[1:]
                one = ""
            out.append(piece)
        return "".join(out)

    @staticmethod
    def listing(ps: str, width: int) -> str:
        """``l``: escapes, octal bytes, lines wrapped with ``\\`` before ``width``, then ``$``."""
        out: list[str] = []
        used = 0
        for ch in ps:
            escaped = _LIST_ESCAPES.get(ch)
            if escaped is None:
                if " " <= ch <= "~":
                    escaped = ch
                else:
                    escaped = "".join(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogateescape"))
            if width > 0 and used + len(escaped) > width - 1:
                out.append("\\\n")
                used = 0
            out.append(escaped)
            used += len(escaped)
        out.append("$")
        return "".join(out)


def file_lines(text: str, name: str, sep: str) -> Iterator[tuple[str, str]]:
    """The lines of one text, each with its separator (the last may lack it)."""
    if sep == "\n":
        for line in _split_lines([text]):
            yield line, name
        return
    start = 0
    while start < len(text):
        end = text.find(sep, start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end], name
        start = end


def drain(gen: Generator[str, None, int | None], sink: Callable[[str], None]) -> int | None:
    """Run ``gen`` to its end, each block into ``sink``; its return value."""
    while True:
        try:
            sink(next(gen))
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
