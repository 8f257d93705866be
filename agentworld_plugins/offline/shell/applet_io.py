"""Helpers applets share: input files, lines, counts, writing files, joining shown paths."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, AnyStr

from ..vfs import FsError
from .quoting import locale_quote, quote_if_needed

if TYPE_CHECKING:
    from .proc import _Input, _Proc


def _join(shown: str, name: str) -> str:
    if not shown:
        return name
    if shown.endswith("/"):
        return shown + name
    return shown + "/" + name


def from_host(text: str) -> str:
    """Text as a program that works in bytes sees it (mawk, GNU sort): a character per byte
    (UTF-8's bytes as Latin-1), so lengths, offsets and widths count bytes."""
    return text if text.isascii() else text.encode("utf-8", "surrogateescape").decode("latin-1")


def to_host(text: str) -> str:
    """:func:`from_host`'s bytes back to the shell's text (bytes that are not UTF-8 kept as
    they are)."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text


def lines_with_ends(text: AnyStr, end: str = "\n") -> list[AnyStr]:
    """Records split at ``end`` only (a newline, or -z's NUL), each keeping it (``str.splitlines``
    also splits at ``\\r``, ``\\f``, ``\\x1c`` and more, which no Unix tool does)."""
    sep = end if isinstance(text, str) else end.encode()
    parts = text.split(sep)  # type: ignore[arg-type]
    out = [part + sep for part in parts[:-1]]  # type: ignore[operator]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _lines(text: str) -> list[str]:
    """Lines without their newline; a final newline does not make an empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


class _InvalidCount(Exception):
    pass


def _count_arg(p: _Proc, value: str, what: str = "lines") -> int:
    try:
        return int(value)
    except ValueError:
        p.err(f"invalid number of {what}: {locale_quote(value)}")
        raise _InvalidCount() from None


class _Inputs:
    """A filter's operands read in order as ``(name, text)`` (none, or ``-``: stdin). One that
    cannot be read is reported (``message`` gets its ``quote``d name and the reason) and sets
    ``status`` to 1; the others are still read."""

    def __init__(
        self,
        p: _Proc,
        names: list[str],
        message: str = "{}: {}",
        quote: Callable[[str], str] = quote_if_needed,
    ) -> None:
        self.p = p
        self.names = names or ["-"]
        self.message = message
        self.quote = quote
        self.status = 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for name in self.names:
            try:
                text = self.p.read(name)
            except FsError as exc:
                self.p.err(self.message.format(self.quote(name), exc.strerror))
                self.status = 1
                continue
            yield name, text


def _write_or_err(p: _Proc, name: str, text: str, message: str = "{}: {}", append: bool = False) -> bool:
    """Write (or append) ``text`` to the file ``name``; False, reported, where that fails."""
    try:
        p.fs.write(p.path(name), text, append=append)
    except FsError as exc:
        p.err(message.format(quote_if_needed(name), exc.strerror))
        return False
    return True


def stdin_bytes(stdin: _Input, want: int | None) -> bytes:
    """A pipe's bytes: all of them, or (``want``) only as many chunks as it takes to have that
    many, so an endless producer (``yes | xxd -l 8``) is read no further."""
    if want is None:
        return stdin.read().encode("utf-8", "surrogateescape")
    parts: list[bytes] = []
    size = 0
    while size < want and (chunk := stdin.read_chunk()) is not None:
        parts.append(chunk.encode("utf-8", "surrogateescape"))
        size += len(parts[-1])
    return b"".join(parts)
