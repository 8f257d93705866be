"""md5sum, sha1sum and sha256sum."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..applet_io import _Inputs
from ..getopt import _getopt
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _hash_program(algorithm: str) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        opts, files = _getopt(
            p.args,
            "bctwz",
            {"check": "c", "binary": "b", "text": "t", "tag": None, "quiet": None, "status": None},
        )
        if "c" in opts:
            p.unknown()
            return 0
        inputs = _Inputs(p, files, quote=str)
        for name, text in inputs:
            digest = hashlib.new(algorithm, text.encode("utf-8", "surrogateescape")).hexdigest()
            p.out(f"{digest}  {name}\n")
        return inputs.status

    return run


applet("md5sum")(_hash_program("md5"))
applet("sha1sum")(_hash_program("sha1"))
applet("sha256sum")(_hash_program("sha256"))
