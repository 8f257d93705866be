"""tar: GNU tar's create (``c``), list (``t``) and extract (``x``) over the virtual files.

Archives are GNU-format tar (Python's :mod:`tarfile` writes and reads the headers, over
``io.BytesIO`` of the VFS's bytes), compressed with ``-z``/``-j``/``-J`` or, with ``-a``, by the
archive's suffix; reading detects the compression by its magic, as GNU tar does. Directories are
walked in sorted order (a real tar follows the filesystem's order). Owners are ``root/root``
(uid 0), as the offline machine's user; mtimes are the VFS's. What tar offers beyond this
(``-r``, ``-u``, ``--delete``, ``-d``, incremental archives, ...) answers as not simulated.
"""

from __future__ import annotations

import fnmatch
import io
import posixpath
import tarfile
from typing import TYPE_CHECKING

from ....vfs import DirNode, FsError, LinkNode
from ...compression import (
    BZIP2_MAGIC,
    Corrupt,
    as_bytes,
    as_stream,
    bytes_of,
    decompress_any,
    excluded,
    stored,
)
from ...limits import current
from ...registry import applet
from .create import cannot_open, create, long_line, shown
from .options import VERSION, NotSimulated, TarFatal, TarOptions, TarUsage, TarVersion, parse

if TYPE_CHECKING:
    from ...proc import _Proc

_HINT = "Try 'tar --help' or 'tar --usage' for more information."
_FAILED = "Exiting with failure status due to previous errors"
_FATAL = "Error is not recoverable: exiting now"
#: the status each filter exits with when its input is not its format
_CHILD_STATUS = {"gzip": 1, "bzip2": 2, "xz": 1}
_FILTERS = {
    "gzip": "\ngzip: stdin: not in gzip format",
    "bzip2": "bzip2: (stdin) is not a bzip2 file.",
    "xz": "xz: (stdin): File format not recognized",
}


@applet("tar")
def _u_tar(p: _Proc) -> int:
    try:
        o = parse(p.args)
        if o.function is None:
            raise TarUsage("You must specify one of the '-Acdtrux', '--delete' or '--test-label' options")
        _read_exclude_files(p, o)
        failed = create(p, o) if o.function == "c" else _read(p, o)
    except NotSimulated:
        return p.not_simulated()
    except TarVersion:
        p.out(VERSION)
        return 0
    except TarUsage as exc:
        p.err(exc.message)
        if exc.hint:
            p.ctx.err.write(_HINT + "\n")
        return 2
    except TarFatal:
        p.err(_FATAL)
        return 2
    if failed:
        p.err(_FAILED)
        return 2
    return 0


def _read_exclude_files(p: _Proc, o: TarOptions) -> None:
    """The patterns of ``-X FILE`` / ``--exclude-from``, one a line, added to ``--exclude``'s."""
    for name in o.exclude_files:
        try:
            o.excludes.extend(line for line in p.read(name).splitlines() if line)
        except FsError as exc:
            p.err(f"{name}: {exc.strerror}")
            raise TarFatal() from None


class _NotTar(Exception):
    pass


def _archive_bytes(p: _Proc, o: TarOptions) -> bytes:
    if o.archive == "-":
        return as_bytes(p.stdin())
    try:
        return _file_bytes(p, o.archive)
    except FsError as exc:
        cannot_open(p, o, exc.strerror)
        raise TarFatal() from None


def _file_bytes(p: _Proc, name: str) -> bytes:
    data = p.fs.read(p.path(name))
    return bytes_of(data)


def _members(p: _Proc, o: TarOptions) -> tuple[list[tarfile.TarInfo], tarfile.TarFile, bool]:
    """The archive's members (and whether it ended early): decompressed in bounded chunks."""
    raw = _archive_bytes(p, o)
    damaged = False
    try:
        plain, found = decompress_any(raw)
    except Corrupt as exc:  # the filter's message; tar then reads what came before the damage
        p.ctx.err.write(exc.message + "\n")
        if not exc.partial:
            p.err(f"Child returned status {2 if raw.startswith(BZIP2_MAGIC) else 1}")
            raise TarFatal() from None
        plain, found, damaged = exc.partial, None, True
    if o.compress and found != o.compress and not damaged:
        p.ctx.err.write(_FILTERS[o.compress] + "\n")
        p.err(f"Child returned status {_CHILD_STATUS[o.compress]}")
        raise TarFatal()
    current().spend(1 + len(plain) // 4096)
    try:
        tf = tarfile.open(fileobj=io.BytesIO(plain), mode="r:")  # noqa: SIM115 (held while extracting)
    except tarfile.ReadError:
        if damaged:
            return [], tarfile.open(fileobj=io.BytesIO(bytes(1024)), mode="r:"), True
        p.err("This does not look like a tar archive")
        if len(plain) >= 512:
            p.err("Skipping to next header")
        raise _NotTar() from None
    members: list[tarfile.TarInfo] = []
    while True:  # one at a time: the members before a truncation are listed, as tar lists them
        try:
            member = tf.next()
        except tarfile.ReadError:
            return members, tf, True
        if member is None:
            break
        members.append(member)
    short = damaged or (bool(members) and members[-1].offset_data + members[-1].size > len(plain))
    return members, tf, short


def _select(o: TarOptions, members: list[tarfile.TarInfo]) -> tuple[list[tarfile.TarInfo], list[str]]:
    """The members the operands name (all, without operands), and the operands none matched."""
    if o.excludes:
        members = [m for m in members if not excluded(m.name, o.excludes)]
    wanted = [n for _, n in o.names]
    if not wanted:
        return members, []
    hit: set[str] = set()
    chosen = []
    for m in members:
        name = m.name.rstrip("/")
        for w in wanted:
            stem = w.rstrip("/") or w
            if (
                name == stem
                or name.startswith(stem + "/")
                or (o.wildcards and fnmatch.fnmatchcase(name, stem))
            ):
                hit.add(w)
                chosen.append(m)
                break
    return chosen, [w for w in wanted if w not in hit]


def _read(p: _Proc, o: TarOptions) -> bool:
    base = p.vm.cwd
    if o.directory is not None and o.function == "x":
        base = p.path(o.directory)
        if not p.fs.is_dir(base):
            p.err(
                f"{o.directory}: Cannot open: {'Not a directory' if p.fs.exists(base) else 'No such file or directory'}"
            )
            raise TarFatal()
    try:
        members, tf, short = _members(p, o)
    except _NotTar:
        return True
    chosen, missing = _select(o, members)
    out = p.ctx.out
    failed = False
    width = [19]
    if o.function == "t":
        if not o.absolute and any(m.name.startswith("/") for m in chosen):
            p.err("Removing leading `/' from member names")  # said, though the listing shows them
        for m in chosen:
            current().spend(4)
            out.write((long_line(m, width, o.numeric) if o.verbose else shown(m)) + "\n")
    else:
        failed = _Extractor(p, o, tf, base).run(chosen)
    if short:
        p.err("Unexpected EOF in archive")
        raise TarFatal()
    for name in missing:
        p.err(f"{name}: Not found in archive")
    return failed or bool(missing)


class _Extractor:
    """Members written into the VFS: files, directories (their modes and mtimes set last),
    symbolic and hard links."""

    def __init__(self, p: _Proc, o: TarOptions, tf: tarfile.TarFile, base: str) -> None:
        self.p = p
        self.o = o
        self.tf = tf
        self.base = base
        self.fs = p.fs
        self.failed = False
        self.dirs: list[tuple[str, tarfile.TarInfo]] = []
        self.warned_abs = False
        self.width = [19]

    def _name(self, m: tarfile.TarInfo) -> str | None:
        name = m.name
        if name.startswith("/") and not self.o.absolute:
            if not self.warned_abs:
                self.p.err("Removing leading `/' from member names")
                self.warned_abs = True
            name = name.lstrip("/")
        parts = [part for part in name.split("/") if part]
        if self.o.strip:  # "." counts as a component, as GNU tar counts it
            if len(parts) <= self.o.strip:
                return None
            parts = parts[self.o.strip :]
        parts = [part for part in parts if part != "."]
        if ".." in parts:
            self.p.err(f"{shown(m)}: Member name contains '..'")
            self.failed = True
            return None
        lead = "/" if self.o.absolute and name.startswith("/") else ""
        return lead + "/".join(parts) if parts else "."

    def run(self, members: list[tarfile.TarInfo]) -> bool:
        for m in members:
            current().spend(8)
            name = self._name(m)
            if name is None:
                continue
            if self.o.verbose:  # with -O the listing goes to stderr, the data to stdout
                (self.p.ctx.err if self.o.to_stdout else self.p.ctx.out).write(
                    long_line(m, self.width, self.o.numeric) + "\n" if self.o.verbose > 1 else shown(m) + "\n"
                )
            if self.o.to_stdout:
                if m.isfile():
                    self.p.out(as_stream(self._data(m)))
                continue
            self._one(m, name)
        for path, m in reversed(self.dirs):
            self.fs.chmod(path, m.mode)
            if not self.o.touch:
                self.fs.set_mtime(path, int(m.mtime))
        return self.failed

    def _data(self, m: tarfile.TarInfo) -> bytes:
        f = self.tf.extractfile(m)
        try:
            return f.read() if f is not None else b""
        except (tarfile.ReadError, OSError):  # cut short: what there is, and tar's word (again at the end)
            self.p.err("Unexpected EOF in archive")
            buffer = self.tf.fileobj
            return buffer.getvalue()[m.offset_data :] if isinstance(buffer, io.BytesIO) else b""

    def _one(self, m: tarfile.TarInfo, name: str) -> None:
        path = self.fs.normalize(name, self.base)
        try:
            self.fs.mkdir(posixpath.dirname(path), parents=True)
            existing = self.fs._probe(path, follow=False)
            if m.isdir():
                if not isinstance(existing, DirNode):
                    if existing is not None:
                        self.fs.remove(path)
                    self.fs.mkdir(path)
                self.dirs.append((path, m))
                return
            if existing is not None:
                if self.o.skip_old:
                    return
                if self.o.keep_old:
                    self.p.err(f"{name}: Cannot open: File exists")
                    self.failed = True
                    return
                if isinstance(existing, DirNode):
                    self.fs.rmdir(path)
                else:
                    self.fs.remove(path)
            if m.issym():
                self.fs.symlink(m.linkname, path)
            elif m.islnk():
                self._hard_link(m, path)
            elif m.isfile():
                data = self._data(m)
                current().charge(len(data))
                self.fs.write(path, stored(data))
            else:
                self.p.unknown()  # devices and fifos: not made in the virtual filesystem
                return
        except FsError as exc:
            self.p.err(f"{name}: Cannot open: {exc.strerror}")
            self.failed = True
            return
        node = self.fs.lstat(path)
        if not isinstance(node, LinkNode):
            node.mode = m.mode & 0o7777
        if not self.o.touch:
            node.mtime = int(m.mtime)

    def _hard_link(self, m: tarfile.TarInfo, path: str) -> None:
        target = self._name(tarfile.TarInfo(m.linkname)) or m.linkname
        source = self.fs.normalize(target, self.base)
        try:
            content = self.fs.read(source)
        except FsError as exc:
            self.p.err(f"{m.name}: Cannot hard link to '{m.linkname}': {exc.strerror}")
            self.failed = True
            return
        self.fs.write(path, content)
