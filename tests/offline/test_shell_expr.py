"""expr compared with the host's GNU expr: its grammar and precedence (| & comparisons + - * / % :
match substr index length, + TOKEN, parentheses), integers of any size, string and number
comparisons, regex matches with and without a group, its null values, its messages and statuses."""

from __future__ import annotations

from collections.abc import Callable

import pytest

EXPR = [
    "expr ; echo $?",
    "expr 1 +; echo $?",
    "expr 1 + a; echo $?",
    "expr 1 / 0; echo $?",
    "expr 1 2; echo $?",
    "expr length; echo $?",
    "expr substr abc; echo $?",
    "expr a : '\\('; echo $?",
    "expr 5 \\* 3; echo $?",
    "expr 3 \\< 10; echo $?",
    "expr a \\< b; echo $?",
    "expr 0 \\| 5; echo $?",
    "expr 0 \\& 5; echo $?",
    "expr '' \\| 0; echo $?",
    "expr abc : 'a\\(.\\)c'; echo $?",
    "expr abc : 'x\\(.\\)'; echo $?",
    "expr abc : 'ab'; echo $?",
    "expr match abc b; echo $?",
    "expr + length; echo $?",
    "expr length + length; echo $?",
    "expr 99999999999999999999 + 1; echo $?",
    "expr -5 % 3; echo $?",
    "expr 5 % -3; echo $?",
    "expr -7 / 2; echo $?",
    "expr 10 - -3; echo $?",
    "expr '( 1 + 2 ) \\* 3'; echo $?",
    "expr \\( 1 + 2 \\) \\* 3; echo $?",
    "expr substr hello 0 2; echo $?",
    "expr substr hello 2 99; echo $?",
    "expr index abc xc; echo $?",
    "expr a = a; echo $?",
    "expr 10 = 010; echo $?",
    "expr abc == abc; echo $?",
    "expr 1 != 2; echo $?",
    "expr 0; echo $?",
    "expr -0; echo $?",
    "expr 00; echo $?",
    "expr 1 + 1 + x; echo $?",
    "expr \\( 1; echo $?",
    "expr \\); echo $?",
    "expr 1 \\); echo $?",
    "expr abc : '[a'; echo $?",
    "expr abc : 'a\\{1'; echo $?",
    "expr 2 \\* x; echo $?",
    "expr x \\< 10; echo $?",
    "expr 10 \\< 9; echo $?",
    "expr 9 \\< 10; echo $?",
    "expr match; echo $?",
    "expr abc : '.*'; echo $?",
    "expr foo.txt : '.*\\.\\(.*\\)'; echo $?",
    "expr hello : 'h\\(e\\)\\(l\\)'; echo $?",
    "expr length 'a b'; echo $?",
    "expr substr abc x 1; echo $?",
    "expr 1 \\| 0 \\& 0; echo $?",
    "expr 2 + 3 \\* 4; echo $?",
    "expr -- 5 + 1; echo $?",
    "expr '' = ''; echo $?",
    "expr a \\> ''; echo $?",
    # paste's "-" operands read on from one standard input; tr -t
    "seq 4 | paste - -; seq 5 | paste - - -; seq 3 | paste -d, - -; printf 'a\\nb\\n' > pf; seq 3 | paste pf -; seq 2 | paste -s - ; paste <(seq 3) <(seq 4 6)",
    "echo 'hello' | tr -t 'lo' 'x'; echo 'abcd' | tr -t 'abcd' 'AB'; echo 'abcd' | tr 'abcd' 'AB'; echo 'abc' | tr --truncate-set1 abc X",
]


@pytest.mark.parametrize("command", EXPR)
def test_answers_as_gnu(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
