"""ls compared with the host's GNU ls, output to a pipe: -a -A -F -p -r -S -R -d, the layouts (-1, -C and
-x with GNU's tab padding at 80 columns, -m, --format=, the last one given winning), the quoting
styles (-N, -Q, -b, --quoting-style=), -s."""

from __future__ import annotations

from collections.abc import Callable

import pytest

LS = [
    "mkdir -p t/sub; touch t/b t/a t/.h; echo xxxxxxxx > t/big; ln -s a t/ln; chmod +x t/b; cd t; ls; ls -a; ls -A; ls -F; ls -p; ls -1r; ls -S | head -1; ls -R | head -8",
    "mkdir -p t; touch t/x.py t/y.txt t/z.py; ls t/*.py; ls -d t; ls t | wc -l; ls -m t; ls -x t; ls -Q t; ls nofile t 2>&1",
    "mkdir -p t/d1 t/d2; touch t/f; ls -l t | awk '{print $1, $NF}' | sort; ls -ld t | awk '{print $1}'; ls -s t | head -1; ls -i t >/dev/null; echo $?",
    "mkdir w && cd w && touch 'a b' 'c*'; ls; ls -b; ls --quoting-style=literal; ls -N | cat",
    "mkdir -p qq && cd qq && touch 'a b' 'c\"d' 'g\\h' \"i'j\" 'plain' 'x*'; for st in literal shell-always c escape; do echo \"== $st\"; ls --quoting-style=$st; done; ls -Q; ls -b; ls -N; ls -m; ls -x; ls -C; ls -s; ls -1s",
    "mkdir -p qq; for n in $(seq 1 30); do touch qq/longer_name_$n; done; ls -m qq; ls -x qq; ls -C qq; ls --format=commas qq | head -2; ls -mx qq | head -2; ls -xm qq | head -2",
    "mkdir -p t; touch t/x.py t/y.txt t/z.py; echo 123456789 > t/big; ls -m t; ls -x t; ls -Q t; ls -s t; ls -sh t; ls -C t | cat -A",
    "ls --quoting-style=foo 2>&1; echo $?",
]


@pytest.mark.parametrize("command", LS)
def test_ls_answers_as_gnu_ls(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
