"""env as GNU env runs a command (-i, -u, -C, -S, -0, its errors), and what a new bash
inherits: the environment only (exported variables and ``export -f`` functions), compared with
the host's bash and coreutils."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SETUP = "mkdir -p proj/src && cd proj && "

SAME_AS_BASH = [
    "env -x; echo $?",
    "env -uHOME env | grep -c '^HOME='",
    "env --unset=HOME env | grep -c '^HOME='",
    "env -u HOME printenv HOME; echo $?",
    "env -u; echo $?",
    "env -C src pwd | sed 's|.*/||'",
    "env -C /nope pwd; echo $?",
    "env -S 'echo a b'",
    "env -0 -i A=1 B=2 | od -c | head -2",
    'env -i A=1 env -u A env; echo "rc=$?"',
    "env -i - A=1 env",
    "env nope; echo $?",
    'env -i; echo "rc=$?"',
    "env -u A=1 true; echo $?",
    "env /etc; echo $?",
    "env -i A=1 B=2 env",
    "X=1; env | grep -c '^X='; export X; env | grep '^X='",
    "env -i PATH=/usr/bin A=1 env",
    "env A=1 B=2 sh -c 'echo $A$B'",
    "env -0 true; echo $?",
    "env -C src; echo $?",
    "env -- A=1 env -i -- env",
    "X=1; bash -c 'echo [$X]'",
    "X=1; export X; bash -c 'echo [$X]'",
    "X=1; env bash -c 'echo [$X]'",
    "env -i bash -c 'echo [$HOME]'",
    "X=1; (echo [$X])",
    "X=1; sh -c 'echo [$X]'",
    'f() { echo "[$X]"; }; X=1; export -f f; bash -c f',
    "X=1 bash -c 'echo [$X]'",
]


@pytest.mark.parametrize("command", SAME_AS_BASH)
def test_env_and_a_new_bash_see_the_environment_as_bash_s_do(
    command: str, same_as_bash: Callable[[str], None]
) -> None:
    same_as_bash(SETUP + command)
