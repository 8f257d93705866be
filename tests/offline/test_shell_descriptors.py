"""File descriptors and ``read``, against the host's bash: ``exec``'s redirections last for the
rest of the shell (``exec >log 2>&1``, ``exec 3<file``, ``exec 3>&-``) and stay in a subshell,
a pipeline's stage, a command substitution or a child bash; ``/dev/fd/N`` names them; ``read``
and ``mapfile`` read from them (``-u``), with all of ``read``'s options and its field splitting.
Each script runs in a fresh folder at the same path on both sides. Then what the host cannot
show: descriptors kept from one ``run`` of a shell to the next, through a pickled machine."""

from __future__ import annotations

import pickle
import shutil

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine

DESCRIPTORS = [
    "exec > out.txt; echo hi; echo there >&2; ls",
    "exec 3> f3; echo a >&3; echo b >&3; exec 3>&-; cat f3; echo x >&3; echo $?",
    "exec 2>err.log; ls /nonexistent; cat err.log >&1; echo done",
    "{ exec >log; echo in; }; echo after; cat log >&2",
    "{ exec >log; echo a; } 2>/dev/null; echo b; cat log >&2",
    "{ exec >log; echo a; } >other; echo b; cat log other",
    'exec 4<<<"line1"; read -r x <&4; echo "$x"',
    "printf 'a\\nb\\nc\\n' > f; exec 5<f; read -r l1 <&5; read -r l2 <&5; echo \"$l1 $l2\"",
    "f() { exec >inner.txt; echo x; }; f; echo y; cat inner.txt >&2",
    "f() { exec 4>ff; }; f; echo in >&4; cat ff",
    "exec >/dev/null; echo hidden; echo err >&2",
    "exec 3>&1; echo to3 >&3",
    "exec 3>&1 1>log; echo hidden; exec 1>&3 3>&-; echo shown; cat log",
    "(exec >sub.txt; echo sub); echo main; cat sub.txt",
    "exec 3>f; (echo sub >&3); echo main >&3; cat f",
    "exec 3>f; bash -c 'echo child >&3'; cat f",
    "echo $( exec >/dev/null; echo lost ) done",
    'x=$(exec 2>&1; ls /nope); echo "[$x]"',
    "exec 5>&1; echo piped | cat >&5",
    "echo x | { exec >piped.txt; }; echo here; cat piped.txt",
    "exec 2>&1; ls /nope; echo $?",
    'exec 2>/dev/null; ls /nope; echo "st=$?"',
    "exec 3<&0; echo ok",
    "exec 3>&-; echo $?",
    "echo a >&7",
    "cat <&7",
    "echo a >/dev/fd/7; echo $?",
    "exec 9>lock; echo locked >&9; cat lock",
    "exec 3>out; echo one >/dev/fd/3; echo two >/proc/self/fd/3; cat out",
    "exec 3>>out; echo one >&3; echo two >>/dev/fd/3; cat out",
    'exec 3<<<"hello"; cat /dev/fd/3',
    "echo to-stdout >/dev/stdout; echo to-err >/dev/stderr",
    "printf '1\\n2\\n3\\n' > n; exec 6<n; while read -r l <&6; do echo \"got $l\"; done; exec 6<&-",
    "while read -r l; do echo \"[$l]\"; done < <(printf 'a\\nb\\n')",
    "cat <(echo a )",
    "echo $(echo b )",
    "echo $(echo a; echo b  )x",
    "echo $(echo $(echo in ) )",
    'echo "$( echo q )"',
    'exec {fd}>out; echo "via $fd" >&$fd; exec {fd}>&-; cat out; echo "x" >&$fd; echo $?',
    'exec {a}>f1 {b}>f2; echo "$a $b"; echo one >&$a; echo two >&$b; cat f1 f2',
    "exec 10>x; exec {n}>y; echo $n",
    "printf 'l1\\nl2\\n' > in; exec {r}<in; read -r x <&$r; read -r y <&$r; echo \"$x $y $r\"; exec {r}<&-",
    'echo hi {fd}>f; echo "fd=$fd"; echo more >&$fd; cat f',
    "exec {fd}>&-; echo $?",
    'f() { exec {lock}>lockfile; echo "$lock"; }; f; echo ok >&$lock; cat lockfile',
    "echo {fd} > plain; cat plain; echo {x}y>o; cat o",
    "x=foo; cat <&$x; echo $?; echo a >&$x; echo $?; cat foo; y=7; cat <&$y; cat <&7; echo end",
]
READS = [
    'IFS=, read -r a b <<< "1,2,3,"; echo "[$a][$b]"',
    'IFS=, read -r a b <<< "1,2,"; echo "[$a][$b]"',
    'IFS=, read -r a b <<< "1,2,,"; echo "[$a][$b]"',
    'IFS=", " read -r a b c <<< " 1 , 2 ,  3 , "; echo "[$a][$b][$c]"',
    'IFS=", " read -r a b <<< "a , , b"; echo "[$a][$b]"',
    'IFS=, read -r a b <<< ",x"; echo "[$a][$b]"',
    'IFS=, read -r x <<< "a,"; echo "[$x]"',
    'IFS=, read -r x <<< "a,b,"; echo "[$x]"',
    'IFS=", " read -r x <<< "  a ,  "; echo "[$x]"',
    'IFS= read -r x <<< "  sp  "; echo "[$x]"',
    'read -r a b <<< "  x   y  z  "; echo "[$a][$b]"',
    'read x y z <<< "a\tb\tc"; echo "$z$y$x"',
    'read -r <<< "  a b  "; echo "[$REPLY]"',
    'read x y <<< ""; echo "$? [$x]"',
    'read a b <<< "a\\ b c\\\\"; echo "[$a][$b]"',
    'read a b <<< "a\\\\  b"; echo "[$a][$b]"',
    'read a <<< "x\\\\ "; echo "[$a]"',
    'read -r x <<< "a\\\\nb"; echo "[$x]"',
    'read x <<< "a\\\\\\\\b"; echo "[$x]"',
    'read a <<< "line\\\\\nnext"; echo "[$a]"',
    'printf "a\\\\\\\\\\nb\\n" | { read x; echo "[$x]"; }',
    'IFS=: read -ra arr <<< "a::b:"; echo ${#arr[@]} "${arr[@]}"',
    'IFS=, read -ra arr <<< ",a,,b,,"; declare -p arr',
    'IFS=" ," read -ra arr <<< " ,a , b"; declare -p arr',
    'read -a arr <<< "  one  two three "; declare -p arr',
    'read -a a b <<< "x y"; declare -p a; echo "[$b]"',
    'a=(9 9 9 9); read -a a <<< "x y"; declare -p a',
    'read -n 3 x <<< "abcdef"; echo "[$x]"',
    'read -n 2 a b <<< "x yz"; echo "[$a][$b]"',
    'read -n 3 a <<< "a\\\\bcd"; echo "[$a]"',
    'read -n 2 -r a <<< "\\\\\\\\x"; echo "[$a]"',
    'read -n 0 x <<< "abc"; echo "[$x] $?"',
    'read -N 4 x <<< "ab\ncdef"; echo "[$x]"',
    'read -N 2 x <<< " a b"; echo "[$x]"',
    'IFS=, read -N 3 x <<< ",a,b"; echo "[$x]"',
    'read -N 4 a b <<< "x yz"; echo "[$a][$b]"',
    'read -N 3 a <<< "a\\\\bcd"; echo "[$a]"',
    'read -N 0 x <<< "ab"; echo "$? [$x]"',
    "printf 'one\\ntwo\\n' | { read -n 2 a; read b; echo \"[$a][$b]\"; }",
    'read -d , x <<< "ab,cd"; echo "[$x] $?"',
    'read -d , a <<< "x\\\\,y,z"; echo "[$a]"',
    'read -d "" -r x <<< "a\nb"; echo "[$x] $?"',
    'read -d "" a b <<< "1 2\n3"; echo "[$a][$b] $?"',
    'read -rd "" x <<< ""; echo "$? [$x]"',
    'read -t 0 <<< "x"; echo $?',
    "read -t 0 x < /dev/null; echo $?",
    'read -t 1.5 x <<< "z"; echo "$x $?"',
    'read -t x a <<< "q"; echo $?',
    'read -p "name? " x <<< "bob"; echo "[$x]"',
    'read -s x <<< "secret"; echo "[$x]"',
    'printf "a b" | { read x y; echo "[$x][$y] $?"; }',
    'read x < /dev/null; echo $? "[$x]"',
    "read -u 9 x; echo $?",
    "read -u x a; echo $?",
    "read -n x y; echo $?",
    "read -z x; echo $?",
    "read -a; echo $?",
    'read 1x <<< "a"; echo "$?"',
    'read a 1b c <<< "q w e"; echo "$? [$a][$c]"',
    'read -a 1a <<< "x"; echo $?',
    'readonly r; read r <<< "x"; echo $?',
    "printf 'k1=v1\\nk2=v2\\n' > kv; while IFS== read -r k v; do echo \"$k -> $v\"; done < kv",
    "printf 'x\\ny\\n' > f; { read a; read b; } < f; echo \"$a$b\"",
    "printf '1\\n2\\n3\\n' > n; exec 6<n; read -u 6 a; read -u 6 b; echo \"$a$b\"",
    "printf 'a\\nb\\n' > f; exec 3<f; mapfile -t -u 3 arr; declare -p arr",
    "mapfile -u 8 arr; echo $?",
    'printf \'1\\n2\\n3\\n\' > n; exec 4<n; read -u 4 first; mapfile -t -u 4 rest; echo "$first" "${rest[@]}"',
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", DESCRIPTORS + READS)
def test_descriptors_and_read_answer_as_the_hosts_bash(script: str) -> None:
    ours, host = both(script)
    assert ours == host


def test_exec_descriptors_last_from_one_run_of_a_shell_to_the_next() -> None:
    """A terminal's shell (one ``run`` per command line) keeps what ``exec`` opened, through a
    pickled machine (a saved world), until the shell ends."""
    vm = VirtualMachine(interactive=True)
    assert vm.run("exec 3>/tmp/log; printf 'a\\nb\\n' > /tmp/f; exec 4</tmp/f").stdout == ""
    assert vm.run("echo one >&3; read -r x <&4; echo $x").stdout == "a\n"
    vm = pickle.loads(pickle.dumps(vm))
    assert vm.run("read -r x <&4; echo $x; echo two >&3; cat /tmp/log").stdout == "b\none\ntwo\n"
    vm.run("exec 2>&1")
    r = vm.run("ls /nope")
    assert (r.stdout, r.stderr) == ("ls: cannot access '/nope': No such file or directory\n", "")
    vm.run("exec 1>/tmp/quiet")  # stderr stays on the terminal, where `2>&1` put it
    assert vm.run("echo hidden; ls /nope").output == "ls: cannot access '/nope': No such file or directory\n"
    vm.run("exec 1>/dev/tty 2>/dev/tty 3>&- 4<&-")
    r = vm.run("echo back; echo x >&3")
    assert r.stdout == "back\n" and "3: Bad file descriptor" in r.output
    assert vm.run("cat /tmp/quiet").stdout == "hidden\n"


def test_a_shell_that_ends_keeps_no_descriptors() -> None:
    vm = VirtualMachine(interactive=False)
    vm.run("exec 3>/tmp/log", ends_shell=True)  # `bash -c`: a shell of its own
    assert "3: Bad file descriptor" in vm.run("echo x >&3").stderr
    vm.run("exec 3>/tmp/log; exit 0")
    assert "3: Bad file descriptor" in vm.run("echo x >&3").stderr
