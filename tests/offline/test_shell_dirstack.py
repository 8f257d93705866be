"""The directory stack (pushd, popd, dirs), kill -l / trap -l and grep -b, compared with the
host's bash and GNU grep."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

#: a project's files
SETUP = (
    "mkdir -p proj/src proj/tests && cd proj && "
    "printf 'import os\\n\\ndef add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a - b\\n' > src/calc.py && "
    "printf 'from calc import add\\n\\ndef test_add():\\n    assert add(1, 2) == 3\\n' > tests/test_calc.py && "
)

SAME_AS_BASH = [
    "grep -b return src/calc.py",
    "grep -bn return src/calc.py",
    "grep -bo 'a' src/calc.py",
    "grep -b -C1 return src/calc.py",
    "grep -b -A1 -m1 def src/calc.py",
    "grep -rb def src tests | sort",
    "printf 'café\\nx\\n' | grep -b x",
    "printf 'café x\\n' | grep -bo x",
    "grep --byte-offset os src/calc.py",
    "kill -l",
    "kill -l 9",
    "kill -l 137",
    "kill -l KILL",
    "kill -l SIGTERM",
    "kill -l term",
    "kill -L | head -2",
    "kill -l 99; echo $?",
    "kill -l foo; echo $?",
    "kill -l 9 15 HUP",
    "trap -l | tail -2",
    "kill -l 0; echo $?",
    "kill -l EXIT; echo $?",
    "HOME=$PWD; mkdir -p a/b; pushd a; pushd b; dirs; dirs -v; dirs -p; dirs -l | wc -w; popd; popd; popd; echo $?",
    "pushd; echo $?",
    "pushd nope; echo $?",
    'HOME=$PWD; mkdir a; pushd a >/dev/null; pushd; pushd +1; dirs +0; dirs -1; popd +1; dirs; dirs -c; dirs; pushd -n a; pwd | sed "s|.*/||"',
    'mkdir a; HOME=$PWD; pushd a; cd ~; dirs; dirs -l | sed "s|/.*/||g"',
    "HOME=$PWD; mkdir -p x y z; pushd x >/dev/null; pushd ../y >/dev/null; pushd ../z >/dev/null; dirs -v | sed 's|/.*/||'; pushd -2 | sed 's|/[^ ]*/||g'; popd -0 | sed 's|/[^ ]*/||g'; dirs +5; echo $?",
    "popd; echo $?",
    "mkdir a; (pushd a >/dev/null); dirs | wc -w",
    "popd +x; echo $?; dirs -x; echo $?; pushd -x; echo $?; dirs +5; echo $?; pushd +5; echo $?;  mkdir a; pushd a > /dev/null; pushd +5; echo $?; dirs +5; echo $?; dirs -5; echo $?; dirs -q; echo $?; pushd -q; echo $?; popd +5; popd -5; echo $?",
    "HOME=$PWD; mkdir a b; pushd -n a; pushd -n b; pwd | sed 's|.*/||'; popd -n; popd -n +1; dirs | wc -w",
]


@pytest.mark.parametrize("command", SAME_AS_BASH)
def test_the_stack_signals_and_byte_offsets_answer_as_bash(
    command: str, same_as_bash: Callable[[str], None]
) -> None:
    same_as_bash(SETUP + command)


def test_the_stack_lasts_across_steps_and_restarts(vm: VirtualMachine) -> None:
    vm.run("mkdir -p /w/a && cd /w && pushd a >/dev/null")
    again = pickle.loads(pickle.dumps(vm))
    assert again.run("dirs; popd >/dev/null; pwd").stdout == "/w/a /w\n/w\n"


def test_pushd_n_rotation_is_flagged(vm: VirtualMachine) -> None:
    """bash turns the stack oddly when -n rotates it; the offline shell says it did not simulate it."""
    assert vm.run("mkdir -p /w/a && cd /w && pushd a >/dev/null && pushd -n +1").unknown_effect
