"""extglob patterns, [[ -v NAME ]] / test -v (variables, elements, keys), printf's %(FORMAT)T and
trap ... ERR (run where set -e would end the shell, with $? the status, not in functions
without set -E), compared with the host's bash."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine

CASES = [
    'x=1; [[ -v x ]] && echo set; [[ -v nope ]] || echo unset; a=(1 2); [[ -v a[1] ]] && echo idx; [[ -v a[5] ]] || echo noidx; echo "${x@Q}" "${a[@]@Q}"',
    "e=; [ -v e ] && echo empty-set; test -v HOME && echo home; declare -A m=([k]=v); [[ -v m[k] ]] && echo key; [[ -v m[z] ]] || echo nokey; [[ ! -v q ]] && echo not; unset x; [[ -v x ]] || echo gone",
    "f() { local l=1; [[ -v l ]] && echo local; }; f; [[ -v l ]] || echo outside; declare -a empty=(); [[ -v empty ]] || echo empty-arr; [[ -v empty[@] ]] || echo none",
    "printf '%(%Y-%m-%d)T\\n' 0; printf '%(%H:%M)T|%(%s)T\\n' 3600 86400; printf '[%20(%Y)T]\\n' 0; printf '%(%Y)T\\n' -1 | grep -c 20",
    "trap 'echo err at $LINENO' ERR; false; trap - ERR; (exit 2) || echo \"rc $?\"",
    "trap 'echo \"ERR $?\"' ERR; false; true; ls /nope 2>/dev/null; echo after; false || true; if false; then :; fi; ! false; echo end",
    "trap 'echo caught' ERR; f() { false; echo in-f; }; f; x=$(false); echo \"x=$x\"",
    "set -e; trap 'echo bye $?' ERR; echo start; false; echo never",
    "trap 'echo E' ERR; false | true; true | false; (false); echo done",
    "set -E; trap 'echo caught' ERR; f() { false; echo in-f; }; f",
    # extglob: always in [[ == ]]
    "[[ abc == +([a-c]) ]] && echo plus; [[ x.txt == !(*.py) ]] && echo notpy; [[ x.py == !(*.py) ]] || echo ispy; [[ ab == ?(a)b ]] && echo opt; [[ b == ?(a)b ]] && echo opt2",
]


@pytest.mark.parametrize("command", CASES)
def test_answers_as_bash(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_extglob_trims_but_the_option_stays_flagged() -> None:
    # ${x#pat} and case take extglob's patterns; pathname globbing does not, so turning the
    # option on is still an unknown effect, while the trims answer as bash does
    script = "shopt -s extglob; x=aaab; echo ${x##+(a)}; y=file.tar.gz; echo ${y%%.@(tar|gz)*}"
    ours, host = both(script)
    assert ours == host == ("b\nfile\n", "", 0)
    assert VirtualMachine(interactive=False).run(script).unknown_effect
