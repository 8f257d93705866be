"""zip: Info-ZIP zip 3.0's add, update (``updating:``), ``-r``, ``-j``, ``-d``, ``-q``, ``-y``, ``-D``,
``-x`` and ``-0``..``-9`` over the virtual files; directories are walked in sorted order."""

from __future__ import annotations

import fnmatch
import posixpath
from typing import TYPE_CHECKING

from ....vfs import DirNode, FileNode, FsError, LinkNode, Node
from ...compression import Corrupt, as_bytes, bytes_of
from ...limits import current
from ...registry import applet
from .archive import Archive, Entry, make_entry, percent, write_archive

if TYPE_CHECKING:
    from ...proc import _Proc

_FLAGS = set("rqjdyD0123456789")
#: options zip has that are not simulated
_UNSIMULATED = set("umfFTe@vlcAzoglLbntRSX") | {"-"}


def _parse(args: list[str]) -> tuple[dict[str, int], list[str], list[str]] | None:
    opts: dict[str, int] = {}
    operands: list[str] = []
    excludes: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a in ("-x", "--exclude"):
            while i < len(args) and not args[i].startswith("-"):
                excludes.append(args[i])
                i += 1
            continue
        if a.startswith("--"):
            longs = {"--recurse-paths": "r", "--quiet": "q", "--junk-paths": "j", "--delete": "d",
                     "--symlinks": "y", "--no-dir-entries": "D"}  # fmt: skip
            if a not in longs:
                return None
            opts[longs[a]] = opts.get(longs[a], 0) + 1
            continue
        if a.startswith("-") and a != "-":
            for c in a[1:]:
                if c not in _FLAGS or c in _UNSIMULATED:
                    return None
                opts[c] = opts.get(c, 0) + 1
            continue
        operands.append(a)
    return opts, operands, excludes


def _level(opts: dict[str, int]) -> int:
    levels = [int(c) for c in opts if c.isdigit()]
    return levels[-1] if levels else 6


@applet("zip")
def _u_zip(p: _Proc) -> int:
    parsed = _parse(p.args)
    if parsed is None or not parsed[1]:
        return p.not_simulated()
    opts, operands, excludes = parsed
    shown = operands[0]
    if "." not in posixpath.basename(shown) and shown != "-":
        shown += ".zip"
    if shown == "-":
        return p.not_simulated()
    return _Zip(p, opts, shown, excludes).run(operands[1:])


class _Zip:
    def __init__(self, p: _Proc, opts: dict[str, int], shown: str, excludes: list[str]) -> None:
        self.p = p
        self.opts = opts
        self.shown = shown
        self.path = p.path(shown)
        self.excludes = excludes
        self.level = _level(opts)
        self.entries: dict[str, Entry] = {}
        self.quiet = "q" in opts
        self.size = 0

    def say(self, line: str) -> None:
        if not self.quiet:
            self.p.out(line + "\n")

    def _load(self) -> bool:
        try:
            data = self.p.fs.read(self.path)
        except FsError:
            return True
        try:
            archive = Archive(bytes_of(data))
        except Corrupt:
            self.p.out(
                "\tzip warning: missing end signature--probably not a zip file (did you\n"
                "\tzip warning: remember to use binary mode when you transferred it?)\n"
                "\tzip warning: (if you are trying to read a damaged archive try -F)\n"
                f"\nzip error: Zip file structure invalid ({self.shown})\n"
            )
            return False
        for info in archive.infos:
            self.entries[info.filename] = archive.entry(info)
        return True

    def run(self, names: list[str]) -> int:
        if not self._load():
            return 3
        if "d" in self.opts:
            return self._delete(names)
        matched = False
        for name in names:
            path = self.p.path(name)
            node = self._node(path)
            if node is None:
                self.p.out(f"\tzip warning: name not matched: {name}\n")
                continue
            matched = True
            self._add(path, name, node)
        if not matched:
            hint = f"try: zip -r {self.shown} . -i {' '.join(names)}" if "r" in self.opts else self.shown
            self.p.out(f"\nzip error: Nothing to do! ({hint})\n")
            return 12
        self._save()
        return 0

    def _node(self, path: str) -> Node | None:
        follow = "y" not in self.opts
        try:
            return self.p.fs.stat(path, follow=follow)
        except FsError:
            return None

    def _member(self, name: str, is_dir: bool) -> str:
        while name.startswith(("/", "./")):  # zip keeps a leading ../ as it is
            name = name[1:] if name.startswith("/") else name[2:]
        name = "/".join(part for part in name.split("/") if part and part != ".")
        if "j" in self.opts:
            name = posixpath.basename(name)
        return name + "/" if is_dir and name else name

    def _add(self, path: str, name: str, node: Node) -> None:
        current().spend(16)
        if path == self.path:
            return
        is_dir = isinstance(node, DirNode)
        member = self._member(name, is_dir)
        skip_dir = is_dir and ("j" in self.opts or "D" in self.opts)
        if member and not skip_dir and not any(fnmatch.fnmatchcase(member, x) for x in self.excludes):
            self._put(member, node)
        if is_dir and "r" in self.opts:
            assert isinstance(node, DirNode)
            for child in sorted(node.children):
                child_path = posixpath.join(path, child)
                child_node = self._node(child_path)
                if child_node is not None:
                    self._add(child_path, posixpath.join(name, child) if name != "." else child, child_node)

    def _put(self, member: str, node: Node) -> None:
        if isinstance(node, DirNode):
            data, mode = b"", 0o40000 | node.mode
        elif isinstance(node, LinkNode):
            data, mode = as_bytes(node.target), 0o120000 | 0o777
        else:
            assert isinstance(node, FileNode)
            content = node.content
            data = bytes_of(content)
            mode = 0o100000 | node.mode
        current().hold(len(data))
        self.size += len(data) + 64
        current().reserve(self.size)  # the archive as it grows (at most its data and headers)
        entry = make_entry(member, mode, node.mtime, data, self.level)
        verb = "updating" if member in self.entries else "  adding"
        self.entries[member] = entry
        how = "deflated" if entry.method == 8 else "stored"
        self.say(f"{verb}: {member} ({how} {percent(entry)}%)")

    def _delete(self, names: list[str]) -> int:
        gone = [m for m in self.entries if any(fnmatch.fnmatchcase(m, n) for n in names)]
        for name in names:
            if not any(fnmatch.fnmatchcase(m, name) for m in self.entries):
                self.p.out(f"\tzip warning: name not matched: {name}\n")
        if not gone:
            self.p.out(f"\nzip error: Nothing to do! ({self.shown})\n")
            return 12
        for member in gone:
            self.say(f"deleting: {member}")
            del self.entries[member]
        self._save()
        return 0

    def _save(self) -> None:
        data = write_archive(list(self.entries.values()))
        current().charge(len(data))
        self.p.fs.write(self.path, data)
