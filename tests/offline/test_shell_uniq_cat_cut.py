"""uniq (-f -s -w -i -c -d -D --all-repeated --group -u -z), cat -v/-e/-t/-A and cut (--complement,
bytes) compared with the host's GNU coreutils."""

from __future__ import annotations

from collections.abc import Callable

import pytest

SHELL_UNIQ_CAT_CUT = [
    "printf 'a\\na\\nb\\nB\\nb\\n' | uniq -i; printf 'a\\na\\nb\\n' | uniq -u; printf 'x 1\\ny 1\\nz 2\\n' | uniq -f1 -c; printf 'ab\\nac\\nbd\\n' | uniq -w1 -D",
    "printf 'a\\na\\nb\\nc\\nc\\n' | uniq -D; printf 'a\\na\\nb\\nc\\nc\\n' | uniq --all-repeated=separate; printf 'a\\na\\nb\\nc\\nc\\n' | uniq --all-repeated=prepend",
    "printf 'a\\na\\nb\\n' | uniq --group; printf 'a\\na\\nb\\n' | uniq --group=both; printf 'a\\nb\\n' | uniq --group=append; printf 'a\\nb\\n' | uniq --group=prepend",
    "printf 'xa\\nya\\nzb\\n' | uniq -s1; printf 'xa\\nya\\nzb\\n' | uniq -s1 -c; printf 'a\\na\\n' | uniq -c -d; printf 'a\\na\\n' | uniq -u -d; echo end",
    "uniq -f x /dev/null; echo $?; uniq -Dc /dev/null; echo $?; uniq a b c; echo $?; uniq --group -c /dev/null; echo $?; uniq --group=foo /dev/null; echo $?; uniq nofile; echo $?",
    "printf 'a\\na\\n' > in; uniq in out; cat out; printf 'a\\0a\\0b\\0' | uniq -z | od -c | head -2; printf 'é1\\né2\\n' | uniq -w2",
    "printf 'x\\r\\n\\x01\\x7f\\tz\\n' | cat -v; printf 'a\\tb\\n' | cat -t; printf 'é\\x80\\xff\\n' | cat -v; printf 'a\\tb\\n' | cat -e; printf '\\x89\\n' | cat -A; printf 'x\\r\\n' | cat -vn",
    "printf 'a,b,c\\n' | cut -d, --complement -f2; printf 'abcdef\\n' | cut --complement -c2-3; printf 'héllo\\n' | cut -c1-2 | od -c | head -1; printf 'héllo\\n' | cut -b3- | od -c | head -1; printf 'a:b:c\\n' | cut -d: -f1,3 --output-delimiter=-",
]


@pytest.mark.parametrize("command", SHELL_UNIQ_CAT_CUT)
def test_answers_as_gnu(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
