"""Exceptions the shell raises for exits, loop control, syntax errors, budgets and usage."""

from __future__ import annotations


class _ExitShell(Exception):
    #: whether the shell's ``trap ... EXIT`` runs as it ends (not after ``exec CMD`` or SIGKILL)
    traps = True

    def __init__(self, code: int) -> None:
        self.code = code


class _Replaced(_ExitShell):
    """``exec CMD``: the command took the shell's place; the shell ends with its status."""

    traps = False


class _Killed(_ExitShell):
    """``kill -SIG $$``: the shell ends as the signal ends it (128 + its number), in the process
    that ``$$`` names, through subshells and pipeline stages; SIGKILL runs no trap."""

    def __init__(self, signal: int) -> None:
        super().__init__(128 + signal)
        self.signal = signal
        self.traps = signal != 9


class _LoopControl(Exception):
    def __init__(self, levels: int, is_break: bool) -> None:
        self.levels = levels
        self.is_break = is_break


class _Return(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _ShellSyntaxError(Exception):
    def __init__(self, message: str, incomplete: bool = False, wanted: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.incomplete = incomplete
        self.wanted = wanted


class _Unsupported(Exception):
    pass


class _BudgetExceeded(Exception):
    pass


class _ExpansionError(Exception):
    """A failed expansion (``bad substitution``, ``${X:?}``): the command is not run, status 1.
    A ``fatal`` one (arithmetic errors, ``${X:?}``) also abandons the rest of the command line."""

    def __init__(self, message: str, status: int = 1, fatal: bool = False) -> None:
        self.message = message
        self.status = status
        self.fatal = fatal
        self.unbound = False


class _NoMatch(_ExpansionError):
    """``shopt -s failglob``: a pattern matched nothing. The rest of the line is abandoned, status
    1, and the shell reads on."""


class _Readonly(_ExpansionError):
    """An assignment to a readonly variable: ``NAME: readonly variable``, status 1."""

    def __init__(self, name: str, fatal: bool = False) -> None:
        super().__init__(f"{name}: readonly variable", 1, fatal)
        self.name = name


class _AbortLine(_ExitShell):
    """The rest of the command line is abandoned (what bash does after a fatal expansion error)."""

    def __init__(self, code: int, unbound: bool = False) -> None:
        super().__init__(code)
        #: the error was ``set -u``'s ``unbound variable`` or ``${x?}``'s (bash -c then ends with 127)
        self.unbound = unbound


class _DiscardLine(_AbortLine):
    """What bash does after an assignment error (``readonly x; x=1``): the rest of the line read
    is abandoned, status 1, and the shell reads on (the next line of a script runs)."""


class _ErrExit(_ExitShell):
    """``set -e``: a command failed outside the contexts that ignore it; the shell exits with its
    status (an interactive bash too, without printing ``exit``)."""


def _unbound(name: str) -> _ExpansionError:
    """``set -u``: expanding an unset variable (``$1`` for a positional parameter)."""
    error = _ExpansionError(f"{name}: unbound variable", fatal=True)
    error.unbound = True
    return error


class _Refused(Exception):
    """A bad option value or input a program refuses on one line of its own, with no ``Try ...
    --help`` after it (GNU's ``error (EXIT_FAILURE, 0, ...)``); the caller prints it."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class _UsageError(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        self.message = message
        self.status = status


class _HelpRequested(Exception):
    def __init__(self, version: bool = False) -> None:
        self.version = version
