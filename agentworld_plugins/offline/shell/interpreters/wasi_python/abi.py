"""WASI preview 1 as the guest sees it: errno numbers, flags, struct layouts, and linear memory.

Numbers and layouts from the ``wasi_snapshot_preview1`` witx definitions (typenames.witx); the
errno texts are musl's (wasi-libc's ``strerror``), kept to turn the guest's ``[Errno 44] No such
file or directory`` into the ``[Errno 2] ...`` a Linux CPython prints (:func:`linux_errno_text`).
"""

from __future__ import annotations

import itertools
import re
import struct
from typing import Any

# errno (typenames.witx), by name
SUCCESS = 0
EACCES = 2
EAGAIN = 6
EBADF = 8
EBUSY = 10
EEXIST = 20
EFBIG = 22
EINVAL = 28
EIO = 29
EISDIR = 31
ELOOP = 32
EMFILE = 33
ENOENT = 44
ENOMEM = 48
ENOSPC = 51
ENOSYS = 52
ENOTDIR = 54
ENOTEMPTY = 55
ENOTSUP = 58
EPERM = 63
ESPIPE = 70
EXDEV = 75

#: the virtual filesystem's FsError codes as WASI errno values
FS_ERRNO = {
    "ENOENT": ENOENT,
    "EEXIST": EEXIST,
    "ENOTDIR": ENOTDIR,
    "EISDIR": EISDIR,
    "ENOTEMPTY": ENOTEMPTY,
    "EACCES": EACCES,
    "EINVAL": EINVAL,
    "ELOOP": ELOOP,
    "EBUSY": EBUSY,
}

#: WASI errno -> (Linux errno, musl's text, glibc's text)
_LINUX = {
    EPERM: (1, "Operation not permitted", "Operation not permitted"),
    ENOENT: (2, "No such file or directory", "No such file or directory"),
    EIO: (5, "I/O error", "Input/output error"),
    EBADF: (9, "Bad file descriptor", "Bad file descriptor"),
    EAGAIN: (11, "Resource temporarily unavailable", "Resource temporarily unavailable"),
    ENOMEM: (12, "Out of memory", "Cannot allocate memory"),
    EACCES: (13, "Permission denied", "Permission denied"),
    EBUSY: (16, "Resource busy", "Device or resource busy"),
    EEXIST: (17, "File exists", "File exists"),
    EXDEV: (18, "Cross-device link", "Invalid cross-device link"),
    ENOTDIR: (20, "Not a directory", "Not a directory"),
    EISDIR: (21, "Is a directory", "Is a directory"),
    EINVAL: (22, "Invalid argument", "Invalid argument"),
    EFBIG: (27, "File too large", "File too large"),
    ENOSPC: (28, "No space left on device", "No space left on device"),
    ESPIPE: (29, "Invalid seek", "Illegal seek"),
    ENOSYS: (38, "Function not implemented", "Function not implemented"),
    ENOTEMPTY: (39, "Directory not empty", "Directory not empty"),
    ELOOP: (40, "Symbolic link loop", "Too many levels of symbolic links"),
    ENOTSUP: (95, "Not supported", "Operation not supported"),
}

_ERRNO_TEXT = re.compile(r"\[Errno (\d+)\] ([A-Za-z][A-Za-z /-]*[a-z])")


def linux_errno_text(text: str) -> str:
    """``[Errno N] text`` pairs of the guest's libc rewritten as glibc on Linux prints them (only
    where number and text agree, so other bracketed numbers stay as they are)."""

    def swap(m: re.Match[str]) -> str:
        known = _LINUX.get(int(m.group(1)))
        if known is None or m.group(2) != known[1]:
            return m.group(0)
        return f"[Errno {known[0]}] {known[2]}"

    return _ERRNO_TEXT.sub(swap, text) if "[Errno " in text else text


# filetype
FT_UNKNOWN = 0
FT_CHAR = 2
FT_DIR = 3
FT_FILE = 4
FT_LINK = 7

# oflags, fdflags, lookupflags, fstflags, whence
O_CREAT = 1
O_DIRECTORY = 2
O_EXCL = 4
O_TRUNC = 8
FDFLAG_APPEND = 1
LOOKUP_FOLLOW = 1
FST_ATIM = 1
FST_ATIM_NOW = 2
FST_MTIM = 4
FST_MTIM_NOW = 8

# rights
RIGHT_FD_READ = 1 << 1
RIGHT_FD_SEEK = 1 << 2
RIGHT_FD_TELL = 1 << 5
RIGHT_FD_WRITE = 1 << 6
ALL_RIGHTS = (1 << 30) - 1

# clock ids, event types
CLOCK_REALTIME = 0
CLOCK_MONOTONIC = 1
EVENT_CLOCK = 0
SUBSCRIPTION_CLOCK_ABSTIME = 1

FDSTAT = struct.Struct("<BxHxxxxQQ")  # filetype, flags, rights_base, rights_inheriting (24)
FILESTAT = struct.Struct("<QQBxxxxxxxQQQQQ")  # dev, ino, filetype, nlink, size, atim, mtim, ctim (64)
DIRENT = struct.Struct("<QQIBxxx")  # d_next, d_ino, d_namlen, d_type (24)
PRESTAT = struct.Struct("<BxxxI")  # tag (0: dir), name length (8)
SUBSCRIPTION = struct.Struct("<QB7xIxxxxQQH6x")  # userdata, tag, clock id, timeout, precision, flags
EVENT = struct.Struct("<QHBxxxxxQH6x")  # userdata, error, type, nbytes, flags (32)
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
IOVEC = struct.Struct("<II")


class Memory:
    """The guest's linear memory, read and written during one host call (``store``: the caller)."""

    __slots__ = ("memory", "store")

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.store: Any = None

    def read(self, at: int, size: int) -> bytes:
        return bytes(self.memory.read(self.store, at, at + size)) if size else b""

    def write(self, at: int, data: bytes) -> None:
        if data:
            self.memory.write(self.store, data, at)

    def u32(self, at: int, value: int) -> None:
        self.write(at, U32.pack(value & 0xFFFFFFFF))

    def u64(self, at: int, value: int) -> None:
        self.write(at, U64.pack(value & 0xFFFFFFFFFFFFFFFF))

    def text(self, at: int, size: int) -> str:
        return self.read(at, size).decode("utf-8", "surrogateescape")

    def iovecs(self, at: int, count: int) -> list[tuple[int, int]]:
        raw = self.read(at, IOVEC.size * count)
        return [IOVEC.unpack_from(raw, i * IOVEC.size) for i in range(count)]

    def gather(self, at: int, count: int) -> bytes:
        """The bytes a ``ciovec`` array points at, joined (what ``fd_write`` writes)."""
        return b"".join(self.read(base, size) for base, size in self.iovecs(at, count))

    def scatter(self, at: int, count: int, data: bytes) -> int:
        """``data`` spread over an ``iovec`` array (what ``fd_read`` fills); returns bytes placed."""
        done = 0
        for base, size in self.iovecs(at, count):
            piece = data[done : done + size]
            self.write(base, piece)
            done += len(piece)
            if len(piece) < size:
                break
        return done

    def capacity(self, at: int, count: int) -> int:
        return sum(size for _, size in self.iovecs(at, count))

    def strings(self, values: list[bytes], ptrs: int, buf: int) -> None:
        """``args_get`` / ``environ_get``: NUL-terminated strings at ``buf``, pointers at ``ptrs``."""
        at = itertools.accumulate((len(v) + 1 for v in values[:-1]), initial=buf)
        self.write(ptrs, struct.pack(f"<{len(values)}I", *at))
        self.write(buf, b"".join(v + b"\x00" for v in values))
