"""du compared with the host's GNU du: disk usage in blocks, ``-b``/``--apparent-size`` in bytes,
``-m``, ``-B`` (a unit alone shown after each size), ``-h``, file operands, bad sizes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

DU = [
    "mkdir -p d/e; printf 'hello' > d/a; head -c 5000 /dev/zero > d/e/b; ln -s a d/l; du -b d/a; du -sb d; du --apparent-size -s d; du -ab d | sort -k2",
    "mkdir -p d; head -c 3000000 /dev/zero > d/big; du -sm d; du -sh d; du -h --apparent-size d/big; du -B1 d/big; du -BK d/big; du -BM d/big",
    "printf 'x' > f; du -b f; du -k f; du f; du -B 2K f; du -B x f; echo $?",
]


@pytest.mark.parametrize("command", DU)
def test_du_answers_as_gnu_du(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)
