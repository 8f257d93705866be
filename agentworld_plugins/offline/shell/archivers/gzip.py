"""gzip, gunzip and zcat: GNU gzip 1.12's compress, decompress, list and test over the virtual files.

The deflate stream is zlib's at the same level (memLevel 8), which is the stream GNU gzip writes
for text (binary input may come out a few bytes different); the header carries the file's name
and mtime, as gzip writes it (none and 0 from a pipe). The output file takes the input's mode and
mtime, as gzip and gunzip give it. Decompression is bounded (``codec``).
"""

from __future__ import annotations

import posixpath
import struct
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...vfs import DirNode, FileNode, FsError, LinkNode
from ..compression import (
    GZIP_MAGIC,
    Corrupt,
    as_bytes,
    as_stream,
    bytes_of,
    gzip_compress,
    gzip_header,
    gzip_member_count,
    gzip_members,
    stored,
)
from ..limits import current
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_LONG = {
    "stdout": "c", "to-stdout": "c", "decompress": "d", "uncompress": "d", "force": "f", "keep": "k",
    "list": "l", "recursive": "r", "test": "t", "verbose": "v", "quiet": "q", "silent": "q",
    "no-name": "n", "name": "N", "fast": "1", "best": "9", "suffix=": "S",
}  # fmt: skip
_FLAGS = set("cdfklrtvqnN123456789")
#: options gzip has that are not simulated
_UNSIMULATED = set("bhLZ") | {"rsyncable", "synchronous", "license", "help", "no-time"}
_FSF = (
    "This is free software.  You may redistribute copies of it under the terms of\n"
    "the GNU General Public License <https://www.gnu.org/licenses/gpl.html>.\n"
    "There is NO WARRANTY, to the extent permitted by law.\n\n"
)
#: ``--version`` of gzip 1.12 (Ubuntu 24.04's), and of its gunzip and zcat scripts
_VERSION = (
    "gzip 1.12\nCopyright (C) 2018 Free Software Foundation, Inc.\nCopyright (C) 1993 Jean-loup Gailly.\n"
    + _FSF
    + ("Written by Jean-loup Gailly.\n")
)
_SCRIPT_VERSION = (
    "{} (gzip) 1.12\nCopyright (C) 2007, 2011-2018 Free Software Foundation, Inc.\n"
    + _FSF
    + ("Written by Paul Eggert.\n")
)


class _Version(Exception):
    pass


_SUFFIXES = (".gz", "-gz", ".z", "-z", "_z", ".Z")


class _Unsimulated(Exception):
    pass


class _BadOption(Exception):
    pass


@dataclass
class _Opts:
    stdout: bool = False
    decompress: bool = False
    force: bool = False
    keep: bool = False
    list: bool = False
    recursive: bool = False
    test: bool = False
    verbose: bool = False
    quiet: bool = False
    level: int = 6
    suffix: str = ".gz"
    #: -N / -n: save (compressing) or restore (decompressing) the name and mtime; None: the default
    name: bool | None = None


def _parse(args: list[str], o: _Opts) -> list[str]:
    names: list[str] = []
    flags: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            names.extend(args[i:])
            break
        if a.startswith("--"):
            key, eq, value = a[2:].partition("=")
            if key and "version".startswith(key) and len(key) >= 2:
                raise _Version()
            if key in _UNSIMULATED:
                raise _Unsimulated()
            matches = [k for k in _LONG if k.rstrip("=") == key] or [k for k in _LONG if k.startswith(key)]
            if not matches:
                raise _BadOption(f"unrecognized option '{a}'")
            if matches[0].endswith("="):
                if not eq:
                    if i >= len(args):
                        raise _BadOption(f"option '--{matches[0][:-1]}' requires an argument")
                    value = args[i]
                    i += 1
                o.suffix = value
            else:
                flags.append(_LONG[matches[0]])
        elif a.startswith("-") and a != "-":
            j = 1
            while j < len(a):
                c = a[j]
                j += 1
                if c == "S":
                    value = a[j:] or (args[i] if i < len(args) else "")
                    if not a[j:]:
                        if i >= len(args):
                            raise _BadOption("option requires an argument -- 'S'")
                        i += 1
                    o.suffix = value
                    break
                if c == "V":
                    raise _Version()
                if c in _UNSIMULATED:
                    raise _Unsimulated()
                if c not in _FLAGS:
                    raise _BadOption(f"invalid option -- '{c}'")
                flags.append(c)
        else:
            names.append(a)
    for c in flags:
        if c.isdigit():
            o.level = int(c)
        elif c in "nN":
            o.name = c == "N"
        elif c in "cdfklrtvq":
            attr = {"c": "stdout", "d": "decompress", "f": "force", "k": "keep", "l": "list", "r": "recursive",
                    "t": "test", "v": "verbose", "q": "quiet"}[c]  # fmt: skip
            setattr(o, attr, True)
            if c == "q":
                o.verbose = False
    return names


@applet("gzip", "gunzip", "zcat")
def _u_gzip(p: _Proc) -> int:
    o = _Opts(decompress=p.name in ("gunzip", "zcat"), stdout=p.name == "zcat")
    try:
        names = _parse(p.args, o)
    except _Unsimulated:
        return p.not_simulated()
    except _Version:
        p.out(_VERSION if p.name == "gzip" else _SCRIPT_VERSION.format(p.name))
        return 0
    except _BadOption as exc:
        p.ctx.err.write(f"gzip: {exc}\nTry `gzip --help' for more information.\n")
        return 1
    if o.test or o.list:
        o.decompress = True
    return _Gzip(p, o).run(names or ["-"])


def _ratio(saved: int, size: int) -> str:
    return f"{100.0 * saved / size if size else 0.0:5.1f}%"


class _Gzip:
    def __init__(self, p: _Proc, o: _Opts) -> None:
        self.p = p
        self.o = o
        self.status = 0
        self.totals = [0, 0]
        self.listed = 0
        self.overhead = 0

    def say(self, message: str) -> None:
        self.p.ctx.err.write(f"gzip: {message}\n")

    def fail(self, message: str, status: int = 1) -> None:
        """An error (status 1) or a warning (2, unless an error came before; 0: only said)."""
        if status == 1 or not self.o.quiet:
            self.say(message)
        if status == 1 or (status == 2 and self.status == 0):
            self.status = status

    def run(self, names: list[str]) -> int:
        for name in names:
            current().spend(8)
            if name == "-":
                self._stdin()
            else:
                self._operand(name, top=True)
        if self.o.list and self.listed > 1:
            c, u = self.totals  # gzip's ratio of the totals leaves out the last file's header only
            lead = " " * 28 if self.o.verbose else ""
            self.p.out(f"{lead}{c:19d} {u:19d} {_ratio(u - (c - self.overhead), u)} (totals)\n")
        return self.status

    def _stdin(self) -> None:
        data = as_bytes(self.p.stdin())
        if not self.o.decompress:
            if self.p.ctx.out.tty and not self.o.force:
                self.p.ctx.err.write("gzip: compressed data not written to a terminal. Use -f to force compression.\n"
                                     "For help, type: gzip -h\n")  # fmt: skip
                self.status = 1
                return
            self.p.out(as_stream(gzip_compress(data, None, 0, self.o.level)))
            return
        self.o.stdout = True
        self._inflate("stdin", data)

    def _operand(self, name: str, top: bool) -> None:
        fs = self.p.fs
        path = self.p.path(name)
        node = fs._probe(path, follow=False)
        if node is None and self.o.decompress and not name.endswith(self.o.suffix):
            node = fs._probe(path + self.o.suffix, follow=False)
            name, path = name + self.o.suffix, path + self.o.suffix
        if node is None:
            self.fail(f"{name}: No such file or directory")
            return
        if isinstance(node, LinkNode):
            if not (self.o.force or self.o.stdout):
                self.fail(f"{name}: Too many levels of symbolic links")
                return
            node = fs._probe(path)
            if node is None:
                self.fail(f"{name}: No such file or directory")
                return
        if isinstance(node, DirNode):
            if not self.o.recursive:
                self.fail(f"{name} is a directory -- ignored", 2)
                return
            for child in sorted(node.children):
                self._operand(posixpath.join(name, child), top=False)
            return
        assert isinstance(node, FileNode)
        data = bytes_of(node.content)
        if self.o.decompress:
            self._decompress(name, path, node, data, top)
        else:
            self._compress(name, path, node, data, top)

    def _compress(self, name: str, path: str, node: FileNode, data: bytes, top: bool) -> None:
        if name.endswith(self.o.suffix) and not (self.o.stdout or self.o.force):
            if top:
                self.fail(f"{name} already has {self.o.suffix} suffix -- unchanged", 0)
            return
        keep_name = self.o.name is not False
        stored_name = posixpath.basename(path) if keep_name else None
        packed = gzip_compress(data, stored_name, node.mtime if keep_name else 0, self.o.level)
        header = 18 + (len(stored_name.encode("utf-8", "surrogateescape")) + 1 if stored_name else 0)
        ratio = _ratio(len(data) - (len(packed) - header), len(data))
        if self.o.stdout:
            self.p.out(as_stream(packed))
            if self.o.verbose:
                self.p.ctx.err.write(f"{name}:\t{ratio} -- replaced with stdout\n")
            return
        if self._write(name + self.o.suffix, path + self.o.suffix, packed, node):
            if self.o.verbose:
                done = "created" if self.o.keep else "replaced with"
                self.p.ctx.err.write(f"{name}:\t{ratio} -- {done} {name + self.o.suffix}\n")
            if not self.o.keep:
                self.p.fs.remove(path)

    def _write(self, name: str, path: str, data: bytes, like: FileNode) -> bool:
        fs = self.p.fs
        if fs.lexists(path):
            if not self.o.force:
                self.say(f"{name} already exists;\tnot overwritten")  # even with -q
                if self.status == 0:
                    self.status = 2
                return False
            if fs.is_dir(path):
                self.fail(f"{name}: Is a directory")
                return False
            fs.remove(path)
        current().charge(len(data))
        try:
            fs.write(path, stored(data))
        except FsError as exc:
            self.fail(f"{name}: {exc.strerror}")
            return False
        out = fs.stat(path)
        out.mode = like.mode
        out.mtime = like.mtime
        return True

    def _inflate(self, name: str, data: bytes, mtime: int | None = None) -> bytes | None:
        if self.o.list:
            self._list(name, data, mtime)
            return None
        try:
            members, garbage = gzip_members(data)
        except Corrupt as exc:
            if self.o.stdout and not self.o.test:  # what came before the damage is written
                self.p.out(as_stream(exc.partial))
            self.p.ctx.err.write(f"\ngzip: {name}: {exc.message}\n")
            self.status = 1
            self.overhead = 0
            return None
        if self.o.test and self.o.verbose:
            self.p.ctx.err.write(f"{name}:\t OK\n")
        plain = b"".join(m.data for m in members)
        self.overhead = members[0].overhead if len(members) == 1 else 0
        if garbage:
            if not self.o.quiet:
                self.p.ctx.err.write("\n")
            self.fail(f"{name}: decompression OK, trailing garbage ignored", 2)
        if self.o.stdout and not self.o.test:
            self.p.out(as_stream(plain))
        return plain

    def _list(self, name: str, data: bytes, file_mtime: int | None) -> None:
        """One line of ``gzip -l`` (``-lv``: with method, crc and date), from the header and the
        trailer; the data is inflated only to count its members, nothing of it is kept."""
        try:
            if not data.startswith(GZIP_MAGIC):
                raise Corrupt("not in gzip format")
            _, mtime, start = gzip_header(data)
            if len(data) < start + 8:
                raise Corrupt("unexpected end of file")
        except Corrupt as exc:
            self.p.ctx.err.write(f"\ngzip: {name}: {exc.message}\n")
            self.status, self.overhead = 1, 0
            return
        self.overhead = start + 8 if gzip_member_count(data) == 1 else 0
        verbose = self.o.verbose
        if self.listed == 0:
            head = "method  crc     date  time  " if verbose else ""
            self.p.out(f"{head}         compressed        uncompressed  ratio uncompressed_name\n")
        self.listed += 1
        crc, size = struct.unpack("<II", data[-8:])
        shown = "stdout" if name == "stdin" else _strip_suffix(name, self.o.suffix) or name
        when = time.gmtime(mtime if file_mtime is None else file_mtime)  # the file's, as gzip -lv shows
        lead = f"defla {crc:08x} {time.strftime('%b %e %H:%M', when)} " if verbose else ""
        ratio = _ratio(size - (len(data) - self.overhead), size)
        self.p.out(f"{lead}{len(data):19d} {size:19d} {ratio} {shown}\n")
        self.totals[0] += len(data)
        self.totals[1] += size

    def _decompress(self, name: str, path: str, node: FileNode, data: bytes, top: bool) -> None:
        if self.o.stdout or self.o.test or self.o.list:
            self._inflate(name, data, node.mtime)
            return
        stem = _strip_suffix(name, self.o.suffix)
        if stem is None:
            if top:
                self.fail(f"{name}: unknown suffix -- ignored", 2)
            return
        plain = self._inflate(name, data)
        if plain is None:
            return
        target = path[: len(path) - len(name)] + stem
        like = node
        if self.o.name:  # -N: the name and mtime the header holds
            header_name, header_mtime, _ = gzip_header(data)
            if header_name:
                stem = posixpath.join(posixpath.dirname(name), posixpath.basename(header_name))
                target = posixpath.join(posixpath.dirname(path), posixpath.basename(header_name))
            if header_mtime:
                like = FileNode(node.mode, header_mtime)
        if self._write(stem, target, plain, like):
            if self.o.verbose:
                ratio = _ratio(len(plain) - (len(data) - self.overhead), len(plain))
                done = "created" if self.o.keep else "replaced with"
                self.p.ctx.err.write(f"{name}:\t{ratio} -- {done} {stem}\n")
            if not self.o.keep:
                self.p.fs.remove(path)


def _strip_suffix(name: str, suffix: str) -> str | None:
    for s in (suffix, *_SUFFIXES):
        if name.endswith(s) and len(name) > len(s) and not name.endswith("/" + s):
            return name[: -len(s)]
    for s, new in ((".tgz", ".tar"), (".taz", ".tar")):
        if name.endswith(s) and len(name) > len(s):
            return name[: -len(s)] + new
    return None
