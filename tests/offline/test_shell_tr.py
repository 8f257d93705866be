"""tr's escapes as GNU tr reads them (``\\n``, octal ``\\0`` to ``\\377``, in ranges too), each
script run by the host's bash and coreutils and by the offline machine, and compared."""

from __future__ import annotations

from collections.abc import Callable

import pytest

ESCAPES = [
    "printf 'a\\nb\\n' | tr '\\n' '\\0' | od -c",
    "printf 'a\\0b\\0' | tr '\\0' '\\n'",
    "printf 'abc' | tr 'a-c' '\\101-\\103'",
    "printf 'hello' | tr '\\154' 'L'; echo; printf 'x9' | tr '\\0719' 'ab'; echo",
    "printf 'a b\\tc' | tr '\\040\\011' '_-'; echo; printf 'abc' | tr -d '\\141'; echo",
    "printf 'a\\\\b' | tr '\\\\' '/'; echo; printf 'aq' | tr 'a\\q' 'xy'; echo",
]


@pytest.mark.parametrize("command", ESCAPES)
def test_tr_reads_escapes_as_gnu_tr(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
