"""What a guest file descriptor refers to: a virtual file, a directory, a device or a shell stream.

A file's bytes are loaded when it is opened and written back into its node when it is closed,
synced, or looked at through another path (:meth:`FileFd.commit`), so Python's 8 KiB writes do
not copy the whole file each time. Every byte written is counted against the step's budget
(``Budget.charge``), as the shell counts what ``>`` writes.
"""

from __future__ import annotations

import codecs
import zlib
from typing import TYPE_CHECKING

from ....vfs import DirNode, FileNode, LinkNode, Node, VirtualFS, content_of
from ...limits import COPY_BYTES_PER_UNIT, current
from . import abi

if TYPE_CHECKING:
    import random

    from ...proc import _Input, _Sink

#: the time every node of the guest's view counts as changed or accessed, in ns, is its mtime
NS = 1_000_000_000


def inode(fs: VirtualFS, path: str) -> int:
    """A stable inode number for a path (``os.path.samefile`` compares dev and ino)."""
    return (zlib.crc32(path.encode("utf-8", "surrogateescape")) << 8 | (id(fs) & 0xFF)) + 1


def filetype(node: Node) -> int:
    if isinstance(node, DirNode):
        return abi.FT_DIR
    if isinstance(node, LinkNode):
        return abi.FT_LINK
    return abi.FT_FILE


def filestat(fs: VirtualFS, path: str, node: Node, dev: int, size: int | None = None) -> bytes:
    kind = filetype(node)
    if path.startswith("/dev/") and kind == abi.FT_FILE:
        kind = abi.FT_CHAR
    stamp = node.mtime * NS
    nlink = 2 if isinstance(node, DirNode) else 1
    if size is None:
        size = node.size if isinstance(node, (FileNode, DirNode, LinkNode)) else 0
    return abi.FILESTAT.pack(dev, inode(fs, path), kind, nlink, size,
                             stamp, stamp, stamp)  # fmt: skip


class Fd:
    """An open file description. Subclasses override what they support (EBADF/ESPIPE otherwise)."""

    kind = abi.FT_UNKNOWN
    rights = abi.ALL_RIGHTS
    append = False

    def read(self, size: int) -> bytes:
        raise WasiError(abi.EBADF)

    def write(self, data: bytes) -> int:
        raise WasiError(abi.EBADF)

    def seek(self, offset: int, whence: int) -> int:
        raise WasiError(abi.ESPIPE)

    def pread(self, size: int, offset: int) -> bytes:
        raise WasiError(abi.ESPIPE)

    def pwrite(self, data: bytes, offset: int) -> int:
        raise WasiError(abi.ESPIPE)

    def stat(self) -> bytes:
        return abi.FILESTAT.pack(0, 0, self.kind, 1, 0, 0, 0, 0)

    def close(self) -> None:
        pass


class WasiError(Exception):
    """A WASI call fails with ``errno`` (a guest-visible result, not a host error)."""

    def __init__(self, errno: int) -> None:
        super().__init__(errno)
        self.errno = errno


class StdinFd(Fd):
    """The shell's stdin for the guest, pulled as Python reads it (a lazy pipe stays lazy)."""

    def __init__(self, stdin: _Input) -> None:
        self.stdin = stdin
        self.pending = b""
        self.rights = abi.ALL_RIGHTS & ~(abi.RIGHT_FD_SEEK | abi.RIGHT_FD_TELL)

    def read(self, size: int) -> bytes:
        if not self.pending:
            chunk = self.stdin.read_chunk(max(size, 1))
            if chunk is None:
                return b""
            self.pending = chunk.encode("utf-8", "surrogateescape")
        data, self.pending = self.pending[:size], self.pending[size:]
        return data


class StreamFd(Fd):
    """Stdout or stderr: bytes decoded as they come and written to the shell's sink (counted)."""

    def __init__(self, sink: _Sink, transform: Callable[[str], str]) -> None:
        self.sink = sink
        self.transform = transform
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        tty = bool(getattr(sink, "tty", False))
        self.kind = abi.FT_CHAR if tty else abi.FT_UNKNOWN
        self.rights = abi.ALL_RIGHTS & ~(abi.RIGHT_FD_SEEK | abi.RIGHT_FD_TELL)

    def write(self, data: bytes) -> int:
        text = self.decoder.decode(data)
        if text:
            self.sink.write(self.transform(text))
        return len(data)

    def close(self) -> None:
        rest = self.decoder.decode(b"", final=True)
        if rest:
            self.sink.write(self.transform(rest))


class DeviceFd(Fd):
    """/dev/null, /dev/zero, /dev/full, /dev/urandom, /dev/random, /dev/tty."""

    kind = abi.FT_CHAR

    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.rng = rng

    def read(self, size: int) -> bytes:
        if self.name in ("null", "tty"):
            return b""
        if self.name in ("zero", "full"):
            return bytes(size)
        return self.rng.getrandbits(8 * size).to_bytes(size, "little") if size else b""

    def write(self, data: bytes) -> int:
        if self.name == "full":
            raise WasiError(abi.ENOSPC)
        current().spend(1 + len(data) // COPY_BYTES_PER_UNIT)
        return len(data)

    def seek(self, offset: int, whence: int) -> int:
        return 0


class DirFd(Fd):
    """A directory: ``fd_readdir`` lists it; ``path_*`` calls resolve relative to it."""

    kind = abi.FT_DIR

    def __init__(self, fs: VirtualFS, path: str, dev: int, preopen: str | None = None) -> None:
        self.fs = fs
        self.path = path
        self.dev = dev
        #: the guest path this directory is preopened as (fd_prestat_get), None for others
        self.preopen = preopen

    def stat(self) -> bytes:
        return filestat(self.fs, self.path, self.fs.stat(self.path), self.dev)

    def entries(self) -> list[tuple[str, int, int]]:
        """(name, inode, filetype) of ``.``, ``..`` and the children, sorted by name."""
        node = self.fs.stat(self.path)
        if not isinstance(node, DirNode):
            raise WasiError(abi.ENOTDIR)
        parent = self.path.rsplit("/", 1)[0] or "/"
        out = [(".", inode(self.fs, self.path), abi.FT_DIR), ("..", inode(self.fs, parent), abi.FT_DIR)]
        base = self.path.rstrip("/")
        for name in sorted(node.children):
            child = node.children[name]
            out.append((name, inode(self.fs, f"{base}/{name}"), filetype(child)))
        return out


class FileFd(Fd):
    """A regular file of the virtual filesystem, read and written at an offset."""

    kind = abi.FT_FILE

    def __init__(self, fs: VirtualFS, path: str, node: FileNode, dev: int, *, writable: bool,
                 append: bool, truncate: bool) -> None:  # fmt: skip
        self.fs = fs
        self.path = path
        self.node = node
        self.dev = dev
        self.writable = writable
        self.append = append
        self.pos = 0
        self.data: bytes | bytearray = b"" if truncate else _as_bytes(node.content)
        self.dirty = truncate

    def _buffer(self) -> bytearray:
        if not isinstance(self.data, bytearray):
            self.data = bytearray(self.data)
        return self.data

    def read(self, size: int) -> bytes:
        data = self.pread(size, self.pos)
        self.pos += len(data)
        return data

    def pread(self, size: int, offset: int) -> bytes:
        data = bytes(self.data[offset : offset + size])
        current().spend(1 + len(data) // COPY_BYTES_PER_UNIT)
        return data

    def write(self, data: bytes) -> int:
        if self.append:
            self.pos = len(self.data)
        done = self.pwrite(data, self.pos)
        self.pos += done
        return done

    def pwrite(self, data: bytes, offset: int) -> int:
        if not self.writable:
            raise WasiError(abi.EBADF)
        budget = current()
        budget.reserve(offset + len(data))
        budget.charge(len(data) + max(0, offset - len(self.data)))
        buf = self._buffer()
        if offset > len(buf):
            buf.extend(bytes(offset - len(buf)))
        buf[offset : offset + len(data)] = data
        self.dirty = True
        return len(data)

    def truncate(self, size: int) -> None:
        if not self.writable:
            raise WasiError(abi.EINVAL)
        budget = current()
        budget.reserve(size)
        buf = self._buffer()
        if size > len(buf):
            budget.charge(size - len(buf))
            buf.extend(bytes(size - len(buf)))
        else:
            del buf[size:]
        self.dirty = True

    def seek(self, offset: int, whence: int) -> int:
        base = {0: 0, 1: self.pos, 2: len(self.data)}.get(whence)
        if base is None or base + offset < 0:
            raise WasiError(abi.EINVAL)
        self.pos = base + offset
        return self.pos

    def stat(self) -> bytes:
        return filestat(self.fs, self.path, self.node, self.dev, len(self.data))

    def commit(self) -> None:
        """Put what was written into the node (its mtime is the filesystem clock's next tick)."""
        if self.dirty:
            self.node.content = content_of(bytes(self.data))
            self.node.mtime = self.fs._tick()
            self.dirty = False

    def close(self) -> None:
        self.commit()


def _as_bytes(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape")


if TYPE_CHECKING:
    from collections.abc import Callable
