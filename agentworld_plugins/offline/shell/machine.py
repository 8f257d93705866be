"""VirtualMachine: one user's Linux box (filesystem, cwd, variables, history) running command text."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..vfs import VirtualFS
from . import options
from .arith_command import ArithCommandMixin
from .arrays import ArrayMixin
from .case_command import CaseCommandMixin
from .errors import (
    _AbortLine,
    _BudgetExceeded,
    _DiscardLine,
    _ErrExit,
    _ExitShell,
    _ExpansionError,
    _Killed,
    _LoopControl,
    _Return,
    _ShellSyntaxError,
    _Unsupported,
)
from .execute import ExecuteMixin
from .expand import ExpandMixin
from .invoke import InvokeMixin
from .limits import Budget, ResourceLimit, StepLimits, Timeout, enter, leave
from .params import ParamMixin
from .parser import _parse, _Source
from .pipes import _PipeInput
from .proc import _Ctx, _FileSink, _Input, _Null, _Stream
from .reader import script_pieces
from .redirect import RedirectMixin
from .result import ShellResult
from .state import MachineState

if TYPE_CHECKING:
    from .proc import _Sink


def _nesting_limit() -> ResourceLimit:
    """Nesting deeper than the simulation's stack (bash has no fixed limit for most constructs;
    this one says so instead of printing nothing)."""
    return ResourceLimit("maximum nesting level exceeded (too deeply nested for the offline shell)", 2)


#: the machine's tables a subshell gets a copy of (and its changes die with it), each with how it
#: is copied: the command hash table, ulimit's limits, the disabled builtins, complete's specs
_SUBSHELL_TABLES: dict[str, Callable[[Any], Any]] = {
    "_hash_table": lambda table: table.copy(),
    "_ulimits": lambda limits: {k: list(v) for k, v in limits.items()},
    "_disabled": set,
    "_completions": dict,
}


@dataclass
class _Saved:
    """What a subshell may change and its parent gets back."""

    cwd: str
    oldpwd: str | None
    vars: dict[str, str]
    exported: set[str]
    functions: dict[str, Any]
    positional: list[str]
    aliases: dict[str, str]
    flags: tuple[bool, bool, bool, bool]  # pipefail, errexit, nounset, xtrace
    arrays: dict[str, Any] | None
    attributes: dict[str, set[str]]
    traps: dict[str, Any]
    options: Any
    dirstack: list[str]
    tables: dict[str, Any]  # _SUBSHELL_TABLES' copies (None: the machine had none)


def _parse_guarded(text: str) -> Any:
    try:
        return _parse(text)
    except RecursionError:
        raise _nesting_limit() from None


class VirtualMachine(
    ExecuteMixin,
    ArithCommandMixin,
    CaseCommandMixin,
    InvokeMixin,
    ExpandMixin,
    ParamMixin,
    ArrayMixin,
    RedirectMixin,
    MachineState,
):
    """A Linux box of one user: a virtual filesystem, a working directory, variables, history.

    ``interactive`` machines behave like a terminal's bash (aliases, history, ``ls`` in columns);
    others like ``bash -c`` (what coding-agent shell tools spawn).
    """

    # defaults for machines pickled before these existed (stored sessions)
    pipefail = False
    errexit = False
    nounset = False
    xtrace = False
    _errexit_off = 0
    _xtrace_level = 0
    _pipestatus: tuple[int, ...] = (0,)

    def __init__(
        self,
        fs: VirtualFS | None = None,
        cwd: str = "/app",
        env: dict[str, str] | None = None,
        *,
        user: str = "root",
        hostname: str = "agentworld",
        interactive: bool = True,
    ) -> None:
        self.fs = fs if fs is not None else VirtualFS.default()
        self.user = user
        self.hostname = hostname
        self.interactive = interactive
        home = "/root" if user == "root" else f"/home/{user}"
        self.fs.home = home
        self.vars: dict[str, str] = {
            "HOME": home,
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "USER": user,
            "LOGNAME": user,
            "SHELL": "/bin/bash",
            "HOSTNAME": hostname,
            "TERM": "xterm-256color" if interactive else "dumb",
            "LANG": "C.UTF-8",
            "PWD": "/",
            "SHLVL": "1",
        }
        self.exported: set[str] = set(self.vars)
        self.vars["IFS"] = " \t\n"
        self.vars["PS4"] = "+ "
        if interactive:  # `bash -c` has no PS1 or PS2
            self.vars.update(PS1="\\u@\\h:\\w\\$ ", PS2="> ")
        self.cwd = "/"
        self.oldpwd: str | None = None
        for key, value in (env or {}).items():
            self.vars[str(key)] = str(value)
            self.exported.add(str(key))
        self._fresh_getopts()
        self.chdir(cwd)
        self.last_status = 0
        self.history: list[str] = []
        self.functions: dict[str, tuple[Any, _Source]] = {}
        self.aliases: dict[str, str] = {"ll": "ls -alF", "la": "ls -A", "l": "ls -CF"} if interactive else {}
        self.positional: list[str] = []
        self._locals: list[dict[str, Any]] = []
        self._rand = 12345
        self._steps = 0
        self._subst_status: int | None = None
        self._unknown: list[str] = []
        self._expanding_aliases: set[str] = set()
        self._tty_in = _Input()  # a run's own stdin (what `read -p` prompts for)
        self._tty_out: _Sink = _Null()
        self._tty_err: _Sink = _Null()
        self._lineno = 1
        self._scripts: list[str] = []
        self.argv0 = "bash"
        self._loop_depth = 0
        #: the budget of each step (``AGENTWORLD_OFFLINE_STEP_SECONDS`` / ``..._MEMORY_MB``)
        self.limits = StepLimits.from_env()
        self._budget = Budget(self.limits)

    # -- public ----------------------------------------------------------------------------------

    def chdir(self, path: str) -> None:
        target = self.fs.normalize(path, self.cwd)
        if not self.fs.is_dir(target):
            self.fs.mkdir(target, parents=True)
        self.cwd = target
        self.vars["PWD"] = target

    def _fresh_getopts(self) -> None:
        """What a new bash starts ``getopts`` with, whatever its environment says: ``OPTIND``
        an integer 1, ``OPTERR`` 1."""
        self.vars["OPTIND"] = "1"
        self.vars["OPTERR"] = "1"
        self._attrs().setdefault("OPTIND", set()).add("i")
        self.__dict__.pop("_getopts", None)

    def reading(self) -> tuple[str, str]:
        """What the shell reads now, ``(kind, name)``: ``command`` (``bash -c``, our top level),
        ``stdin``, a script ``file`` or a ``source``d one, and its name."""
        reading = self.__dict__.get("_reading")
        return reading[-1] if reading else ("command", "bash")

    def _file_lead(self, name: str, line: int) -> str:
        """``NAME: line N: `` (``bash: NAME: line N: `` when an interactive shell reads it)."""
        return f"{'bash: ' if self.interactive and not self._scripts else ''}{name}: line {line}: "

    def prefix(self) -> str:
        """How bash starts its own error messages: ``bash: `` at an interactive prompt,
        ``bash: line N: `` under ``bash -c``, ``script.sh: line N: `` in a script or a sourced
        file (``bash: f.sh: line N: `` when an interactive shell sources it); in a function, the
        file it was defined in (``environment`` for ``bash -c``'s, ``main`` for stdin's)."""
        kind, name = self.reading()
        if kind == "source":
            return self._file_lead(name, self._lineno)
        frames = self.__dict__.get("_frames")
        if frames and not self.interactive:  # bash names ${BASH_SOURCE[0]}: where f was defined
            return f"{frames[-1][1] or self.argv0}: line {self._lineno}: "
        if self._scripts:
            return f"{self._scripts[-1]}: line {self._lineno}: "
        if self.interactive:
            return "bash: "
        return f"bash: line {self._lineno}: "

    def _complain(self, ctx: _Ctx, message: str) -> None:
        ctx.err.write(f"{self.prefix()}{message}\n")

    def device_random(self) -> random.Random:
        """The generator behind /dev/urandom: seeded per machine, so runs repeat exactly."""
        rng = getattr(self, "_device_rng", None)
        if rng is None:
            rng = self._device_rng = random.Random(f"{self.hostname}:{self.fs.clock}")
        return rng

    def prompt(self) -> str:
        """``root@agentworld:/app# `` (``~`` for the home directory, ``$`` for other users)."""
        return f"{self.user}@{self.hostname}:{self.display_cwd()}{'#' if self.user == 'root' else '$'} "

    def display_cwd(self) -> str:
        home = self.vars.get("HOME", "")
        if home and home != "/" and (self.cwd == home or self.cwd.startswith(home + "/")):
            return "~" + self.cwd[len(home) :]
        return self.cwd

    def needs_more(self, text: str) -> bool:
        """Whether ``text`` is an unfinished command (open quote, here-document, trailing ``|``,
        ``if`` without ``fi``, a final backslash): an interactive bash would ask for more."""
        return self.continuation(text)[0]

    def continuation(self, text: str) -> tuple[bool, str | None]:
        """:meth:`needs_more`, and the delimiter when what is missing is a here-document's end
        (a terminal then reads body lines without parsing the whole text again)."""
        if re.search(r"(?<!\\)(\\\\)*\\$", text):
            return True, None
        try:
            _parse(text)
        except _ShellSyntaxError as exc:
            return exc.incomplete, exc.wanted if exc.incomplete else None
        except (_Unsupported, RecursionError):
            return False, None
        return False, None

    def run(
        self,
        command: str,
        stdin: str = "",
        *,
        tty: bool | None = None,
        ends_shell: bool = False,
        deadline: float | None = None,
    ) -> ShellResult:
        """Run a command line (or several lines) and return its output and exit status.

        ``ends_shell``: the shell ends after ``command`` (``bash -c``, a fresh shell per call),
        so its ``trap ... EXIT`` runs then; otherwise only when the shell exits (``exit``).
        ``deadline``: seconds of virtual time (work and ``sleep``) the command may take, as a
        harness's timeout allows it; past it the command ends there, at once, with status 124
        and ``timed_out`` set (what it printed so far is kept)."""
        tty = self.interactive if tty is None else tty
        chunks: list[tuple[int, str]] = []
        out = _Stream(chunks, 1, tty)
        err = _Stream(chunks, 2, tty)
        self._tty_out, self._tty_err = out, err
        self._unknown = []
        self._steps = 0
        self._errexit_off = self._xtrace_level = 0
        if not self.interactive:  # each run is a new `bash -c`: its hash table starts empty
            self.__dict__.pop("_hash_table", None)
        exited = False
        if self.interactive and command.strip():
            self.history.append(command.rstrip("\n"))
        self._budget = Budget(getattr(self, "limits", None) or StepLimits.from_env())
        previous = enter(self._budget)
        timed_out = False
        if deadline is not None and deadline > 0:
            self._budget.push_deadline(deadline)  # level 0: the harness's own
        try:
            ctx = _Ctx(_Input(stdin), out, err, _Source("", set(), {}))
            self._tty_in = ctx.stdin
            first = dict(ctx.fds.table)
            self._reopen_descriptors(ctx)
            status = self._run_text(command, ctx, top=True)
            if ends_shell or isinstance(status, _ExitShell):
                status = self._end_shell(status, ctx)
            self._keep_descriptors(ctx, first, ends=ends_shell or isinstance(status, _ExitShell))
        except ResourceLimit as exc:  # past the step's budget: killed, as under ulimit
            chunks.append((2, f"bash: {exc.message}\n"))
            status = exc.status
            if exc.wall_clock:  # the host's load decided, not the input: say the result may differ
                self._unknown.append(command.strip())
        except Timeout as exc:
            if deadline is not None and exc.level == 0:  # the harness's timeout
                timed_out = True
            else:  # a deadline no `timeout` was left to take (cannot happen: said, not hidden)
                self._unknown.append(command.strip())
            status = 124
        except RecursionError:
            chunks.append((2, f"bash: {_nesting_limit().message}\n"))
            status = 2
        except MemoryError:
            chunks.append((2, "bash: xmalloc: cannot allocate memory\n"))
            status = 2
        except Exception:  # an unforeseen corner of the simulation: say so rather than invent
            self._unknown.append(command.strip())
            status = 0
        finally:
            leave(previous)
        if isinstance(status, _ExitShell):
            exited = True
            status = status.code
        self.last_status = status
        stdout = "".join(t for fd, t in chunks if fd == 1)
        stderr = "".join(t for fd, t in chunks if fd == 2)
        return ShellResult(
            stdout=stdout,
            stderr=stderr,
            exit_code=status,
            unknown_effect=bool(self._unknown),
            unknown_commands=list(self._unknown),
            output="".join(t for _, t in chunks),
            exited=exited,
            timed_out=timed_out,
        )

    def _reopen_descriptors(self, ctx: _Ctx) -> None:
        """What ``exec`` left open in an earlier ``run`` of this shell, on this run's streams."""
        first = dict(ctx.fds.table)
        for fd, value in self.__dict__.get("_descriptors", {}).items():
            ctx.fds.exec_set(fd, first[value] if isinstance(value, int) else value)

    def _keep_descriptors(self, ctx: _Ctx, first: dict[int, Any], *, ends: bool) -> None:
        """Remember what ``exec`` changed in this run's descriptors (``first``: as it began), for
        the next ``run`` of this shell; nothing once it ends. A descriptor on one of the run's own
        streams is kept as that stream's number (``exec 2>&1``: 1), a file or an input as it is
        (it goes on where it was), a closed one as None."""
        kept: dict[int, Any] = {}
        if not ends:
            own = {id(stream): fd for fd, stream in first.items()}
            table = ctx.fds.table
            for fd in sorted(set(table) | set(first)):
                value = table.get(fd)
                if value is None:
                    kept[fd] = None
                elif id(value) in own:
                    if own[id(value)] != fd:
                        kept[fd] = own[id(value)]
                elif isinstance(value, (_FileSink, _Null, _Input)) and not isinstance(value, _PipeInput):
                    kept[fd] = value
        if kept:
            self.__dict__["_descriptors"] = kept
        else:
            self.__dict__.pop("_descriptors", None)

    # -- running text ----------------------------------------------------------------------------

    def _syntax_message(self, exc: _ShellSyntaxError, text: str, first_line: int = 1) -> str:
        """bash's report of a syntax error in ``text`` (which starts at line ``first_line``):
        ``bash: -c: line N: `` under ``bash -c`` (and at our top level), ``bash: line N: `` for a
        script read from stdin (``bash -n <<EOF``, SWE-ReX's syntax check), ``NAME: line N: `` in
        a script file or a sourced one, ``bash: `` at an interactive prompt. An unfinished
        command is reported on the line past the last (host bash 5.2)."""
        lines = text.rstrip("\n").split("\n")
        kind, name = self.reading()
        line = first_line + len(lines) - 1
        matching = re.search(r"matching ['\"](.)['\"]", exc.message) if exc.incomplete else None
        closer = matching.group(1) if matching else '"'
        if matching and closer in "\"'`":  # the line the unclosed quote opened on: its last unescaped one
            found = re.finditer(rf"(?<!\\){re.escape(closer)}", text)
            opened = max((m.start() for m in found), default=0)
            line = first_line + text[:opened].count("\n")
        elif exc.incomplete:  # `if` without `fi`, `$(`, a trailing `|`: past the last line
            line = first_line + text.count("\n") + (0 if text.endswith("\n") else 1)
        interactive = self.interactive and not self._scripts
        if interactive and kind != "source":
            lead = "bash: "
        elif kind in ("file", "source"):
            lead = self._file_lead(name, line)
        else:
            lead = f"bash: {'line' if kind == 'stdin' else '-c: line'} {line}: "
        if exc.incomplete:
            if "matching" in exc.message:
                # one line: bash 5.2 no longer adds "syntax error: unexpected end of file"
                return f"{lead}unexpected EOF while looking for matching `{closer}'\n"
            return f"{lead}syntax error: unexpected end of file\n"
        msg = f"{lead}syntax error near unexpected token `{exc.message}'\n"
        if not interactive or kind == "source":
            msg += f"{lead}`{lines[-1]}'\n"
        return msg

    def _run_text(
        self, text: str, ctx: _Ctx, top: bool = False, reader: bool = False, noexec: bool = False
    ) -> Any:
        """Parse and run ``text`` a complete command at a time, as bash reads a script (the
        commands before a syntax error run); at the top level return the status (or the
        _ExitShell)."""
        status = self.last_status
        current = text  # the piece being run, for the messages about it
        try:
            for piece in script_pieces(text, _parse_guarded):
                current = piece.text
                nodes, src = piece.nodes, piece.src
                exc = piece.error
                if isinstance(exc, _ShellSyntaxError) and exc.wanted is not None:
                    # reported on the last line read, the one the here-document ran to the end on
                    self._lineno = piece.first_line + piece.text.rstrip("\n").count("\n")
                    self._complain(
                        ctx,
                        f"warning: here-document at line {piece.first_line} delimited by end-of-file "
                        f"(wanted `{exc.wanted}')",
                    )
                    try:
                        nodes, src = _parse_guarded(piece.text.rstrip("\n") + "\n" + exc.wanted + "\n")
                    except _ShellSyntaxError as again:
                        exc = again
                    else:
                        exc = None
                        if piece.first_line != 1:
                            src = src.at_line(piece.first_line)
                if isinstance(exc, _ShellSyntaxError):
                    ctx.err.write(self._syntax_message(exc, piece.text, piece.first_line))
                    return 2
                if isinstance(exc, _Unsupported):
                    return self._unsupported(piece.text, exc, ctx)
                assert src is not None
                if noexec:  # `bash -n`: read, not run
                    continue
                pctx = ctx.with_(src=src)
                try:
                    for node in nodes:
                        status = self._exec(node, pctx)
                        self.last_status = status
                except _DiscardLine as exc:
                    if not (top or reader):
                        raise
                    status = self.last_status = exc.code  # the shell reads on
        except _ExpansionError as exc:
            self._complain(ctx, exc.message)
            if exc.fatal and not top:
                raise _AbortLine(exc.status, exc.unbound) from None
            return self._abort_status(_AbortLine(exc.status, exc.unbound))
        except _ExitShell as exc:
            if top:
                if isinstance(exc, _AbortLine):
                    return self._abort_status(exc)
                if self.interactive and not isinstance(exc, (_ErrExit, _Killed)):
                    ctx.err.write("exit\n")
                return exc
            raise
        except _BudgetExceeded:
            self._unknown.append(text.strip())
            return 124
        except _Unsupported as exc:
            return self._unsupported(current, exc, ctx)
        except _LoopControl:
            return 0
        except _Return:
            if top:
                self._complain(ctx, "return: can only `return' from a function or sourced script")
                return 1
            raise
        except RecursionError:
            raise _nesting_limit() from None
        return status

    def _abort_status(self, exc: _AbortLine) -> int:
        """The status a ``bash -c`` line abandoned by a fatal expansion error ends with: bash 5.2
        ends one abandoned by ``set -u`` with 127 unless ``set -e`` is on (a script, a subshell
        or an interactive line with 1)."""
        if exc.unbound and not (self.interactive and not self._scripts) and not self.errexit:
            return 127
        return exc.code

    def _unsupported(self, text: str, exc: _Unsupported, ctx: _Ctx) -> int:
        """Syntax the offline shell does not run (``select``, ``coproc``): an unknown
        effect, and by default a notice and status 2 rather than a silent success."""
        self._unknown.append(text.strip())
        if not self.limits.unknown_fails:
            return 0
        line = text.strip().split("\n")[0]
        shown = line if len(line) <= 40 else line[:37] + "..."
        self._complain(ctx, f"`{shown}': syntax not supported by the offline shell")
        return 2

    def _run_status(self, text: str, ctx: _Ctx, reader: bool = False, noexec: bool = False) -> int:
        """Run ``text`` below the top level: its exit status."""
        result = self._run_text(text, ctx, reader=reader, noexec=noexec)
        return result if isinstance(result, int) else 0

    def _end_shell(self, status: Any, ctx: _Ctx) -> Any:
        """The shell ends with ``status`` (an int, or the _ExitShell that ends it): its ``trap ...
        EXIT`` runs (``$?`` is the status; an ``exit N`` there changes it)."""
        traps = self.__dict__.get("_traps")
        if not traps or "EXIT" not in traps or (isinstance(status, _ExitShell) and not status.traps):
            return status
        action = traps.pop("EXIT")
        code = status.code if isinstance(status, _ExitShell) else status
        self.last_status = code
        try:
            self._run_text(action, ctx)
        except _ExitShell as exc:  # `exit N` in the trap: the shell's status
            code = exc.code
        if isinstance(status, _ExitShell):
            status.code = code
            return status
        return code

    def _save(self) -> _Saved:
        arrays = self.__dict__.get("_array_table")
        if arrays:
            self._budget.spend(sum(len(items) for items in arrays.values()) // 64)  # copied below
        kept = self.__dict__
        return _Saved(
            cwd=self.cwd,
            oldpwd=self.oldpwd,
            vars=dict(self.vars),
            exported=set(self.exported),
            functions=dict(self.functions),
            positional=list(self.positional),
            aliases=dict(self.aliases),
            flags=(self.pipefail, self.errexit, self.nounset, self.xtrace),
            arrays={name: items.copy() for name, items in arrays.items()} if arrays else None,
            attributes={name: set(letters) for name, letters in kept.get("_attr_table", {}).items()},
            traps=dict(kept.get("_traps") or {}),
            options=options.saved(self),
            dirstack=list(kept.get("_dirstack") or ()),
            tables={key: copy(kept[key]) if key in kept else None for key, copy in _SUBSHELL_TABLES.items()},
        )

    def _restore(self, saved: _Saved) -> None:
        self.cwd, self.oldpwd = saved.cwd, saved.oldpwd
        self.vars, self.exported, self.functions = saved.vars, saved.exported, saved.functions
        self.positional, self.aliases = saved.positional, saved.aliases
        self.pipefail, self.errexit, self.nounset, self.xtrace = saved.flags
        self.__dict__["_attr_table"] = saved.attributes
        self.__dict__["_traps"] = saved.traps
        self.__dict__["_dirstack"] = saved.dirstack
        for key, value in saved.tables.items():
            if value is None:
                self.__dict__.pop(key, None)
            else:
                self.__dict__[key] = value
        options.restore(self, saved.options)
        self.__dict__["_array_table"] = saved.arrays or {}
        if saved.arrays or self.__dict__.get("_array_bytes"):
            self._recount_arrays()

    def _subshell(self, fn: Callable[[], int], ctx: _Ctx | None = None, *, process: bool = False) -> int:
        """Run ``fn`` in a subshell: what it changes is undone after; its own ``trap ... EXIT``
        runs as it ends (into ``ctx``'s streams). ``process``: a new bash (``bash -c``, a
        script), whose ``$$`` a ``kill`` may name; other subshells share their parent's."""
        saved = self._save()
        self.__dict__["_traps"] = {}
        try:
            try:
                status: Any = fn()
            except _Killed as exc:
                if not process:
                    raise
                status = exc
            except _ExitShell as exc:
                status = exc
            if self.__dict__["_traps"]:
                status = self._end_shell(
                    status, ctx or _Ctx(_Input(), self._tty_out, self._tty_err, _Source("", set(), {}))
                )
            return status.code if isinstance(status, _ExitShell) else int(status)
        finally:
            self._restore(saved)
