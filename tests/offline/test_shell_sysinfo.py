"""tty, stty, logname, groups, users, who, arch, sync, nice, unlink, link, pathchk, tsort and factor
compared with GNU coreutils on the host, in the same folder."""

from __future__ import annotations

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

SAME_AS_GNU = [
    "tty; echo $?; tty -s; echo $?; tty x; echo $?; tty -z; echo $?",
    "stty; echo $?; stty size; echo $?; stty -echo; echo $?",
    "logname; echo $?; logname x; echo $?",
    "groups; groups root; echo $?; groups nosuch; echo $?; groups root daemon",
    "arch; sync; echo $?; users; who; echo $?",
    "nice; nice -n 5 echo hi; nice echo x; nice -n x echo; echo $?; nice -5 echo y; nice nosuch; echo $?",
    "touch f; unlink f; ls; unlink nope; echo $?; unlink a b; echo $?; unlink; echo $?; mkdir d; unlink d; echo $?",
    "touch f; link f g; ls; link f g; echo $?; link nope h; echo $?; link f; echo $?; mkdir d; link d e; echo $?",
    "pathchk /a/b; pathchk -p 'a b'; echo $?; pathchk -P -- -x; echo $?; pathchk -P ''; echo $?; pathchk -p abcdefghijklmnopq; echo $?; pathchk; echo $?",
    "printf 'a b\\nb c\\n' | tsort; printf 'c d\\na b\\nb c\\n' | tsort; printf '3 1\\n2 1\\n5 2\\n' | tsort",
    "printf 'a b c\\n' | tsort; echo $?; printf 'a b\\nb a\\n' | tsort; echo $?",
    "printf 'x x\\ny z\\nq q\\n' | tsort; printf 'a b c d\\n' > t; tsort t; tsort nosuch; echo $?",
    "factor 12 97 1000000007 1 0 2; echo 1001 | factor; factor x; echo $?; factor -h 8; factor 18446744073709551617",
    "factor +12; factor -- -3; echo $?; factor 123456789012345678901234567890",
    "printf 'a b\\nb c\\nc a\\n' | tsort; echo $?",
    "printf 'a b\\nb c\\nc a\\nc d\\nd e\\ne d\\n' | tsort; echo $?",
    "printf '1 2\\n2 3\\n3 1\\n4 1\\n' | tsort; echo $?",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_the_small_utilities_answer_as_gnu(command: str) -> None:
    ours, host = both(command)
    assert ours == host


def test_link_makes_a_copy_and_says_so() -> None:
    vm = VirtualMachine(interactive=False)
    result = vm.run("echo a > f; link f g; echo b >> g; cat f")
    assert result.stdout == "a\n" and result.unknown_effect


def test_factor_of_a_large_semiprime_is_bounded_by_the_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2, memory_mb=256)
    result = vm.run("factor 340282366920938463463374607431768211457")
    assert result.exit_code == 152 and "CPU time limit exceeded" in result.stderr
