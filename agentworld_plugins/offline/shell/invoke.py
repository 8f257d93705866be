"""Calling builtins, functions, scripts and programs found on PATH."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from ..vfs import DirNode, FileNode, FsError, as_text, stub_program
from .constants import _GNU_VERSIONS, _VERSIONS
from .errors import _AbortLine, _HelpRequested, _Readonly, _Refused, _Return, _UsageError
from .hashtable import CommandHash
from .limits import UNKNOWN_STATUS, StepLimits
from .options import new_process, shopt_on
from .pipes import _Pipe
from .proc import _Proc
from .registry import BUILTINS, PROGRAMS
from .state import MachineState

if TYPE_CHECKING:
    from .proc import _Ctx


#: the builtins whose readonly error names them (`declare: x: readonly variable`)
_DECLARING = frozenset({"declare", "typeset", "local", "readonly"})


class InvokeMixin(MachineState):
    """Calling builtins, functions, scripts and programs found on PATH.

    One part of :class:`~.machine.VirtualMachine`, which holds the state these methods use.
    """

    def _invoke(self, argv: list[str], ctx: _Ctx) -> int:
        name = argv[0]
        if name in self.functions:
            return self._call_function(name, argv[1:], ctx)
        builtin = BUILTINS.get(name)
        if builtin is not None and name not in self.__dict__.get("_disabled", ()):
            return self._call(builtin, name, argv[1:], ctx)
        if "/" in name:
            return self._exec_path(self.fs.normalize(name, self.cwd), argv, ctx)
        found = self._hashed(name)
        if found is None:
            self._complain(ctx, f"{name}: command not found")
            return 127
        return self._exec_path(found, argv, ctx, shown=found)

    def find_in_path(self, name: str) -> str | None:
        for d in self.vars.get("PATH", "").split(":"):
            path = self.fs.normalize(posixpath.join(d or ".", name), self.cwd)
            try:
                node = self.fs.stat(path)
            except FsError:
                continue
            if isinstance(node, FileNode) and node.mode & 0o111:
                return path
        return None

    def _hashed(self, name: str) -> str | None:
        """The path a command name runs: the one bash's hash table remembers for it (kept even
        when the file is gone, unless ``shopt -s checkhash``), or else found on ``PATH`` and
        remembered (:mod:`.hashtable`)."""
        table = self.command_hash()
        path = table.search(name)
        if path is not None:
            if not shopt_on(self, "checkhash") or self._executable(path):
                return path
            table.remove(name)
        path = self.find_in_path(name)
        if path is not None:
            table.insert(name, path, 1)
        return path

    def command_hash(self) -> CommandHash:
        """This shell's table of the commands found on ``PATH``."""
        table = self.__dict__.get("_hash_table")
        if table is None:
            table = self.__dict__["_hash_table"] = CommandHash()
        return table

    def _path_assigned(self, name: str) -> None:
        """Bash empties its command hash table whenever ``PATH`` is assigned or unset."""
        if name == "PATH":
            self.__dict__.pop("_hash_table", None)

    def _executable(self, path: str) -> bool:
        try:
            node = self.fs.stat(path)
        except FsError:
            return False
        return isinstance(node, FileNode) and bool(node.mode & 0o111)

    def _locate(self, name: str) -> str | None:
        """The path a command name runs: searched on ``PATH`` unless it has a slash."""
        return self.find_in_path(name) if "/" not in name else self.fs.normalize(name, self.cwd)

    def _call(self, fn: Callable[[_Proc], int], name: str, args: list[str], ctx: _Ctx) -> int:
        producer = getattr(fn, "streams", None)
        if ctx.lazy:  # a whole pipeline stage: a streaming program hands its output over lazily
            lazy_if = getattr(fn, "lazy_if", None)
            if producer is None:
                if not getattr(fn, "passes_lazy", False):
                    ctx = ctx.with_()
            elif lazy_if is not None and not lazy_if(args):
                ctx = ctx.with_()
        proc = _Proc(self, name, args, ctx)  # type: ignore[arg-type]  # self is always a VirtualMachine
        try:
            if ctx.lazy and producer is not None:
                assert isinstance(ctx.out, _Pipe)
                return ctx.out.attach(producer(proc), proc)
            return fn(proc)
        except _Readonly as exc:  # `read x`, `export x=1`, `declare x=1` on a readonly x
            proc.shell_err(f"{name}: {exc.message}" if name in _DECLARING else exc.message)
            return 1
        except _UsageError as exc:
            proc.err(exc.message)
            proc.try_help()
            return exc.status
        except _Refused as exc:
            proc.err(exc.message)
            return exc.status
        except (ValueError, IndexError, KeyError):
            proc.err("invalid argument")
            proc.try_help()
            return 1
        except _HelpRequested as req:
            base = posixpath.basename(name)
            if req.version:
                ctx.out.write(_GNU_VERSIONS.get(base, f"{base} (GNU coreutils) 9.4") + "\n")
            else:
                ctx.out.write(f"Usage: {name} [OPTION]... [FILE]...\n")
            return 0

    def _call_function(self, name: str, args: list[str], ctx: _Ctx) -> int:
        body, src = self.functions[name]
        saved_pos = self.positional
        self.positional = list(args)
        self._locals.append({})
        frames = self.__dict__.setdefault("_frames", [])
        frames.append((name, self.__dict__.get("_defined_in", {}).get(name, "environment"), self._lineno))
        try:
            return self._exec(body, ctx.with_(src=src))
        except _Return as exc:
            return exc.code
        finally:
            frames.pop()
            frame = self._locals.pop()
            for var, old in frame.items():
                self._put_back(var, old)
            self.positional = saved_pos

    def _exec_path(self, path: str, argv: list[str], ctx: _Ctx, shown: str | None = None) -> int:
        """Run the file at ``path``; its errors name ``shown`` (the name typed, or the path a
        search found, as bash names it)."""
        shown = shown or argv[0]
        try:
            node = self.fs.stat(path)
        except FsError as exc:
            self._complain(ctx, f"{shown}: {exc.strerror}")
            return 127
        if isinstance(node, DirNode):
            self._complain(ctx, f"{shown}: Is a directory")
            return 126
        assert isinstance(node, FileNode)
        if not node.mode & 0o111:
            self._complain(ctx, f"{shown}: Permission denied")
            return 126
        program = stub_program(node.content)
        if program is not None:
            return self.run_program(program, argv, ctx)
        text = as_text(node.content)
        first = text.split("\n", 1)[0]
        if first.startswith("#!") and not re.search(r"\b(ba)?sh\b", first):
            interpreter = first[2:].strip().split()
            if interpreter and posixpath.basename(interpreter[-1]).startswith("python"):
                return self.run_program("python3", ["python3", *argv], ctx)
            # the kernel's way: the interpreter, the rest of the line as one argument, the script
            path_of, _, rest = first[2:].strip().partition(" ")
            try:
                interpreter_node = self.fs.stat(path_of)
            except FsError:
                self._complain(ctx, f"{shown}: cannot execute: required file not found")
                return 127
            if isinstance(interpreter_node, DirNode):
                self._exec_failed(ctx, f"{shown}: {path_of}: bad interpreter: Permission denied")
                return 126
            found = stub_program(interpreter_node.content) if isinstance(interpreter_node, FileNode) else None
            if found is None:
                return self._not_simulated(argv, ctx)
            return self.run_program(found, [path_of, *([rest.strip()] if rest.strip() else []), *argv], ctx)
        return self._run_script(text, argv, ctx)

    def _exec_failed(self, ctx: _Ctx, message: str) -> None:
        """An execve error bash reports without a line number (a bad interpreter)."""
        ctx.err.write(f"{re.sub(r'line [0-9]+: $', '', self.prefix())}{message}\n")

    def _run_script(
        self,
        text: str,
        argv: list[str],
        ctx: _Ctx,
        source: bool = False,
        name: str | None = None,
        options: Collection[str] = (),
    ) -> int:
        """Run a script: sourced in this shell, or (``source=False``) as a new bash process
        would, in a subshell whose options start afresh (``options``: the ``set -o`` names
        given on bash's command line, ``bash -euo pipefail``; ``noexec``: ``bash -n``, read and
        checked, not run; ``stdin``: a script bash read from its stdin). ``name`` is given for
        ``bash -c``."""
        command_mode = name is not None
        name = name or argv[0]

        def go() -> int:
            saved = self.positional
            saved_line = self._lineno
            saved_argv0 = self.argv0
            self.positional = list(argv[1:])
            if not source:
                self.argv0 = argv[0]
                self.pipefail = "pipefail" in options
                self.errexit = "errexit" in options
                self.nounset = "nounset" in options
                self.xtrace = "xtrace" in options
                new_process(self, set(options))
                self._environment_only()
            if not source:
                self._scripts.append(name)
            kind = "file"  # what its errors are reported against (VirtualMachine.reading)
            if source:
                kind = "source"
            elif "stdin" in options:
                kind = "stdin"
            elif command_mode:
                kind = "command"
            kinds = self.__dict__.setdefault("_reading", [])
            kinds.append((kind, name))
            frames = self.__dict__.get("_frames", [])
            # a new bash starts with no frames; a sourced file is one (callstack.py)
            self.__dict__["_frames"] = [*frames, ("source", name, saved_line)] if source else []
            try:
                return self._run_status(text, ctx, reader=not source, noexec="noexec" in options)
            except _Return as exc:
                return exc.code
            except _AbortLine as exc:
                if command_mode and not source:
                    return self._abort_status(exc)
                raise
            finally:
                self.positional = saved
                self._lineno = saved_line
                self.argv0 = saved_argv0
                kinds.pop()
                self.__dict__["_frames"] = frames
                if not source:
                    self._scripts.pop()

        if source:
            return go()
        ctx = ctx.forked()  # a new bash: its `exec` redirections are its own
        return self._subshell(go, ctx, process=True)

    def _environment_only(self) -> None:
        """A new bash process (inside the subshell that undoes it): it gets the environment, the
        exported variables and ``export -f`` functions, and none of the shell's own variables,
        arrays, attributes or aliases."""
        self.vars = {k: v for k, v in self.vars.items() if k in self.exported}
        self.vars["IFS"] = " \t\n"
        self.functions = {k: v for k, v in self.functions.items() if k in self.exported}
        self.aliases = {}
        self.__dict__["_array_table"] = {}
        attrs = self.__dict__.get("_attr_table")
        if attrs:
            self.__dict__["_attr_table"] = {k: v for k, v in attrs.items() if k in self.vars}
        self._fresh_getopts()
        self._recount_arrays()

    def run_program(self, program: str, argv: list[str], ctx: _Ctx) -> int:
        """Run a program found on PATH: simulated if known, else an unknown effect."""
        fn = PROGRAMS.get(program)
        if fn is not None:
            return self._call(fn, argv[0], argv[1:], ctx)
        if len(argv) == 2 and argv[1] in ("--version", "-V", "version") and program in _VERSIONS:
            ctx.out.write(_VERSIONS[program] + "\n")
            return 0
        return self._not_simulated(argv, ctx)

    def _not_simulated(self, argv: list[str], ctx: _Ctx) -> int:
        """Note ``argv`` as an unknown effect; unless configured to pretend success, say so in one
        line on stderr and fail with 126 (a fake empty success misleads an agent)."""
        self._unknown.append(" ".join(argv))
        if not getattr(self, "limits", StepLimits()).unknown_fails:
            return 0
        ctx.err.write(
            f"{argv[0]}: cannot run in the offline world (its effect is not simulated; "
            "AGENTWORLD_OFFLINE_UNKNOWN_PROGRAMS=succeed pretends success)\n"
        )
        return UNKNOWN_STATUS


def _u_unknown(p: _Proc) -> int:
    return p.not_simulated()
