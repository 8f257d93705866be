"""Shell builtins, registered by decorator into BUILTINS (importing this package registers them)."""

from __future__ import annotations

from . import (
    complete,
    control,
    declare,
    dirs,
    echo,
    getopts,
    jobs,
    lookup,
    read,
    session,
    shellinfo,
    shopt,
    test,
    traps,
    ulimit,
    variables,
)

__all__ = [
    "complete",
    "control",
    "declare",
    "dirs",
    "echo",
    "getopts",
    "jobs",
    "lookup",
    "read",
    "session",
    "shellinfo",
    "shopt",
    "test",
    "traps",
    "ulimit",
    "variables",
]
