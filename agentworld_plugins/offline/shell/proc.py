"""What a running command sees: its stdin, output sinks, context (_Ctx) and process (_Proc)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..vfs import FsError, Node, VirtualFS, as_text
from .devices import ENDLESS, device_text, endless
from .limits import BYTES_PER_UNIT, current, reserve
from .quoting import quote_always

if TYPE_CHECKING:
    from .machine import VirtualMachine
    from .parser import _Source


#: the paths that name one of the shell's own descriptors (``/dev/fd/3``, ``/proc/self/fd/3``)
FD_PATH = re.compile(r"/dev/(stdin|stdout|stderr)|/(?:dev|proc/self)/fd/(\d+)")
STD_FD = {"stdin": 0, "stdout": 1, "stderr": 2}

#: what one read of a pipe or a file takes at most (the size GNU tools read with)
CHUNK = 65536


def _split_lines(chunks: Iterable[str]) -> Iterator[str]:
    """The lines of a text that comes in chunks, each with its newline (the last may lack one)."""
    partial: list[str] = []
    size = 0
    for chunk in chunks:
        start = 0
        while (end := chunk.find("\n", start)) >= 0:
            if partial:
                partial.append(chunk[start : end + 1])
                yield "".join(partial)
                partial, size = [], 0
            else:
                yield chunk[start : end + 1]
            start = end + 1
        if start < len(chunk):
            size += len(chunk) - start
            reserve(size)  # a line that never ends (`cat /dev/zero | grep x`)
            partial.append(chunk[start:])
    if partial:
        yield "".join(partial)


class _Input:
    """A command's standard input: consumed as it is read, shared by the commands of a block.

    A pipe from a streaming producer is a :class:`~.pipes._PipeInput`, which pulls its text as
    it is read: readers that stop early (``head``, ``grep -m``, ``read``) take only what they use.
    """

    __slots__ = ("data", "pos")

    #: a regular file (``< file``): a program that stops early leaves the offset just after
    #: what it used (GNU head, grep -m and sed q seek back); from a pipe, a here-document or a
    #: here-string, what it read in its last block is gone (bash 5.2 feeds short here-documents
    #: through a pipe)
    seekable = False

    def __init__(self, data: str = "") -> None:
        self.data = data
        self.pos = 0

    def read(self) -> str:
        text = self.data[self.pos :]
        self.pos = len(self.data)
        return text

    def readline(self) -> str | None:
        if self.pos >= len(self.data):
            return None
        end = self.data.find("\n", self.pos)
        end = len(self.data) if end < 0 else end + 1
        line = self.data[self.pos : end]
        self.pos = end
        return line

    def read_chunk(self, size: int = CHUNK) -> str | None:
        """Up to ``size`` characters (at least one), or None at the end."""
        if self.pos >= len(self.data):
            return None
        end = min(len(self.data), self.pos + size)
        text = self.data[self.pos : end]
        self.pos = end
        return text

    def put_back(self, text: str) -> None:
        """Put back ``text``, the last thing read (a program that seeks back on a file)."""
        if self.data.endswith(text, 0, self.pos):
            self.pos -= len(text)

    def peek(self, size: int = CHUNK) -> str:
        """Up to ``size`` characters of what is still to read, left unread."""
        return self.data[self.pos : self.pos + size]

    def blocks(self, size: int) -> Iterator[str]:
        """Lines read the way a program reads a pipe, ``size`` characters at a time (a line may
        span blocks); what is left of the last block when the caller stops is gone, as it is for
        the real program. From a seekable input: exactly the lines used."""
        if self.seekable:
            yield from self.lines()
            return
        yield from _split_lines(iter(lambda: self.read_chunk(size), None))

    def lines(self) -> Iterator[str]:
        """The lines still to read, each with its newline (the last may lack one), one at a time."""
        while (line := self.readline()) is not None:
            yield line

    def chunks(self) -> Iterator[str]:
        """What is still to read, a chunk at a time."""
        while (chunk := self.read_chunk()) is not None:
            yield chunk

    @property
    def unread(self) -> int:
        """Characters written into this input that nobody has read (yet)."""
        return len(self.data) - self.pos


class _FileInput(_Input):
    """Standard input redirected from a regular file (``< file``)."""

    __slots__ = ()
    seekable = True


class _Sink:
    tty = False

    def write(self, text: str) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class _Capture(_Sink):
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        if text:
            current().charge(len(text))
            self.parts.append(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Null(_Sink):
    def write(self, text: str) -> None:  # /dev/null holds nothing, but writing is work
        if text:
            current().spend(1 + len(text) // BYTES_PER_UNIT)


class _Stream(_Sink):
    """The top-level stdout or stderr of one ``run``: chunks keep their order across the two."""

    def __init__(self, chunks: list[tuple[int, str]], fd: int, tty: bool) -> None:
        self.chunks = chunks
        self.fd = fd
        self.tty = tty

    def write(self, text: str) -> None:
        if text:
            current().charge(len(text))
            self.chunks.append((self.fd, text))


class _FileSink(_Sink):
    def __init__(self, fs: VirtualFS, path: str) -> None:
        self.fs = fs
        self.path = path

    def write(self, text: str) -> None:
        if text:
            current().charge(len(text))
            try:
                self.fs.append(self.path, text)
            except FsError:
                pass


class _Fds:
    """A shell's open file descriptors: ``{fd: _Input or _Sink}`` (a closed one is absent).

    A command's redirections make an overlay over its shell's table (``own``: the descriptors
    they set), which lasts while the command runs, as bash saves and restores them. ``exec``'s
    redirections change the shell's own table: :meth:`exec_set` writes a descriptor into this
    table and, through every overlay that did not redirect it, into the shell's, as bash's
    ``{ exec >log; } 2>x`` leaves stdout on ``log``. A subshell, a pipeline's stage and a
    command substitution start from a copy (:meth:`fork`): what ``exec`` does there ends there.
    """

    __slots__ = ("own", "parent", "table")

    def __init__(self, table: dict[int, Any], parent: _Fds | None = None, own: Iterable[int] = ()) -> None:
        self.table = table
        self.parent = parent
        self.own = frozenset(own)

    def fork(self, **streams: Any) -> _Fds:
        """A copy for a new (sub)shell, with ``stdin``/``out``/``err`` replaced where given."""
        table = dict(self.table)
        for fd, key in ((0, "stdin"), (1, "out"), (2, "err")):
            if key in streams:
                table[fd] = streams[key]
        return _Fds(table)

    def exec_set(self, fd: int, value: Any) -> None:
        """``exec N>...``: ``fd`` is ``value`` (None: closed) for the rest of the shell."""
        level: _Fds | None = self
        while level is not None:
            if value is None:
                level.table.pop(fd, None)
            else:
                level.table[fd] = value
            if fd in level.own:  # the overlay's own redirection: put back as the command ends
                break
            level = level.parent


class _Ctx:
    """Where a command runs: its shell's descriptors (``fds``; ``stdin``, ``out`` and ``err`` are
    0, 1 and 2), the source text it was read from, and whether its stdout may be fed lazily."""

    __slots__ = ("fds", "lazy", "src")

    def __init__(self, stdin: _Input, out: _Sink, err: _Sink, src: _Source, lazy: bool = False) -> None:
        self.fds = _Fds({0: stdin, 1: out, 2: err})
        self.src = src
        #: stdout is a pipe that a streaming program may feed lazily (``_Pipe.attach``): true only
        #: for the simple command that makes up a whole stage of a pipeline, so ``with_`` drops it
        #: unless it is asked for (a function's body or a script under that command writes eagerly)
        self.lazy = lazy

    @property
    def stdin(self) -> _Input:
        found = self.fds.table.get(0)
        return found if isinstance(found, _Input) else _Input()  # closed, or opened for writing

    @property
    def out(self) -> _Sink:
        found = self.fds.table.get(1)
        return found if isinstance(found, _Sink) else _Null()

    @property
    def err(self) -> _Sink:
        found = self.fds.table.get(2)
        return found if isinstance(found, _Sink) else _Null()

    def with_(self, **kw: Any) -> _Ctx:
        """The same shell with ``src`` or ``lazy`` changed; given ``stdin``, ``out`` or ``err``, a
        new (sub)shell's (its descriptors a copy: a pipeline's stage, a command substitution)."""
        streams = {k: kw[k] for k in ("stdin", "out", "err") if k in kw}
        fds = self.fds.fork(**streams) if streams else self.fds
        return _Ctx.on(fds, kw.get("src", self.src), kw.get("lazy", False))

    def forked(self) -> _Ctx:
        """This context in a subshell: the same streams, descriptors of its own."""
        return _Ctx.on(self.fds.fork(), self.src)

    def redirected(self, table: dict[int, Any], own: Iterable[int]) -> _Ctx:
        """This context under a command's redirections (``table``, which set ``own``)."""
        return _Ctx.on(_Fds(table, self.fds, own), self.src)

    @staticmethod
    def on(fds: _Fds, src: _Source, lazy: bool = False) -> _Ctx:
        """A context on existing descriptors."""
        ctx = object.__new__(_Ctx)
        ctx.fds, ctx.src, ctx.lazy = fds, src, lazy
        return ctx


class _Proc:
    """What a simulated program gets: its name (argv[0]), arguments, streams and the machine."""

    __slots__ = ("args", "ctx", "name", "vm")

    def __init__(self, vm: VirtualMachine, name: str, args: list[str], ctx: _Ctx) -> None:
        self.vm = vm
        self.name = name
        self.args = args
        self.ctx = ctx

    @property
    def fs(self) -> VirtualFS:
        return self.vm.fs

    def out(self, text: str) -> None:
        self.ctx.out.write(text)

    def err(self, message: str) -> None:
        """A program's error line: ``name: message``."""
        self.ctx.err.write(f"{self.name}: {message}\n")

    def shell_err(self, message: str) -> None:
        """A builtin's error line, started the way bash starts its own (``bash: ``...)."""
        self.vm._complain(self.ctx, message)

    def try_help(self) -> None:
        """The line GNU tools print after a usage error."""
        self.ctx.err.write(f"Try '{self.name} --help' for more information.\n")

    def unknown(self) -> None:
        """Note this invocation as one whose effect is not simulated."""
        self.vm._unknown.append(" ".join([self.name, *self.args]))

    def not_simulated(self) -> int:
        """A program the offline world cannot run: noted as an unknown effect and, by default,
        a one-line notice on stderr and status 126 (``AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS``)."""
        return self.vm._not_simulated([self.name, *self.args], self.ctx)

    def stdin(self) -> str:
        return self.ctx.stdin.read()

    def input_fd(self, fd: str | None) -> _Input | None:
        """The input a builtin's ``-u FD`` names (stdin without one); None, said as bash says it,
        when ``FD`` is not a number or not open for reading."""
        if fd is None:
            return self.ctx.stdin
        if not fd.isdigit():
            self.shell_err(f"{self.name}: {fd}: invalid file descriptor specification")
            return None
        found = self.ctx.fds.table.get(int(fd))
        if not isinstance(found, _Input):
            self.shell_err(f"{self.name}: {fd}: invalid file descriptor: Bad file descriptor")
            return None
        return found

    def path(self, name: str) -> str:
        return self.vm.fs.normalize(name, self.vm.cwd)

    def node(
        self,
        name: str,
        message: str = "cannot access {}: {}",
        follow: bool = True,
        quote: Callable[[str], str] | None = None,
    ) -> Node | None:
        """The node an operand names; None, reported (``message`` gets the quoted name and the
        reason), where there is none."""
        try:
            return self.vm.fs.stat(self.path(name), follow)
        except FsError as exc:
            self.err(message.format((quote or quote_always)(name), exc.strerror))
            return None

    def read(self, name: str, size: int | None = None) -> str:
        """The text of a file named by an operand (``-``: stdin); raises :class:`FsError`.
        ``size``: the most bytes the program wants (what it may read of an endless device)."""
        if name == "-":
            return self.stdin()
        return self.read_path(self.path(name), size)

    def read_path(self, path: str, size: int | None = None) -> str:
        """:meth:`read` of a path already made absolute."""
        if path in ("/dev/null", "/dev/full", "/dev/tty"):
            return ""
        if path in ("/dev/stdin", "/proc/self/fd/0"):
            return self.stdin()
        opened = FD_PATH.fullmatch(path)
        if opened and opened.group(2):  # `cat /dev/fd/3`: what the shell's descriptor 3 reads
            found = self.ctx.fds.table.get(int(opened.group(2)))
            if isinstance(found, _Input):
                return found.read()
        if path in ENDLESS:
            if size is None:
                raise endless(path)
            return device_text(path, size, self.vm.device_random())
        return as_text(self.vm.fs.read(path))
