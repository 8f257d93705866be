"""uniq."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import _lines, _write_or_err
from ..getopt import _getopt
from ..quoting import quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("uniq")
def _u_uniq(p: _Proc) -> int:
    opts, files = _getopt(
        p.args, "cduif:s:", {"count": "c", "repeated": "d", "unique": "u", "ignore-case": "i"}
    )
    name = files[0] if files else "-"
    try:
        text = p.read(name)
    except FsError as exc:
        p.err(f"{quote_if_needed(name)}: {exc.strerror}")
        return 1
    groups: list[tuple[str, int]] = []
    for line in _lines(text):
        key = line.lower() if "i" in opts else line
        if groups and (groups[-1][0].lower() if "i" in opts else groups[-1][0]) == key:
            groups[-1] = (groups[-1][0], groups[-1][1] + 1)
        else:
            groups.append((line, 1))
    out = []
    for line, count in groups:
        if "d" in opts and count < 2:
            continue
        if "u" in opts and count > 1:
            continue
        out.append(f"{count:7d} {line}\n" if "c" in opts else line + "\n")
    text_out = "".join(out)
    if len(files) > 1:
        return 0 if _write_or_err(p, files[1], text_out) else 1
    p.out(text_out)
    return 0
