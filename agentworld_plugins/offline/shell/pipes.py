"""Pipes between the commands of a pipeline: lazy producers, readers that pull, SIGPIPE.

The commands of a pipeline run one after the other, and a stage that is a single simple
command may stream: a program registered with :func:`streaming` is a generator of output
chunks, and as a whole stage it hands that generator to the pipe (:meth:`_Pipe.attach`)
instead of running to its end. The next stage reads a :class:`_PipeInput`, which pulls chunks
only as they are read, so ``yes | head -n 2`` and ``seq 1 1e15 | head -3`` end at once, and
``yes | wc -l`` runs until the step's work budget stops it, holding one chunk at a time.

When the last command has ended, every earlier one ends as it would under bash
(:func:`_finish`): a producer whose remaining output fits in the pipe's buffer finishes with its
own status; one still writing past that is killed by SIGPIPE, status 141, which only
``set -o pipefail`` and ``${PIPESTATUS[@]}`` show. Programs and compound commands that do not
stream write into the pipe in full first (the materialising path), and the same rule gives
their status from what their reader left unread.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, TypeVar

from .limits import BYTES_PER_UNIT, current, reserve
from .proc import CHUNK, _Capture, _Input

if TYPE_CHECKING:
    from .proc import _Proc

#: what a Linux pipe holds before its writer blocks (pipe(7): 16 pages): a writer runs ahead of
#: its reader by that much, and one still writing when its reader has gone gets SIGPIPE
PIPE_CAPACITY = 65536
#: 128 + SIGPIPE
SIGPIPE_STATUS = 141
#: how many more times a lazy producer is resumed, at most, once its reader has ended (a real
#: one has run ahead of its reader meanwhile; one that would need longer is still writing)
_FINISH_STEPS = 16

#: a streaming program: a generator of output chunks whose return value is the exit status
Producer = Callable[["_Proc"], Generator[str, None, int]]


def streaming(
    lazy_if: Callable[[list[str]], bool] | None = None,
) -> Callable[[Producer], Callable[[_Proc], int]]:
    """Make a generator of output chunks a program (``(p) -> int``, for ``@applet``):
    ``@applet("yes")`` over ``@streaming()`` over ``def _u_yes(p): ... yield chunk ... return 0``.

    Run anywhere but as a whole pipeline stage, it writes each chunk as it is made (counting its
    work between chunks); as a stage, it streams. ``lazy_if(args)`` (optional) says
    whether an invocation may stream (``find -exec`` must run its commands in order, so it may
    not). The generator must write its output only by yielding it (errors go to ``p.err``), and
    should resolve its file names before its first ``yield``: later, the shell's directory may be
    another's. ``p.ctx.lazy`` tells it whether it is being streamed.
    """

    def wrap(fn: Producer) -> Callable[[_Proc], int]:
        @functools.wraps(fn)
        def run(p: _Proc) -> int:
            gen = fn(p)
            while True:
                try:
                    chunk = next(gen)
                except StopIteration as stop:
                    return _status(stop.value)
                p.out(chunk)
                current().spend(1)

        run.streams = fn  # type: ignore[attr-defined]
        run.lazy_if = lazy_if  # type: ignore[attr-defined]
        return run

    return wrap


_Fn = TypeVar("_Fn", bound=Callable[..., int])


def delegating(fn: _Fn) -> _Fn:
    """Mark a program that runs one other command with its own streams (``command``, ``exec``,
    ``env``, ``nohup``): as a whole pipeline stage, that command may stream (``env yes | head``)."""
    fn.passes_lazy = True  # type: ignore[attr-defined]
    return fn


def _status(value: object) -> int:
    return value if isinstance(value, int) else 0


class _Pipe(_Capture):
    """The write end of a pipe between two stages: text written into it, or a lazy producer."""

    def __init__(self) -> None:
        super().__init__()
        self.source: Iterator[str] | None = None
        self.first = ""
        self.proc: _Proc | None = None

    def attach(self, source: Iterator[str], proc: _Proc) -> int:
        """Take a streaming program's generator: run it to its first chunk (so that bad
        arguments are reported now, by the caller's handlers) and keep the rest for the reader.
        Returns the status when it has already ended, else 0 (the real one comes at the end)."""
        try:
            first = next(source)
        except StopIteration as stop:
            return _status(stop.value)
        self.source, self.first, self.proc = source, first, proc
        return 0

    def reader(self) -> _Input:
        """The read end, for the next stage."""
        if self.source is None:
            return _Input(self.text)
        return _PipeInput(self.text + self.first, self.source, self.proc)


class _PipeInput(_Input):
    """A pipe from a lazy producer: ``data`` holds what was pulled and not yet read."""

    __slots__ = ("base", "proc", "produced", "source", "status")

    def __init__(self, data: str, source: Iterator[str], proc: _Proc | None) -> None:
        super().__init__(data)
        self.source: Iterator[str] | None = source
        self.proc = proc
        self.status: int | None = None
        self.produced = len(data)
        #: characters read before ``data[0]``
        self.base = 0

    @property
    def consumed(self) -> int:
        return self.base + self.pos

    @property
    def unread(self) -> int:
        return self.produced - self.consumed

    def _pull(self) -> str | None:
        """The producer's next chunk (None once it has ended; ``status`` then holds its status)."""
        while (chunk := self._resume()) is not None:
            if chunk:
                return chunk
        return None

    def _resume(self) -> str | None:
        """Run the producer to its next ``yield``: a chunk, possibly empty (a producer that reads
        much and writes little, like ``grep``, pauses now and then), or None once it has ended."""
        source = self.source
        if source is None:
            return None
        budget = current()
        budget.spend(1)  # an endless producer meets the step's work budget here
        try:
            chunk = next(source)
        except StopIteration as stop:
            self.status = _status(stop.value)
            self.source = None
            return None
        except (ValueError, IndexError, KeyError):  # as _call reports a program's bad input
            if self.proc is not None:
                self.proc.err("invalid argument")
            self.status = 1
            self.source = None
            return None
        self.produced += len(chunk)
        budget.spend(len(chunk) // BYTES_PER_UNIT)  # the bytes through the pipe
        return chunk

    def _append(self, chunk: str) -> None:
        if self.pos:
            self.base += self.pos
            self.data = self.data[self.pos :]
            self.pos = 0
        if self.data:
            reserve(len(self.data) + len(chunk))  # a line that never ends (`cat /dev/zero | sort`)
            self.data += chunk
        else:
            self.data = chunk

    def read(self) -> str:
        parts = [self.data[self.pos :]]
        size = len(parts[0])
        while (chunk := self._pull()) is not None:
            size += len(chunk)
            reserve(size)
            parts.append(chunk)
        self.base = self.produced
        self.data, self.pos = "", 0
        return "".join(parts)

    def readline(self) -> str | None:
        scan = self.pos
        while True:
            end = self.data.find("\n", scan)
            if end >= 0:
                line = self.data[self.pos : end + 1]
                self.pos = end + 1
                return line
            chunk = self._pull()
            if chunk is None:
                break
            scan = len(self.data) - self.pos  # where the new text starts once `data` is compacted
            self._append(chunk)
        if self.pos >= len(self.data):
            return None
        line = self.data[self.pos :]
        self.pos = len(self.data)
        return line

    def read_chunk(self, size: int = CHUNK) -> str | None:
        if self.pos >= len(self.data):
            chunk = self._pull()
            if chunk is None:
                return None
            self.base += len(self.data)
            self.data, self.pos = chunk, 0
        end = min(len(self.data), self.pos + size)
        text = self.data[self.pos : end]
        self.pos = end
        return text

    def close(self) -> None:
        """Stop the producer where it is (its ``finally`` blocks run)."""
        if self.source is not None:
            close = getattr(self.source, "close", None)
            self.source = None
            if close is not None:
                close()


def _finish(reader: _Input, status: int) -> int:
    """The status of a stage whose reader has ended (``status``: what the stage returned).

    A lazy producer is run on a little (until what it wrote and nobody read passes the pipe's
    capacity, or for a few more pauses when it writes little): ended by then, its own status;
    else it is stopped, as SIGPIPE would stop it at its next write (141). A stage
    that wrote in full is judged by what was left unread: more than the pipe holds means it was
    still writing when its reader went away (the real one would have been killed)."""
    if isinstance(reader, _PipeInput):
        steps = 0
        while reader.source is not None and reader.unread <= PIPE_CAPACITY and steps < _FINISH_STEPS:
            reader._resume()
            steps += 1
        if reader.source is not None:
            reader.close()
            return SIGPIPE_STATUS
        return reader.status if reader.status is not None else status
    return SIGPIPE_STATUS if reader.unread > PIPE_CAPACITY else status
