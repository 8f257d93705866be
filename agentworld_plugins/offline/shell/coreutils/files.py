"""split, truncate, install, mktemp, nproc and setsid."""

from __future__ import annotations

import posixpath
import re
import string
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError, content_of
from ..applet_io import lines_with_ends
from ..constants import NPROC
from ..errors import _UsageError
from ..getopt import _getopt, _last
from ..limits import current
from ..pipes import delegating
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_SIZE_UNITS = {"": 1, "K": 1024, "KB": 1000, "KiB": 1024, "M": 1 << 20, "MB": 10**6, "MiB": 1 << 20,
               "G": 1 << 30, "GB": 10**9, "GiB": 1 << 30, "T": 1 << 40, "TB": 10**12, "b": 512}  # fmt: skip


def _size_value(text: str) -> int | None:
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", text)
    if not m or m.group(2) not in _SIZE_UNITS:
        return None
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


def _suffix(k: int, length: int, numeric: bool) -> str | None:
    alphabet = string.digits if numeric else string.ascii_lowercase
    base = len(alphabet)
    if k >= base**length:
        return None
    out = []
    for _ in range(length):
        out.append(alphabet[k % base])
        k //= base
    return "".join(reversed(out))


@applet("split")
def _u_split(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "l:b:n:a:dx",
        {"lines=": "l", "bytes=": "b", "number=": "n", "suffix-length=": "a", "numeric-suffixes": "d",
         "hex-suffixes": "x", "additional-suffix=": "S", "verbose": "v"},
    )  # fmt: skip
    if len(operands) > 2:
        raise _UsageError(f"extra operand {quote_always(operands[2])}")
    name = operands[0] if operands else "-"
    prefix = operands[1] if len(operands) > 1 else "x"
    if "n" in opts and name == "-":
        p.err("-: cannot determine file size")
        return 1
    try:
        text = p.read(name)
    except FsError as exc:
        p.err(f"cannot open {quote_always(name)} for reading: {exc.strerror}")
        return 1
    pieces: list[str] = []
    if "b" in opts:
        size = _size_value(_last(opts, "b") or "")
        if not size:
            p.err(f"invalid number of bytes: {quote_always(_last(opts, 'b') or '')}")
            return 1
        pieces = [text[k : k + size] for k in range(0, len(text), size)]
    elif "n" in opts:
        raw = _last(opts, "n") or ""
        if not raw.isdigit() or int(raw) < 1:
            p.err(f"invalid number of chunks: {quote_always(raw)}")
            return 1
        chunks = int(raw)
        step = len(text) // chunks
        pieces = [text[k * step : (k + 1) * step if k < chunks - 1 else len(text)] for k in range(chunks)]
    else:
        raw = _last(opts, "l", "1000") or "1000"
        if not raw.isdigit() or int(raw) < 1:
            p.err(f"invalid number of lines: {quote_always(raw)}")
            return 1
        count = int(raw)
        lines = lines_with_ends(text)
        pieces = ["".join(lines[k : k + count]) for k in range(0, len(lines), count)]
    length = int(_last(opts, "a", "2") or "2")
    extra = _last(opts, "S", "") or ""
    current().spend(1 + len(pieces) * 8 + len(text) // 16)
    for k, piece in enumerate(pieces):
        suffix = _suffix(k, length, "d" in opts)
        if suffix is None:
            p.err("output file suffixes exhausted")
            return 1
        target = prefix + suffix + extra
        if "v" in opts:
            p.out(f"creating file {quote_always(target)}\n")
        try:
            p.fs.write(p.path(target), piece)
        except FsError as exc:
            p.err(f"{quote_always(target)}: {exc.strerror}")
            return 1
    return 0


@applet("truncate")
def _u_truncate(p: _Proc) -> int:
    opts, files = _getopt(
        p.args, "cs:r:o", {"no-create": "c", "size=": "s", "reference=": "r", "io-blocks": "o"}
    )
    if "s" not in opts and "r" not in opts:
        raise _UsageError("you must specify either \u2018--size\u2019 or \u2018--reference\u2019")
    if not files:
        raise _UsageError("missing file operand")
    spec = _last(opts, "s") or ""
    op = spec[0] if spec[:1] in ("+", "-", "<", ">", "/", "%") else ""
    wanted = None
    if "r" in opts:
        node = p.node(_last(opts, "r") or "", "cannot stat {}: {}")
        if node is None:
            return 1
        wanted = len(getattr(node, "content", b""))
    else:
        wanted = _size_value(spec[len(op) :])
        if wanted is None:
            p.err(f"Invalid number: {quote_always(spec)}")
            return 1
    status = 0
    for name in files:
        path = p.path(name)
        if not p.fs.exists(path):
            if "c" in opts:
                continue
            try:
                p.fs.write(path, "")
            except FsError as exc:
                p.err(f"cannot open {quote_always(name)} for writing: {exc.strerror}")
                status = 1
                continue
        if p.fs.is_dir(path):
            p.err(f"cannot open {quote_always(name)} for writing: Is a directory")
            status = 1
            continue
        data = p.fs.read(path)
        old = len(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        new = {
            "+": old + wanted,
            "-": max(0, old - wanted),
            "<": min(old, wanted),
            ">": max(old, wanted),
            "/": old // wanted * wanted if wanted else old,
            "%": -(-old // wanted) * wanted if wanted else old,
        }.get(op, wanted)
        current().reserve(new)
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        body = raw[:new] + b"\0" * (new - len(raw)) if new > len(raw) else raw[:new]
        p.fs.write(path, content_of(body))
    return status


@applet("install")
def _u_install(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "dDm:t:vCcpso:g:",
        {"directory": "d", "mode=": "m", "target-directory=": "t", "verbose": "v", "owner=": "o", "group=": "g",
         "compare": "C", "preserve-timestamps": "p", "strip": "s"},
    )  # fmt: skip
    raw_mode = _last(opts, "m", "755") or "755"
    if not re.fullmatch(r"[0-7]{1,4}", raw_mode):
        p.err(f"invalid mode {quote_always(raw_mode)}")
        return 1
    mode = int(raw_mode, 8)
    if "d" in opts:
        if not operands:
            raise _UsageError("missing file operand")
        for name in operands:
            try:
                p.fs.mkdir(p.path(name), parents=True)
                p.fs.chmod(p.path(name), mode)
            except FsError as exc:
                p.err(f"cannot create directory {quote_always(name)}: {exc.strerror}")
                return 1
        return 0
    target_dir = _last(opts, "t")
    if target_dir is None:
        if len(operands) < 2:
            raise _UsageError(
                f"missing destination file operand after {quote_always(operands[0])}"
                if operands
                else "missing file operand"
            )
        sources, dest = operands[:-1], operands[-1]
    else:
        sources, dest = operands, target_dir
    dest_path = p.path(dest)
    into_dir = target_dir is not None or len(sources) > 1 or p.fs.is_dir(dest_path)
    if "D" in opts:
        p.fs.mkdir(dest_path if into_dir else posixpath.dirname(dest_path), parents=True)
    if len(sources) > 1 and not p.fs.is_dir(dest_path):
        p.err(f"target {quote_always(dest)} is not a directory")
        return 1
    status = 0
    for src in sources:
        node = p.node(src, "cannot stat {}: {}")
        if node is None:
            status = 1
            continue
        if isinstance(node, DirNode):
            p.err(f"omitting directory {quote_always(src)}")
            status = 1
            continue
        target = posixpath.join(dest_path, posixpath.basename(src)) if into_dir else dest_path
        try:
            content = p.fs.read(p.path(src))
            current().charge(len(content))
            p.fs.write(target, content)
            p.fs.chmod(target, mode)
        except FsError as exc:
            p.err(f"cannot create regular file {quote_always(target)}: {exc.strerror}")
            status = 1
            continue
        if "v" in opts:
            p.out(
                f"{quote_always(src)} -> {quote_always(target if not into_dir else dest.rstrip('/') + '/' + posixpath.basename(src))}\n"
            )
    return status


@applet("mktemp")
def _u_mktemp(p: _Proc) -> int:
    opts, operands = _getopt(
        p.args,
        "dqtup:",
        {"directory": "d", "quiet": "q", "dry-run": "u", "tmpdir": "p", "suffix=": "S", "tmpdir=": "p"},
    )
    if len(operands) > 1:
        raise _UsageError("too many templates")
    template = operands[0] if operands else "tmp.XXXXXXXXXX"
    suffix = _last(opts, "S", "") or ""
    m = re.search(r"X*$", template)
    assert m is not None
    xs = len(m.group(0))
    if xs < 3:
        p.err(f"too few X's in template {locale_quote(template)}")
        return 1
    tmpdir = p.vm.vars.get("TMPDIR") or "/tmp"
    base = _last(opts, "p")
    if not operands or "t" in opts or base is not None:
        folder = base or tmpdir
        if "/" in template and (not operands or "t" in opts):
            p.err(f"invalid template, {locale_quote(template)}, contains directory separator")
            return 1
        template = posixpath.join(folder, template)
    rng = p.vm.device_random()
    alphabet = string.ascii_letters + string.digits
    for _ in range(100):
        name = template[: len(template) - xs] + "".join(rng.choice(alphabet) for _ in range(xs)) + suffix
        path = p.path(name)
        if not p.fs.lexists(path):
            break
    else:
        p.err(f"failed to create file via template {locale_quote(template)}: File exists")
        return 1
    if "u" not in opts:
        try:
            if "d" in opts:
                p.fs.mkdir(path)
                p.fs.chmod(path, 0o700)
            else:
                p.fs.write(path, "")
                p.fs.chmod(path, 0o600)
        except FsError as exc:
            if "q" not in opts:
                what = "directory" if "d" in opts else "file"
                p.err(f"failed to create {what} via template {locale_quote(template)}: {exc.strerror}")
            return 1
    p.out(name + "\n")
    return 0


@applet("nproc")
def _u_nproc(p: _Proc) -> int:
    opts, operands = _getopt(p.args, "", {"all": "a", "ignore=": "i"})
    if operands:
        raise _UsageError(f"extra operand {quote_always(operands[0])}")
    ignore = int(_last(opts, "i", "0") or "0")
    p.out(f"{max(1, NPROC - ignore) if 'a' not in opts else NPROC}\n")
    return 0


@applet("setsid")
@delegating
def _u_setsid(p: _Proc) -> int:
    args = list(p.args)
    while args and args[0] in ("-f", "--fork", "-w", "--wait", "-c", "--ctty"):
        args.pop(0)
    if not args:
        p.ctx.err.write("setsid: no command specified\nTry 'setsid --help' for more information.\n")
        return 1
    return p.vm._invoke(args, p.ctx)
