"""``${name@OP}`` transforms, substrings and slices, the positional parameters with operators,
bad substitutions, stepped letter ranges and namerefs (``declare -n``), against the host's bash
(host_bash.both)."""

from __future__ import annotations

import shutil

import pytest
from host_bash import both

from agentworld_plugins.offline.shell.transforms import ansi_c_quoted, reusable

TRANSFORMS = [
    "x=abc; echo ${x@Q} ${x@U} ${x@u} ${x@L}",
    'x="it\'s a b"; echo ${x@Q}; y=\'\'; echo "[${y@Q}]"; echo "[${unset@Q}]"',
    "x=$'a\\tb\\nc'; echo ${x@Q}; x=$'\\e[1m'; echo ${x@Q}",
    "x='a\\tb\\x41'; echo \"${x@E}\"",
    'x=5; declare -i n=3; export e=1; echo ${x@A} ${n@A} ${e@A}; echo "[${x@a}] [${n@a}] [${e@a}]"',
    'a=(x \'y z\'); echo "${a[@]@Q}"; echo "${a[@]@A}"; echo "${a@a}"; echo "${a[1]@U}"',
    'declare -A m=([k]=v [j]=\'w x\'); echo "${m[@]@K}"; echo "${m[@]@Q}"; echo ${m@a}',
    "x='héllo wörld'; echo ${x@U} ${x@u}",
    "declare -r r=1; echo ${r@a} ${r@A}",
    "x='$HOME `a` \"q\" \\ !'; echo ${x@Q}",
    'set -- a \'b c\'; echo "${@@Q}"; echo "${1@U}"; echo "${*@Q}"',
    'a=(1 2); echo ${a@Q}; declare -a e=(); echo "[${e[@]@Q}]" "[${e@A}]"',
    'f=fo; echo ${f@K}; declare -ia ia=(1 2); echo "${ia@a}" "${ia[@]@A}"',
    'set -- ab \'c d\'; printf \'<%s>\' "${@^^}" "${@:2}" "${@/a/x}" "${@#a}" "${*^^}" ${@^^}; echo',
    'set -- ab \'c d\'; IFS=,; printf \'<%s>\' "${*^}" "${*/a/x}" "${*:1}"; echo',
    "declare -a a=(x 'y z'); echo \"${a[@]@K}\"; printf '<%s>' \"${a[@]@k}\"; echo; declare -A m=([k]=v); printf '<%s>' \"${m[@]@k}\"; echo",
    'a=(x y); echo "${a[1]@a}" "${a[1]@A}" "${a@A}"',
    'set -- a; echo "${1@A}" "${1@a}" "${@@A}"',
    's=abc; echo "${s: -5}|${s:0:-1}|${s: -5:1}|${s:1:-2}|${s:5}|${s:3}|${s:1:0}|${s: -2:1}"',
    "s=abc; echo ${s:2:-2}; echo after",
    'echo "${unset:2:-2}|"; echo after',
    'a=(x y); echo "${a[@]: -5}|${a[@]: -1}|${a[@]:1:5}|"; echo "${a[@]:0:-1}"; echo after',
    'set -- a b c; echo "${@: -3}|${@: -2}|${@:0:1}|${@:5}|${@: -5}|${@:4}|${@:3}|${@:1:0}|"',
    'set -- a b c; echo "${@:2:-1}"; echo after',
    'set -- ab \'c d\'; printf \'<%s>\' "${@:2}" "${*:2}" ${@:1:1} "${@%d}" "${@-x}" "${@:+set}"; echo',
    'set --; printf \'<%s>\' "${@:-none}" "${@^^}" "${*@Q}"; echo',
    "echo ${%x}; echo after",
    'echo ${x@Z}; echo "[${x@}]"; echo after',
    "echo {a..e..2} {e..a..2} {a..e..-2} {a..e..0} {A..E..3} {a..c..x}",
]

NAMEREFS = [
    "declare -n ref=target; target=5; echo $ref; ref=7; echo $target; declare -p ref target",
    'f() { local -n arr=$1; arr+=(x); echo "${#arr[@]} ${arr[*]}"; arr[5]=z; }; a=(1 2); f a; declare -p a',
    'declare -A m=([k]=v); declare -n r=m; echo "${r[k]}" "${!r[@]}" "${!r}"; r[j]=w; declare -p m',
    'declare -n r=x; echo "[${r-unset}]"; r=now; echo "$x"; unset r; echo "[${x-gone}]"; declare -p r',
    'x=1; declare -n r=x; unset -n r; echo "$x [${r-unset}]"; declare -p r',
    "declare -n r=1x; echo $?; declare -n s=s; echo $?; declare -p r s",
    "declare -n r; r=target; target=3; echo $r; declare -p r",
    "x=3; declare -n r=x; (( r++ )); echo $x; read r <<< \"line\"; echo $x; printf -v r '%s' pf; echo $x",
    "x=ab; declare -n r=x; echo ${#r} ${r^^} ${r:1} ${r/a/z}",
    "a=1; b=2; declare -n r=a; echo $r; declare -n r=b; echo $r; r=9; echo $a $b",
    'f() { local -n out=$1; out="result"; }; f myvar; echo "$myvar"',
    'declare -n r=arr; r=(p q); declare -p arr; echo "${r[1]}"',
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", TRANSFORMS + NAMEREFS)
def test_expansions_answer_as_the_hosts_bash(script: str) -> None:
    ours, host = both(script)
    assert ours == host


def test_reusable_quoting_is_bashs() -> None:
    assert reusable("it's") == "'it'\\''s'"
    assert reusable("") == "''"
    assert reusable("a\tb\x01\x7f\x1b'\\") == "$'a\\tb\\001\\177\\E\\'\\\\'"
    assert ansi_c_quoted("\a\b\f\v\r\n") == "$'\\a\\b\\f\\v\\r\\n'"
