"""Shell options as bash 5.2 has them: ``shopt`` (listing, ``-s/-u/-q/-p/-o``, errors) and the
options whose effect the offline shell simulates (nullglob, failglob, dotglob, nocaseglob,
globstar, nocasematch, xpg_echo, lastpipe, expand_aliases; ``set -f/-C/-a``), and ``[[ ]]``
words, which are neither split nor globbed: each command line compared with the host's bash."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

#: a small project: files to glob, a hidden one made by some cases
SETUP = (
    "mkdir -p proj/src proj/tests && cd proj && printf 'import os\\n' > src/calc.py && "
    "printf 'def test():\\n    pass\\n' > tests/test_calc.py && printf 'name,qty\\napple,3\\n' > data.csv && "
    "printf '# Title\\n' > README.md && "
)

SAME_AS_BASH = [
    "shopt -s nullglob; echo *.none; echo x *.none y",
    "shopt -s nullglob; ls *.none | head -2",
    "shopt -s failglob; echo *.none; echo after",
    'shopt -s failglob; (echo *.none); echo "sub $?"',
    'shopt -s failglob; x=$(echo *.none); echo "got $? [$x]"',
    "shopt -s failglob; echo src/*.py",
    "shopt -s nocaseglob; echo src/*.PY",
    "shopt -s nocaseglob; echo [R]*",
    "shopt -s globstar; echo **/*.py",
    "shopt -s globstar; echo src/**",
    "shopt -s globstar; echo **",
    "shopt -s globstar; echo **/",
    "shopt -s globstar; touch .hid; mkdir .hd; touch .hd/x.py; echo **/*.py",
    "shopt -s globstar dotglob; touch .hid; mkdir .hd; touch .hd/x.py; echo **/*.py",
    "shopt -s dotglob; touch .hid; echo *",
    "touch .hid; echo *",
    "echo **/*.py",
    "set -f; echo src/*; set +f; echo src/*",
    "set -o noglob; echo *; set +o noglob",
    "set -C; echo a > data.csv; echo $?; echo b >| data.csv; cat data.csv",
    "set -C; echo a > new.txt; echo $?; echo a >> data.csv; echo $?; echo c > /dev/null; echo $?",
    "set -o noclobber; echo a > data.csv; echo $?",
    "set -a; X=1; env | grep -c '^X='",
    "set -a; read Y <<< hi; env | grep '^Y='",
    "shopt -s nocasematch; case ABC in abc) echo yes;; *) echo no;; esac; [[ ABC == abc ]] && echo y2; [[ ABC =~ ^a ]] && echo y3",
    'shopt -s xpg_echo; echo "a\\tb"',
    'shopt -s expand_aliases; alias hi="echo hello"',
    'shopt -s lastpipe; echo x | read v; echo "[$v]"',
    'shopt -u lastpipe; echo x | read v; echo "[$v]"',
    "shopt nullglob; echo $?",
    "shopt -s nullglob dotglob; shopt nullglob dotglob extglob; echo $?",
    "shopt -q nullglob; echo $?; shopt -s nullglob; shopt -q nullglob; echo $?",
    "shopt -s foo; echo $?",
    "shopt -x; echo $?",
    "shopt",
    "shopt -p",
    "shopt -p nullglob",
    "shopt -s",
    "shopt -u | head -3",
    "shopt -o",
    "shopt -po errexit",
    "shopt -so errexit; set -o | grep errexit",
    "shopt -s login_shell; echo $?",
    "set -o | head -30",
    "set +o",
    "set -o | grep -E 'noglob|noclobber|allexport'; set -fCa; set -o | grep -E 'noglob|noclobber|allexport'",
    "echo $-",
    "set -f; echo $-",
    "alias ll='ls -l'; type ll 2>&1 | head -1",
    "printf 'shopt -s failglob\\necho *.none\\necho after\\n' > fg.sh; bash fg.sh; echo \"rc=$?\"",
    "printf 'shopt -s failglob\\necho *.none; echo same\\necho after\\n' > fg.sh; bash fg.sh; echo \"rc=$?\"",
    "printf 'shopt -s failglob\\nfor f in *.none; do echo $f; done\\necho after $?\\n' > fg.sh; bash fg.sh; echo \"rc=$?\"",
    "bash -c 'shopt -s failglob; echo *.none; echo after'; echo \"rc=$?\"",
    "printf 'echo *.none\\n' > g.sh; bash -O failglob g.sh; echo \"rc=$?\"",
    "shopt -s failglob; [[ -n *.none ]] && echo lit; case x in *.none) ;; esac; echo ok",
    "shopt -s nullglob; a=(*.none); echo ${#a[@]}; for f in *.none; do echo $f; done; echo end",
    "shopt -s nullglob; echo \"*.none\" '*.none' \\*.none",
    "shopt -s nullglob dotglob; echo .* | wc -w",
    "shopt -s globstar; echo src/**/*.py tests/**",
    "shopt -s globstar; ln -s src lnk; echo **/*.py",
    "bash -c 'set -o | grep -E \"allexport|noglob\"' ; bash -f -c 'echo *'",
    "bash -C -c 'echo x > data.csv; echo $?'",
    "bash -O foo -c 'echo hi'; echo $?",
    "bash -o foo -c 'echo hi'; echo $?",
    "bash -O nullglob -c 'echo *.none; shopt nullglob'",
    "bash -O nullglob +O nullglob -c 'echo *.none'",
    "bash -fC -c 'echo *; echo x > data.csv'; echo $?",
    "shopt -s nullglob; bash -c 'echo *.none'",
    "set -f; bash -c 'echo src/*'",
    'touch a.py; [[ *.py == "*.py" ]] && echo lit',
    'x="a b"; [[ $x == "a b" ]] && echo y',
    'x="a b"; [[ -n $x ]] && echo y',
    'x=""; [[ -z $x ]] && echo empty',
    "[[ src/* == src/calc.py ]] && echo globbed || echo not",
    "x='*'; case $x in '*') echo star;; esac",
    "x='a b'; case $x in 'a b') echo ab;; esac",
    "case src/* in 'src/*') echo lit;; *) echo other;; esac",
    "x=src; case $x/calc.py in src/*) echo m;; esac",
    'for f in "src/*"; do echo "$f"; done',
    "echo > src/*",
    "cat < src/*",
    "x=3; (( x * 2 > 5 )) && echo big",
    '[[ abc == "*" ]] && echo m || echo no',
    "[[ abc == * ]] && echo m || echo no",
    "x='*'; [[ abc == $x ]] && echo m || echo no",
    "x='*'; [[ abc == \"$x\" ]] && echo m || echo no",
    '[[ a.c =~ "a.c" ]] && echo m; [[ abc =~ "a.c" ]] && echo m2 || echo no2',
    "[[ abc =~ a.c ]] && echo m; x='a.c'; [[ abc =~ $x ]] && echo m3",
    'a=(x y); [[ "${a[@]}" == "x y" ]] && echo joined',
    "[[ -f src/calc.py && -d src ]] && echo both",
    "[[ ! -e nope || -n x ]] && echo either",
    "x=5; [[ $x -gt 3 ]] && echo gt",
    '[[ "$(echo a b)" == "a b" ]] && echo sub',
    '[[ $(echo a b) == "a b" ]] && echo sub2',
]


@pytest.mark.parametrize("command", SAME_AS_BASH)
def test_options_and_conditionals_answer_as_bash(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(SETUP + command)


@pytest.mark.parametrize(
    "command",
    [
        "shopt -s extglob",
        "set -o posix",
        "set -v",
        "shopt -s inherit_errexit",
        "bash -O extglob -c 'echo hi'",
    ],
)
def test_an_option_whose_effect_is_not_simulated_is_flagged(vm: VirtualMachine, command: str) -> None:
    r = vm.run(command)
    assert r.unknown_effect and r.exit_code == 0
    assert not vm.run("shopt -s nullglob; set -f; shopt -u nullglob").unknown_effect


def test_options_last_across_steps_and_a_restart_and_a_subshell_keeps_its_own(vm: VirtualMachine) -> None:
    vm.run("mkdir -p /w && cd /w && touch a.py .h && shopt -s nullglob dotglob && set -f")
    again = pickle.loads(pickle.dumps(vm))  # a stored world, loaded again
    assert again.run("echo *; set +f; echo * z*").stdout == "*\n.h a.py\n"
    assert again.run("(shopt -u dotglob; echo *); echo *").stdout == "a.py\n.h a.py\n"
    assert again.run("bash -c 'echo * z*'").stdout == "a.py z*\n"  # a new bash starts afresh


def test_an_interactive_shell_expands_aliases_and_a_script_does_not() -> None:
    vm = VirtualMachine(interactive=True)
    assert vm.run("alias hi='echo hello'; shopt expand_aliases").stdout == "expand_aliases \ton\n"
    assert vm.run("hi").stdout == "hello\n"
    assert vm.run("printf 'hi\\n' > /tmp/s.sh; bash /tmp/s.sh").exit_code == 127
    assert vm.run("shopt -u expand_aliases; hi").exit_code == 127
