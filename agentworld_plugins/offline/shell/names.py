"""What a shell variable name may be."""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _valid_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name))
