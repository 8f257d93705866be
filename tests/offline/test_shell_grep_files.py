"""grep over files compared with the host's GNU grep: -r with --include/--exclude-dir, -f, -F, -w,
-o, -c, -l, -h/-H, -Z, -b, -m, -q, /dev/stdin as a file, bad patterns and missing folders."""

from __future__ import annotations

from collections.abc import Callable

import pytest

GREP = [
    "mkdir -p src/node_modules src/lib; echo 'foo' > src/a.js; echo 'foo' > src/node_modules/b.js; echo foo > src/lib/c.py; grep -r foo src --exclude-dir=node_modules | sort; grep -rl foo src --include='*.py'; grep -rc foo src | sort",
    "printf 'a\\nb\\nc\\n' > pats; printf 'xa\\nyb\\nzz\\n' | grep -f pats; printf 'xa\\nyb\\n' | grep -F -f pats -c; printf 'one two\\n' | grep -ow 'one\\|two'",
    "printf 'abc\\n' | grep -e a -e z; printf 'abc\\n' | grep -E 'a|z' -o; printf 'aXb\\n' | grep -i x -o; printf 'a\\n' | grep -q a; echo $?; printf 'a\\n' | grep -vc a",
    "printf 'line1\\nline2\\n' | grep -h line /dev/stdin; printf 'x\\n' > g1; printf 'x\\n' > g2; grep x g1 g2; grep -h x g1 g2; grep -l x g1 g2; grep -Z -l x g1 g2 | od -c | head -1",
    "printf 'a\\n\\nb\\n' | grep -v '^$'; printf 'a b\\n' | grep -P 'a\\sb'; printf 'tab\\there\\n' | grep -P '\\t'; printf 'ab\\n' | grep 'a\\|b' -c",
    "printf '[x]\\n' | grep -F '[x]'; printf '[x]\\n' | grep '\\[x\\]'; printf 'a.b\\naxb\\n' | grep -F 'a.b'; printf 'x\\n' | grep -E '(' 2>&1; echo $?",
    "grep -r pattern /nonexistent 2>&1; echo $?; grep --include='*.md' -r zzz . ; echo $?; printf 'a\\n' | grep -n -b a; printf 'foo bar foo\\n' | grep -o foo | wc -l",
    "printf 'aaa\\n' | grep -o 'a*'; printf 'x1y22z\\n' | grep -oE '[0-9]+'; printf 'Hello\\n' | grep -c '^[A-Z]'; printf 'ab\\ncd\\n' | grep -m 1 -n .",
    "printf 'x\\n' > g1; printf 'x\\n' > g2; grep -Z x g1 g2 | od -c | head -2; grep -Zc x g1 g2 | od -c | head -1; echo a | grep -H a /dev/stdin",
]


@pytest.mark.parametrize("command", GREP)
def test_grep_answers_as_gnu_grep(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
