"""``set -e``, ``set -u`` and ``set -x`` (also as ``-o errexit/nounset/xtrace`` and bash's own
options) with bash's semantics, compared with the host's bash where there is one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.terminal import TerminalScreen


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


# (command, stdout, stderr, exit status): what bash 5.2 answers under `bash -c`
BASH_ANSWERS = [
    # set -e: the failing command's status ends the shell ...
    ("set -e; false; echo no", "", "", 1),
    ("set -e; true && false; echo no", "", "", 1),
    ("set -e; f(){ false; echo in; }; f; echo out", "", "", 1),
    ("set -eo pipefail; false | true; echo no", "", "", 1),
    ("set -e; (false && true); echo no", "", "", 1),
    ("set -e; x=$(false); echo no", "", "", 1),
    ("set -e; cat missing; echo no", "", "cat: missing: No such file or directory\n", 1),
    ("set -o errexit; sh -c 'exit 3'; echo no", "", "", 3),
    ("bash -e -c 'false; echo no'; echo $?", "1\n", "", 0),
    ("bash -euo pipefail -c 'false | true; echo no'; echo $?", "1\n", "", 0),
    ("set -e; { false; echo in; } | cat; echo $?", "0\n", "", 0),
    # ... except where bash ignores it
    ("set -e; false || true; echo yes", "yes\n", "", 0),
    ("set -e; false && true; echo yes", "yes\n", "", 0),
    ("set -e; if false; then :; elif false; then :; fi; echo yes", "yes\n", "", 0),
    ("set -e; while false; do :; done; until true; do :; done; echo yes", "yes\n", "", 0),
    ("set -e; ! false; ! true; echo yes", "yes\n", "", 0),
    ("set -e; false | true; echo yes", "yes\n", "", 0),
    ("set -e; { false && true; }; echo yes", "yes\n", "", 0),
    ("set -e; f(){ false; echo in; }; f || echo caught; echo out", "in\nout\n", "", 0),
    ("set -e; f(){ false; echo in; }; if f; then echo then; fi", "in\nthen\n", "", 0),
    ("set -e; x=$(false; echo hi); echo $x", "hi\n", "", 0),
    ("set -e; set +e; false; echo yes", "yes\n", "", 0),
    # set -u
    ("set -u; echo $nope; echo no", "", "bash: line 1: nope: unbound variable\n", 127),
    ('set -u; echo "${nope}"', "", "bash: line 1: nope: unbound variable\n", 127),
    ("set -eu; echo $nope", "", "bash: line 1: nope: unbound variable\n", 1),
    ("set -u\necho ${#nope}", "", "bash: line 2: nope: unbound variable\n", 127),
    ("set -u; echo $1", "", "bash: line 1: $1: unbound variable\n", 127),
    ("set -u; (echo $nope); echo after $?", "after 1\n", "bash: line 1: nope: unbound variable\n", 0),
    ("set -u; echo $nope | cat; echo after", "after\n", "bash: line 1: nope: unbound variable\n", 0),
    ("set -u; echo $((nope + 1)); echo no", "", "bash: line 1: nope: unbound variable\n", 127),
    ("set -u; (x=$((nope))); echo $? $((${z:-3} + 1))", "1 4\n", "bash: line 1: nope: unbound variable\n", 0),
    ("bash -u -c 'echo $nope'; echo $?", "127\n", "bash: line 1: nope: unbound variable\n", 0),
    ('set -u; echo ${nope:-d} ${nope-} ${nope+x} $# $@ $* "$@" end', "d 0 end\n", "", 0),
    ("set -u; x=1; echo ${x#1}${x}; set +u; echo $nope.", "1\n.\n", "", 0),
    # set -x
    ('set -x; echo "a b"', "a b\n", "+ echo 'a b'\n", 0),
    ("set -x; x=$(echo hi)", "", "++ echo hi\n+ x=hi\n", 0),
    ("set -x; echo $(echo $(echo z))", "z\n", "+++ echo z\n++ echo z\n+ echo z\n", 0),
    (
        "set -x; y='a b' env true; f(){ :; }; f 2>/dev/null; set +x; echo q",
        "q\n",
        "+ y='a b'\n+ env true\n+ f\n+ set +x\n",
        0,
    ),
    (
        "set -x; echo \"it's\" '' 'a$b' '~x' a~ a=b '#a'",
        "it's  a$b ~x a~ a=b #a\n",
        "+ echo 'it'\\''s' '' 'a$b' '~x' a~ a=b '#a'\n",
        0,
    ),
    ("set -x; (echo sub)", "sub\n", "+ echo sub\n", 0),
    ("bash -x -c 'echo hi' 2>&1", "+ echo hi\nhi\n", "", 0),
    # the option table and $-
    ("set -eux; echo $-", "ehuxBc\n", "+ echo ehuxBc\n", 0),
    (
        "set -o | grep -E '^(errexit|nounset|xtrace)'",
        "errexit        \toff\nnounset        \toff\nxtrace         \toff\n",
        "",
        0,
    ),
    (
        "set -e -o nounset; set -o | grep -E '^(errexit|nounset)'; set +o | grep -E 'errexit|xtrace'",
        "errexit        \ton\nnounset        \ton\nset -o errexit\nset +o xtrace\n",
        "",
        0,
    ),
]


@pytest.mark.parametrize(("command", "stdout", "stderr", "status"), BASH_ANSWERS)
def test_options_answer_as_bash(command: str, stdout: str, stderr: str, status: int) -> None:
    assert run(VirtualMachine(interactive=False), command) == (stdout, stderr, status)


@pytest.mark.parametrize("command", [c for c, *_ in BASH_ANSWERS])
def test_options_match_the_host_bash(
    real_bash_err: Callable[[str], tuple[str, str, int]], command: str
) -> None:
    assert run(VirtualMachine(interactive=False), command) == real_bash_err(command)


def test_scripts_start_with_their_own_options() -> None:
    vm = VirtualMachine(interactive=False)
    vm.fs.write("/app/s.sh", "set -u\necho $nope\necho after\n")
    # a script's unbound variable ends it with 1 (bash -c's line ends with 127); its options
    # stay its own, and `bash -e s.sh` starts one with errexit
    assert run(vm, "set -e; bash s.sh || echo failed $?") == (
        "failed 1\n",
        "s.sh: line 2: nope: unbound variable\n",
        0,
    )
    vm = VirtualMachine(interactive=False)  # the machine keeps its options from run to run
    vm.fs.write("/app/t.sh", "false\necho survived\n")
    assert run(vm, "bash t.sh; bash -e t.sh; echo $?") == ("survived\n1\n", "", 0)
    assert run(vm, "set -euo pipefail; source t.sh; echo no") == ("", "", 1)


def test_interactive_errexit_exits_as_bash_does() -> None:
    """At a prompt, ``set -e`` then a failure ends the shell as ``exit`` does, without bash
    printing ``exit``; ``set -u`` abandons the line with status 1 and the shell stays."""
    vm = VirtualMachine()
    r = vm.run("set -u")
    r = vm.run("echo $nope; echo same")
    assert (r.stdout, r.stderr, r.exit_code, r.exited) == ("", "bash: nope: unbound variable\n", 1, False)
    vm.run("set -e")
    r = vm.run("false; echo after")
    assert (r.stdout, r.stderr, r.exit_code, r.exited) == ("", "", 1, True)
    r = vm.run("true || false")
    assert (r.exit_code, r.exited) == (0, False)


def test_the_offline_terminal_keeps_its_pane_after_errexit() -> None:
    term = TerminalScreen(VirtualMachine())
    step = term.send("set -e\nfalse\necho still here\n")
    assert step.exit_codes == [0, 1, 0]
    assert "still here" in term.view()
