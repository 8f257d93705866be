"""stat (-c, --printf with its escapes, %N %f %b %B %o), seq formats, date's formats and flags
(-I[FMT], --rfc-3339=FMT, -R, %#b, %-d), and the printf builtin (octal and hex numbers, \\u
escapes) compared with the host."""

from __future__ import annotations

from collections.abc import Callable

import pytest

CASES = [
    "mkdir -p w && cd w && echo hi > f; stat -c '%n %s %F %a %A %h %U %G %u %g' f; stat -c '%F' .; stat --printf='%s\\n' f; stat -c %s nofile 2>&1; echo $?",
    "mkdir -p w && cd w && mkdir d; ln -s f l; echo x > f; stat -c '%F %N' l d f; stat -L -c %F l",
    "seq -f '%03g' 3; seq -f 'n%.1f' 1 0.5 2; seq 1e2 1e2 3e2; seq -s ' ' -w 9 11; printf '%s\\n' $(seq 0 0.25 1)",
    "date -d @1700000000 '+%A %B %d %Y %H:%M:%S %Z %z %s %u %w %j %U %V %G %e|%k|%l|%p|%P|%y|%C'",
    "date -d @1700000000 -u +%c; date -d @1700000000 -u +%x; date -d @1700000000 -u +%X; date -d @1700000000 -u +%D; date -d @1700000000 -u +%R; date -d @1700000000 -u -R; date -d @1700000000 -u -I; date -d @1700000000 -u -Iseconds; date -u -d @1700000000 --rfc-3339=seconds",
    "date -d 'invalid' 2>&1; echo $?; date -d @1700000000 '+%-d %-m %_H %^a %#b' ; date +%% ; date -d '2024-02-30' 2>&1",
    "printf '%s %s\\n' a; printf '%d\\n' abc 2>&1; printf '%d\\n' 0x10 010 \"'A\"; printf '%.2e\\n' 12345; printf '%5.1f%%\\n' 99.5; printf -v v '%03d' 7; echo $v",
    "printf '\\x41\\101\\u00e9\\n'; printf '%b' 'a\\nb\\c'; echo; printf '%i|%5s|%-5d|\\n' 3 ab 4; printf '%s\\n' \"a\\tb\"",
    "mkdir -p w && cd w && echo x > f; ln -s f l; mkdir d; stat -c '%f %b %B %o %X' f | awk '{print $1, $2, $3, $4}'; stat -c '%f' d l; stat --printf '%n\\t%s\\n' f d; stat -c '%n' --printf '[%n]' f; echo; stat --printf '%n' -c '<%n>' f; stat -c '%N' 'f' \"l\"",
    "for o in -Ihours -Iminutes -Ins --iso-8601=seconds --rfc-3339=ns --rfc-3339=date -Ix; do date -u -d @1700000000 $o 2>&1; done; date -d @1700000000 -u '+%#p %#Z %#A'",
]


@pytest.mark.parametrize("command", CASES)
def test_answers_as_the_host(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
