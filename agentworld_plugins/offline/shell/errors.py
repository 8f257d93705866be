"""Exceptions the shell raises for exits, loop control, syntax errors, budgets and usage."""

from __future__ import annotations


class _ExitShell(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


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


class _AbortLine(_ExitShell):
    """The rest of the command line is abandoned (what bash does after a fatal expansion error)."""


class _UsageError(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        self.message = message
        self.status = status


class _HelpRequested(Exception):
    def __init__(self, version: bool = False) -> None:
        self.version = version
