"""The arithmetic command ``(( expr ))`` and the C-style ``for (( init; cond; step ))`` loop,
compared with the host's bash (bashlex parses neither; the parser's pre-pass rewrites them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits
from agentworld_plugins.offline.shell.parser import _prepare

# fmt: off
CASES = [
    "(( 2 > 1 )) && echo ar",
    "(( 0 )); echo $?; (( 5 )); echo $?; (( )); echo $?",
    "x=5; (( x += 2, y = x * 2 )); echo $x $y",
    "x=3; (( x > 2 ? 1 : 0 )) && echo t; ! (( 0 )) && echo negated",
    "((1/0)); echo after $?",
    "((a=1/0)) || echo failed $?; ((1/0)) 2>/dev/null; echo $?",
    "(( $(echo 3) > 2 )) && echo yes; n=4; (( $n * 2 == 8 )) && echo eight",
    "i=0; while (( i < 3 )); do echo $i; (( i++ )); done",
    "if (( 3 > 2 )); then echo y; else echo n; fi",
    "f() { (( $1 > 2 )); }; f 3 && echo big; f 1 || echo small",
    "set -e; (( 0 )) || true; echo yes; x=0; ((x++)); echo never",
    "set -e; ((1/0)); echo never",
    "set -u; (( unset_name > 1 )); echo never",
    "for (( i=0; i<3; i++ )); do echo $i; done; echo $? $i",
    "for (( i=0 ; i<5 ; i++ )); do if ((i==2)); then continue; fi; echo $i; done",
    "for ((i=0; i<2; i++)); do for ((j=0; j<2; j++)); do (( j == 1 )) && continue 2; echo $i$j; done; done",
    "for (( ; ; i++ )); do ((i>3)) && break; done; echo $i",
    "for ((i=10; i>0; i-=3)); do echo -n \"$i \"; done; echo",
    "for ((i=0, j=5; i<j; i++, j--)); do echo $i $j; done",
    "for ((i=0;i<3;i++)); do echo $i; done | tr 0-9 a-j",
    "false; for ((i=0; i<0; i++)); do echo x; done; echo $?",
    "set -e; for ((i=0; i<1/0; i++)); do echo x; done; echo after $?",
    "for ((i=0; i<3; i++))\ndo\n  echo $i\ndone",
    "for ((i=0; i<2; i++)); do\n  for ((j=0; j<2; j++)); do\n    echo $i$j\n  done\ndone\necho end",
    "n=0\nwhile (( n < 2 ))\ndo\n  (( n++ ))\ndone\necho $n",
    "if((1));then echo y;fi; i=0; while((i<2));do echo $i; ((i++));done; x=1;((x++));echo $x",
    "set -x; i=1; (( i < 3 )); for ((i=0;i<2;i++)); do :; done",
    "set -x; for (( ; i<1 ; )); do i=1; done",
]
# fmt: on


@pytest.mark.parametrize("command", CASES)
def test_arithmetic_commands_answer_as_bash_does(same_as_bash: Callable[[str], None], command: str) -> None:
    same_as_bash(command)


def test_the_messages_without_a_host_bash(vm: VirtualMachine) -> None:
    r = vm.run("((1/0)); echo $?")
    assert (r.stdout, r.stderr) == ("1\n", 'bash: line 1: ((: 1/0: division by 0 (error token is "0")\n')
    assert vm.run("for ((i=0; i<3; i++)); do echo $i; done").stdout == "0\n1\n2\n"


def test_a_script_file_runs_them(vm: VirtualMachine) -> None:
    vm.run(
        "cat > count.sh <<'EOF'\n"
        "total=0\n"
        "for (( i = 1; i <= 4; i++ )); do\n"
        "  (( i % 2 )) || continue\n"
        "  (( total += i ))\n"
        "done\n"
        "echo total=$total\n"
        "EOF"
    )
    r = vm.run("bash count.sh")
    assert (r.stdout, r.exit_code) == ("total=4\n", 0)


def test_only_a_command_position_is_rewritten() -> None:
    assert "__AWARITH" not in _prepare("echo '(( 1 ))' \"for ((;;))\" x((1))").text
    assert _prepare("x=$(( 1 + 2 ))").arith == {"__AWARITH0": " 1 + 2 "}
    assert _prepare("echo a; (( x++ ))").text == "echo a; __AWARITH_CMD ' x++ '"
    assert _prepare("for ((;;)); do :; done").text == "while __AWARITH_FOR '' '' ''; do :; done"
    # two parts are no C-style loop: still reported as syntax the shell does not run
    assert _prepare("for ((i=0; i<3)); do :; done").unsupported


def test_an_endless_c_style_loop_meets_the_step_budget(vm: VirtualMachine) -> None:
    vm.limits = StepLimits(seconds=0.5, memory_mb=64)
    r = vm.run("for ((;;)); do :; done; echo never")
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr and "never" not in r.stdout
    r = vm.run("while (( 1 )); do :; done")
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr
    assert vm.run("for ((i=0; i<2; i++)); do echo $i; done").stdout == "0\n1\n"
