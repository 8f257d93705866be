"""Disk and memory reports: du, df, free."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...vfs import DirNode, FileNode, LinkNode, Node
from ..applet_io import _join
from ..errors import _Refused
from ..fileinfo import _blocks, human_size
from ..getopt import _getopt, _last
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


_BLOCK_UNITS = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "KB": 1000, "MB": 1000**2, "GB": 1000**3}


def _apparent(n: Node) -> int:
    """A file's length in bytes (``--apparent-size``): a link's target's length, a folder 4096."""
    if isinstance(n, DirNode):
        return 4096
    if isinstance(n, LinkNode):
        return len(n.target.encode("utf-8", "surrogateescape"))
    assert isinstance(n, FileNode)
    return n.size


@applet("du")
def _u_du(p: _Proc) -> int:
    opts, names = _getopt(
        p.args,
        "shacd:bkmB:xL",
        {"summarize": "s", "human-readable": "h", "all": "a", "total": "c", "max-depth=": "d", "bytes": "b",
         "apparent-size": "A", "block-size=": "B", "one-file-system": "x", "dereference": "L"},
    )  # fmt: skip
    status = 0
    grand = 0
    depth_opt = _last(opts, "d")
    maxdepth = int(depth_opt) if depth_opt is not None else None
    lines: list[str] = []
    suffix = ""
    apparent = "A" in opts or "b" in opts
    unit = 1 if "b" in opts else 1024**2 if "m" in opts else 1024
    if "B" in opts:
        spec = _last(opts, "B") or ""
        m = re.fullmatch(r"([0-9]*)([KMGT]B?)?", spec)
        if not m or not (m.group(1) or m.group(2)):
            how = "--block-size" if any(a.startswith("--block-size") for a in p.args) else "-B"
            raise _Refused(f"invalid {how} argument '{spec}'")
        unit = int(m.group(1) or 1) * _BLOCK_UNITS.get(m.group(2) or "", 1)
        if not m.group(1):  # a unit alone is shown after each size (du -BM: 3M)
            suffix = m.group(2) or ""

    def size(n: Node) -> int:
        return _apparent(n) if apparent else _blocks(n) * 1024

    def fmt(total: int) -> str:
        return human_size(total) if "h" in opts else f"{-(-total // unit)}{suffix}"

    def walk(shown: str, n: Node, depth: int) -> int:
        if not isinstance(n, DirNode):
            here = size(n)
            if (depth == 0 and "s" not in opts) or (
                "a" in opts and depth > 0 and (maxdepth is None or depth <= maxdepth)
            ):
                lines.append(f"{fmt(here)}\t{shown}")
            return here
        total = size(n)
        for child_name in sorted(n.children):
            total += walk(_join(shown, child_name), n.children[child_name], depth + 1)
        if "s" not in opts and (maxdepth is None or depth <= maxdepth):
            lines.append(f"{fmt(total)}\t{shown}")
        return total

    for name in names or ["."]:
        node = p.node(name)
        if node is None:
            status = 1
            continue
        lines.clear()
        total = walk(name, node, 0)
        if "s" in opts:
            lines.append(f"{fmt(total)}\t{name}")
        grand += total
        p.out("".join(line + "\n" for line in lines))
    if "c" in opts:
        p.out(f"{fmt(grand)}\ttotal\n")
    return status


def _fixed_report(plain: str, human: str) -> Callable[[_Proc], int]:
    """A program that prints a fixed report (``human`` with ``-h``)."""

    def run(p: _Proc) -> int:
        p.out(human if "-h" in p.args else plain)
        return 0

    return run


_u_df = _fixed_report(
    "Filesystem     1K-blocks     Used Available Use% Mounted on\n"
    "overlay         61255492 12047352  46066948  21% /\n"
    "tmpfs              65536        0     65536   0% /dev\n",
    "Filesystem      Size  Used Avail Use% Mounted on\n"
    "overlay          59G   12G   45G  21% /\n"
    "tmpfs            64M     0   64M   0% /dev\n",
)
applet("df")(_u_df)


_FREE_HEADER = "               total        used        free      shared  buff/cache   available\n"


_u_free = _fixed_report(
    _FREE_HEADER + "Mem:        16303292     1258796    12830480        4096     2214016    15044496\n"
    "Swap:              0           0           0\n",
    _FREE_HEADER + "Mem:            15Gi       1.2Gi        12Gi       4.0Mi       2.1Gi        14Gi\n"
    "Swap:             0B          0B          0B\n",
)
applet("free")(_u_free)
