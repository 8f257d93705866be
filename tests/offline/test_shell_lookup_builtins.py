"""type, command, hash, builtin, enable, caller, times, fg/bg, compgen, complete and ulimit as bash 5.2
answers them,
the errors of a function named after the file it was defined in, ``${x?}``, and ``&``'s subshell:
each script run by the host's bash and the offline machine and compared."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.hashtable import bucket

SAME_AS_BASH = [
    "hash ls; type ls; type ls; hash",
    "hash ls; hash -t ls; hash -t ls; hash",
    "hash ls; command -v ls; hash",
    "ls >/dev/null; ls > /dev/null; ls >/dev/null; hash; hash ls; hash",
    "hash ls; hash -p /x/y ls; hash",
    "PATH=/bin ls >/dev/null; hash",
    "ls >/dev/null; PATH=/bin ls >/dev/null; hash",
    "ls >/dev/null; unset PATH; hash; export PATH=/usr/bin; ls >/dev/null; hash",
    "f() { local PATH=/bin; ls >/dev/null; hash; }; f; hash",
    "ls >/dev/null; cd /tmp; hash",
    "hash -p ./rel ls; hash; hash -l",
    "hash nosuch ls; echo $?; hash",
    "hash -d; echo $?",
    "hash -r; echo $?; hash -- ls; hash -t -- ls",
    "hash -p /usr/bin/ls; echo $?",
    "hash -tl ls; hash -lt ls cat",
    "type -a ls; type -a nosuch; echo $?",
    "ls >/dev/null; type -a ls; type -P ls; type -p ls; type -t ls; type -f ls",
    "hash -p /tmp/x ls; type -P ls; type -a ls",
    "ls > /dev/null; PATH=/bin:$PATH; type ls",
    "echo > /dev/null; hash; /usr/bin/ls >/dev/null; hash",
    "hash -p /tmp/nope ls; ls; echo $?",
    "shopt -s checkhash; hash -p /tmp/nope ls; ls >/dev/null; echo $?; hash",
    "ls >/dev/null; x=1 ls >/dev/null; hash",
    "ls >/dev/null; ls | cat >/dev/null; hash",
    "{ ls; } >/dev/null; hash",
    "if ls >/dev/null; then :; fi; while false; do :; done; hash",
    "eval ls >/dev/null; hash",
    "builtin hash -x; echo $?",
    "hash -p; echo $?",
    "names='ls cat rm env chmod grep sed awk head tail sort uniq wc cut tr date mkdir touch find xargs tee'; for n in $names; do hash $n; done; hash; hash -l",
    "x=$(ls); (cat </dev/null); ls >/dev/null & wait; hash",
    "command ls >/dev/null; env true; hash",
    "f() { echo hi; }; command -V f; command -v f; command -V if; command -v if; command -V echo",
    "alias ll='ls -l'; shopt -s expand_aliases; alias ll='ls -l'; command -V ll; command -v ll; type -p ll; echo $?; type -P ll; type -a ll; type -ta ll",
    "type -p echo nosuch; echo $?; type -t nosuch ls; echo $?",
    "type -a nosuch ls; echo $?",
    "touch x; chmod +x x; type ./x; type -a ./x; type -t ./x; type -p ./x; type -P ./x; type /usr/bin/ls; touch y; type ./y; echo $?; type -P ./y; echo $?",
    "mkdir d; type ./d; echo $?; type d; echo $?",
    "type -type ls; type -path ls; type -all echo; echo $?",
    "type -- ls; type -- -x; echo $?",
    "type -aP echo; type -ap echo; type -at if; type -af echo",
    "type; echo $?; type -a; echo $?",
    "type if then fi '[[' ']]' '{' '}' '!' time function coproc select; echo $?",
    "f() { :; }; type -t f; type -f f; type -ft f; echo $?",
    "command -v nosuch; echo $?; command -V nosuch; echo $?; command -v ls nosuch cat; echo $?",
    "command -v /usr/bin/ls ./nope; echo $?; command -V /usr/bin/ls",
    "command -x; echo $?; command; echo $?; command -p ls /dev/null; command -pv ls",
    "command -vV ls; command -Vv ls",
    "type -P cd ls; echo $?",
    "f() { echo a; echo b | wc -l; x=1 g > out 2>&1; }; type f; type -a f",
    "enable -n echo; builtin echo hi; echo $?; enable -n nosuch; echo $?; enable -n; enable echo; enable -n cd pwd; enable -n",
    "enable -a | tr '\\n' ' '; enable | wc -l; enable -s | tr '\\n' ' '",
    "enable -n echo; echo hi; type echo; enable echo; type echo",
    "enable -n test; [ -f x ] && echo y; test x; echo $?; type -t test",
    "caller 0 1; echo $?; caller -1; echo $?; caller abc; echo $?; caller; echo $?",
    "f() { caller 0; caller; }; f",
    "f() { g; }; g() { caller 0; caller 1; caller 2; echo $?; }; f",
    "printf 'f() {\\n  caller 0\\n  caller 1\\n  caller\\n}\\ng() {\\n  f\\n}\\ng\\n' > cs.sh; bash cs.sh",
    "printf 'caller; echo $?; caller 0; echo $?\\n' > cs2.sh; bash cs2.sh; source cs2.sh",
    "printf 'caller 0\\n' > cs3.sh; f() { source ./cs3.sh; }; f",
    "fg; echo $?; bg; echo $?; sleep 0 & fg; echo $?; fg %1; echo $?",
    "builtin cd /tmp; pwd; builtin -x; echo $?; builtin nosuch; echo $?; builtin; echo $?",
]

FUNCTION_ERRORS_AND_UNSET = [
    "f() { ./nope; }; f",
    "f() { nosuch; }; f",
    "printf 'f() {\\n  nosuch\\n}\\n' > lib.sh; printf 'source ./lib.sh\\nf\\nnosuch2\\n' > main.sh; bash main.sh",
    "printf 'f() {\\n  nosuch\\n}\\n' > lib.sh; source ./lib.sh; f",
    "printf 'nosuch\\n' > s.sh; f() { bash s.sh; source s.sh; }; f",
    "echo 'f() { nosuch; }; f' | bash",
    "f() { g; }\ng() {\n  nosuch; cd /nope; x=$((1/0)); }\nf",
    "f() { echo ${x?unset}; }\nf",
    'f() { eval "nosuch"; }; f',
    "f() { ( nosuch ); x=$(nosuch2); }; f",
    "f() { nosuch; }; bash -c 'nosuch'; f",
    "f() { local -x a=1; declare -i q; q=1/0; }; f",
    "true; echo ${x?}; echo after",
    "echo ${x?unset}",
    "printf 'echo ${x?}\\necho after\\n' > s2.sh; bash s2.sh",
    "( echo ${x?} ); echo $?",
    "f() { echo ${x?unset}; }; f; echo after",
    "echo ${x:?}",
    "set -u; echo $x; echo after",
    "f() { set -u; echo $x; }; f",
    "true\nnosuch\ntrue",
    "cd /nope; true",
    "set -e; echo ${x?}; echo after",
    "x=; echo ${x?}ok; echo ${x:?empty}",
    'echo "${x?}" 2>&1; echo $?',
    "for i in 1 2; do echo ${y?$i}; done",
    "a=(); echo ${a[0]?none}",
]

BACKGROUND = [
    "false & wait $!; echo $?; echo $! | grep -c .",
    "true & p=$!; wait $p; echo $?; wait $p; echo $?",
    "wait 12345; echo $?",
    "wait %1; echo $?",
    "true & wait -n; echo $?",
    "(exit 3) & wait $!; echo $?",
    "true & wait; kill $! 2>&1 | sed 's/[0-9]//g'",
    'echo "[$!]"; x=1 & wait; echo "[$x]"; wait abc; echo $?',
    "disown %3; echo $?",
    "x=1 & wait; echo [$x]",
    'cd / & wait; [ "$PWD" != / ] && echo kept',
    "false & echo $?",
    "set -e; false & echo ok",
    "exit 3 & echo still",
    "echo a > f & wait; cat f",
]

COMPLETION = [
    "compgen -c ech",
    "compgen -b | tr '\\n' ' '",
    "compgen -k | tr '\\n' ' '",
    "f1() { :; }; f2() { :; }; compgen -A function; compgen -A function f",
    "abc=1; abd=2; compgen -v ab; compgen -A variable ab",
    "export QQ1=1 QQ2=2; compgen -e QQ",
    "mkdir -p d1 d2; touch f1 f2 .h; compgen -f | sort; echo --; compgen -d | sort; echo --; compgen -f d | sort; compgen -f -- -x; echo $?",
    "mkdir -p d1/sub; touch d1/a d1/b; compgen -f d1/ | sort; compgen -d d1/ ",
    "compgen -W 'alpha beta alp' al; echo $?; compgen -W 'x y' z; echo $?",
    "compgen -W 'a b c' -P '<' -S '>'; compgen -W 'ab ac bc' -X 'a*'; compgen -W 'ab ac bc' -X '!a*'",
    "alias ll='ls -l' la='ls -a'; compgen -a; compgen -A alias l",
    "compgen; echo $?; compgen -z; echo $?",
    "compgen -c if",
    "f() { :; }; alias fa=x; compgen -c f | head -5",
    "compgen -A builtin ec; compgen -A keyword fo; compgen -A command -- ech",
    "compgen -W '$HOME \"a b\" c'; compgen -W 'x,y' ; IFS=,; compgen -W 'x,y'",
    "complete -W 'a b' foo; complete -p; complete -p foo; complete -r foo; complete -p foo; echo $?",
    "complete -F _f -o nospace git; complete -o default -F _g ssh; complete; complete -r; complete; echo $?",
    "complete -F _f -C 'cmd x' -X '!*.c' -S s -P p -W 'w1 w2' -G '*.x' -A signal -A shopt -A arrayvar -v -u -s -k -j -g -f -e -d -c -b -a -o plusdirs -o nosort -o nospace -o noquote -o filenames -o dirnames -o default -o bashdefault cmd; complete -p",
    "for n in git ssh ls cat make docker kubectl python pip npm; do complete -W x $n; done; complete",
    'complete -W "it\'s" q; complete -p q; complete -E -W x; complete -D -W y; complete -I -W z; complete -p',
    "complete -W a x y z; complete -p; complete -r nosuch; echo $?; complete -p nosuch; echo $?",
    "complete -z; echo $?; complete -o bad x; echo $?; complete -A bad x; echo $?",
    "complete -p; echo $?; complete -r; echo $?",
    "compgen -u ro",
    "compgen -g ro",
    "compgen -A signal SIGT",
    "compgen -A setopt no",
    "compgen -A shopt no",
    "enable -n echo; compgen -A disabled; compgen -A enabled ec",
    "compgen -W 'a b' -- -x; echo $?",
    "compgen -W; echo $?",
    # a subshell's completions end with it
    "(complete -W x f); complete -p; complete -W y g; (complete -r g); complete -p",
]

#: ulimit scripts: the host's own limits differ from the machine's, so these set a limit before
#: they read it, or read only the ones every Linux has alike
ULIMIT = [
    "ulimit -n 100; ulimit -a | grep open; ulimit -Hn",
    "ulimit -Sn 100; ulimit -Sn",
    "ulimit -n unlimited; echo $?",
    "ulimit -c 10; ulimit -c; ulimit -c soft; ulimit -c hard; ulimit -c 5x; echo $?",
    "ulimit -s 1024 -n 50; echo $?; ulimit -s -n",
    "ulimit -n 0; echo $?; ulimit -n -1; echo $?",
    "ulimit -f; ulimit -p; ulimit -p 16; echo $?",
    "ulimit -H; ulimit -S",
    "ulimit 100; ulimit; ulimit -f",
    "ulimit -R; ulimit -e; ulimit -r; ulimit -l; ulimit -q; ulimit -m",
    "ulimit -x; ulimit -P; ulimit -T; ulimit -k; ulimit -b; echo $?",
    "ulimit -n 512; ulimit -n; ulimit -n abc; echo $?; ulimit -q; echo $?",
    "ulimit -c unlimited; echo $?; ulimit -c; ulimit -Hc",
    "ulimit -Hs 100; ulimit -s; echo $?",
    "(ulimit -n 10); ulimit -n 99; ulimit -n\n",
]


@pytest.mark.parametrize("command", SAME_AS_BASH + FUNCTION_ERRORS_AND_UNSET + BACKGROUND)
def test_the_lookup_builtins_answer_as_bash(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


@pytest.mark.parametrize("command", COMPLETION + ULIMIT)
def test_compgen_complete_and_ulimit_answer_as_bash_in_the_same_folder(command: str) -> None:
    ours, host = both(command)
    assert ours == host


def _digits_masked(text: str) -> str:
    return re.sub(r"\d+", "N", text)


def test_ulimit_a_and_times_are_laid_out_as_bash_lays_them_out() -> None:
    for command in ("ulimit -a", "ulimit -Ha", "ulimit -n -s -c", "times"):
        ours, host = both(command)
        assert _digits_masked(ours[0]) == _digits_masked(host[0]), command
        assert ours[1:] == host[1:]


def test_a_lowered_limit_is_flagged_and_a_raised_one_is_not() -> None:
    vm = VirtualMachine(interactive=False)
    assert vm.run("ulimit -c unlimited; ulimit -n 4096; ulimit -n").stdout == "4096\n"
    assert not vm.run("ulimit -c unlimited; ulimit -s unlimited").unknown_effect
    lowered = vm.run("ulimit -n 64; ulimit -n")
    assert lowered.stdout == "64\n" and lowered.unknown_effect
    assert vm.run("ulimit -n").stdout == "64\n"  # kept by the machine, as its umask is
    assert vm.run("(ulimit -n 8); enable -n echo & ulimit -n; type -t echo").stdout == "64\nbuiltin\n"


def test_the_hash_table_lists_in_bash_s_bucket_order_and_lasts_in_an_interactive_shell() -> None:
    assert bucket("ls") == bucket("ls") and bucket("ls") != bucket("cat")
    vm = VirtualMachine(interactive=True)
    vm.run("ls >/dev/null")
    vm.run("cat </dev/null; ls >/dev/null")
    listed = vm.run("hash").stdout
    assert listed == "hits\tcommand\n   2\t/usr/bin/ls\n   1\t/usr/bin/cat\n"
    vm.run("PATH=$PATH")
    assert vm.run("hash").stdout == "hash: hash table empty\n"


def test_a_hashed_path_is_run_after_the_file_moves_unless_checkhash() -> None:
    vm = VirtualMachine(interactive=True)
    vm.run("mkdir -p /opt/a /opt/b; printf 'echo A\\n' > /opt/a/tool; printf 'echo B\\n' > /opt/b/tool")
    vm.run("chmod +x /opt/a/tool /opt/b/tool; PATH=/opt/a:/opt/b:$PATH")
    assert vm.run("tool").stdout == "A\n"
    gone = vm.run("rm /opt/a/tool; tool")
    assert (gone.stderr, gone.exit_code) == ("bash: /opt/a/tool: No such file or directory\n", 127)
    assert vm.run("shopt -s checkhash; tool; type tool").stdout == "B\ntool is hashed (/opt/b/tool)\n"


def test_enable_n_hands_the_name_to_the_program_on_path() -> None:
    vm = VirtualMachine(interactive=False)
    result = vm.run("enable -n pwd; cd /tmp; pwd; type -t pwd; builtin pwd; echo $?")
    assert result.stdout == "/tmp\nfile\n1\n"
    assert "builtin: pwd: not a shell builtin" in result.stderr


def test_the_terminal_only_builtins_are_known_and_flagged() -> None:
    vm = VirtualMachine(interactive=False)
    for name in (
        "bind",
        "compgen -F _f x",
        "compgen -o default x",
        "compopt -o nospace",
        "fc -l",
        "help cd",
        "suspend",
    ):
        result = vm.run(name)
        assert result.unknown_effect, name
        assert "command not found" not in result.stderr
    listed = vm.run("enable -a | wc -l; type -t help").stdout
    assert listed == "61\nbuiltin\n"


def test_a_finished_background_job_is_reported_once_by_jobs() -> None:
    """The host's own report races with the job's end, so this is checked against bash's format."""
    vm = VirtualMachine(interactive=False)
    result = vm.run("true & false & jobs; jobs; echo $!; jobs -p")
    assert result.stdout == "[1]-  Done                    true\n[2]+  Exit 1                  false\n101\n"
    assert vm.run("sleep 1 & jobs -p; wait; jobs").stdout == "102\n"
