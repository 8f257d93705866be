"""stat."""

from __future__ import annotations

import functools
import re
import time
from typing import TYPE_CHECKING

from ...vfs import DirNode, LinkNode, mode_string
from ..errors import _UsageError
from ..escapes import _echo_escapes
from ..fileinfo import _blocks, _nlink, inode_number
from ..getopt import _getopt, _last
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _last_printf(args: list[str]) -> int:
    """Where the last --printf is among ``args``."""
    return max((k for k, a in enumerate(args) if a.startswith("--printf")), default=0)


def _file_type_bits(node: object) -> int:
    """The file-type bits of st_mode (%f): a folder 040000, a link 0120000, a file 0100000."""
    return 0o040000 if isinstance(node, DirNode) else 0o120000 if isinstance(node, LinkNode) else 0o100000


def _stat_field(values: dict[str, str], m: re.Match[str]) -> str:
    return "%" if m.group(1) == "%" else values.get(m.group(1), "?")


@applet("stat")
def _u_stat(p: _Proc) -> int:
    opts, names = _getopt(p.args, "c:L", {"format=": "c", "dereference": "L", "printf=": "printf"})
    if not names:
        raise _UsageError("missing operand")
    # the last of -c/--format (a newline after each) and --printf (escapes, no newline) given
    printf = "printf" in opts and not any(
        a.startswith(("-c", "--format")) for a in p.args[_last_printf(p.args) :]
    )
    fmt = _last(opts, "printf") if printf else _last(opts, "c")
    if printf and fmt is not None:
        fmt = _echo_escapes(fmt, printf_format=True)[0]
    status = 0
    for name in names:
        path = p.path(name)
        node = p.node(name, "cannot statx {}: {}", follow="L" in opts)
        if node is None:
            status = 1
            continue
        size = getattr(node, "size", 0)
        kind = (
            "directory"
            if isinstance(node, DirNode)
            else "symbolic link"
            if isinstance(node, LinkNode)
            else ("regular empty file" if size == 0 else "regular file")
        )
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(node.mtime)) + ".000000000 +0000"
        if fmt is not None:
            values = {
                "s": str(size),
                "n": name,
                "a": f"{node.mode & 0o7777:o}",
                "A": mode_string(node),
                "F": kind,
                "U": "root",
                "G": "root",
                "u": "0",
                "g": "0",
                "Y": str(node.mtime),
                "y": when,
                "h": str(_nlink(node)),
                "i": str(inode_number(path)),
                "N": quote_always(name)
                + (f" -> {quote_always(node.target)}" if isinstance(node, LinkNode) else ""),
                "b": str(_blocks(node) * 2),
                "B": "512",
                "o": "4096",
                "f": f"{_file_type_bits(node) | node.mode & 0o7777:x}",
                "X": str(node.mtime),
                "Z": str(node.mtime),
                "x": when,
                "z": when,
                "w": when,
                "W": str(node.mtime),
            }
            p.out(
                re.sub(
                    r"%([a-zA-Z%])",
                    functools.partial(_stat_field, values),
                    fmt,
                )
                + ("" if printf else "\n")
            )
            continue
        shown = f"{name} -> {node.target}" if isinstance(node, LinkNode) else name
        p.out(
            f"  File: {shown}\n"
            f"  Size: {size:<15} Blocks: {_blocks(node) * 2:<10} IO Block: 4096   {kind}\n"
            f"Device: 0,54\tInode: {inode_number(path):<11} Links: {_nlink(node)}\n"
            f"Access: ({node.mode & 0o7777:04o}/{mode_string(node)})  Uid: (    0/    root)   Gid: (    0/    root)\n"
            f"Access: {when}\nModify: {when}\nChange: {when}\n Birth: {when}\n"
        )
    return status
