"""The tables of builtins and programs, filled by the @builtin and @applet decorators."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .proc import _Proc


BUILTINS: dict[str, Callable[[_Proc], int]] = {}

#: programs in /usr/bin whose behaviour is simulated (others have an unknown effect)
PROGRAMS: dict[str, Callable[[_Proc], int]] = {}

_Fn = TypeVar("_Fn", bound="Callable[[_Proc], int]")


def _register(table: dict[str, Callable[[_Proc], int]], names: tuple[str, ...]) -> Callable[[_Fn], _Fn]:
    def register(fn: _Fn) -> _Fn:
        for name in names:
            table[name] = fn
        return fn

    return register


def builtin(*names: str) -> Callable[[_Fn], _Fn]:
    """Register the decorated function as the shell builtin(s) ``names``."""
    return _register(BUILTINS, names)


def applet(*names: str) -> Callable[[_Fn], _Fn]:
    """Register the decorated function as the simulated program(s) ``names`` on PATH."""
    return _register(PROGRAMS, names)
