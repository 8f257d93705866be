"""unzip: Info-ZIP UnZip 6.00's extract, ``-l``, ``-t``, ``-p``, ``-o``, ``-n``, ``-q``, ``-j``,
``-d DIR``, ``-x`` and member patterns over the virtual files (modes, mtimes and symbolic links
restored; members inflated in bounded chunks)."""

from __future__ import annotations

import fnmatch
import posixpath
import zipfile
from typing import TYPE_CHECKING

from ....vfs import DirNode, FsError
from ...compression import Corrupt, as_stream, bytes_of, stored
from ...limits import current
from ...registry import applet
from .archive import Archive, listed_time

if TYPE_CHECKING:
    from ...proc import _Proc

_FLAGS = set("lopnqjtvZ1")
_NO_DIR = (
    "  End-of-central-directory signature not found.  Either this file is not\n"
    "  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n"
    "  latter case the central directory and zipfile comment will be found on\n"
    "  the last disk(s) of this archive.\n"
)


def _parse(args: list[str]) -> tuple[dict[str, int], list[str], list[str], str | None] | None:
    opts: dict[str, int] = {}
    operands: list[str] = []
    excludes: list[str] = []
    exdir = None
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "-x":
            while i < len(args) and not args[i].startswith("-"):
                excludes.append(args[i])
                i += 1
        elif a.startswith("-d"):
            if a[2:]:
                exdir = a[2:]
            elif i < len(args):
                exdir = args[i]
                i += 1
            else:
                return None
        elif a.startswith("-") and a != "-":
            for c in a[1:]:
                if c not in _FLAGS:
                    return None
                opts[c] = opts.get(c, 0) + 1
        else:
            operands.append(a)
    return opts, operands, excludes, exdir


@applet("unzip")
def _u_unzip(p: _Proc) -> int:
    parsed = _parse(p.args)
    if parsed is None or not parsed[1]:
        return p.not_simulated()
    opts, operands, excludes, exdir = parsed
    if ("Z" in opts) != ("1" in opts):  # zipinfo mode: only its -1 (names) is simulated
        return p.not_simulated()
    name = operands[0]
    found = None
    for candidate in (name, name + ".zip", name + ".ZIP"):
        if p.fs.is_file(p.path(candidate)):
            found = candidate
            break
    if found is None:
        p.ctx.err.write(f"unzip:  cannot find or open {name}, {name}.zip or {name}.ZIP.\n")
        return 9
    data = p.fs.read(p.path(found))
    quiet = opts.get("q", 0)
    if not (quiet or "p" in opts or "Z" in opts):
        p.out(f"Archive:  {found}\n")
    try:
        archive = Archive(bytes_of(data))
    except Corrupt:
        p.ctx.err.write(_NO_DIR + f"unzip:  cannot find zipfile directory in one of {found} or\n"
                        f"        {found}.zip, and cannot find {found}.ZIP, period.\n")  # fmt: skip
        return 9
    return _Unzip(p, opts, archive, found, exdir).run(operands[1:], excludes)


def _pad(name: str) -> str:
    """A name padded to 22 columns as UnZip's C ``%-22s`` pads it: by bytes."""
    return name + " " * max(0, 22 - len(name.encode("utf-8", "surrogateescape")))


def _ratio(size: int, packed: int) -> int:
    """UnZip's rounded compression ratio in percent (per mille first, as it computes it)."""
    if size == 0:
        return 0
    if size > 2_000_000:
        denom = size // 1000
        mille = (
            (size - packed + denom // 2) // denom
            if size >= packed
            else -((packed - size + denom // 2) // denom)
        )
    else:
        mille = (
            (1000 * (size - packed) + size // 2) // size
            if size >= packed
            else -((1000 * (packed - size) + size // 2) // size)
        )
    return (mille + 5) // 10 if mille >= 0 else -((-mille + 5) // 10)


class _Rename(Exception):
    """``[r]ename`` answered: not simulated (UnZip asks for a new name)."""


class _Unzip:
    def __init__(
        self, p: _Proc, opts: dict[str, int], archive: Archive, shown: str, exdir: str | None
    ) -> None:
        self.p = p
        self.opts = opts
        self.archive = archive
        self.shown = shown
        self.exdir = exdir
        self.quiet = opts.get("q", 0) > 0
        self.status = 0
        self.all: bool | None = True if "o" in opts else False if "n" in opts else None

    def say(self, line: str) -> None:
        if not self.quiet:
            self.p.out(line + "\n")

    def run(self, patterns: list[str], excludes: list[str]) -> int:
        infos = [i for i in self.archive.infos
                 if (not patterns or any(fnmatch.fnmatchcase(i.filename, x) for x in patterns))
                 and not any(fnmatch.fnmatchcase(i.filename, x) for x in excludes)]  # fmt: skip
        missing = [
            x for x in patterns if not any(fnmatch.fnmatchcase(i.filename, x) for i in self.archive.infos)
        ]
        try:
            if "Z" in self.opts:
                self.p.out("".join(info.filename + "\n" for info in infos))
            elif "v" in self.opts:
                self._verbose_list(infos)
            elif "l" in self.opts:
                self._list(infos)
            elif "t" in self.opts:
                self._test(infos)
            elif "p" in self.opts:
                for info in infos:
                    if not info.is_dir():
                        self.p.out(as_stream(self.archive.read(info)))
            else:
                self._extract(infos)
        except Corrupt as exc:
            self.p.ctx.err.write(f"error:  invalid compressed data to inflate ({exc.message})\n")
            return 2
        except _Rename:
            return self.p.not_simulated()
        if missing:
            self.p.ctx.err.write("caution: filename not matched:  " + missing[0] + "\n")
            return 11
        return self.status

    def _list(self, infos: list[zipfile.ZipInfo]) -> None:
        out = ["  Length      Date    Time    Name", "---------  ---------- -----   ----"]
        if self.opts.get("q", 0) > 1:  # -qq: the members only
            out = []
        total = 0
        for info in infos:
            y, mo, d, h, mi = listed_time(info)
            out.append(f"{info.file_size:9d}  {y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}   {info.filename}")
            total += info.file_size
        count = len(infos)
        if self.opts.get("q", 0) < 2:
            out.append("---------                     -------")
            out.append(f"{total:9d}                     {count} file{'' if count == 1 else 's'}")
        self.p.out("".join(line + "\n" for line in out))

    def _verbose_list(self, infos: list[zipfile.ZipInfo]) -> None:
        """``unzip -v``: method, sizes, ratio, date, CRC-32 and name of each member."""
        out = [" Length   Method    Size  Cmpr    Date    Time   CRC-32   Name",
               "--------  ------  ------- ---- ---------- ----- --------  ----"]  # fmt: skip
        size = packed = 0
        for info in infos:
            y, mo, d, h, mi = listed_time(info)
            if info.compress_type == zipfile.ZIP_DEFLATED:
                method = "Defl:" + {2: "X", 4: "F", 6: "S"}.get(info.flag_bits & 0x6, "N")
            else:
                method = (
                    "Stored" if info.compress_type == zipfile.ZIP_STORED else f"Unk:{info.compress_type:03d}"
                )
            cmpr = _ratio(info.file_size, info.compress_size)
            out.append(f"{info.file_size:8d}  {method:<6}  {info.compress_size:7d} {cmpr:3d}% "
                       f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d} {info.CRC:08x}  {info.filename}")  # fmt: skip
            size += info.file_size
            packed += info.compress_size
        count = len(infos)
        out.append("--------          -------  ---                            -------")
        out.append(f"{size:8d}          {packed:7d} {_ratio(size, packed):3d}%                            "
                   f"{count} file{'' if count == 1 else 's'}")  # fmt: skip
        self.p.out("\n".join(out) + "\n")

    def _test(self, infos: list[zipfile.ZipInfo]) -> None:
        for info in infos:
            self.archive.read(info)
            self.say(f"    testing: {_pad(info.filename)}   OK")
        self.p.out(f"No errors detected in compressed data of {self.shown}.\n")

    def _target(self, info: zipfile.ZipInfo) -> tuple[str, str]:
        name = info.filename.lstrip("/")
        parts = name.split("/")
        if ".." in parts:  # unzip keeps what it extracts under the destination
            self.say(f'warning:  skipped "../" path component(s) in {info.filename}')
            self.status = max(self.status, 1)
            name = "/".join(part for part in parts if part != "..")
        if "j" in self.opts:
            name = posixpath.basename(name.rstrip("/")) + ("/" if info.is_dir() else "")
        shown = posixpath.join(self.exdir, name) if self.exdir else name
        return shown, self.p.path(shown)

    def _ask(self, shown: str) -> bool:
        """Whether to replace an existing file: -o, -n, or the answer read from stdin."""
        if self.all is not None:
            return self.all
        while True:
            self.p.ctx.err.write(f"replace {shown}? [y]es, [n]o, [A]ll, [N]one, [r]ename: ")
            line = self.p.ctx.stdin.readline()
            if line is None:
                self.p.ctx.err.write(' NULL\n(EOF or read error, treating as "[N]one" ...)\n')
                self.all = False
                self.status = 1
                return False
            answer = line.strip()[:1]
            if answer in ("A", "N"):
                self.all = answer == "A"
                return self.all
            if answer in ("y", "n"):
                return answer == "y"
            if answer == "r":
                raise _Rename()
            self.p.ctx.err.write(f"error:  invalid response [{line.strip()}]\n")

    def _extract(self, infos: list[zipfile.ZipInfo]) -> None:
        fs = self.p.fs
        links: list[tuple[str, str, str]] = []
        dirs: list[tuple[str, zipfile.ZipInfo]] = []
        if self.exdir and not fs.is_dir(self.p.path(self.exdir)):
            try:  # unzip makes the last level of -d DIR only
                fs.mkdir(self.p.path(self.exdir))
            except FsError as exc:
                self.p.ctx.err.write(f"checkdir:  cannot create extraction directory: {self.exdir}\n"
                                     f"           {exc.strerror}\n")  # fmt: skip
                self.status = 2
                return
        for info in infos:
            current().spend(8)
            shown, path = self._target(info)
            if info.is_dir():
                if "j" in self.opts:
                    continue
                if not fs.is_dir(path):
                    fs.mkdir(path, parents=True)
                    self.say(f"   creating: {shown}")
                dirs.append((path, info))
                continue
            fs.mkdir(posixpath.dirname(path), parents=True)
            if fs.lexists(path):
                if not self._ask(shown):
                    continue
                fs.remove(path) if not isinstance(fs.lstat(path), DirNode) else None
            data = self.archive.read(info)
            mode = self.archive.mode(info)
            if (mode >> 12) == 0o12:
                target = data.decode("utf-8", "surrogateescape")
                self.say(f"    linking: {_pad(shown)}  -> {target} ")
                links.append((path, shown, target))
                continue
            verb = "  inflating" if info.compress_type == zipfile.ZIP_DEFLATED else " extracting"
            self.say(f"{verb}: {_pad(shown)}  ")
            current().charge(len(data))
            try:
                fs.write(path, stored(data))
            except FsError as exc:
                self.p.ctx.err.write(f"error:  cannot create {shown}\n        {exc.strerror}\n")
                self.status = 1
                continue
            node = fs.stat(path)
            node.mode = mode & 0o7777
            node.mtime = self.archive.mtime(info)
        if links:
            self.say("finishing deferred symbolic links:")
            for path, shown, target in links:
                self.say(f"  {_pad(shown)} -> {target}")
                fs.symlink(target, path)
        for path, info in reversed(dirs):
            node = fs.stat(path)
            node.mode = self.archive.mode(info) & 0o7777
            node.mtime = self.archive.mtime(info)
