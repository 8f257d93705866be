"""bash's order of an associative array's keys (its hash table), and indirect expansion
(``${!r}``, ``${!r:1}``, ``r='a[@]'; "${!r}"``, ``${!#}``, ``${!prefix*}``) with bash 5.2's errors:
each script run by the host's bash and by the offline machine, and compared."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.assoc import AssocItems

ASSOC_ORDER = [
    'declare -A m; m[apple]=1; m[banana]=2; m[cherry]=3; m[date]=4; echo "${!m[@]}"; echo "${m[@]}"',
    'declare -A m=([one]=1 [two]=2 [three]=3 [four]=4 [five]=5); declare -p m; echo "${m[@]@K}"',
    'declare -A m=([x]=1 [y]=2 [z]=3); unset \'m[x]\'; m[x]=9; m[y]=7; echo "${!m[@]}" "${#m[@]}"',
    'declare -A m; for w in alpha beta gamma delta epsilon zeta eta theta; do m[$w]=${#w}; done; for k in "${!m[@]}"; do echo "$k=${m[$k]}"; done',
    'declare -A m; for ((i=0;i<3000;i++)); do m[key$i]=$i; done; echo "${!m[@]}" | md5sum; echo ${#m[@]}',
    'f() { local -A t=([b]=2 [a]=1 [c]=3); echo "${!t[@]}"; }; f; declare -A g=([q]=1 [r]=2); (g[s]=3; echo "${!g[@]}"); echo "${!g[@]}"',
    'declare -A m=([k1]=a [k2]=b [k3]=c); echo "${m[@]:1:2}"; echo "${m[*]}"; printf \'%s\\n\' "${m[@]@A}"',
    'declare -A m=([k1]=a [k2]=b [k3]=c); echo "${m[@]:0:2}|${m[@]:2}|${m[@]: -1}|${m[@]:1}|${m[@]:3}|${m[@]:4}|"',
    'declare -A m=([k1]=a [k2]=b [k3]=c [k4]=d [k5]=e); echo "${m[@]: -7:2}|${m[@]: -5}|${m[@]:5:0}|${m[@]:6}|${m[@]:2:0}"',
    'declare -A m=([k1]=a [k2]=b [k3]=c); echo "${m[@]:1:-1}"; echo after',
    'declare -A m=([k1]=a [k2]=b); echo "[${m[@]:4:-1}]"',
    'a=(x y z); printf \'<%s>\' "${a[@]@A}" ${a[@]@A} "${a[*]@A}"; echo',
    'declare -i n=3; x=1; declare -a e; printf \'<%s>\' "${n[@]@A}" "${x[@]@A}" "${e[@]@A}" "${u[@]@A}"; echo',
]

INDIRECT = [
    'foo=hello; r=foo; echo "${!r}" "${!r:1}" "${!r^^}" "${#r}"',
    "r='bad name'; echo \"${!r}\"",
    'r=; echo "[${!r}]"',
    "b=(x y); r='b[1]'; echo \"${!r}\"",
    'r=nope; echo "[${!r}]"; set -u; echo "${!r}"',
    'ab=1 ac=2 b=3; echo "${!a*}"; for n in "${!a@}"; do echo "$n"; done',
    'set -- one two; n=2; echo "${!n}" "${!#}"',
    'foo=hello; r=foo; echo "${!r:-d}" "${!r/l/L}" "${!r#h}" "${!r@Q}"',
    'unset u; r=u; echo "${!r:-dflt}" "${!r-x}"; echo "${!r:=set}"; echo "$u"',
    'declare -n ref=foo; foo=bar; echo "${!ref}"',
    'a=(foo); foo=hello123; echo "${!a[0]:1}" "${!a:1}" "${!a[@]}" "${!a[*]}"',
    'r="bad name"; echo "${!r}"; echo after $?',
    'unset r; echo "[${!r}]"; echo after',
    'x=; declare y; ab=1; echo "${!a*}|${!x*}|${!y*}"; declare -a az; echo "${!a*}"',
    'f(){ r="bad n"; echo "${!r}"; echo in; }; f; echo out',
    'r="a[@]"; a=(1 "2 3"); printf "<%s>" "${!r}"; echo; printf "<%s>" ${!r}; echo; printf "<%s>" "${!r:1}"',
    'r="a[*]"; a=(1 2); IFS=-; echo "${!r}"; echo "${!a*}"; printf "<%s>" "${!a@}"',
    'set -u; r=nope; echo "${!r:-ok}"; echo "${!r}"',
    'r=9x; echo "${!r}"',
    'r="1"; set -- A; echo "${!r}"; r="#"; echo "${!r}"; r="a[1+1]"; a=(p q r); echo "${!r}"; r="a[k"; echo "${!r}"',
    'declare -A m=([k1]=a [k2]=b [k3]=c); echo "${!m[@]:0:2}|${!m[@]:2}|"',
    'a=(foo); foo=hello123; echo "${!a[@]:1}" "${!a[*]:2:3}"; b=(foo bar); echo "${!b[@]:1}"',
    "r='e[@]'; e=(); printf '<%s>' \"${!r}\" x; echo; r='@'; set -- 'p q' r; printf '<%s>' \"${!r}\"; echo",
    'pass() { local name=$1[@]; for x in "${!name}"; do echo "- $x"; done; }; arr=(a "b c"); pass arr',
    'v1=a v2=b; for i in 1 2; do n=v$i; echo "${!n}"; done; n=v1; echo "${#!n}" 2>&1',
    'echo "${!BASH_V*}" "${!HOSTT@}"',
    "r='x[0]'; x=hi; echo \"${!r}\"; r=' x'; echo \"${!r}\"",
    'v=a:b:c; r=v; echo "${!r%%:*}" "${!r@Q}" "${!r//:/-}"',
    'a=(x y); r=a; echo "${!r}" "${!r[1]}"',
    'a=(x y); r=a; echo "[${!r[1]}]" "[${!r[5]}]"; echo $?',
    'a=(""); echo "[${!a[0]}]"; echo $?',
    'a=(); echo "[${!a[@]:1}]"; echo $?',
    "f(){ echo ${!F*} ${!BASH*}; }; f",
    'set -u; a=(x); echo "[${!a[3]}]"',
    'set -u; unset r; echo "[${!r}]"',
]


@pytest.mark.parametrize("command", ASSOC_ORDER + INDIRECT)
def test_keys_and_indirection_answer_as_bash(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_a_table_past_2048_keys_grows_as_bash_s_and_lists_the_same() -> None:
    script = (
        "declare -A m; for ((i=0;i<%d;i++)); do m[k$i]=$i; done; unset 'm[k7]'; m[k7]=x; echo \"${!m[@]}\""
    )
    for count in (2048, 2049, 8193):
        ours, host = both(script % count)
        assert ours == host, count


def test_a_stored_machine_keeps_the_order_and_an_old_one_is_given_it() -> None:
    vm = VirtualMachine(interactive=False)
    vm.run("declare -A m=([one]=1 [two]=2 [three]=3 [four]=4)")
    listed = vm.run('echo "${!m[@]}"').stdout
    assert listed != "one two three four\n"  # bash's order is not the order they were set in
    again = pickle.loads(pickle.dumps(vm))
    assert again.run('echo "${!m[@]}"').stdout == listed
    assert isinstance(again._arrays()["m"], AssocItems)
    vm._arrays()["m"] = dict(vm._arrays()["m"])  # as a session stored before kept it
    old = pickle.loads(pickle.dumps(vm))
    assert old.run('echo "${!m[@]}"').stdout == listed


def test_a_copy_keeps_the_buckets_of_a_grown_table() -> None:
    table = AssocItems((f"k{i}", str(i)) for i in range(2049))
    assert table.buckets == 4096
    copied = table.copy()
    assert copied.buckets == 4096 and copied.ordered() == table.ordered()
