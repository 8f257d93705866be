"""Bounded, honest offline steps: budgets, guarded parser and regexes, no silent caps, exact bytes,
the /dev files and od/dd/nohup."""

from __future__ import annotations

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits
from agentworld_plugins.offline.shell.regex import may_backtrack


@pytest.fixture
def vm() -> VirtualMachine:
    machine = VirtualMachine(interactive=False)
    machine.limits = StepLimits(seconds=2.0, memory_mb=64)
    return machine


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


def test_an_unclosed_brace_in_quotes_does_not_hang_the_parser(vm: VirtualMachine) -> None:
    assert run(vm, "'${'a") == ("", "bash: line 1: ${a: command not found\n", 127)
    assert run(vm, "echo '${'a") == ("${a\n", "", 0)
    assert vm.needs_more('echo "${') is True


@pytest.mark.parametrize(
    ("command", "message", "status"),
    [
        ("x=a; while true; do x=$x$x; done; echo never", "xmalloc: cannot allocate", 2),
        ("echo {1..100000000} | wc -c", "xmalloc: cannot allocate", 2),
        ("printf '%2000000000d' 1 | wc -c", "xmalloc: cannot allocate 2000000000 bytes", 2),
        ("while :; do :; done", "CPU time limit exceeded", 152),
        ("cat /dev/zero | wc -c", "CPU time limit exceeded", 152),
        # each replacement is work: the copies end at the work budget before the memory one
        ("x=a; for i in $(seq 40); do x=${x//a/aa}; done; echo never", "CPU time limit exceeded", 152),
        # 24 MB of words: over the third of the 64 MB budget one value may take
        ("echo {1..3000000} | wc -c", "xmalloc: cannot allocate 24000000 bytes", 2),
        (
            "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
            "",
            152,
        ),
    ],
)
def test_runaway_inputs_stop_at_the_budget_and_the_machine_stays_usable(
    vm: VirtualMachine, command: str, message: str, status: int
) -> None:
    vm.limits = StepLimits(seconds=0.5, memory_mb=64)
    out, err, code = run(vm, command)
    assert code == status and err.startswith("bash: ") and message in err and "never" not in out
    assert run(vm, "echo $((1 + 1))") == ("2\n", "", 0)


def test_pattern_substitution_is_linear_for_plain_strings(vm: VirtualMachine) -> None:
    assert run(vm, "x=abcabc; echo ${x/b/X} ${x//b/X} ${x/#a/X} ${x/%c/X} ${x//b*/Y} ${x/#/P}") == (
        "aXcabc aXcaXc Xbcabc abcabX aY Pabcabc\n",
        "",
        0,
    )
    assert run(vm, "x=$(printf '%100000s'); y=${x// /ab}; echo ${#y}") == ("200000\n", "", 0)


def test_arithmetic_wraps_like_bash_instead_of_growing(vm: VirtualMachine) -> None:
    out = vm.run("echo $((3**100000000)) $((2**63)) $((1<<70)) $((99999999999999999999))").stdout
    assert out == "5478338451055735809 -9223372036854775808 64 7766279631452241919\n"


def test_nested_repetition_regexes_answer_at_once(vm: VirtualMachine) -> None:
    line = "a" * 30 + "b"
    assert run(vm, f"echo {line} | grep -cE '(a+)+$'") == ("0\n", "", 1)
    assert run(vm, f"echo {'a' * 30} | grep -cE '(a+)+$'") == ("1\n", "", 0)
    assert run(vm, f"echo {line} | sed -E 's/(a+)+$/X/'") == (line + "\n", "", 0)
    assert run(vm, "echo abab | sed -E 's/(ab)+/X/'") == ("X\n", "", 0)
    assert may_backtrack("(a+)+$") and may_backtrack("(x*y?)*z") and not may_backtrack("(ab)+c*")


def test_no_silent_caps(vm: VirtualMachine) -> None:
    vm.limits = StepLimits(seconds=120, memory_mb=256)  # generous: the suite shares its CPUs
    assert run(vm, "seq 1 2000000 | wc -l") == ("2000000\n", "", 0)
    assert run(vm, "echo {1..5000} | wc -w") == ("5000\n", "", 0)
    assert run(vm, "seq -w 8 10 | tr '\\n' ,") == ("08,09,10,", "", 0)


@pytest.mark.parametrize(
    ("command", "bash_answer"),
    [
        ("if true; then " * 400 + "echo deep; " + "fi; " * 400, ("deep\n", "", 0)),
        ("( " * 1000 + "echo deep" + " )" * 1000, ("deep\n", "", 0)),
        # the innermost prints "deep", the next level runs it as a command
        ("echo " + "$(" * 200 + "echo deep" + ")" * 200, ("\n", "deep: command not found\n", 0)),
    ],
)
def test_deep_nesting_is_bash_answer_or_an_error_never_silence(
    vm: VirtualMachine, command: str, bash_answer: tuple[str, str, int]
) -> None:
    # whether the simulation's stack holds this depth depends on the interpreter's recursion
    # limit; either way the agent sees bash's answer or the nesting error, never nothing
    out, err, code = run(vm, command)
    if code == 2:
        assert "maximum nesting level exceeded" in err and out == ""
    else:  # bash -c names the line ("bash: line 1: deep: ..."): compare the message's end
        assert (out, code) == (bash_answer[0], bash_answer[2]) and err.endswith(bash_answer[1])
    assert run(vm, "echo ok") == ("ok\n", "", 0)


def test_nesting_past_the_stack_is_an_error(vm: VirtualMachine) -> None:
    out, err, code = run(vm, "( " * 20_000 + "echo deep" + " )" * 20_000)
    assert (out, code) == ("", 2) and "maximum nesting level exceeded" in err
    assert run(vm, "echo ok") == ("ok\n", "", 0)


def test_bytes_and_utf8_round_trip(vm: VirtualMachine) -> None:
    assert run(vm, r"printf 'caf\xc3\xa9'") == ("café", "", 0)
    assert run(vm, r"echo -e 'caf\0303\0251' | wc -c") == ("6\n", "", 0)
    assert run(vm, r"printf 'a\0b' | wc -c") == ("3\n", "", 0)
    every = "".join(f"\\x{i:02x}" for i in range(256))
    assert run(vm, f"printf '{every}' > /tmp/all; wc -c < /tmp/all") == ("256\n", "", 0)
    r = vm.run("cat /tmp/all")
    assert r.stdout.encode("utf-8", "surrogateescape") == bytes(range(256))


def test_dev_files_od_dd_and_nohup(vm: VirtualMachine) -> None:
    assert run(vm, "head -c 5 /dev/urandom | wc -c") == ("5\n", "", 0)
    assert run(vm, "head -c 40 /dev/zero | od -c") == (
        "0000000" + "  \\0" * 16 + "\n*\n0000040" + "  \\0" * 8 + "\n0000050\n",
        "",
        0,
    )
    assert run(vm, "echo hi | cat /dev/stdin > /dev/null; echo hi | cat /dev/stdin") == ("hi\n", "", 0)
    assert run(vm, r"printf 'caf\xc3\xa9' | od -An -tx1") == (" 63 61 66 c3 a9\n", "", 0)
    assert run(vm, "printf abcdefgh | od -td2 -tx2") == (
        "0000000  25185  25699  26213  26727\n          6261   6463   6665   6867\n0000010\n",
        "",
        0,
    )
    assert run(vm, "dd if=/dev/zero of=/tmp/z bs=4 count=3 status=none; wc -c < /tmp/z") == ("12\n", "", 0)
    assert run(vm, "printf abcdef | dd bs=2 skip=1 count=2 2>/dev/null") == ("cdef", "", 0)
    _, err, code = run(vm, "dd if=/dev/zero of=/tmp/z bs=4 count=3")
    assert err.startswith("3+0 records in\n3+0 records out\n12 bytes copied, ") and code == 0
    assert run(vm, "nohup echo hi") == ("hi\n", "", 0)
    terminal = VirtualMachine(interactive=True)
    r = terminal.run("nohup echo hi; cat nohup.out")
    assert r.stderr == "nohup: ignoring input and appending output to 'nohup.out'\n" and r.stdout == "hi\n"


def test_a_100000_line_script_has_no_token_budget() -> None:
    from agentworld_plugins import World

    world = World(backend="offline")
    session = world.session("terminal", max_context_tokens=1024)
    body = "".join(f"line {i}\n" for i in range(100_000))
    observation = session.step([{"keystrokes": f"cat > big.txt <<'EOF'\n{body}EOF\nwc -l big.txt\n"}])
    assert observation.text.endswith("# wc -l big.txt\n100000 big.txt\nroot@agentworld:/app#")
    assert observation.is_error is False


def test_unfinished_input_typed_for_too_long_stops_at_the_budget() -> None:
    from agentworld_plugins.offline.shell import TerminalScreen

    vm = VirtualMachine()
    vm.limits = StepLimits(seconds=0.3)
    screen = TerminalScreen(vm, None)
    screen.send("if true; then\n" + "echo x\n" * 100_000 + "fi\n")
    assert "CPU time limit exceeded" in screen.view()
    screen.send("echo ok\n")
    assert screen.view().endswith("# echo ok\nok\nroot@agentworld:/app#")
