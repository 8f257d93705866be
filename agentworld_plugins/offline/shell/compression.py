"""What the archivers share: gzip members written and read the way GNU gzip does, bounded
decompression (gzip, bzip2, xz), files as bytes, and GNU-style exclusion patterns.

Decompression runs in chunks of :data:`CHUNK` bytes; the output so far is reserved
(:func:`~..limits.reserve`) before each chunk is kept, so a small archive that would inflate
past the step's memory budget ends with ``xmalloc: cannot allocate`` before it is allocated.
"""

from __future__ import annotations

import bz2
import fnmatch
import lzma
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from ..vfs import content_of
from .limits import COPY_BYTES_PER_UNIT, current

#: output bytes inflated in one step
CHUNK = 1 << 20
#: bytes compressed per unit of work (a nominal microsecond): deflate at about 32 MB/s, bzip2 at
#: 8, xz at 2; inflating is copying (``COPY_BYTES_PER_UNIT``)
DEFLATE_BYTES_PER_UNIT = 32
_COMPRESS_BYTES_PER_UNIT = {"bzip2": 8, "xz": 2}

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"


class Corrupt(Exception):
    """Compressed data that does not decode; ``message`` is the tail gzip prints after ``name: ``."""

    def __init__(self, message: str, partial: bytes = b"") -> None:
        super().__init__(message)
        self.message = message
        #: what decoded before the damage (tar lists the members it holds)
        self.partial = partial


def as_bytes(text: str) -> bytes:
    """A stream's text (binary kept as surrogate escapes) as the bytes it stands for."""
    return text.encode("utf-8", "surrogateescape")


def bytes_of(content: str | bytes) -> bytes:
    """A file's content (text or bytes, as the VFS keeps it) as its bytes."""
    return content if isinstance(content, bytes) else as_bytes(content)


def as_stream(data: bytes) -> str:
    """Bytes as a stream's text (what ``p.out`` writes): lossless."""
    return data.decode("utf-8", "surrogateescape")


def stored(data: bytes) -> str | bytes:
    """Bytes as the VFS keeps file content."""
    return content_of(data)


def _account(total: int, piece: int) -> None:
    budget = current()
    budget.reserve(total)
    budget.spend(1 + piece // COPY_BYTES_PER_UNIT)


def deflate(data: bytes, level: int = 6) -> bytes:
    """A raw deflate stream (zlib at ``level``, memLevel 8: the bytes GNU gzip and Info-ZIP
    zip write for text)."""
    current().spend(1 + len(data) // DEFLATE_BYTES_PER_UNIT)
    comp = zlib.compressobj(level, zlib.DEFLATED, -15, 8)
    return comp.compress(data) + comp.flush()


def _drain(step: Callable[[bytes, int], bytes], data: bytes, done: Callable[[], bool],
           tail: Callable[[], bytes], out: list[bytes]) -> int:  # fmt: skip
    """Run a decompressor's ``step(input, max_length)`` until ``done()`` (or no more comes),
    appending what comes out to ``out`` and counting it; returns its size."""
    total = 0
    pending = data
    while True:
        piece = step(pending, CHUNK)
        if piece:
            total += len(piece)
            _account(total, len(piece))
            out.append(piece)
        if done():
            return total
        pending = tail()
        if not piece and not pending:
            return total


@dataclass
class GzipMember:
    name: str | None
    mtime: int
    data: bytes
    #: bytes of header and trailer (what gzip -l leaves out of the ratio)
    overhead: int


def _new_header(name: str | None, mtime: int, level: int) -> bytes:
    """The 10-byte header (and name) GNU gzip writes: OS 3 (Unix), XFL 2 for -9, 4 for -1."""
    xfl = 2 if level == 9 else 4 if level == 1 else 0
    flags = 0x08 if name is not None else 0
    head = GZIP_MAGIC + bytes([8, flags]) + struct.pack("<I", mtime & 0xFFFFFFFF) + bytes([xfl, 3])
    if name is not None:
        head += name.encode("utf-8", "surrogateescape") + b"\x00"
    return head


def gzip_compress(data: bytes, name: str | None = None, mtime: int = 0, level: int = 6) -> bytes:
    """A gzip member as GNU gzip writes it (name and mtime of a file; none and 0 from a pipe)."""
    body = deflate(data, level)
    trailer = struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return _new_header(name, mtime, level) + body + trailer


def _skip_zero_terminated(data: bytes, pos: int) -> int:
    end = data.find(b"\x00", pos)
    if end < 0:
        raise Corrupt("unexpected end of file")
    return end + 1


def gzip_header(data: bytes, pos: int = 0) -> tuple[str | None, int, int]:
    """The member header at ``pos`` (its magic checked by the caller): ``(name, mtime, where the
    deflate stream starts)``."""
    if len(data) < pos + 10:
        raise Corrupt("unexpected end of file")
    if data[pos + 2] != 8:
        raise Corrupt(f"unknown method {data[pos + 2]} -- not supported")
    flags = data[pos + 3]
    mtime = struct.unpack_from("<I", data, pos + 4)[0]
    at = pos + 10
    name = None
    if flags & 0x04:
        if len(data) < at + 2:
            raise Corrupt("unexpected end of file")
        at += 2 + struct.unpack_from("<H", data, at)[0]
    if flags & 0x08:
        end = _skip_zero_terminated(data, at)
        name = data[at : end - 1].decode("utf-8", "surrogateescape")
        at = end
    if flags & 0x10:
        at = _skip_zero_terminated(data, at)
    if flags & 0x02:
        at += 2
    return name, mtime, at


def _gzip_member(data: bytes, pos: int) -> tuple[GzipMember, int]:
    """The member at ``pos`` (its magic checked by the caller) and where the next one starts."""
    name, mtime, start = gzip_header(data, pos)
    inflater = zlib.decompressobj(-15)
    pieces: list[bytes] = []
    try:
        total = _drain(inflater.decompress, data[start:], lambda: inflater.eof, lambda: inflater.unconsumed_tail,
                       pieces)  # fmt: skip
    except zlib.error:
        raise Corrupt("invalid compressed data--format violated", b"".join(pieces)) from None
    if not inflater.eof:
        raise Corrupt("unexpected end of file", b"".join(pieces))
    rest = inflater.unused_data
    end = len(data) - len(rest)
    body = b"".join(pieces)
    if len(rest) < 8:
        raise Corrupt("unexpected end of file", body)
    crc, size = struct.unpack_from("<II", rest)
    if crc != zlib.crc32(body) & 0xFFFFFFFF:
        raise Corrupt("invalid compressed data--crc error")
    if size != total & 0xFFFFFFFF:
        raise Corrupt("invalid compressed data--length error")
    return GzipMember(name, mtime, body, (end + 8 - pos) - (end - start)), end + 8


def gzip_member_count(data: bytes) -> int:
    """How many members a gzip file holds, found by inflating it without keeping what comes out
    (the work is counted; nothing is held): what ``gzip -l`` needs for its ratio."""
    count, pos = 0, 0
    while pos < len(data) and data.startswith(GZIP_MAGIC, pos):
        try:
            _, _, start = gzip_header(data, pos)
        except Corrupt:
            return max(count, 1)
        inflater = zlib.decompressobj(-15)
        pending = data[start:]
        try:
            while not inflater.eof and pending:
                piece = inflater.decompress(pending, CHUNK)
                current().spend(1 + len(piece) // COPY_BYTES_PER_UNIT)
                pending = inflater.unconsumed_tail
        except zlib.error:
            return max(count, 1)
        count += 1
        if not inflater.eof:
            break
        pos = len(data) - len(inflater.unused_data) + 8
    return max(count, 1)


def gzip_members(data: bytes) -> tuple[list[GzipMember], bool]:
    """Every member of a gzip file; raises :class:`Corrupt` (``not in gzip format`` where the
    first bytes are not a gzip magic). The flag: bytes that follow the last member (gzip's
    ``trailing garbage ignored``)."""
    if not data:
        raise Corrupt("unexpected end of file")
    if not data.startswith(GZIP_MAGIC):
        raise Corrupt("not in gzip format")
    members: list[GzipMember] = []
    pos = 0
    while pos < len(data) and data.startswith(GZIP_MAGIC, pos):
        try:
            member, pos = _gzip_member(data, pos)
        except Corrupt as exc:
            exc.partial = b"".join(m.data for m in members) + exc.partial
            raise
        members.append(member)
    return members, pos < len(data) and bool(data[pos:].strip(b"\x00"))


def gunzip(data: bytes) -> bytes:
    """The data of all the members (what ``gzip -dc`` writes)."""
    members, _ = gzip_members(data)
    return b"".join(m.data for m in members)


def decompress_any(data: bytes) -> tuple[bytes, str | None]:
    """Data that may be compressed, as tar reads an archive: ``(plain bytes, 'gzip'|'bzip2'|'xz'|None)``;
    raises :class:`Corrupt` with the filter's own message (and what decoded before the damage)."""
    if data.startswith(GZIP_MAGIC):
        try:
            return gunzip(data), "gzip"
        except Corrupt as exc:
            exc.message = f"\ngzip: stdin: {exc.message}"
            raise
    if data.startswith(BZIP2_MAGIC):
        return _unpack(bz2.BZ2Decompressor(), data, OSError, "bzip2: Data integrity error when decompressing.",
                       "bzip2: Compressed file ends unexpectedly;"), "bzip2"  # fmt: skip
    if data.startswith(XZ_MAGIC):
        return _unpack(lzma.LZMADecompressor(), data, lzma.LZMAError, "xz: (stdin): Compressed data is corrupt",
                       "xz: (stdin): Unexpected end of input"), "xz"  # fmt: skip
    return data, None


def _unpack(decomp: bz2.BZ2Decompressor | lzma.LZMADecompressor, data: bytes, error: type[Exception],
            corrupt: str, truncated: str) -> bytes:  # fmt: skip
    pieces: list[bytes] = []
    try:
        _drain(decomp.decompress, data, lambda: decomp.eof, lambda: b"", pieces)
    except error:
        raise Corrupt(corrupt, b"".join(pieces)) from None
    if not decomp.eof:
        raise Corrupt(truncated, b"".join(pieces))
    return b"".join(pieces)


def compress(data: bytes, method: str) -> bytes:
    """``data`` as tar's filter writes it: ``gzip`` (no name, mtime 0), ``bzip2`` (-9) or ``xz`` (-6)."""
    if method == "gzip":
        return gzip_compress(data)
    current().spend(1 + len(data) // _COMPRESS_BYTES_PER_UNIT[method])
    if method == "bzip2":
        return bz2.compress(data, 9)
    return lzma.compress(data, preset=6)


def excluded(name: str, patterns: list[str]) -> bool:
    """Whether a member name matches an ``--exclude`` pattern the way GNU tar's default
    (unanchored, wildcards matching ``/``) does: against any run of whole name components."""
    if not patterns:
        return False
    parts = name.strip("/").split("/")
    for start in range(len(parts)):
        for end in range(start + 1, len(parts) + 1):
            piece = "/".join(parts[start:end])
            if any(fnmatch.fnmatchcase(piece, pat.rstrip("/") or pat) for pat in patterns):
                return True
    return False
