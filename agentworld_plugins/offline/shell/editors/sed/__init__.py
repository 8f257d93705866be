"""sed: the applet (options, input files, in-place editing); scripts are parsed by
:mod:`.script` and run by :mod:`.run`, as GNU sed 4.9 does."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...errors import _HelpRequested, _UsageError
from ...getopt import _getopt
from ...pipes import streaming
from ...proc import CHUNK, _split_lines
from ...registry import applet
from .run import LINE_WRAP, Runner, SedInput, SedRuntimeError, drain, file_lines
from .script import Program, SedError, parse
from .usage import HELP, USAGE, VERSION

if TYPE_CHECKING:
    from ...proc import _Proc

_LONGS: dict[str, str | None] = {
    "quiet": "n",
    "silent": "n",
    "expression=": "e",
    "file=": "f",
    "regexp-extended": "E",
    "in-place": "i",
    "in-place=": "isuffix",
    "line-length=": "l",
    "separate": "s",
    "unbuffered": "u",
    "null-data": "z",
    "zero-terminated": "z",
    "posix": None,
    "debug": "debug",
    "sandbox": "sandbox",
    "follow-symlinks": "follow",
    "binary": None,
}


def _script_order(args: list[str]) -> tuple[list[tuple[str, str]], list[str], str | None]:
    """The -e/-f pieces in the order given (GNU joins them so), the arguments with ``-iSUFFIX``
    cut to ``-i`` (its suffix is optional and attached, which getopt cannot read), the suffix."""
    pieces: list[tuple[str, str]] = []
    out: list[str] = []
    suffix: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        out.append(a)
        i += 1
        if a == "--":
            out.extend(args[i:])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            for long, key in (("expression", "e"), ("file", "f"), ("line-length", "l")):
                if len(name) >= 3 and long.startswith(name):
                    if not eq and i < len(args):
                        value = args[i]
                        out.append(value)
                        i += 1
                    if key != "l":
                        pieces.append((key, value))
            if name == "in-place" or (len(name) >= 3 and "in-place".startswith(name) and eq):
                suffix = value if eq else suffix
            continue
        if not a.startswith("-") or len(a) < 2:
            continue
        for j in range(1, len(a)):
            c = a[j]
            if c in "efl":
                value = a[j + 1 :]
                if not value and i < len(args):
                    value = args[i]
                    out.append(value)
                    i += 1
                if c != "l":
                    pieces.append((c, value))
                break
            if c == "i":
                if a[j + 1 :]:
                    suffix = a[j + 1 :]
                    out[-1] = a[: j + 1]
                break
    return pieces, out, suffix


@applet("sed")
@streaming()
def _u_sed(p: _Proc) -> Generator[str, None, int]:
    """sed, streaming: a reader that stops (``yes | sed p | head -3``) stops it."""
    ordered, args, suffix = _script_order(list(p.args))
    try:
        opts, operands = _getopt(args, "nf:e:Eril:suz", _LONGS)
    except _UsageError as exc:
        p.err(exc.message)
        p.ctx.err.write(USAGE)
        return 1
    except _HelpRequested as req:
        yield VERSION if req.version else HELP
        return 0
    pieces: list[tuple[str, str | None]] = []
    for kind, value in ordered:
        if kind == "e":
            pieces.append((value, None))
            continue
        try:
            text = p.ctx.stdin.read() if value == "-" else p.read(value)
        except FsError as exc:
            p.err(f"couldn't open file {value}: {exc.strerror}")
            return 4
        pieces.append((text, value))  # its last newline counts: `a\` then a newline is an empty line
    if not pieces:
        if not operands:
            p.ctx.err.write(USAGE)
            return 1
        pieces = [(operands.pop(0), None)]
    try:
        prog = parse(pieces, "E" in opts or "r" in opts, sandbox="sandbox" in opts)
    except SedError as exc:
        p.err(str(exc))
        return exc.status
    wrap = LINE_WRAP
    if "l" in opts:  # GNU reads the number's leading digits (`-l x` is 0: never wrap)
        digits = re.match(r"\s*\d*", opts["l"][-1])
        wrap = int(digits.group(0) or 0) if digits and digits.group(0).strip() else 0
    if "debug" in opts:
        p.unknown()  # GNU's --debug trace is not simulated: the plain output, flagged
    suffix = suffix if suffix is not None else (opts["isuffix"][-1] if "isuffix" in opts else None)
    sed = _Sed(p, prog, quiet="n" in opts or prog.quiet, sep="\0" if "z" in opts else "\n", wrap=wrap)
    if not sed.open_wfiles():
        return 4
    try:
        if "i" in opts or suffix is not None:
            return sed.in_place(operands, suffix, follow="follow" in opts)
        return (yield from sed.stream(operands or ["-"], separate="s" in opts))
    except SedRuntimeError as exc:
        p.err(str(exc))
        return 1
    finally:
        sed.finish()


class _Sed:
    """One sed invocation: its program, the files w writes, the runs over its input."""

    def __init__(self, p: _Proc, prog: Program, quiet: bool, sep: str, wrap: int) -> None:
        self.p = p
        self.prog = prog
        self.quiet = quiet
        self.sep = sep
        self.wrap = wrap
        self.wfiles: dict[str, list[str]] = {}
        # paths now: a streaming sed may run on after the shell's directory has changed
        self.paths = {cmd.arg: p.path(cmd.arg) for cmd in prog.commands if cmd.name in "rRwWs" and cmd.arg}

    def open_wfiles(self) -> bool:
        """GNU creates (empties) every file w writes before reading input."""
        for name in self.prog.wfiles:
            if name in ("/dev/stdout", "/dev/stderr") or name in self.wfiles:
                continue
            try:
                self.p.fs.write(self.paths[name], "")
            except FsError as exc:
                self.p.err(f"couldn't open file {name}: {exc.strerror}")
                return False
            self.wfiles[name] = []
        return True

    def finish(self) -> None:
        for name, texts in self.wfiles.items():
            if texts:
                try:
                    self.p.fs.write(self.paths[name], "".join(texts))
                except FsError:
                    pass
                texts.clear()

    def runner(self) -> Runner:
        return Runner(self.prog, self.p, self.quiet, self.sep, self.wrap, self.wfiles, self.paths)

    def stream(self, names: list[str], separate: bool) -> Generator[str, None, int]:
        p = self.p
        files = _SedFiles(p, names, self.sep)
        stdin = p.ctx.stdin
        give_back = stdin.put_back if names == ["-"] and stdin.seekable else None
        code: int | None = None
        if not separate:
            code = yield from self.runner().run(SedInput(iter(files), self.sep, give_back))
        else:
            for index in range(len(names)):
                runner = self.runner()
                code = yield from runner.run(SedInput(files.one(index), self.sep, give_back))
                if runner.stopped:
                    break
        return code if code is not None else files.status

    def in_place(self, names: list[str], suffix: str | None, follow: bool) -> int:
        """Each file edited on its own; a symlink is replaced by the edited file (GNU without
        ``--follow-symlinks``, which edits the file it points to)."""
        p = self.p
        if not names:
            p.err("no input files")
            return 4
        status = 0
        for name in names:
            path = p.path(name)
            try:
                if follow and p.fs.is_link(path):
                    path = p.fs.realpath(path)
                if p.fs.is_dir(path):
                    p.err(f"couldn't edit {name}: not a regular file")
                    status = 4
                    continue
                text = p.fs.read_text(path)
            except FsError as exc:
                p.err(f"can't read {name}: {exc.strerror}")
                status = 2
                continue
            out: list[str] = []
            runner = self.runner()
            runner.stdout = p.out  # w /dev/stdout: the terminal, not the file being edited
            code = drain(runner.run(SedInput(file_lines(text, name, self.sep), self.sep)), out.append)
            if runner.refused is not None:
                return runner.refused  # `e` was not run: the file is left as it was
            if suffix:
                backup = suffix.replace("*", name.rsplit("/", 1)[-1]) if "*" in suffix else name + suffix
                p.fs.write(p.path(backup), text)
            if p.fs.is_link(path):
                p.fs.remove(path)
            p.fs.write(path, "".join(out))
            if runner.stopped:
                return code or 0
        return status


class _SedFiles:
    """The lines of sed's input files, one stream, read as sed asks for them (a file whose last
    line has no newline gets one when another file follows); ``status`` 2 if one was unreadable."""

    def __init__(self, p: _Proc, names: list[str], sep: str) -> None:
        self.p = p
        # paths now: reading happens as the script runs
        self.names = [(name, None if name == "-" else p.path(name)) for name in names]
        self.sep = sep
        self.status = 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for index in range(len(self.names)):
            for line, name in self.one(index):
                if not line.endswith(self.sep) and self._more_after(index):
                    line += self.sep  # only a last line lacks one
                yield line, name

    def one(self, index: int) -> Iterator[tuple[str, str]]:
        """The lines of the ``index``th file (none, reported, where it cannot be read)."""
        p = self.p
        name, path = self.names[index]
        try:
            if path is not None and p.fs.is_dir(path):
                p.err(f"read error on {name}: Is a directory")
                self.status = 2
                return
            if path is None and self.sep == "\n":
                # stdin as sed reads it: blocks from a pipe (sed q seeks back on a file)
                for line in _split_lines(p.ctx.stdin.blocks(CHUNK)):
                    yield line, name
                return
            text = p.ctx.stdin.read() if path is None else p.read_path(path)
        except FsError as exc:
            p.err(f"can't read {name}: {exc.strerror}")
            self.status = 2
            return
        yield from file_lines(text, name, self.sep)

    def _more_after(self, index: int) -> bool:
        """Whether a file after the ``index``th will be read (its lines follow this one's)."""
        return any(path is None or self.p.fs.is_file(path) for _, path in self.names[index + 1 :])
