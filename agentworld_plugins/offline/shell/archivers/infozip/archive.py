"""The zip format as Info-ZIP zip 3.0 writes it, and reading one (bounded) with :mod:`zipfile`.

An entry carries Info-ZIP's extra fields: ``UT`` (the exact mtime, which unzip restores) and
``ux`` (uid and gid 0); the DOS time is the mtime rounded up to an even second, as zip rounds it.
Deflate is zlib's at level 6, memLevel 8: the stream Info-ZIP writes for text, so the
``(deflated N%)`` figures agree.
"""

from __future__ import annotations

import calendar
import io
import struct
import time
import zipfile
import zlib
from dataclasses import dataclass

from ...compression import CHUNK, Corrupt, deflate
from ...limits import current

_UNIX = 3


@dataclass
class Entry:
    name: str
    mode: int
    mtime: int
    method: int
    crc: int
    size: int
    raw: bytes
    #: the deflate speed bits of the general flags (2: -8/-9, 4: -1/-2), as zip sets them
    speed: int = 0

    @property
    def is_dir(self) -> bool:
        return self.name.endswith("/")

    @property
    def is_link(self) -> bool:
        return (self.mode >> 12) == 0o12


#: zip falls back to storing a file whose deflated form is no smaller only below this size (it
#: tries that on what it read in one buffer); a larger one stays deflated (``deflated 0%``)
STORE_FALLBACK = 32784


def make_entry(name: str, mode: int, mtime: int, data: bytes, level: int) -> Entry:
    """An entry of ``data`` at ``level``: deflated, or stored where that is not smaller (small
    files) or ``level`` is 0."""
    if not data or level == 0:
        return Entry(name, mode, mtime, zipfile.ZIP_STORED, zlib.crc32(data) & 0xFFFFFFFF, len(data), data)
    packed = deflate(data, level)
    if len(packed) >= len(data) and len(data) < STORE_FALLBACK:
        return Entry(name, mode, mtime, zipfile.ZIP_STORED, zlib.crc32(data) & 0xFFFFFFFF, len(data), data)
    speed = 2 if level >= 8 else 4 if level <= 2 else 0
    return Entry(
        name, mode, mtime, zipfile.ZIP_DEFLATED, zlib.crc32(data) & 0xFFFFFFFF, len(data), packed, speed
    )


def percent(entry: Entry) -> int:
    """Info-ZIP's rounded saving: ``(1 + 200 (n - m) / n) / 2``."""
    n, m = entry.size, len(entry.raw)
    return (1 + 200 * (n - m) // n) // 2 if n > m else 0


def dos_time(mtime: int) -> tuple[int, int]:
    t = time.gmtime((mtime + 1) & ~1)
    date = ((max(t.tm_year, 1980) - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday
    return (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2), date


def _extra(mtime: int, local: bool) -> bytes:
    """Info-ZIP's ``UT`` (mtime and, in the local header, atime: the mtime here) and ``ux``."""
    stamp = mtime & 0xFFFFFFFF
    ut = (
        struct.pack("<HHBII", 0x5455, 9, 3, stamp, stamp)
        if local
        else struct.pack("<HHBI", 0x5455, 5, 3, stamp)
    )
    ux = struct.pack("<HHBBIBI", 0x7875, 11, 1, 4, 0, 4, 0)
    return ut + ux


def write_archive(entries: list[Entry]) -> bytes:
    """The bytes of a zip archive of ``entries``, in order."""
    out = io.BytesIO()
    central = io.BytesIO()
    for e in entries:
        current().spend(1 + len(e.raw) // 512)
        offset = out.tell()
        name = e.name.encode("utf-8", "surrogateescape")
        local, extra = _extra(e.mtime, True), _extra(e.mtime, False)
        t, d = dos_time(e.mtime)
        need = 20 if e.method == zipfile.ZIP_DEFLATED else 10
        # the name's bytes as they are, no UTF-8 flag: what Info-ZIP writes on Linux
        head = struct.pack("<HHHHHIIIH", need, e.speed, e.method, t, d, e.crc, len(e.raw), e.size, len(name))
        out.write(b"PK\x03\x04" + head + struct.pack("<H", len(local)) + name + local + e.raw)
        attr = (e.mode << 16) | (0x10 if e.is_dir else 0)
        central.write(b"PK\x01\x02" + struct.pack("<H", (_UNIX << 8) | 30) + head + struct.pack("<H", len(extra))
                      + struct.pack("<HHHII", 0, 0, 0, attr, offset) + name + extra)  # fmt: skip
    cd = central.getvalue()
    start = out.tell()
    out.write(cd)
    out.write(b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(entries), len(entries), len(cd), start, 0))
    return out.getvalue()


def _mtime(info: zipfile.ZipInfo) -> int:
    extra = info.extra
    i = 0
    while i + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, i)
        if tag == 0x5455 and size >= 5 and extra[i + 4] & 1:
            return int(struct.unpack_from("<I", extra, i + 5)[0])
        i += 4 + size
    y, mo, d, h, mi, s = info.date_time
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def listed_time(info: zipfile.ZipInfo) -> tuple[int, int, int, int, int]:
    """The date and minute ``unzip -l``/``-v`` show: from the ``UT`` field when the entry has
    one (the exact mtime; the DOS field has rounded an odd second up), else the DOS field."""
    y, mo, d, h, mi, _ = time.gmtime(_mtime(info))[:6]
    return y, mo, d, h, mi


def _mode(info: zipfile.ZipInfo) -> int:
    mode = info.external_attr >> 16
    if info.create_system == _UNIX and mode:
        return mode
    return 0o40755 if info.filename.endswith("/") else 0o100644


class Archive:
    """A zip archive read from bytes: its members' names, modes, mtimes and (bounded) data."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        try:
            self.zf = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, OSError, ValueError):
            raise Corrupt("not a zipfile") from None
        self.infos = self.zf.infolist()
        for info in self.infos:  # without the UTF-8 flag a name is its bytes, as UnZip takes it on Linux
            if not info.flag_bits & 0x800:
                info.filename = info.filename.encode("cp437").decode("utf-8", "surrogateescape")

    def mode(self, info: zipfile.ZipInfo) -> int:
        return _mode(info)

    def mtime(self, info: zipfile.ZipInfo) -> int:
        return _mtime(info)

    def read(self, info: zipfile.ZipInfo) -> bytes:
        """A member's data, inflated a chunk at a time with the total reserved before it is kept."""
        pieces = []
        total = 0
        try:
            with self.zf.open(info) as f:
                while piece := f.read(CHUNK):
                    total += len(piece)
                    current().reserve(total)
                    current().spend(1 + len(piece) // 512)
                    pieces.append(piece)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            raise Corrupt(str(exc)) from None
        return b"".join(pieces)

    def entry(self, info: zipfile.ZipInfo) -> Entry:
        """The member as an :class:`Entry` (its compressed bytes as they are), to write it again."""
        start = info.header_offset
        name_len, extra_len = struct.unpack_from("<HH", self.data, start + 26)
        at = start + 30 + name_len + extra_len
        raw = self.data[at : at + info.compress_size]
        return Entry(
            info.filename, _mode(info), _mtime(info), info.compress_type, info.CRC, info.file_size, raw
        )
