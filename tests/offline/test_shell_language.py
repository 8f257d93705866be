"""The shell language against the host's bash: traps, readonly, declare, arrays, BASH_REMATCH,
mapfile, process substitution, exec and kill. Each command runs as ``bash -c`` does (the shell
ends after it, so ``trap ... EXIT`` runs) and must give bash's stdout, stderr and status."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits


@pytest.fixture
def like_bash_c(
    vm: VirtualMachine, real_bash_err: Callable[[str], tuple[str, str, int]]
) -> Callable[[str], None]:
    def check(command: str) -> None:
        r = vm.run(command, ends_shell=True)
        assert not r.unknown_effect
        out, err, status = real_bash_err(command)
        status = 128 - status if status < 0 else status  # killed by a signal: as a shell shows it
        assert (r.stdout, r.stderr, r.exit_code) == (out, err, status)

    return check


TRAPS = [
    'trap "echo bye" EXIT; echo hi',
    "trap 'echo bye $?' EXIT; (exit 4)",
    'trap "echo bye; exit 3" EXIT; exit 5',
    'trap "echo bye" EXIT; false',
    'trap "echo t" 0; echo z',
    'trap "echo a" EXIT; trap; trap -p EXIT; trap - EXIT; trap; echo end',
    'trap "echo a" INT TERM; trap; trap INT; trap',
    'trap "echo in" EXIT; (trap "echo sub" EXIT; echo s); echo out',
    'trap "echo x" EXIT; echo $(echo y)',
    'x=$(trap "echo sub" EXIT; echo val); echo "[$x]"',
    'echo a | (trap "echo piped" EXIT; cat)',
    'f() { trap "echo f" EXIT; }; f; echo after',
    'trap "echo bye" EXIT; set -e; false; echo no',
    'trap "echo bye" EXIT; x=$(exit 3); echo $?',
    'trap "echo q" FOO; echo $?',
    'bash -c "trap \\"echo inner\\" EXIT; echo body"; echo outer',
]

READONLY = [
    "readonly x=1; x=2; echo $?",
    "readonly x=1; x=2 echo hi; echo $?",
    "readonly x=1; unset x; echo $?",
    "readonly x=1; declare x=3; echo $?",
    "readonly x=1; export x=3; echo $?",
    "readonly x=1; (( x++ )); echo $?",
    "readonly x=1; read x <<< 5; echo $?",
    "readonly x=1; for x in 1; do echo $x; done; echo $?",
    "f() { readonly y=2; }; f; y=3; echo $?",
    "readonly x=1\nx=2\necho after",
    "readonly r=2; declare -p r",
    "declare -r q; q=1; echo $?",
    "declare -r x=1; declare +r x; echo $?",
    "readonly a=(1 2); a[0]=3; echo $?",
    "(readonly x=1; x=2; echo no); echo after $?",
]

DECLARE = [
    "declare -i n; n=2+3; n+=4; echo $n",
    "declare -i n=3; declare -p n",
    "x=5; declare -i x; x+=1; echo $x",
    "declare -i n=10; n=n/3; echo $n",
    "declare -u up=abc; echo $up; declare -l lo=ABC; echo $lo",
    "x=1; declare -p x; export e=3; declare -p e",
    'x="a\\"b\\$c"; declare -p x',
    "declare -p nope; echo $?",
    "declare -a e1; declare -p e1; declare -A e2; declare -p e2",
]

ARRAYS = [
    'a=(x y "z w"); echo ${a[1]} ${#a[@]}; for i in "${a[@]}"; do echo "[$i]"; done',
    'a=(1 2 3); a[5]=six; echo ${!a[@]}; unset "a[1]"; echo ${a[@]} ${#a[@]}; a+=(7 8); echo "${a[@]}"',
    "a=(x y z); echo ${a[@]:1} ${a[-1]} ${a[@]/y/Y} ${#a[0]} ${a[@]:0:2} ${a[*]^^}",
    'a=(); echo "${#a[@]}"; printf "<%s>" "${a[@]}"; echo; printf "<%s>" x"${a[@]}"; echo',
    'a=(a b); s="${a[*]}"; IFS=,; echo "${a[*]}" $s',
    'a=("a b" c); printf "<%s>" "${a[@]}" "x${a[@]}y"; echo',
    'a=(x "y z"); declare -p a; a=q; declare -p a',
    "a=(1 2); unset a; declare -p a; echo $?",
    "a=(\n one # a comment\n two\n); echo ${a[@]}",
    "a=(*.none); echo ${#a[@]} ${a[0]}; b=({1..3}); echo ${b[@]}; c=($(echo p q)); echo ${c[1]}",
    "a=([2]=two [0]=zero); echo ${!a[@]} ${a[@]}; a+=([5]=five); declare -p a",
    "x=1 a=(3 4); echo ${a[0]} $x; i=1; a[i+1]=z; echo ${a[2]} ${a[$i]}",
    "declare -A m; m[k]=v; m[x]=z; echo ${m[k]} ${m[x]} ${#m[@]}; unset 'm[k]'; echo ${#m[@]}",
    "declare -A m=([k]=v); declare -p m; declare -A n; n=(a b); echo ${n[a]}",
    "declare -ai n=(1+1 3); echo ${n[@]}",
    'f() { local a=(1 2); echo ${a[1]}; }; f; echo "${a[@]}" $?',
    "a=(1 2 3); (a[0]=9; echo ${a[0]}); echo ${a[0]}",
    'set -- p q; printf "<%s>" "x$@y"; echo',
]

REMATCH_MAPFILE = [
    "[[ ab12 =~ ([a-z]+)([0-9]+) ]]; echo ${BASH_REMATCH[0]} ${BASH_REMATCH[2]} ${#BASH_REMATCH[@]}",
    '[[ ab =~ (a)(x)? ]]; echo ${#BASH_REMATCH[@]} "[${BASH_REMATCH[2]}]"; [[ x =~ y ]]; echo ${#BASH_REMATCH[@]}',
    "mapfile -t l <<< $'a\\nb\\nc'; declare -p l",
    'printf "a\\nb\\n" | mapfile l; echo ${#l[@]}',
    'mapfile -t -n 2 l < <(seq 5); echo "${l[@]}"; mapfile < <(printf "x\\ny\\n"); declare -p MAPFILE',
    'readarray -t -s 1 l < <(seq 3); echo "${l[@]}"',
    "seq 3 > f; mapfile -t -O 2 l < f; declare -p l",
]

PROCESSES = [
    "cat <(echo hi) <(echo there)",
    # quoted, <(..) and >(..) are text (bashlex reports them as substitutions inside { })
    "{ echo '%<(12)x|%>(9)y' \"a<(b)\" a\\<\\(c\\); cat <(echo in); }",
    'diff <(printf "a\\nb\\n") <(printf "a\\nc\\n"); echo $?',
    "wc -l < <(seq 4)",
    "while read -r x; do echo got $x; done < <(printf '1\\n2\\n')",
    "exec echo hi; echo no",
    'trap "echo bye" EXIT; exec echo hi',
    "exec nope; echo still",
    "kill -9 $$; echo no",
    "(kill -9 $$); echo no",
    'trap "echo bye" EXIT; kill -9 $$; echo no',
    'trap "echo bye" EXIT; kill -TERM $$; echo no',
    'trap "echo bye" EXIT; kill -INT $$; echo no',
    'trap "echo caught" TERM; kill $$; echo after',
    "kill -0 $$; echo $?; kill -s FOO $$; echo $?",
    "bash -c 'kill -INT $$'; echo $?",
]


#: `declare -f` / `-F`: bash's layout of a function, names, exported ones
FUNCTION_LISTINGS = [
    'f() { x=1 y="a b"; echo "$x" >out 2>&1 | tr a b && ls -l  /tmp || cat < in; echo $((x+1)) $(date) `id`; sleep 1 & wait; a=(1 2); local z; echo hi >> log 2> /dev/null; cmd <<< "str"; }; declare -f f',
    "g() { :; }; declare -f g; k() { echo a | cat; }; declare -F; declare -F k g nope; echo $?; declare -f nope; echo $?",
    "f() { echo a; echo b; }; export -f f; g() { ! true; }; declare -F; declare -fx; declare -f",
    "f() {\n  echo one\n  echo two &\n}\ndeclare -f f; typeset -f f",
    'f() { echo "$@"; }; eval "$(declare -f f | sed \'s/^f /h /\')"; h 1 2; bash -c "$(declare -f f); f x"',
]

#: umask: octal, symbolic, -S, -p and its errors
UMASKS = [
    "umask 999; echo $?; umask 8; echo $?; umask abc; echo $?; umask u=rwx,g=rx,o=; umask; umask -S; umask -p; umask 0002; umask -S; umask -p -S; umask g-w; umask; umask a+rwx; umask; umask -x; echo $?; umask 1 2; echo $?; umask 07777; umask",
    "umask u=rwz; echo $?; umask =r; umask; umask +w; umask; umask u=; umask; umask ,; echo $?; umask o; echo $?",
    "umask; umask -S; umask 022; umask -p; umask -S 027; umask",
]

#: `-nt`/`-ot`/`-ef`: a file that exists is newer than one that does not; -ef follows links
FILE_COMPARISONS = [
    "echo a > f1; touch -d '2020-01-01' old; [[ f1 -nt /nonexistent ]] && echo 1; [[ /nonexistent -nt f1 ]] || echo 2; "
    "[[ /nonexistent -ot f1 ]] && echo 3; [[ f1 -ot /nonexistent ]] || echo 4; [[ f1 -nt old ]] && echo 5; "
    "[ old -ot f1 ] && echo 6; test f1 -nt f1 || echo 7",
    "echo a > f1; ln -s f1 l1; [[ f1 -ef l1 ]] && echo 1; [ f1 -ef ./f1 ] && echo 2; [[ f1 -ef nope ]] || echo 3; "
    "[[ nope -ef nope ]] || echo 4; cp f1 c1; [ f1 -ef c1 ] || echo 5",
]


@pytest.mark.parametrize("command", TRAPS + READONLY + DECLARE + FILE_COMPARISONS + FUNCTION_LISTINGS)
def test_traps_readonly_and_declare_as_bash(like_bash_c: Callable[[str], None], command: str) -> None:
    like_bash_c(command)


@pytest.mark.parametrize("command", ARRAYS + REMATCH_MAPFILE)
def test_arrays_as_bash(like_bash_c: Callable[[str], None], command: str) -> None:
    like_bash_c(command)


@pytest.mark.parametrize("command", PROCESSES)
def test_process_substitution_exec_and_kill_as_bash(like_bash_c: Callable[[str], None], command: str) -> None:
    like_bash_c(command)


def test_exit_traps_run_only_when_the_shell_ends() -> None:
    vm = VirtualMachine(interactive=False)
    assert vm.run("trap 'echo bye' EXIT; echo hi").stdout == "hi\n"  # a session's shell goes on
    assert vm.run("echo more").stdout == "more\n"
    assert vm.run("exit 3").stdout == "bye\n"  # and ends here
    term = VirtualMachine(interactive=True)
    term.run("trap 'echo bye' EXIT")
    r = term.run("exit")
    assert (r.stdout, r.exited) == ("bye\n", True)
    killed = VirtualMachine(interactive=True)
    r = killed.run("kill -9 $$")
    assert (r.exit_code, r.exited, r.stderr) == (137, True, "")
    again = VirtualMachine(interactive=True)
    assert not again.run("exec bash").exited  # a fresh bash in its place: the terminal goes on


def test_arrays_count_against_the_memory_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=60, memory_mb=4)
    for command in ("a=($(seq 100000)); echo never", "for i in $(seq 100000); do a[i]=$i; done; echo never"):
        r = vm.run(command)
        assert (r.stdout, r.exit_code) == ("", 2), command
        assert r.stderr.startswith("bash: xmalloc: cannot allocate") and r.stderr.count("\n") == 1
        assert vm.run("echo ok").stdout == "ok\n"
    small = VirtualMachine(interactive=False)
    small.limits = StepLimits(seconds=60, memory_mb=4)
    assert small.run("a=($(seq 1000)); echo ${#a[@]}").stdout == "1000\n"


def test_a_runaway_array_loop_ends_at_the_work_budget() -> None:
    answers = set()
    for _ in range(2):
        vm = VirtualMachine(interactive=False)
        vm.limits = StepLimits(seconds=0.05, memory_mb=64)
        r = vm.run("a=(); while :; do a+=(x); done")
        answers.add((r.stdout, r.stderr, r.exit_code, vm._budget.work))
    assert len(answers) == 1
    out, err, code, _ = answers.pop()
    assert out == ""
    assert code == 152 and "CPU time limit exceeded" in err


def test_arrays_and_attributes_survive_a_stored_session() -> None:
    import pickle

    vm = VirtualMachine(interactive=False)
    vm.run("a=(1 2 3); declare -A m=([k]=v); readonly r=1; trap 'echo t' EXIT")
    back = pickle.loads(pickle.dumps(vm))
    assert back.run("echo ${a[2]} ${m[k]}; r=2").stdout == "3 v\n"
    assert back.run("exit").stdout == "t\n"


def test_a_function_with_compound_commands_is_not_listed_in_a_layout_of_our_own() -> None:
    vm = VirtualMachine()
    r = vm.run("f() { if true; then echo y; fi; }; declare -f f; declare -F f")
    assert r.unknown_effect and "cannot run in the offline world" in r.stderr
    assert r.stdout == "f\n"  # the names are still given


@pytest.mark.parametrize("command", UMASKS)
def test_umask_reads_and_prints_as_bash(command: str) -> None:
    ours, host = both(command)  # flagged when the mask changes, so not like_bash_c
    assert ours == host


def test_a_umask_other_than_the_default_is_flagged_as_not_applied() -> None:
    vm = VirtualMachine()
    assert vm.run("umask 077; touch f").unknown_effect  # files are still made 644 here
    assert vm.run("umask").stdout == "0077\n"
    assert not vm.run("umask 022; umask -S").unknown_effect
