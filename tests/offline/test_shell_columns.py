"""expand, unexpand and join compared with GNU coreutils on the host, in the same folder."""

from __future__ import annotations

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

SAME_AS_GNU = [
    "printf 'a\\tb\\tc\\n\\tx\\n' | expand",
    "printf 'a\\tb\\tc\\n\\tx\\n' | expand -t 4",
    "printf 'a\\tb\\tc\\td\\n' | expand -t 2,5,9",
    "printf 'a\\tb\\tc\\td\\te\\n' | expand -t 2,5,/4",
    "printf 'a\\tb\\tc\\td\\te\\n' | expand -t 2,5,+4",
    "printf '\\ta\\tb\\n  \\tc\\td\\n' | expand -i",
    "printf 'ab\\bc\\td\\n' | expand",
    "printf 'é\\tx\\n' | expand",
    "printf 'a\\tb' | expand; echo; expand -t 0 </dev/null; echo $?; expand -t 5,3 </dev/null; echo $?; expand -t a </dev/null; echo $?",
    "printf '        a       b\\n    x\\n' | unexpand",
    "printf '        a       b\\n    x\\n' | unexpand -a",
    "printf 'a       b       c\\n' | unexpand -a",
    "printf 'abcdefg h\\n1234567  x\\n' | unexpand -a",
    "printf '    a   b\\n' | unexpand -t 4",
    "printf '    a   b\\n' | unexpand -t 4 --first-only",
    "printf '        a  \\t b\\n' | unexpand -a",
    "printf ' \\ta\\n' | unexpand",
    "printf 'a b c\\n' | unexpand -a -t 2",
    "expand nosuch; echo $?; unexpand -x; echo $?",
    "printf 'x\\ty\\n' > f; expand f - f < f",
    "printf '1 a\\n2 b\\n3 c\\n' > l; printf '1 x\\n3 z\\n4 w\\n' > r; join l r",
    "printf '1 a\\n2 b\\n3 c\\n' > l; printf '1 x\\n3 z\\n4 w\\n' > r; join -a1 l r; echo --; join -a2 l r; echo --; join -v1 l r; echo --; join -v2 l r; echo --; join -a1 -a2 l r",
    "printf '1 a\\n2 b\\n3 c\\n' > l; printf '1 x\\n3 z\\n4 w\\n' > r; join -o 1.2,2.2 l r; join -o 0,1.2,2.2 -a1 -e NONE l r; join -o auto -a2 -e - l r",
    "printf 'a,1\\nb,2\\n' > l; printf 'a,x\\nc,y\\n' > r; join -t , l r; join -t, -a1 l r",
    "printf 'x 1\\ny 2\\n' > l; printf '1 p\\n2 q\\n' > r; join -1 2 -2 1 l r; join -j 1 l r; echo $?",
    "printf 'A 1\\nb 2\\n' > l; printf 'a x\\nB y\\n' > r; join -i l r; echo $?",
    "printf 'b 1\\na 2\\n' > l; printf 'a x\\nb y\\n' > r; join l r; echo $?",
    "printf 'b 1\\na 2\\n' > l; printf 'a x\\nb y\\n' > r; join --nocheck-order l r; echo $?; join --check-order l r; echo $?",
    "printf 'id name\\n1 a\\n2 b\\n' > l; printf 'id val\\n1 x\\n2 y\\n' > r; join --header l r",
    "printf '1  a  b\\n2 c\\n' > l; printf '1 x\\n2 y z\\n' > r; join l r; join -t ' ' l r",
    "printf '1 a\\n1 b\\n2 c\\n' > l; printf '1 x\\n1 y\\n2 z\\n' > r; join l r",
    "join l; echo $?; join a b c; echo $?; join nosuch r; echo $?; join -o 3.1 l r; echo $?; join -t ab l r; echo $?",
    "printf '1\\t a\\n' > l; printf '1\\tb\\n' > r; join l r | od -c | head -2",
    "printf '1 a\\n' > l; printf '1 b\\n' > r; join -o 1.3,2.1 l r; join -e X -o 1.3,2.1 l r",
    "printf 'a\\tb\\n' | expand -t '4 8'; printf 'a\\tb\\tc\\n' | expand -t 3 -t 6; printf 'a\\tb\\n' | expand -4; printf 'a\\tb\\n' | expand --tabs=2",
    "printf '  \\t  x  \\t y\\n\\t \\n' | unexpand -a | od -c",
    "printf '                x\\n' | unexpand -t 2,6 | od -c; printf '                x\\n' | unexpand -t 2,6,/4 | od -c",
    "printf 'ab\\b      c\\n' | unexpand -a | od -c",
    "printf '   \\n  ' | unexpand -a | od -c",
    "printf '' > e; printf '1 a\\n' > r; join e r; echo $?; join -a2 e r; join --header e r",
    "printf '1 a\\n3 c\\n2 b\\n' > l; printf '1 x\\n' > r; join l r; echo $?; join -a1 l r; echo $?",
    "printf '1 a\\n3 c\\n2 b\\n' > l; printf '1 x\\n' > r; join --check-order l r; echo $?",
    "printf '1 a\\n2 b\\n' > l; printf '2 x\\n1 y\\n' > r; join -v2 l r; echo $?",
    "printf '1 a\\n2\\n' > l; printf '1\\n2 x\\n' > r; join -e E l r; join -e E -o auto l r; join -o 1.2,2.2 l r",
    "printf ' 1 a\\n' > l; printf '1 b\\n' > r; join l r; printf 'x\\n' | join - r; echo $?",
    "printf '1 a\\n' > l; printf '1 b\\n' > r; join -1 0 l r; echo $?; join -a 3 l r; echo $?; join -o 1.x l r; echo $?",
    "printf 'a b\\nc d\\n' > l; printf 'b 1\\nd 2\\n' > r; join -1 2 l r; join -j2 -t ' ' l r",
    "printf 'B 1\\na 2\\n' > l; printf 'a x\\nb y\\n' > r; join -i l r; echo $?; join l r; echo $?",
    "printf '1\\0a\\0' > l; printf '1\\0b\\0' > r; join -z l r | od -c",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_expand_unexpand_and_join_answer_as_gnu(command: str) -> None:
    ours, host = both(command)
    assert ours == host


@pytest.mark.parametrize("command", ["seq 3000000 | expand | tail -1", "seq 3000000 > f; join f f | tail -1"])
def test_a_huge_input_ends_with_the_budget_error(command: str) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2, memory_mb=256)
    result = vm.run(command)
    assert result.exit_code == 152 and "CPU time limit exceeded" in result.stderr
