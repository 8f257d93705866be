"""Shell arithmetic against the host's bash: values (bases, precedence, wrapping, assignments,
``++``/``--``, arrays, the branches ``&&``, ``||`` and ``?:`` skip) and errors (bash's words,
the expression it names, the token it stopped at), through ``$((...))``, an assignment,
``((...))`` and ``let``, each in its own ``bash -c``."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

VALUES = [
    "0x", "0x1F", "077", "10#09", "64#_@", "36#Z", "2**3**2", "-2**2", "1<2<3", "3 > 2 == 1",
    "1 | 2 ^ 3 & 4", "5 % -3", "-7 / 2", "2**63", "-2**63 / -1", "~5", "!0", "- -1", "--5",
    "x=1?2:3", "0?(q=1):(r=2)", "z=3,z++", "++x", "x++ + x", "a[1]*2", "a[i+1]", "a[0]++",
    "a[2]=a[0]+a[1]", "y", "0 && (q=5)", "1 || (q=5)", "q=(1,2)", "x<<=2", "x|=8", "x^=x",
    "8>>1", "1<<64", "n=-x", "x+=a[1]", " ", "(((((1+2)))))", "x+++y", "-- x", "- -x",
]  # fmt: skip
ERRORS = [
    "1/0+5", "1/0", " 1 / 0 ", "1 @ 2", "3 = 4", "a++b", "1 ? 2", "08", "2#9", "1+2 3", "1 2 3",
    "+", "1 ** -1", "-", "1<<", "x = ", "1,", "1+", "1+2+", "*2", " 1 + ", "2*", "1%0",
    "5 / (2-2)", "1 +* 2", "!", "1 ? 2 : ", "x+=", "1.5", "0xZ", "12abc", "2#", "65#1", "1#1",
    "x++=1", "1?:2", "1?2:", "()", "++x++", "--x--", "x++ ++y", "f*2", "(a=1)=2", "a+b=3",
]  # fmt: skip
FORMS = ["echo $((%s)); echo z", "v=$((%s)); echo z $v", "((%s)); echo rc=$?", "let 'v=%s'; echo rc=$? $v"]
SETUP = "a=(3 4); i=0; x=4; y='2+3'; f='1+'; "


def _both(command: str) -> tuple[tuple[str, str], tuple[str, str]]:
    host = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", command],
        capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    )  # fmt: skip
    ours = VirtualMachine(interactive=False).run(command)
    return (ours.stdout, ours.stderr), (host.stdout, host.stderr)


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("expression", VALUES + ERRORS)
def test_arithmetic_answers_as_the_hosts_bash(expression: str) -> None:
    for form in FORMS:
        command = SETUP + form % expression + "; echo ${a[@]} $x ${q-} ${r-} ${z-}"
        ours, host = _both(command)
        assert ours == host, command


def test_a_runaway_nesting_is_bashs_recursion_error_not_a_crash() -> None:
    vm = VirtualMachine(interactive=False)
    for text in ("(" * 5000 + "1" + ")" * 5000, "!" * 5000 + "1", "-" * 5000 + "1", "2" + "**2" * 5000):
        r = vm.run(f"echo $(({text})); echo next")
        assert r.stdout == "" and "expression recursion level exceeded" in r.stderr, text[:20]
    vm.run("x='x+1'")
    r = vm.run("echo $((x)); echo next")
    assert r.stdout == "" and "expression recursion level exceeded" in r.stderr
