"""head and tail."""

from __future__ import annotations

import re
from itertools import islice
from typing import TYPE_CHECKING, Any

from ...vfs import FsError
from ..applet_io import _count_arg, _InvalidCount, lines_with_ends
from ..devices import REDIRECT_BYTES
from ..getopt import _getopt, _last
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Input, _Proc


def _head_tail_args(args: list[str]) -> list[str]:
    """``head -5`` is ``head -n 5`` (only where an option may stand, not as -n's value)."""
    out: list[str] = []
    for a in args:
        takes_value = bool(out) and out[-1] in ("-n", "-c", "--lines", "--bytes")
        if re.fullmatch(r"-\d+", a) and not takes_value:
            out += ["-n", a[1:]]
        else:
            out.append(a)
    return out


@applet("head")
def _u_head(p: _Proc) -> int:
    return _head_or_tail(p, tail=False)


@applet("tail")
def _u_tail(p: _Proc) -> int:
    return _head_or_tail(p, tail=True)


def _head_or_tail(p: _Proc, tail: bool) -> int:
    """``head`` (the first N lines or bytes) or ``tail`` (the last N; ``+N``: from the Nth on)."""
    longs: dict[str, str | None] = {"lines=": "n", "bytes=": "c", "quiet": "q", "silent": "q", "verbose": "v",
                                    "zero-terminated": "z"}  # fmt: skip
    if tail:
        longs.update({"follow": "f", "follow=": "f"})
    opts, files = _getopt(_head_tail_args(p.args), "n:c:qvzfF" if tail else "n:c:qvz", longs)
    end = "\0" if "z" in opts else "\n"
    bytes_mode = "c" in opts
    raw = (_last(opts, "c", "0") or "0") if bytes_mode else (_last(opts, "n", "10") or "10")
    from_start = tail and raw.startswith("+")
    try:
        n = _count_arg(p, raw.lstrip("+") if tail else raw, "bytes" if bytes_mode else "lines")
    except _InvalidCount:
        return 1
    if tail:
        n = abs(n)

    def pick(items: Any) -> Any:
        if not tail:
            return items[:n]
        if from_start:
            return items[max(n - 1, 0) :]
        return items[-n:] if n else items[:0]

    files = files or ["-"]
    headers = ("v" in opts or len(files) > 1) and "q" not in opts
    status = 0
    first = True
    for name in files:
        if name == "-" and not tail and n >= 0 and end == "\n":  # read no more of stdin than is printed
            if headers:
                p.out(("" if first else "\n") + "==> standard input <==\n")
            first = False
            # from a pipe head reads blocks of BUFSIZ (8192): the rest of the last one is gone
            p.out(_head_bytes(p.ctx.stdin, n) if bytes_mode else "".join(islice(p.ctx.stdin.blocks(8192), n)))
            continue
        try:
            if name != "-" and p.fs.is_dir(p.path(name)):
                raise FsError("EISDIR", name)
            # what head may read of an endless device: N bytes, or a chunk that holds N lines
            wanted = None if tail or n < 0 else (n if bytes_mode else max(REDIRECT_BYTES, n * 512))
            text = p.read(name, wanted)
        except FsError as exc:
            if exc.code == "EISDIR":
                if headers and not tail:
                    p.out(("" if first else "\n") + f"==> {name} <==\n")
                    first = False
                p.err(f"error reading {quote_always(name)}: Is a directory")
            else:
                p.err(f"cannot open {quote_always(name)} for reading: {exc.strerror}")
            status = 1
            continue
        if headers:
            p.out(("" if first else "\n") + f"==> {'standard input' if name == '-' else name} <==\n")
        first = False
        if bytes_mode:
            p.out(pick(text.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape"))
        else:
            p.out("".join(pick(lines_with_ends(text, end))))
    if "f" in opts or "F" in opts:
        p.unknown()
    return status


def _head_bytes(stdin: _Input, n: int) -> str:
    """The first ``n`` bytes of ``stdin``, reading no further (characters are 1-4 bytes)."""
    parts: list[bytes] = []
    left = n
    while left > 0 and (chunk := stdin.read_chunk(left)) is not None:
        data = chunk.encode("utf-8", "surrogateescape")[:left]
        parts.append(data)
        left -= len(data)
    return b"".join(parts).decode("utf-8", "surrogateescape")
