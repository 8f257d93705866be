"""Redirections: >, >>, 2>&1, &>, <, here-documents and here-strings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..vfs import DirNode, FsError
from .devices import ENDLESS, REDIRECT_BYTES, device_text
from .errors import _ExpansionError, _Unsupported
from .options import set_on
from .proc import _FileInput, _FileSink, _Input, _Null, _Sink
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

    def _open_sink(self, target: str, ctx: _Ctx, append: bool, clobber: bool = True) -> _Sink:
        path = self.fs.normalize(target, self.cwd)
        if path in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"):
            return _Null()
        if path == "/dev/stdout":
            return ctx.out
        if path == "/dev/stderr":
            return ctx.err
        if path == "/dev/tty":
            return self._tty_out
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
        if not redirects:
            return ctx
        fds: dict[int, Any] = {0: ctx.stdin, 1: ctx.out, 2: ctx.err}
        for r in redirects:
            kind = r.type
            src_fd = r.input if isinstance(r.input, int) else None
            if kind in (">", ">|", ">>"):
                fds[1 if src_fd is None else src_fd] = self._open_sink(
                    self._target(r.output, ctx), ctx.with_(out=fds[1], err=fds[2]), kind == ">>", kind != ">"
                )
            elif kind in ("&>", "&>>", ">&") and not isinstance(r.output, int):
                target = self._target(r.output, ctx)
                if kind == ">&" and target.isdigit():
                    fds[1 if src_fd is None else src_fd] = fds.get(int(target), _Null())
                elif kind == ">&" and target == "-":
                    fds[1 if src_fd is None else src_fd] = _Null()
                else:
                    sink = self._open_sink(target, ctx.with_(out=fds[1], err=fds[2]), kind == "&>>", False)
                    fds[1] = fds[2] = sink
            elif kind == ">&":
                if r.output not in fds:
                    raise _ExpansionError(f"{r.output}: Bad file descriptor")
                fds[1 if src_fd is None else src_fd] = fds[r.output]
            elif kind == "<" and getattr(r.output, "pos", (-1,))[0] in ctx.src.heredocs:
                fds[0 if src_fd is None else src_fd] = _Input(self._heredoc(r.output.pos[0], ctx))
            elif kind in ("<", "<>"):
                target = self._target(r.output, ctx)
                path = self.fs.normalize(target, self.cwd)
                try:
                    if path in ENDLESS:
                        content = device_text(path, REDIRECT_BYTES, self.device_random())
                    elif path in ("/dev/stdin", "/proc/self/fd/0"):
                        content = ctx.stdin.read()
                    else:
                        content = "" if path in ("/dev/null", "/dev/tty") else self.fs.read_text(path)
                except FsError as exc:
                    if kind == "<>" and exc.code == "ENOENT":
                        self.fs.write(path, "")
                        content = ""
                    else:
                        raise _ExpansionError(f"{target}: {exc.strerror}") from None
                regular = not path.startswith("/dev/")
                fds[0 if src_fd is None else src_fd] = _FileInput(content) if regular else _Input(content)
            elif kind == "<<<":
                word = r.output
                raw = ctx.src.text[word.pos[0] : word.pos[1]]
                segs = self._segments(raw, ctx, word.pos[0], self._subst_index(word))
                fds[0 if src_fd is None else src_fd] = _Input("".join(t for t, _ in segs) + "\n")
            elif kind == "<&":
                if isinstance(r.output, int) and r.output in fds:
                    fds[0 if src_fd is None else src_fd] = fds[r.output]
            else:
                raise _Unsupported(f"redirect {kind}")
        stdin = fds[0] if isinstance(fds[0], _Input) else _Input()
        out = fds[1] if isinstance(fds[1], _Sink) else _Null()
        err = fds[2] if isinstance(fds[2], _Sink) else _Null()
        return ctx.with_(stdin=stdin, out=out, err=err)
