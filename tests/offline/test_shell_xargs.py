"""xargs compared with the host's GNU xargs: -n, -L (a line ending in a blank goes on), -I/-i (a
line one item), -E, -0, -d, -a, -r, -t, quotes, its warnings and errors, and its statuses (123,
124, 126, 127) with the command found on PATH."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SHELL_XARGS = [
    "echo a b c | xargs -n1 | xargs -I{} sh -c 'echo [{}]'; printf '1\\n2\\n3\\n' | xargs -L2 echo; echo | xargs echo empty; printf '' | xargs -r echo never",
    "printf 'x\\n' | xargs -t echo 2>&1; printf 'a b\\n' | xargs -d ' ' -n1 echo | cat -A",
    "printf 'a b \\nc\\nd e\\n' | xargs -L1 echo; printf 'one\\ntwo\\n' | xargs -i echo 'got {}'; printf '  lead\\n' | xargs -I X echo '<X>'",
    "printf 'a b stop c\\n' | xargs -E stop echo; printf \"'quoted arg' b\\\\\\\\ c\\n\" | xargs -n1 echo; printf \"it's\\n\" | xargs echo; echo $?",
    'for c in "xargs -n" "xargs -L" "xargs -n 0" "xargs -L x" "xargs -Q" "xargs --foo" "xargs -a nofile echo"; do echo a | $c 2>&1; echo "rc=$?"; done',
    "echo a | xargs sh -c 'exit 3'; echo $?; echo a | xargs sh -c 'exit 255'; echo $?; echo a | xargs nosuchcmd; echo $?; echo a | xargs /etc/passwd; echo $?",
    "printf 'a\\0b c\\0' | xargs -0 -n1 echo; printf 'a,b,c' | xargs -d, echo; printf 'l1\\nl2\\n' > in; xargs -a in echo; echo x y | xargs --max-args=1 echo",
    "printf '1 2 3 4 5\\n' | xargs -n2 -t echo 2>&1; echo a | xargs; printf 'a\\nb\\n' | xargs -tr 2>&1",
    "mkdir -p q; touch q/a.txt q/b.txt; find q -name '*.txt' | sort | xargs rm; ls q | wc -l; echo a b | xargs -n1 -I{} echo x{}",
]


@pytest.mark.parametrize("command", SHELL_XARGS)
def test_answers_as_gnu(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
