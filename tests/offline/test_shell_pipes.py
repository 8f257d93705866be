"""Pipelines stream: endless producers end when their reader does, with bash's SIGPIPE statuses
(``set -o pipefail``, ``${PIPESTATUS[@]}``), and a reader that never stops meets the step budget."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits


@pytest.fixture
def vm() -> VirtualMachine:
    machine = VirtualMachine(interactive=False)
    machine.limits = StepLimits(seconds=60, memory_mb=64)  # generous: the suite shares its CPUs
    return machine


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


# (command, stdout, exit status): what bash answers, asserted here and compared with the host's
# bash where there is one. SIGPIPE (141) is certain in these: the producers write far more than a
# pipe holds (yes, seq 1 100000) or all of theirs in one write before the reader starts (seq 3).
BASH_ANSWERS = [
    ("seq 1 1e15 | head -3", "1\n2\n3\n", 0),
    ("yes | head -n 2", "y\ny\n", 0),
    ("yes hello | head -c 20", "hello\nhello\nhello\nhe", 0),
    ("cat /dev/zero | head -c 5 | od -c", "0000000  \\0  \\0  \\0  \\0  \\0\n0000005\n", 0),
    ("seq 1 100000000 | grep -m1 777", "777\n", 0),
    ("set -o pipefail; yes | head -n 2; echo $? ${PIPESTATUS[@]}", "y\ny\n141 141 0\n", 0),
    ("yes | head -1; echo $? ${PIPESTATUS[@]}", "y\n0 141 0\n", 0),
    ("set -o pipefail; seq 3 | head -1; echo $? ${PIPESTATUS[@]}", "1\n0 0 0\n", 0),
    ("set -o pipefail; seq 1 100000 | head -1; echo $? ${PIPESTATUS[@]}", "1\n141 141 0\n", 0),
    ("set -o pipefail; seq 1 1e15 | head -3", "1\n2\n3\n", 141),
    ("yes | cat | head -2; echo ${PIPESTATUS[@]}", "y\ny\n141 141 0\n", 0),
    ("seq 1 1e15 | sed q; echo ${PIPESTATUS[@]}", "1\n141 0\n", 0),
    ("yes | sed -n 2p\\;2q", "y\n", 0),
    ("seq 1 1e9 | grep -q 5; echo $? ${PIPESTATUS[@]}", "0 141 0\n", 0),
    ("seq 1 1e9 | grep 777 | head -2", "777\n1777\n", 0),
    ("yes | while read x; do echo $x; break; done; echo ${PIPESTATUS[@]}", "y\n141 0\n", 0),
    ("yes | { read a; read b; echo $a$b; }", "yy\n", 0),
    ("cat /dev/urandom | tr -dc a-z | head -c 8 | wc -c", "8\n", 0),
    ("cat -n /dev/zero | head -c 7", "     1\t", 0),
    ("env yes | head -1", "y\n", 0),
    ("yes 2>/dev/null | head -1", "y\n", 0),
    # PIPESTATUS and pipefail on their own
    ("false | true; echo ${PIPESTATUS[@]} $?", "1 0 0\n", 0),
    ("false | true | (exit 3); echo ${PIPESTATUS[@]} $?", "1 0 3 3\n", 0),
    ("! false | true; echo ${PIPESTATUS[@]} $?", "1 0 1\n", 0),
    ("set -o pipefail; false | true; echo $?; ! false | true; echo $?", "1\n0\n", 0),
    (
        'false | true; echo $PIPESTATUS ${PIPESTATUS[1]} ${#PIPESTATUS[@]} "${PIPESTATUS[*]}"',
        "1 0 2 1 0\n",
        0,
    ),
    ('false | true; for s in "${PIPESTATUS[@]}"; do echo "<$s>"; done', "<1>\n<0>\n", 0),
    ("false | true; echo ${PIPESTATUS[-1]} x${PIPESTATUS[5]}", "0 x\n", 0),
    ("true; false; echo ${PIPESTATUS[@]}", "1\n", 0),
    ("if false; then :; fi; echo ${PIPESTATUS[@]}", "1\n", 0),
    ("(exit 3); echo ${PIPESTATUS[@]}", "3\n", 0),
    ("x=$(false); echo ${PIPESTATUS[@]} $?", "1 1\n", 0),
    ("false | true; x=1; echo ${PIPESTATUS[@]}", "0\n", 0),
    ("(set -o pipefail); false | true; echo $?", "0\n", 0),
    ("bash -o pipefail -c 'false | true'; echo $?", "1\n", 0),
    ("bash -uo pipefail -c 'false | true; echo $?'", "1\n", 0),
    ("set -o pipefail; bash -c 'false | true'; echo $?", "0\n", 0),
    ("set -o pipefail; set -o | grep pipefail; set +o pipefail; set +o | grep pipefail", None, 0),
    ("set -o bogus; echo $?", "2\n", 0),
    ("set a b c; echo $# $2", "3 b\n", 0),
]


@pytest.mark.parametrize(("command", "stdout", "status"), BASH_ANSWERS)
def test_pipelines_answer_as_bash_does(
    vm: VirtualMachine, command: str, stdout: str | None, status: int
) -> None:
    out, err, code = run(vm, command)
    if stdout is not None:
        assert (out, code) == (stdout, status), err
    else:
        assert code == status, err


# a command that starts a child bash would run the host's own `bash` from PATH, not a sandboxed one
_HOST_SAFE = [case for case in BASH_ANSWERS if "bash -" not in case[0]]


@pytest.mark.parametrize(("command", "stdout", "status"), _HOST_SAFE)
def test_the_answers_are_the_host_bashs(
    real_bash: Callable[[str], tuple[str, int]], command: str, stdout: str | None, status: int
) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=60)
    r = vm.run(command)
    assert (r.stdout, r.exit_code) == real_bash(command)


def test_set_reports_bad_options_as_bash_does(vm: VirtualMachine) -> None:
    assert run(vm, "set -o bogus") == ("", "bash: line 1: set: bogus: invalid option name\n", 2)
    out, err, code = run(vm, "set -Z")
    assert (out, code) == ("", 2)
    assert err == (
        "bash: line 1: set: -Z: invalid option\n"
        "set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]\n"
    )
    assert run(vm, "set -o | grep -c .")[0] == "27\n"


def test_an_endless_pipeline_stops_at_the_time_budget_holding_little(vm: VirtualMachine) -> None:
    vm.limits = StepLimits(seconds=0.3, memory_mb=256)
    tracemalloc.start()
    try:
        out, err, code = run(vm, "yes | wc -l; echo never")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (out, code) == ("", 152)
    assert err == "bash: CPU time limit exceeded (the offline step budget is 0.3 s of work)\n"
    assert peak < 16 * 1024 * 1024  # one chunk at a time, not the 256 MB the budget allows
    assert run(vm, "seq 3 | head -1") == ("1\n", "", 0)  # the machine stays usable


@pytest.mark.parametrize(
    ("command", "message", "status"),
    [
        ("yes | sort", "xmalloc: cannot allocate", 2),  # sort must hold all it reads
        ("yes > /dev/null", "CPU time limit exceeded", 152),
        ("cat /dev/zero | sed p", "xmalloc: cannot allocate", 2),  # one line that never ends
        ("seq 1 1e15 > /dev/null", "xmalloc: cannot allocate 999999999999999 bytes", 2),  # at once
        ("cat /dev/zero", "CPU time limit exceeded (reading /dev/zero never ends", 152),
        ("yes", "xmalloc: cannot allocate", 2),
    ],
)
def test_producers_without_a_reader_that_stops_meet_the_budget(
    vm: VirtualMachine, command: str, message: str, status: int
) -> None:
    # the time budget short where it is the one to meet, long where memory must be met first
    vm.limits = StepLimits(seconds=0.3 if status == 152 else 30, memory_mb=16)
    _, err, code = run(vm, command)
    assert code == status and err.startswith("bash: ") and message in err.splitlines()[-1]
    assert run(vm, "echo ok") == ("ok\n", "", 0)


def test_stages_that_do_not_stream_keep_their_order(vm: VirtualMachine) -> None:
    assert run(vm, "f() { seq 2; echo end; }; f | cat") == ("1\n2\nend\n", "", 0)
    assert run(vm, "{ yes | head -1; echo x; } | cat") == ("y\nx\n", "", 0)
    assert run(vm, "seq 3 | { head -1; echo more; }") == ("1\nmore\n", "", 0)
    assert run(vm, "echo a > /tmp/a; echo b > /tmp/b; cat /tmp/a nope /tmp/b 2>&1 | cat") == (
        "a\ncat: nope: No such file or directory\nb\n",
        "",
        0,
    )
    # a streaming stage opens its files where it started, whatever its reader does meanwhile
    assert run(vm, "cd /tmp && cat a | (cd /; cat; ls -d a 2>&1)") == (
        "a\nls: cannot access 'a': No such file or directory\n",
        "",
        2,
    )


def test_readers_take_what_the_real_programs_take(
    vm: VirtualMachine, real_bash: Callable[[str], tuple[str, int]]
) -> None:
    vm.run("seq 100000 > s.txt")
    real_bash("seq 100000 > s.txt")
    for command in [
        "seq 100000 | { head -n1; wc -c; }",  # head reads a pipe 8 KiB at a time
        "{ head -n1; wc -c; } < s.txt",  # ... and seeks back on a file
        "{ sed 1q; head -2; } < s.txt",
        "{ grep -m1 5; head -2; } < s.txt",
        "{ head -c 3; head -1; } < s.txt",
        "printf 'a\\nb\\nc\\n' | { head -c 1; cat; }",
        "printf 'a\\nb\\nc\\n' | { head -n 1; cat; }",
        "seq 100000 | { read x; wc -c; }",
    ]:
        r = vm.run(command)
        assert (r.stdout, r.exit_code) == real_bash(command), command


def test_tee_writes_what_it_read_before_its_reader_stopped(vm: VirtualMachine) -> None:
    out, _, code = run(vm, "yes | tee /tmp/y | head -1; head -3 /tmp/y | wc -l")
    assert (out, code) == ("y\n3\n", 0)
    assert run(vm, "echo hi | tee /tmp/a /tmp/b; cat /tmp/a /tmp/b") == ("hi\nhi\nhi\n", "", 0)


def test_find_streams_and_stops_with_its_reader(vm: VirtualMachine) -> None:
    vm.run("mkdir -p /big && cd /big && for i in $(seq 200); do mkdir d$i; touch d$i/a d$i/b; done")
    assert run(vm, "find /big | head -3") == ("/big\n/big/d1\n/big/d1/a\n", "", 0)
    assert run(vm, "find /big -name a | wc -l") == ("200\n", "", 0)
    assert run(vm, "cd /big/d1 && find . -exec echo x {} \\; -print | head -4") == (
        "x .\n.\nx ./a\n./a\n",
        "",
        0,
    )
