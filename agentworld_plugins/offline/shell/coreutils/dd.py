"""dd and nohup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import FsError, content_of
from ..errors import _UsageError
from ..limits import reserve
from ..pipes import delegating
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_UNITS = {"": 1, "c": 1, "w": 2, "b": 512, "k": 1024, "K": 1024, "kB": 1000, "M": 1 << 20, "MB": 10**6,
          "G": 1 << 30, "GB": 10**9}  # fmt: skip
#: the copy time dd reports (the frozen world copies instantly; a fixed figure keeps runs equal)
_SECONDS = 0.0001


def _size(text: str) -> int:
    number = text.rstrip("cwbkKMGB")
    unit = text[len(number) :]
    if not number.isdigit() or unit not in _UNITS:
        raise _UsageError(f"invalid number: {quote_always(text)}")
    return int(number) * _UNITS[unit]


@applet("dd")
def _u_dd(p: _Proc) -> int:
    ops: dict[str, str] = {}
    for arg in p.args:
        key, eq, value = arg.partition("=")
        if not eq or key not in (
            "if",
            "of",
            "bs",
            "ibs",
            "obs",
            "count",
            "skip",
            "seek",
            "conv",
            "status",
            "iflag",
            "oflag",
        ):
            raise _UsageError(f"unrecognized operand {quote_always(arg)}")
        ops[key] = value
    bs = _size(ops.get("bs") or ops.get("ibs") or "512")
    count = _size(ops["count"]) if "count" in ops else None
    skip = _size(ops.get("skip", "0")) * bs
    wanted = None if count is None else skip + count * bs
    if wanted is not None:
        reserve(wanted)
    try:
        data = p.read(ops.get("if", "-"), wanted).encode("utf-8", "surrogateescape")
    except FsError as exc:
        p.err(f"failed to open {quote_always(ops.get('if', '-'))}: {exc.strerror}")
        return 1
    data = data[skip:]
    if count is not None:
        data = data[: count * bs]
    full, part = divmod(len(data), bs)
    if "of" in ops:
        path = p.path(ops["of"])
        seek = _size(ops.get("seek", "0")) * bs
        try:
            old = b""
            if seek or "notrunc" in ops.get("conv", ""):
                try:
                    held = p.fs.read(path)
                    old = held if isinstance(held, bytes) else held.encode("utf-8", "surrogateescape")
                except FsError:
                    old = b""
            new = old[:seek].ljust(seek, b"\x00") + data
            if "notrunc" in ops.get("conv", ""):
                new += old[len(new) :]
            if path not in ("/dev/null", "/dev/zero"):
                p.fs.write(path, content_of(new))
        except FsError as exc:
            p.err(f"failed to open {quote_always(ops['of'])}: {exc.strerror}")
            return 1
    else:
        p.out(data.decode("utf-8", "surrogateescape"))
    status = ops.get("status", "")
    records = f"{full}+{1 if part else 0}"
    if status != "none":
        p.ctx.err.write(f"{records} records in\n{records} records out\n")
    if status not in ("none", "noxfer"):
        n = len(data)
        size = f"{n} bytes"
        if n >= 1000:
            size += f" ({_scaled(n, 1000, 'kMGT', '.1f')}B, {_scaled(n, 1024, 'KMGT', '.1f')}iB)"
        p.ctx.err.write(f"{size} copied, {_SECONDS:g} s, {_scaled(n / _SECONDS, 1000, 'kMGT', '.3g')}B/s\n")
    return 0


def _scaled(n: float, base: int, units: str, spec: str) -> str:
    """``n`` in the largest unit below it (``2.1 M``), as dd prints sizes and rates."""
    unit = ""
    for u in units:
        if n < base:
            break
        n /= base
        unit = u
    return f"{n:{spec}} {unit}"


@applet("nohup")
@delegating
def _u_nohup(p: _Proc) -> int:
    if not p.args:
        raise _UsageError("missing operand", status=125)
    ctx = p.ctx
    if ctx.out.tty:  # output that would go to a terminal goes to nohup.out
        from ..proc import _FileSink

        p.ctx.err.write("nohup: ignoring input and appending output to 'nohup.out'\n")
        ctx = ctx.with_(out=_FileSink(p.fs, p.path("nohup.out")))
        if not p.fs.exists(p.path("nohup.out")):
            p.fs.write(p.path("nohup.out"), "")
    return p.vm._invoke(list(p.args), ctx)
