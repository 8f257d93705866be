"""base64, base32 and basenc (``--base64 --base64url --base32 --base32hex --base16 --base2msbf
--base2lsbf --z85``), as GNU coreutils encodes, wraps and decodes (``-d``, ``-i``, ``-w``).

Decoding stops at the first byte outside the alphabet: what came before it is written, then
``invalid input`` (status 1), as GNU does.
"""

from __future__ import annotations

import base64 as codecs
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _Refused, _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..quoting import locale_quote
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


@dataclass(frozen=True)
class _Codec:
    alphabet: str
    encode: Callable[[bytes], bytes]
    decode: Callable[[bytes], bytes]
    #: characters of input per whole group, for decoding a valid prefix
    group: int


def _bits(data: bytes, msb_first: bool) -> bytes:
    order = range(7, -1, -1) if msb_first else range(8)
    return "".join("".join(str((b >> k) & 1) for k in order) for b in data).encode()


def _unbits(text: bytes, msb_first: bool) -> bytes:
    if len(text) % 8:
        raise binascii.Error("partial byte")
    out = bytearray()
    for i in range(0, len(text), 8):
        chunk = text[i : i + 8].decode()
        out.append(int(chunk if msb_first else chunk[::-1], 2))
    return bytes(out)


def _z85_encode(data: bytes) -> bytes:
    if len(data) % 4:
        raise _Refused("invalid input (length must be multiple of 4 characters)")
    out = []
    for i in range(0, len(data), 4):
        value = int.from_bytes(data[i : i + 4], "big")
        digits = []
        for _ in range(5):
            value, digit = divmod(value, 85)
            digits.append(_Z85[digit])
        out.append("".join(reversed(digits)))
    return "".join(out).encode()


def _z85_decode(text: bytes) -> bytes:
    if len(text) % 5:
        raise binascii.Error("partial group")
    out = bytearray()
    for i in range(0, len(text), 5):
        value = 0
        for c in text[i : i + 5].decode():
            value = value * 85 + _Z85.index(c)
        out += value.to_bytes(4, "big")
    return bytes(out)


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_CODECS = {
    "base64": _Codec(_B64, codecs.b64encode, lambda t: codecs.b64decode(t, validate=True), 4),
    "base64url": _Codec(_B64[:62] + "-_=", codecs.urlsafe_b64encode, codecs.urlsafe_b64decode, 4),
    "base32": _Codec("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=", codecs.b32encode, codecs.b32decode, 8),
    "base32hex": _Codec("0123456789ABCDEFGHIJKLMNOPQRSTUV=", codecs.b32hexencode, codecs.b32hexdecode, 8),
    "base16": _Codec("0123456789ABCDEF", codecs.b16encode, codecs.b16decode, 2),
    "base2msbf": _Codec("01", lambda d: _bits(d, True), lambda t: _unbits(t, True), 8),
    "base2lsbf": _Codec("01", lambda d: _bits(d, False), lambda t: _unbits(t, False), 8),
    "z85": _Codec(_Z85, _z85_encode, _z85_decode, 5),
}
_LONGS: dict[str, str | None] = {"decode": "d", "ignore-garbage": "i", "wrap=": "w"}


def _encoding_program(fixed: str | None) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        longs = dict(_LONGS)
        if fixed is None:
            longs.update({name: name for name in _CODECS})
        opts, files = _getopt(p.args, "diw:", longs)
        chosen = fixed or next((name for name in reversed(_CODECS) if name in opts), None)
        if chosen is None:
            raise _UsageError("missing encoding type")
        if len(files) > 1:
            raise _UsageError(f"extra operand {locale_quote(files[1])}")
        name = files[0] if files else "-"
        try:
            data = p.read(name).encode("utf-8", "surrogateescape")
        except FsError as exc:
            p.err(f"{name}: {exc.strerror}")
            return 1
        current().spend(1 + len(data) // 64)
        codec = _CODECS[chosen]
        if "d" in opts:
            return _decode(p, codec, data, "i" in opts)
        return _encode(p, codec, data, _last(opts, "w", "76") or "76")

    return run


def _encode(p: _Proc, codec: _Codec, data: bytes, wrap_text: str) -> int:
    if not wrap_text.isdigit():
        p.err(f"invalid wrap size: {locale_quote(wrap_text)}")
        return 1
    encoded = codec.encode(data).decode()
    wrap = int(wrap_text)
    if wrap:
        lines = [encoded[k : k + wrap] for k in range(0, len(encoded), wrap)]
        p.out("".join(line + "\n" for line in lines))
    else:
        p.out(encoded)
    return 0


def _decode(p: _Proc, codec: _Codec, data: bytes, ignore_garbage: bool) -> int:
    """Group by group (so ``aGk=aGk=`` is two), stopping at the first that does not decode."""
    allowed = codec.alphabet.encode()
    text = bytes(b for b in data if b in allowed) if ignore_garbage else data.replace(b"\n", b"")
    out = bytearray()
    ok = True
    for i in range(0, len(text), codec.group):
        group = text[i : i + codec.group]
        if len(group) < codec.group:
            ok = False
            if b"=" not in allowed:
                break
            group += b"=" * (codec.group - len(group))
        try:
            out += codec.decode(group)
        except (binascii.Error, ValueError):
            ok = False
            out += _valid_prefix(codec, group)
            break
    p.out(out.decode("utf-8", "surrogateescape"))
    if not ok:
        p.err("invalid input")
        return 1
    return 0


def _valid_prefix(codec: _Codec, group: bytes) -> bytes:
    """What a group that does not decode still gives before its first bad byte."""
    allowed = codec.alphabet.encode()
    valid = group[: next((k for k, b in enumerate(group) if b not in allowed or b == ord("=")), len(group))]
    if b"=" not in allowed or not valid:
        return b""
    try:
        return codec.decode(valid + b"=" * (codec.group - len(valid)))
    except (binascii.Error, ValueError):
        return b""


applet("base64")(_encoding_program("base64"))
applet("base32")(_encoding_program("base32"))
applet("basenc")(_encoding_program(None))
