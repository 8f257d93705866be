"""Redirections: >, >>, 2>&1, &>, <, here-documents and here-strings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..vfs import DirNode, FsError
from .devices import ENDLESS, REDIRECT_BYTES, device_text
from .errors import _ExpansionError, _Unsupported
from .options import set_on
from .proc import FD_PATH, STD_FD, _FileInput, _FileSink, _Input, _Null, _Sink
from .state import MachineState

if TYPE_CHECKING:
    from .proc import _Ctx


class RedirectMixin(MachineState):
    """Redirections: >, >>, 2>&1, &>, <, here-documents and here-strings.

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _target(self, word: Any, ctx: _Ctx) -> str:
        fields = self._expand_word(word, ctx)
        raw = ctx.src.text[word.pos[0] : word.pos[1]]
        if len(fields) != 1 or fields[0] == "":
            raise _ExpansionError(f"{raw}: ambiguous redirect")
        return fields[0]

    def _open_sink(
        self, target: str, fds: dict[int, Any], append: bool, clobber: bool = True, fd: int = 1
    ) -> _Sink:
        """What ``fd>target`` (``>>``: ``append``; ``clobber``: ``>|`` or ``&>``) writes to."""
        path = self.fs.normalize(target, self.cwd)
        if path in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"):
            return _Null()
        found = self._named_descriptor(path, fds)
        if isinstance(found, _FileSink):  # Linux opens the file again: `>` empties it
            return self._open_sink(found.path, {}, append, clobber)
        if found is not None:
            if not isinstance(found, _Sink):
                raise _ExpansionError(f"{target}: Permission denied")
            return found
        if path == "/dev/tty":  # the terminal: a run's stderr for descriptor 2, else its stdout
            return self._tty_err if fd == 2 else self._tty_out
        try:
            node = self.fs.stat(path)
        except FsError as exc:
            if exc.code != "ENOENT":
                raise _ExpansionError(f"{target}: {exc.strerror}") from None
            node = None
        if isinstance(node, DirNode):
            raise _ExpansionError(f"{target}: Is a directory")
        if node is not None and not append and not clobber and set_on(self, "noclobber"):
            raise _ExpansionError(f"{target}: cannot overwrite existing file")  # `set -C`; `>|` may
        try:
            if node is None or not append:
                self.fs.write(path, "")
        except FsError as exc:
            raise _ExpansionError(f"{target}: {exc.strerror}") from None
        return _FileSink(self.fs, path)

    def _heredoc(self, at: int, ctx: _Ctx) -> str:
        """The here-document whose delimiter word starts at ``at``: its body as the pre-pass kept it
        (tabs already taken off for ``<<-``), expanded unless the delimiter was quoted."""
        body = ctx.src.heredocs[at]
        if at in ctx.src.quoted_heredocs:
            return body
        segs = self._segments(body, ctx, None, {}, heredoc=True)
        return "".join(t for t, _ in segs)

    def _apply_redirects(self, redirects: list[Any], ctx: _Ctx) -> _Ctx:
        """``ctx`` under a command's redirections (an overlay on its shell's descriptors, undone
        as the command ends)."""
        if not redirects:
            return ctx
        return ctx.redirected(*self._redirect_table(redirects, ctx))

    def _exec_redirects(self, redirects: list[Any], ctx: _Ctx, named: dict[int, str] | None = None) -> None:
        """``exec``'s redirections: they change the shell's descriptors for the rest of it (as
        do ``{var}>file`` ones on any command, ``named``: their variables by ``id`` of node)."""
        table, own = self._redirect_table(redirects, ctx, named)
        for fd in own:
            ctx.fds.exec_set(fd, table.get(fd))

    def _redirect_table(
        self, redirects: list[Any], ctx: _Ctx, named: dict[int, str] | None = None
    ) -> tuple[dict[int, Any], set[int]]:
        """The descriptors after ``redirects`` (applied left to right), and those they set.
        ``{var}>file`` (a redirection in ``named``) opens the lowest free descriptor from 10 up
        and sets ``var`` to its number; ``{var}>&-`` closes the one ``var`` holds."""
        fds: dict[int, Any] = dict(ctx.fds.table)
        own: set[int] = set()

        def put(fd: int | None, default: int, value: Any) -> None:
            fd = default if fd is None else fd
            own.add(fd)
            if value is None:
                fds.pop(fd, None)
            else:
                fds[fd] = value

        for r in redirects:
            kind = r.type
            src_fd = r.input if isinstance(r.input, int) else None
            if named and id(r) in named:
                src_fd = self._descriptor_variable(named[id(r)], r, fds)
            if kind in (">", ">|", ">>"):
                fd = 1 if src_fd is None else src_fd
                put(fd, 1, self._open_sink(self._target(r.output, ctx), fds, kind == ">>", kind != ">", fd))
            elif kind == ">&" and r.output == "-":  # `3>&-`: closed
                put(src_fd, 1, None)
            elif kind in ("&>", "&>>", ">&") and not isinstance(r.output, int):
                target = self._target(r.output, ctx)
                if kind == ">&" and target.isdigit():
                    put(src_fd, 1, self._duplicate(fds, int(target), _written(r.output, ctx)))
                elif kind == ">&" and target == "-":
                    put(src_fd, 1, None)
                else:
                    sink = self._open_sink(target, fds, kind == "&>>", False)
                    put(1, 1, sink)
                    put(2, 2, sink)
            elif kind == ">&":
                put(src_fd, 1, self._duplicate(fds, r.output))
            elif kind == "<" and getattr(r.output, "pos", (-1,))[0] in ctx.src.heredocs:
                put(src_fd, 0, _Input(self._heredoc(r.output.pos[0], ctx)))
            elif kind in ("<", "<>"):
                put(src_fd, 0, self._open_input(self._target(r.output, ctx), fds, kind == "<>"))
            elif kind == "<<<":
                word = r.output
                raw = ctx.src.text[word.pos[0] : word.pos[1]]
                segs = self._segments(raw, ctx, word.pos[0], self._subst_index(word))
                put(src_fd, 0, _Input("".join(t for t, _ in segs) + "\n"))
            elif kind == "<&":
                dup: int | str = r.output if isinstance(r.output, (int, str)) else self._target(r.output, ctx)
                if dup == "-":
                    put(src_fd, 0, None)
                elif isinstance(dup, int) or dup.isdigit():
                    put(src_fd, 0, self._duplicate(fds, int(dup), _written(r.output, ctx)))
                else:
                    raise _ExpansionError(f"{dup}: ambiguous redirect")
            else:
                raise _Unsupported(f"redirect {kind}")
        return fds, own

    def _descriptor_variable(self, name: str, r: Any, fds: dict[int, Any]) -> int:
        """The descriptor of ``{name}`` before the redirection ``r``: the one ``name`` holds when
        ``r`` closes it, else the lowest free one from 10 up, which ``name`` is set to."""
        if r.output == "-" and r.type in (">&", "<&"):
            held = self.getvar(name) or ""
            if not held.isdigit():
                raise _ExpansionError(f"{held or name}: ambiguous redirect")
            return int(held)
        fd = 10
        while fd in fds:
            fd += 1
        self._assign(name, str(fd))
        return fd

    def _named_descriptor(self, path: str, fds: dict[int, Any]) -> Any:
        """What ``/dev/stdout``, ``/dev/fd/3`` or ``/proc/self/fd/3`` is open on (None: not such a
        path, or a process substitution's ``/dev/fd/63``, a file of its own here)."""
        opened = FD_PATH.fullmatch(path)
        if opened is None:
            return None
        found = fds.get(int(opened.group(2) or STD_FD[opened.group(1)]))
        if found is None and not self.fs.exists(path):
            raise _ExpansionError(f"{path}: No such file or directory")
        return found

    @staticmethod
    def _duplicate(fds: dict[int, Any], fd: int, written: str | None = None) -> Any:
        """``N>&M``/``N<&M``: what ``M`` is open on (bash's error when it is closed, naming the
        word as written: ``$fd: Bad file descriptor``)."""
        if fd not in fds:
            raise _ExpansionError(f"{written or fd}: Bad file descriptor")
        return fds[fd]

    def _open_input(self, target: str, fds: dict[int, Any], read_write: bool) -> _Input:
        path = self.fs.normalize(target, self.cwd)
        found = self._named_descriptor(path, fds)
        if found is not None:
            if not isinstance(found, _Input):
                raise _ExpansionError(f"{target}: Permission denied")
            return found
        try:
            if path in ENDLESS:
                content = device_text(path, REDIRECT_BYTES, self.device_random())
            else:
                content = "" if path in ("/dev/null", "/dev/tty") else self.fs.read_text(path)
        except FsError as exc:
            if read_write and exc.code == "ENOENT":
                self.fs.write(path, "")
                content = ""
            else:
                raise _ExpansionError(f"{target}: {exc.strerror}") from None
        return _Input(content) if path.startswith("/dev/") else _FileInput(content)


def _written(word: Any, ctx: _Ctx) -> str:
    """A redirection's target as the script wrote it (bashlex gives a number for ``>&3``)."""
    if isinstance(word, (int, str)):
        return str(word)
    return ctx.src.text[word.pos[0] : word.pos[1]]
