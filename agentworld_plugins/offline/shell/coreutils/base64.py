"""base64."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError
from ..getopt import _getopt, _last
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("base64")
def _u_base64(p: _Proc) -> int:
    import base64

    opts, files = _getopt(p.args, "dwi:", {"decode": "d", "wrap=": "w", "ignore-garbage": "i"})
    try:
        text = p.read(files[0]) if files else p.stdin()
    except FsError as exc:
        p.err(f"{files[0]}: {exc.strerror}")
        return 1
    if "d" in opts:
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
        except ValueError:
            p.err("invalid input")
            return 1
        p.out(data.decode("utf-8", "surrogateescape"))
        return 0
    encoded = base64.b64encode(text.encode("utf-8", "surrogateescape")).decode()
    wrap = int(_last(opts, "w") or 76)
    if wrap:
        encoded = "\n".join(encoded[k : k + wrap] for k in range(0, len(encoded), wrap))
    p.out(encoded + "\n" if encoded else "")
    return 0
