"""Sizes, blocks and link counts that ls, du and stat show."""

from __future__ import annotations

import math
import time
import zlib

from ..vfs import DirNode, FileNode, LinkNode, Node


def human_size(size: float) -> str:
    """``ls -h`` / ``du -h`` sizes: 4.0K, 13K, 1.2M (rounded up like GNU)."""
    if size < 1024:
        return str(int(size))
    for unit in "KMGTPE":
        size /= 1024
        if size < 1024 or unit == "E":
            if size < 10:
                return f"{math.ceil(size * 10) / 10:.1f}{unit}"
            return f"{math.ceil(size)}{unit}"
    return str(size)


def _blocks(node: Node) -> int:
    if isinstance(node, DirNode):
        return 4
    if isinstance(node, LinkNode):
        return 0
    assert isinstance(node, FileNode)
    return math.ceil(node.size / 4096) * 4


def _nlink(node: Node) -> int:
    if isinstance(node, DirNode):
        return 2 + sum(1 for c in node.children.values() if isinstance(c, DirNode))
    return 1


def inode_number(path: str) -> int:
    """The inode number ``stat``, ``ls -i`` and ``find`` show for a path (stable per path)."""
    return zlib.crc32(path.encode()) % 900000 + 100000


def ls_time(mtime: int, now: int) -> str:
    """``ls -l``'s (and ``find -ls``'s) date: the time within six months, else the year."""
    t = time.gmtime(mtime)
    if not is_recent(mtime, now):
        return time.strftime("%b ", t) + f"{t.tm_mday:2d}  {t.tm_year}"
    return time.strftime("%b ", t) + f"{t.tm_mday:2d} " + time.strftime("%H:%M", t)


def is_recent(mtime: int, now: int) -> bool:
    """Whether ``ls -l`` shows a time as recent (its clock time) rather than old (its year)."""
    return not (now - mtime > 15778476 or mtime - now > 3600)
