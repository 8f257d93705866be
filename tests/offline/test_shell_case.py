"""``case WORD in PATTERN) LIST ;; ... esac``, compared with the host's bash (bashlex does not
parse it; the parser's pre-pass rewrites it into an ``if`` chain the executor runs as ``case``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

# fmt: off
CASES = [
    "case x in x) echo yes;; *) echo no;; esac",
    "case abc in a|b) echo 1;; [a-c]*) echo 2;; *) echo 3;; esac; echo $?",
    "v=ab; case $v in 'a*') echo literal;; a*) echo glob;; esac; case 'a*' in 'a*') echo lit2;; esac",
    "p='a*'; case abc in $p) echo unquoted;; esac; case abc in \"$p\") echo no;; *) echo quoted;; esac",
    "case x in x) echo y; esac; case x in x) esac; echo $?; case x in esac; echo $?",
    "case x in y) echo no;; esac; echo $?; case x in x) false;; esac; echo $?",
    "for a in -h --help x.txt 42 other; do case $a in -h|--help) echo help;; *.txt) echo text;; [0-9]*) echo num;; *) echo other;; esac; done",
    "case a in a) echo 1;& b) echo 2;; c) echo 3;; esac",
    "case a in a) echo 1;;& b) echo 2;;& a*) echo 3;; *) echo 4;; esac",
    "n=0; case $(echo hi; n=9) in hi) echo $n;; esac; x='a b'; case $x in 'a b') echo split-free;; esac",
    "case ~ in /*) echo tilde;; esac; case \"it's\" in it\\'s) echo quote;; esac",
    "f() { case $1 in start) echo starting;; stop) echo stopping;; *) echo \"usage: $1\" >&2; return 3;; esac; }; f start; f stop; f x; echo $?",
    "if true; then case y in (y) echo paren;; esac; fi; i=0; while [ $i -lt 2 ]; do case $i in 0) echo zero;; 1) echo one;; esac; i=$((i+1)); done",
    "case x in x) echo out;; esac > /dev/null; case x in x) echo piped;; esac | tr a-z A-Z; true && case q in q) echo and;; esac",
    "case x in\n  x)\n    echo multi\n    ;;\n  *)\n    echo no\n    ;;\nesac\necho after",
    "case a in\n  # a comment\n  a) # here too\n    echo commented ;;\nesac",
    "case b in a) case b in b) echo never;; esac;; b) case c in c) echo inner;; esac;; esac",
    "set -x; x=a; case $x in a) echo traced;; esac; case $(echo b) in b) :;; esac",
    "set -e; case x in x) false && true;; esac; echo after $?; case y in x) false;; esac; echo $?",
    "echo case esac; x=case; echo $x",
    "echo $(case x in x) echo sub;; esac) done; i=1; case x in x) ((i++));; esac; echo $i",
    "case abc in a*) [[ abc == a* ]] && echo dbl;; esac; case x in x) (echo a; echo b);; esac",
    "case x\nin\n*)\necho star\n;;\nesac\ncase x in\n x)\n  nope\n  ;;\nesac",
    "f() { case $1 in a) f b; echo back $1;; b) echo inner;; esac; }; f a",
    "case A in [[:lower:]]) echo l;; [[:upper:]]) echo u;; esac; case 1 in [!0-9]) echo nd;; [0-9]) echo dg;; esac",
    "case x in x) echo \"semi;;inside\";; esac; case 'a)b' in \"a)b\") echo paren;; esac; echo a | case x in x) cat;; esac",
]
# fmt: on


@pytest.mark.parametrize("command", CASES)
def test_case_answers_as_bash_does(same_as_bash: Callable[[str], None], command: str) -> None:
    same_as_bash(command)


def test_without_a_host_bash(vm: VirtualMachine) -> None:
    r = vm.run("case file.txt in *.sh) echo sh;; *.txt) echo txt;; esac")
    assert (r.stdout, r.exit_code, r.unknown_effect) == ("txt\n", 0, False)
    assert vm.run("case x in '*') echo star;; *) echo any;; esac").stdout == "any\n"


def test_an_unfinished_case_asks_for_more_and_is_an_error_at_the_end(vm: VirtualMachine) -> None:
    assert vm.needs_more("case x in")
    assert vm.needs_more("case x in\n x) echo x;;")
    assert not vm.needs_more("case x in\n x) echo x;;\nesac")
    r = vm.run("case x in x) echo y")
    assert r.exit_code == 2 and "syntax error: unexpected end of file" in r.stderr


def test_a_script_file_reads_a_multi_line_case_whole(vm: VirtualMachine) -> None:
    vm.run(
        "cat > opts.sh <<'EOF'\n"
        'for arg in "$@"; do\n'
        '  case "$arg" in\n'
        "    -v|--verbose)\n"
        "      echo verbose\n"
        "      ;;\n"
        "    --name=*)\n"
        '      echo "name ${arg#--name=}"\n'
        "      ;;\n"
        "    *)\n"
        '      echo "unknown $arg" >&2\n'
        "      exit 4\n"
        "  esac\n"
        "done\n"
        "echo done\n"
        "EOF"
    )
    r = vm.run("bash opts.sh -v --name=bob")
    assert (r.stdout, r.stderr, r.exit_code) == ("verbose\nname bob\ndone\n", "", 0)
    r = vm.run("bash opts.sh --verbose what")
    assert (r.stdout, r.stderr, r.exit_code) == ("verbose\n", "unknown what\n", 4)
