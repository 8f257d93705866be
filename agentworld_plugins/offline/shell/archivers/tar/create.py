"""tar -c: a GNU-format archive of virtual files, the same bytes from the same tree every time."""

from __future__ import annotations

import io
import posixpath
import tarfile
import time
from typing import TYPE_CHECKING

from ....vfs import DirNode, FileNode, FsError, LinkNode, Node, mode_string
from ...compression import as_stream, bytes_of, compress, excluded
from ...dates import parse_date
from ...limits import current
from ...quoting import locale_quote
from .options import TarFatal, TarUsage

if TYPE_CHECKING:
    from ...proc import _Proc
    from .options import TarOptions

#: archive suffixes ``-a`` compresses by
_SUFFIXES = (
    (".tar.gz", "gzip"), (".tgz", "gzip"), (".taz", "gzip"), (".tar.bz2", "bzip2"), (".tbz", "bzip2"),
    (".tbz2", "bzip2"), (".tz2", "bzip2"), (".tar.xz", "xz"), (".txz", "xz"),
)  # fmt: skip


def shown(m: tarfile.TarInfo) -> str:
    return m.name + "/" if m.isdir() and not m.name.endswith("/") else m.name


def long_line(m: tarfile.TarInfo, width: list[int], numeric: bool) -> str:
    kind = {tarfile.DIRTYPE: "d", tarfile.SYMTYPE: "l", tarfile.LNKTYPE: "h", tarfile.CHRTYPE: "c",
            tarfile.BLKTYPE: "b", tarfile.FIFOTYPE: "p"}.get(m.type, "-")  # fmt: skip
    modes = kind + mode_string(DirNode(m.mode, 0))[1:]
    user = str(m.uid) if numeric or not m.uname else m.uname
    group = str(m.gid) if numeric or not m.gname else m.gname
    size = (
        f"{m.devmajor},{m.devminor}"
        if m.ischr() or m.isblk()
        else str(0 if m.issym() or m.islnk() else m.size)
    )
    pad = len(user) + len(group) + 2 + len(size)
    width[0] = max(width[0], pad)
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(m.mtime))
    line = f"{modes} {user}/{group} {size:>{width[0] - len(user) - len(group) - 2}} {when} {shown(m)}"
    if m.issym():
        line += f" -> {m.linkname}"
    elif m.islnk():
        line += f" link to {m.linkname}"
    return line


def _forced_mtime(p: _Proc, o: TarOptions) -> int | None:
    """The time ``--mtime`` gives: a date, or the mtime of the file it names (``/...``, ``./...``)."""
    if o.mtime is None:
        return None
    if o.mtime.startswith(("/", ".")):
        try:
            return p.fs.stat(p.path(o.mtime)).mtime
        except FsError as exc:
            p.err(f"{o.mtime}: Cannot stat: {exc.strerror}")
            raise TarFatal() from None
    when = parse_date(o.mtime, p.fs.now())
    if when is None:
        p.err(f"Substituting -9223372036854775807 for unknown date format {locale_quote(o.mtime)}")
        return 0  # GNU tar's is the least time_t, which no listing shows sensibly
    return when


def _method(o: TarOptions) -> str | None:
    if o.auto and o.archive != "-":
        for suffix, method in _SUFFIXES:
            if o.archive.endswith(suffix):
                return method
    return o.compress


class _Writer:
    def __init__(self, p: _Proc, o: TarOptions, archive_path: str | None) -> None:
        self.p = p
        self.o = o
        self.archive_path = archive_path
        self.buffer = io.BytesIO()
        self.tar = tarfile.open(  # noqa: SIM115 (closed by finish)
            fileobj=self.buffer,
            mode="w",
            format=tarfile.GNU_FORMAT,
            encoding="utf-8",
            errors="surrogateescape",
        )
        self.failed = False
        self.stripped: set[str] = set()
        self.listing = p.ctx.err if o.archive == "-" else p.ctx.out
        self.width = [19]
        self.mtime = _forced_mtime(p, o)

    def _member_name(self, name: str) -> str:
        if self.o.absolute:
            return name
        for lead in ("/", "../"):
            if name.startswith(lead):
                while name.startswith(lead):
                    name = name[len(lead) :]
                if lead not in self.stripped:
                    self.stripped.add(lead)
                    self.p.err(f"Removing leading `{lead}' from member names")
        return name

    def add(self, cwd: str | None, operand: str) -> None:
        base = self.p.path(cwd) if cwd is not None else self.p.vm.cwd
        path = self.p.fs.normalize(operand, base)
        try:
            node = self.p.fs.stat(path, follow=self.o.dereference)
        except FsError as exc:
            self.p.err(f"{operand}: Cannot stat: {exc.strerror}")
            self.failed = True
            return
        name = operand if operand in ("/", ".") else operand.rstrip("/")
        self._entry(path, self._member_name(name), node)

    def _entry(self, path: str, name: str, node: Node) -> None:
        current().spend(16)
        if self.o.excludes and excluded(name, self.o.excludes):
            return
        if path == self.archive_path:  # through a compressor, tar does not know it: silently
            if not _method(self.o):
                self.p.err(f"{name}: file is the archive; not dumped")
            return
        info = tarfile.TarInfo(name or ".")
        info.mode = node.mode & 0o7777
        info.mtime = node.mtime if self.mtime is None else self.mtime
        info.uname = self.o.owner or "root"
        info.gname = self.o.group or "root"
        data = b""
        if isinstance(node, DirNode):
            info.type = tarfile.DIRTYPE
        elif isinstance(node, LinkNode):
            info.type = tarfile.SYMTYPE
            info.linkname = node.target
        else:
            assert isinstance(node, FileNode)
            content = node.content
            data = bytes_of(content)
            info.size = len(data)
        current().hold(len(data) + 512)
        current().reserve(self.buffer.tell() + len(data) + 1024)  # the archive as it grows
        self.tar.addfile(info, io.BytesIO(data) if data else None)
        shown = info.name + ("/" if info.isdir() and not info.name.endswith("/") else "")
        if self.o.verbose:
            if self.o.verbose > 1:
                self.listing.write(long_line(info, self.width, self.o.numeric) + "\n")
            else:
                self.listing.write(shown + "\n")
        if isinstance(node, DirNode) and self.o.recursion:
            prefix = name if name.endswith("/") or not name else name + "/"
            for child in sorted(node.children):
                child_path = posixpath.join(path, child)
                try:
                    child_node = self.p.fs.stat(child_path, follow=self.o.dereference)
                except FsError:
                    continue
                self._entry(child_path, prefix + child, child_node)

    def finish(self) -> bytes:
        self.tar.close()
        return self.buffer.getvalue()


def create(p: _Proc, o: TarOptions) -> bool:
    """Write the archive; True where some operand failed (GNU tar's status 2)."""
    names = list(o.names)
    for listing in o.files_from:
        try:
            text = p.read(listing)
        except FsError as exc:
            p.err(f"{listing}: Cannot open: {exc.strerror}")
            raise TarFatal() from None
        names.extend((o.directory, line) for line in text.splitlines() if line)
    if not names:
        raise TarUsage("Cowardly refusing to create an empty archive")
    archive_path = None
    if o.archive == "-":
        if p.ctx.out.tty:
            p.err("Refusing to write archive contents to terminal (missing -f option?)")
            raise TarFatal()
    else:
        archive_path = p.path(o.archive)
        try:
            p.fs.write(archive_path, "")
        except FsError as exc:
            cannot_open(p, o, exc.strerror, _method(o))
            raise TarFatal() from None
    writer = _Writer(p, o, archive_path)
    for cwd, operand in names:
        writer.add(cwd, operand)
    late = _late_options(p, o)  # said after the walk, as GNU tar says it
    data = writer.finish()
    method = _method(o)
    if method:
        data = compress(data, method)
    current().charge(len(data))
    if archive_path is None:
        p.out(as_stream(data))
    else:
        p.fs.write(archive_path, data)
    return writer.failed or late


def cannot_open(p: _Proc, o: TarOptions, reason: str, method: str | None = None) -> None:
    """The archive cannot be opened: said by tar, or, through a compressor, by tar's child."""
    if method or o.compress:
        p.ctx.err.write(f"tar (child): {o.archive}: Cannot open: {reason}\n"
                        "tar (child): Error is not recoverable: exiting now\n")  # fmt: skip
        p.err("Child returned status 2")
    else:
        p.err(f"{o.archive}: Cannot open: {reason}")


def _late_options(p: _Proc, o: TarOptions) -> bool:
    """GNU tar's complaint about ``--exclude`` after the operands (it applies to none of them)."""
    if not o.late_excludes:
        return False
    p.err("The following options were used after any non-optional arguments in archive create or update "
          "mode.  These options are positional and affect only arguments that follow them.  Please, "
          "rearrange them properly.")  # fmt: skip
    for pattern in o.late_excludes:
        p.err(f"--exclude {locale_quote(pattern)} has no effect")
    return True
