"""md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum, cksum and sum, as GNU
coreutils 9.1 prints and checks them.

Digests are of the files' bytes. Names holding a backslash or a newline are escaped, the line
then starting with ``\\``, as GNU escapes them. ``-c`` reads GNU and BSD (``--tag``) lines and
says ``OK`` / ``FAILED`` / ``FAILED open or read`` per file, then GNU's warnings.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...vfs import FsError
from ..applet_io import _Inputs
from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..quoting import locale_quote, quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_HASH_LONGS: dict[str, str | None] = {
    "binary": "b", "check": "c", "text": "t", "zero": "z", "tag": "tag", "quiet": "quiet",
    "status": "status", "strict": "strict", "warn": "w", "ignore-missing": "ignore-missing",
    "length=": "l", "untagged": "untagged", "algorithm=": "a",
}  # fmt: skip
#: the names ``--tag`` writes, by hashlib's name
_TAGS = {
    "md5": "MD5", "sha1": "SHA1", "sha224": "SHA224", "sha256": "SHA256", "sha384": "SHA384",
    "sha512": "SHA512", "blake2b": "BLAKE2b",
}  # fmt: skip
_CKSUM_ALGORITHMS = (
    "bsd",
    "sysv",
    "crc",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "blake2b",
    "sm3",
)
_BSD_LINE = re.compile(r"(MD5|SHA1|SHA224|SHA256|SHA384|SHA512|BLAKE2b(?:-(\d+))?) \((.*)\) = ([0-9a-fA-F]+)")
_GNU_LINE = re.compile(r"([0-9a-fA-F]+) ([ *])(.*)")


def _bytes(p: _Proc, name: str) -> bytes:
    return _charged(p.read(name))


def _charged(text: str) -> bytes:
    """A file's bytes, their hashing counted against the step budget."""
    data = text.encode("utf-8", "surrogateescape")
    current().spend(1 + len(data) // 64)
    return data


def _escaped(name: str) -> tuple[str, str]:
    """``(lead, name)``: GNU writes ``\\`` first and escapes ``\\`` and newlines in a name."""
    if "\\" not in name and "\n" not in name and "\r" not in name:
        return "", name
    return "\\", name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _unescaped(name: str) -> str | None:
    out, i = [], 0
    while i < len(name):
        if name[i] != "\\":
            out.append(name[i])
            i += 1
            continue
        code = name[i + 1 : i + 2]
        if code not in ("\\", "n", "r"):
            return None
        out.append({"\\": "\\", "n": "\n", "r": "\r"}[code])
        i += 2
    return "".join(out)


@dataclass
class _Digest:
    """One algorithm: hashlib's name and, for BLAKE2b, its length in bytes."""

    algorithm: str
    size: int | None = None

    def hexdigest(self, data: bytes) -> str:
        if self.algorithm == "blake2b":
            return hashlib.blake2b(data, digest_size=self.size or 64).hexdigest()
        return hashlib.new(self.algorithm, data).hexdigest()

    @property
    def tag(self) -> str:
        tag = _TAGS[self.algorithm]
        return f"{tag}-{self.size * 8}" if self.size and self.size != 64 else tag

    @property
    def hex_length(self) -> int:
        return 2 * (self.size or 64) if self.algorithm == "blake2b" else len(self.hexdigest(b""))


def _blake_size(p: _Proc, opts: dict[str, Any]) -> int | None:
    raw = _last(opts, "l")
    if raw is None:
        return None
    bits = int(raw) if raw.isdigit() else None
    if bits is None:
        raise _Refused(f"invalid length: {locale_quote(raw)}")
    if bits > 512 or bits % 8:
        p.err(f"invalid length: {locale_quote(raw)}")
        raise _Refused(
            f"maximum digest length for {locale_quote('BLAKE2b')} is 512 bits"
            if bits > 512
            else "length is not a multiple of 8"
        )
    return bits // 8 or None


def _hash_program(algorithm: str) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        letters = "bctwz" + ("l:" if algorithm == "blake2b" else "")
        longs = {k: v for k, v in _HASH_LONGS.items() if k not in ("untagged", "algorithm=")}
        if algorithm != "blake2b":
            longs.pop("length=")
        opts, files = _getopt(p.args, letters, longs)
        digest = _Digest(algorithm, _blake_size(p, opts) if algorithm == "blake2b" else None)
        flags = set(opts)
        if "c" in flags:
            if "tag" in flags:
                raise _UsageError("the --tag option is meaningless when verifying checksums")
            return _check(p, files, digest, flags)
        return _write(p, files, digest, flags, tagged="tag" in flags)

    return run


def _write(p: _Proc, files: list[str], digest: _Digest, flags: set[str], tagged: bool) -> int:
    end = "\0" if "z" in flags else "\n"
    inputs = _Inputs(p, files, quote=str)
    for name, text in inputs:
        hexed = digest.hexdigest(_charged(text))
        lead, shown = ("", name) if "z" in flags else _escaped(name)
        if tagged:
            p.out(f"{lead}{digest.tag} ({shown}) = {hexed}{end}")
        else:
            p.out(f"{lead}{hexed} {'*' if 'b' in flags else ' '}{shown}{end}")
    return inputs.status


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _parse_line(line: str, digest: _Digest | None) -> tuple[_Digest, str, str] | None:
    """``(digest, expected hex, file name)`` of one checksum line, or None if malformed."""
    escaped = line.startswith("\\")
    body = line[1:] if escaped else line
    bsd = _BSD_LINE.fullmatch(body)
    if bsd is not None:
        algorithm = "blake2b" if bsd.group(1).startswith("BLAKE2b") else bsd.group(1).lower()
        if digest is not None and digest.algorithm != algorithm:
            return None
        bits = bsd.group(2)
        size = int(bits) // 8 if bits else (digest.size if digest else None)
        found, name, hexed = _Digest(algorithm, size), bsd.group(3), bsd.group(4)
    else:
        gnu = _GNU_LINE.fullmatch(body)
        if gnu is None or digest is None:
            return None
        hexed, name = gnu.group(1), gnu.group(3)
        found = (
            digest if digest.algorithm != "blake2b" or digest.size else _Digest("blake2b", len(hexed) // 2)
        )
    if len(hexed) != found.hex_length or not name:
        return None
    if escaped:
        unescaped = _unescaped(name)
        if unescaped is None:
            return None
        name = unescaped
    return found, hexed.lower(), name


def _check(p: _Proc, files: list[str], digest: _Digest | None, flags: set[str]) -> int:
    status = 0
    tag = digest.tag if digest else "checksum"
    for listing in files or ["-"]:
        shown = quote_if_needed("standard input" if listing == "-" else listing)
        try:
            text = p.read(listing)
        except FsError as exc:
            p.err(f"{listing}: {exc.strerror}")
            status = 1
            continue
        counts = {"bad": 0, "unread": 0, "mismatch": 0, "good": 0, "verified": 0}
        for number, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
            current().spend(1)
            if line.startswith("#") or not line:
                continue
            parsed = _parse_line(line.rstrip("\r"), digest)
            if parsed is None:
                counts["bad"] += 1
                if "w" in flags:
                    p.err(f"{shown}: {number}: improperly formatted {tag} checksum line")
                continue
            _verify(p, parsed, flags, counts)
        status |= _summary(p, shown, counts, flags)
    return status


def _verify(p: _Proc, parsed: tuple[_Digest, str, str], flags: set[str], counts: dict[str, int]) -> None:
    found, expected, name = parsed
    counts["good"] += 1
    lead, shown = _escaped(name) if "\n" in name or "\r" in name else ("", name)
    try:
        data = _bytes(p, name)
    except FsError as exc:
        if "ignore-missing" in flags and exc.strerror == "No such file or directory":
            return
        counts["unread"] += 1
        p.err(f"{name}: {exc.strerror}")
        if "status" not in flags:
            p.out(f"{lead}{shown}: FAILED open or read\n")
        return
    counts["verified"] += 1
    ok = found.hexdigest(data) == expected
    if not ok:
        counts["mismatch"] += 1
    if "status" not in flags and not (ok and "quiet" in flags):
        p.out(f"{lead}{shown}: {'OK' if ok else 'FAILED'}\n")


def _summary(p: _Proc, shown: str, counts: dict[str, int], flags: set[str]) -> int:
    if not counts["good"]:
        p.err(f"{shown}: no properly formatted checksum lines found")
        return 1
    if "status" not in flags:
        if counts["bad"]:
            p.err(f"WARNING: {_plural(counts['bad'], 'line is', 'lines are')} improperly formatted")
        if counts["unread"]:
            p.err(f"WARNING: {_plural(counts['unread'], 'listed file', 'listed files')} could not be read")
        if counts["mismatch"]:
            count = counts["mismatch"]
            p.err(f"WARNING: {_plural(count, 'computed checksum', 'computed checksums')} did NOT match")
    if "ignore-missing" in flags and not counts["verified"]:
        p.err(f"{shown}: no file was verified")
        return 1
    failed = counts["unread"] or counts["mismatch"] or ("strict" in flags and counts["bad"])
    return 1 if failed else 0


for _name, _algorithm in (
    ("md5sum", "md5"), ("sha1sum", "sha1"), ("sha224sum", "sha224"), ("sha256sum", "sha256"),
    ("sha384sum", "sha384"), ("sha512sum", "sha512"), ("b2sum", "blake2b"),
):  # fmt: skip
    applet(_name)(_hash_program(_algorithm))


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return table


_CRC = _crc_table()


def posix_crc(data: bytes) -> int:
    """POSIX ``cksum``'s CRC: over the bytes, then the length's bytes (lowest first)."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC[(crc >> 24) ^ byte]
    length = len(data)
    while length:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC[(crc >> 24) ^ (length & 0xFF)]
        length >>= 8
    return ~crc & 0xFFFFFFFF


def _bsd_sum(data: bytes) -> str:
    checksum = 0
    for byte in data:
        checksum = ((checksum >> 1) + ((checksum & 1) << 15) + byte) & 0xFFFF
    return f"{checksum:05d} {-(-len(data) // 1024):5d}"


def _sysv_sum(data: bytes) -> str:
    total = sum(data)
    r = (total & 0xFFFF) + ((total & 0xFFFFFFFF) >> 16)
    return f"{(r & 0xFFFF) + (r >> 16)} {-(-len(data) // 512)}"


def _legacy(data: bytes, algorithm: str) -> str:
    if algorithm != "sysv":  # a Python loop over every byte
        current().spend(len(data) // 4)
    if algorithm == "crc":
        return f"{posix_crc(data)} {len(data)}"
    return _bsd_sum(data) if algorithm == "bsd" else _sysv_sum(data)


@applet("cksum")
def _u_cksum(p: _Proc) -> int:
    opts, files = _getopt(p.args, "a:bcl:tw", _HASH_LONGS)
    algorithm = _last(opts, "a") or "crc"
    if algorithm not in _CKSUM_ALGORITHMS:
        p.err(f"invalid argument {locale_quote(algorithm)} for {locale_quote('--algorithm')}")
        p.ctx.err.write(
            "Valid arguments are:\n" + "".join(f"  - {locale_quote(a)}\n" for a in _CKSUM_ALGORITHMS)
        )
        p.try_help()
        return 1
    if algorithm == "sm3":
        return p.not_simulated()
    flags = set(opts)
    size = _blake_size(p, opts) if algorithm == "blake2b" else None
    if "c" in flags:
        return _check(p, files, _Digest(algorithm, size) if algorithm in _TAGS else None, flags)
    if algorithm in _TAGS:
        return _write(p, files, _Digest(algorithm, size), flags, tagged="untagged" not in flags)
    return _legacy_sums(p, files, algorithm)


def _legacy_sums(p: _Proc, files: list[str], algorithm: str) -> int:
    inputs = _Inputs(p, files, quote=str)
    for name, text in inputs:
        p.out(_legacy(_charged(text), algorithm) + (f" {name}" if files and name != "-" else "") + "\n")
    return inputs.status


@applet("sum")
def _u_sum(p: _Proc) -> int:
    opts, files = _getopt(p.args, "rs", {"sysv": "s"})
    algorithm = "sysv" if "s" in opts else "bsd"
    return _legacy_sums(p, files, algorithm)
