"""Lines end at newlines only: a carriage return, form feed or \\x1c inside a line stays in it for
diff, diff -u, expand, split, head, tail and git diff (Python's splitlines would cut there); head
and tail's -z, counts and errors, wc, tee, comm, join, fold, rm, touch; compared with the host."""

from __future__ import annotations

from collections.abc import Callable

import pytest

CASES = [
    "mkdir -p w && cd w && printf 'a\\rb\\nc\\n' > x; printf 'a\\rb\\nd\\n' > y; diff x y | od -c | head -3; diff -u x y | tail -3 | od -c | head -2",
    "mkdir -p w && cd w && printf 'a\\tb\\rc\\td\\n' | expand | od -c | head -2; printf 'a\\fb\\nc\\n' | split -l 1 - s_; cat s_aa | od -c | head -1",
    "mkdir -p w && cd w && printf 'l1\\x0cstill l1\\nl2\\n' > f; printf 'l1\\x0cstill l1\\nL2\\n' > g; diff f g; echo $?",
    "mkdir -p w && cd w && git init -q r && cd r && printf 'a\\rb\\nc\\n' > f && git add f && git -c user.email=a@b -c user.name=n commit -qm i && printf 'a\\rb\\nd\\n' > f && git diff | tail -3 | od -c | head -3",
    "seq 5 > f; head -n 2 f nofile 2>&1; echo $?; tail -n 2 f nofile 2>&1; echo $?; head -c 0 f; head -n x f 2>&1; tail -n x f 2>&1",
    "seq 5 | head --lines=2; seq 5 | tail --lines=+4; seq 3 | head -2 -; printf 'a\\0b\\0' | head -z -n1 | od -c | head -1; seq 100 | tail -c 10",
    "printf 'a b\\nc\\n' > w; wc w; wc -lwc w; wc -m w; cat w | wc -l -; wc -w nofile w 2>&1; echo $?; printf 'é\\n' | wc -c -m",
    "seq 10 | split -l 3 - part_; ls part_* | wc -l; cat part_ab; seq 4 | tee t1 t2 | wc -l; cat t2 | wc -l",
    "printf 'b\\na\\n' | sort | comm - <(printf 'a\\nc\\n'); printf '1 x\\n' > j1; printf '1 y\\n' > j2; join j1 j2; join -a1 j1 <(printf '2 z\\n')",
    "echo 'hello world' | fold -w 5; echo 'hello world' | fold -s -w 6; printf 'a,b\\n' | tr , '\\n' | sort -r",
    "mkdir -p a/b/c; touch a/b/c/f; rm -r a; [ -e a ] || echo gone; rm -f nothing; echo $?; rm nothing 2>&1; echo $?; mkdir e; rm e 2>&1; rm -d e && echo removed",
    "touch -t 202401011200 f; stat -c %y f | cut -c1-16; touch -d '2023-06-01' g; ls -t f g | head -1; find . -newer g -name f",
    "printf 'a\\rb\\nc\\n' | tail -n 2 | od -c | head -1; printf 'a\\x0bb\\nc\\n' > vt; tail -n 1 vt; head -n 1 vt | od -c | head -1; printf 'x\\x1cy\\nz\\n' | tail -n 1",
    "printf 'a\\0b\\0c\\0' | tail -z -n 2 | od -c | head -1; printf 'a\\0b\\0' > zf; head -z -n 1 zf | od -c | head -1",
]


@pytest.mark.parametrize("command", CASES)
def test_answers_as_the_host(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
