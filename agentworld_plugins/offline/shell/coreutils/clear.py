"""clear."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..constants import CLEAR_SCREEN
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("clear")
def _u_clear(p: _Proc) -> int:
    p.out(CLEAR_SCREEN)
    return 0
