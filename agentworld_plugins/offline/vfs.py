"""An in-memory POSIX-like filesystem with a frozen clock, for the offline world.

Nothing here touches the host's files, except :meth:`VirtualFS.add_folder`, which *reads* a real
folder once to seed the virtual one::

    fs = VirtualFS.default()                      # /root, /tmp, /etc, /usr/bin, /app (a tiny project)
    fs = VirtualFS.from_seed({"src/": "", "src/a.py": "print(1)\\n"})   # relative paths land in /app
    fs.write("/tmp/x.txt", "hello\\n")
    fs.read_text("/tmp/x.txt")                    # 'hello\\n'
    fs.snapshot()["/tmp/x.txt"]                   # 'hello\\n' (directories end with '/')

File content is ``str`` (text) or ``bytes`` (binary). Text read back from bytes is decoded with
``surrogateescape``, so NUL bytes and invalid UTF-8 survive a round trip through the shell.
Timestamps come from a frozen clock that starts at 2026-01-15 09:30:00 UTC and advances one second
per mutation, so the same actions always give the same ``ls -l``.
"""

from __future__ import annotations

import copy
import functools
import os
import posixpath
import stat as stat_module
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .base_system import APP_MAIN, APP_README, BASHRC, ETC_FILES, PROFILE, USR_BIN

#: 2026-01-15 09:30:00 UTC, the frozen clock's start
EPOCH = 1768469400

STRERROR = {
    "ENOENT": "No such file or directory",
    "EEXIST": "File exists",
    "ENOTDIR": "Not a directory",
    "EISDIR": "Is a directory",
    "ENOTEMPTY": "Directory not empty",
    "EACCES": "Permission denied",
    "EINVAL": "Invalid argument",
    "ELOOP": "Too many levels of symbolic links",
    "EBUSY": "Device or resource busy",
}


class FsError(Exception):
    """A filesystem failure, named like the errno the real call would set (``ENOENT``, ...)."""

    def __init__(self, code: str, path: str = "") -> None:
        self.code = code
        self.path = path
        self.strerror = STRERROR.get(code, code)
        super().__init__(f"{path}: {self.strerror}" if path else self.strerror)


@dataclass(frozen=True)
class Symlink:
    """A symbolic link's target, as found in :meth:`VirtualFS.snapshot` and accepted by seeds."""

    target: str


@dataclass
class Node:
    mode: int
    mtime: int


@dataclass
class FileNode(Node):
    content: str | bytes = ""

    @property
    def size(self) -> int:
        return len(_as_bytes(self.content))


@dataclass
class DirNode(Node):
    children: dict[str, Node] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return 4096


@dataclass
class LinkNode(Node):
    target: str = ""

    @property
    def size(self) -> int:
        return len(self.target.encode("utf-8", "surrogateescape"))


SeedValue = str | bytes | Symlink | None


def _as_bytes(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape")


def as_text(content: str | bytes) -> str:
    """File content as text; bytes are decoded with ``surrogateescape`` (lossless)."""
    return content.decode("utf-8", "surrogateescape") if isinstance(content, bytes) else content


def content_of(data: bytes) -> str | bytes:
    """How bytes are kept as file content: text when they are NUL-free UTF-8, else the bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return data if "\x00" in text else text


def is_binary(content: str | bytes) -> bool:
    """Whether content looks binary the way grep decides it: a NUL byte or invalid UTF-8."""
    if isinstance(content, bytes):
        if b"\x00" in content:
            return True
        try:
            content.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False
    return "\x00" in content or any("\udc80" <= c <= "\udcff" for c in content)


def _stub_binary(name: str) -> bytes:
    return b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"agentworld-stub:" + name.encode() + b"\x00"


def stub_program(content: str | bytes) -> str | None:
    """The program name of a stub executable created for /usr/bin, else None."""
    if isinstance(content, bytes) and content.startswith(b"\x7fELF"):
        marker = b"agentworld-stub:"
        at = content.find(marker)
        if at >= 0:
            end = content.find(b"\x00", at)
            return content[at + len(marker) : end].decode("utf-8", "replace")
    return None


@functools.cache
def _base_root() -> DirNode:
    """The base system's root, built once; only copies of it are handed out."""
    return VirtualFS.build_base().root


class VirtualFS:
    """The filesystem: a tree of nodes under ``/``, a frozen clock, and ``home`` for ``~``."""

    def __init__(self, home: str = "/root") -> None:
        self.home = home
        self.clock = EPOCH
        self.root = DirNode(mode=0o755, mtime=EPOCH)

    # -- construction ----------------------------------------------------------------------------

    @classmethod
    def default(cls) -> VirtualFS:
        """The base system plus a tiny project in /app."""
        fs = cls.base()
        fs.populate(
            {
                "/app/README.md": APP_README,
                "/app/main.py": APP_MAIN,
                "/app/requirements.txt": "requests==2.32.3\n",
            }
        )
        return fs

    @classmethod
    def base(cls) -> VirtualFS:
        """/, /root, /tmp, /etc, /home, /usr/bin (program stubs), an empty /app.

        A copy of one tree built once per process (:meth:`build_base`): building it path by path
        took half a millisecond, paid by every new machine.
        """
        fs = cls()
        fs.root = _copy_tree(_base_root())  # type: ignore[assignment]
        return fs

    @classmethod
    def build_base(cls) -> VirtualFS:
        """The base system built path by path (what :meth:`base` copies)."""
        fs = cls()
        for path, mode in (
            ("/root", 0o700),
            ("/tmp", 0o1777),
            ("/etc", 0o755),
            ("/home", 0o755),
            ("/home/ubuntu", 0o750),
            ("/usr", 0o755),
            ("/usr/bin", 0o755),
            ("/usr/sbin", 0o755),
            ("/usr/lib", 0o755),
            ("/usr/local", 0o755),
            ("/usr/local/bin", 0o755),
            ("/usr/share", 0o755),
            ("/var", 0o755),
            ("/var/log", 0o755),
            ("/var/tmp", 0o1777),
            ("/opt", 0o755),
            ("/dev", 0o755),
            ("/proc", 0o555),
            ("/srv", 0o755),
            ("/mnt", 0o755),
            ("/app", 0o755),
        ):
            fs._put(path, DirNode(mode=mode, mtime=EPOCH))
        for path, target in (("/bin", "usr/bin"), ("/sbin", "usr/sbin"), ("/lib", "usr/lib")):
            fs._put(path, LinkNode(mode=0o777, mtime=EPOCH, target=target))
        for name in USR_BIN:
            fs._put(f"/usr/bin/{name}", FileNode(mode=0o755, mtime=EPOCH, content=_stub_binary(name)))
        for path, text in ETC_FILES.items():
            fs._put(path, FileNode(mode=0o644, mtime=EPOCH, content=text))
        fs._put("/root/.bashrc", FileNode(mode=0o644, mtime=EPOCH, content=BASHRC))
        fs._put("/root/.profile", FileNode(mode=0o644, mtime=EPOCH, content=PROFILE))
        for device in ("null", "zero", "urandom", "random", "full", "tty"):  # character devices
            fs._put(f"/dev/{device}", FileNode(mode=0o666, mtime=EPOCH, content=""))
        for name, fd in (("stdin", 0), ("stdout", 1), ("stderr", 2)):
            fs._put(f"/dev/{name}", LinkNode(mode=0o777, mtime=EPOCH, target=f"/proc/self/fd/{fd}"))
        return fs

    @classmethod
    def from_seed(
        cls, seed: Mapping[str, SeedValue] | str | os.PathLike[str] | None, base: str = "/app"
    ) -> VirtualFS:
        """The base system with ``seed`` in it: a ``{path: content}`` dict (directories end with
        ``/``; relative paths are under ``base``) or a real folder copied into ``base``.
        ``None`` gives :meth:`default`."""
        if seed is None:
            return cls.default()
        fs = cls.base()
        if isinstance(seed, Mapping):
            fs.populate(seed, base=base)
        else:
            fs.add_folder(seed, base=base)
        return fs

    def populate(self, seed: Mapping[str, SeedValue], base: str = "/app") -> None:
        """Add ``{path: content}`` entries without advancing the clock (parents are created)."""
        for raw, content in seed.items():
            is_dir = raw.endswith("/")
            path = self.normalize(raw, base)
            if is_dir or content is None:
                self._ensure_dirs(path)
                continue
            self._ensure_dirs(posixpath.dirname(path))
            if isinstance(content, Symlink):
                self._put(path, LinkNode(mode=0o777, mtime=self.clock, target=content.target))
            else:
                self._put(path, FileNode(mode=0o644, mtime=self.clock, content=content))

    def add_folder(
        self,
        folder: str | os.PathLike[str],
        base: str = "/app",
        *,
        exclude: tuple[str, ...] = (".git",),
        max_files: int = 20000,
        max_file_bytes: int = 4 * 1024 * 1024,
        max_total_bytes: int = 64 * 1024 * 1024,
    ) -> int:
        """Copy a real folder into ``base`` (read-only on the host). Folders named in ``exclude``
        appear empty; files over ``max_file_bytes`` and anything past the totals are skipped.
        Returns the number of files copied."""
        root = Path(folder)
        if not root.is_dir():
            raise FsError("ENOTDIR", str(folder))
        base_path = self.normalize(base, "/")
        self._ensure_dirs(base_path)
        copied = 0
        total = 0
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            rel = Path(dirpath).relative_to(root).as_posix()
            vdir = base_path if rel == "." else posixpath.join(base_path, rel)
            self._ensure_dirs(vdir)
            kept = []
            for d in sorted(dirnames):
                full = Path(dirpath) / d
                if full.is_symlink():
                    self._put(posixpath.join(vdir, d), LinkNode(0o777, self.clock, os.readlink(full)))
                    continue
                self._ensure_dirs(posixpath.join(vdir, d))
                if d not in exclude:
                    kept.append(d)
            dirnames[:] = kept
            for name in sorted(filenames):
                full = Path(dirpath) / name
                target = posixpath.join(vdir, name)
                if full.is_symlink():
                    self._put(target, LinkNode(0o777, self.clock, os.readlink(full)))
                    continue
                try:
                    st = full.stat()
                except OSError:
                    continue
                if not stat_module.S_ISREG(st.st_mode) or st.st_size > max_file_bytes:
                    continue
                if copied >= max_files or total + st.st_size > max_total_bytes:
                    return copied
                content = content_of(full.read_bytes())
                mode = 0o755 if st.st_mode & 0o111 else 0o644
                self._put(target, FileNode(mode=mode, mtime=self.clock, content=content))
                copied += 1
                total += st.st_size
        return copied

    def clone(self) -> VirtualFS:
        return copy.deepcopy(self)

    # -- paths -----------------------------------------------------------------------------------

    def normalize(self, path: str, cwd: str = "/") -> str:
        """An absolute, normalised path: ``~`` is ``home``, relative paths join ``cwd``."""
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        if not path.startswith("/"):
            path = posixpath.join(cwd or "/", path)
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" + "/".join(parts)

    def _components(self, path: str) -> list[str]:
        return [p for p in path.split("/") if p]

    def _lookup(self, path: str, follow: bool = True, depth: int = 0) -> Node:
        if depth > 40:
            raise FsError("ELOOP", path)
        node: Node = self.root
        parts = self._components(path)
        current = "/"
        for i, part in enumerate(parts):
            if not isinstance(node, DirNode):
                raise FsError("ENOTDIR", path)
            child = node.children.get(part)
            if child is None:
                raise FsError("ENOENT", path)
            last = i == len(parts) - 1
            if isinstance(child, LinkNode) and (follow or not last):
                target = self.normalize(child.target, current)
                child = self._lookup(target, True, depth + 1)
            node = child
            current = posixpath.join(current, part)
        return node

    def _parent(self, path: str) -> tuple[DirNode, str]:
        path = self.normalize(path)
        if path == "/":
            raise FsError("EBUSY", path)
        parent_path, name = posixpath.split(path)
        try:
            parent = self._lookup(parent_path)
        except FsError as exc:
            raise FsError(exc.code, path) from None
        if not isinstance(parent, DirNode):
            raise FsError("ENOTDIR", path)
        return parent, name

    def _put(self, path: str, node: Node) -> None:
        parent, name = self._parent(path)
        parent.children[name] = node

    def _ensure_dirs(self, path: str) -> None:
        node: Node = self.root
        for part in self._components(path):
            if not isinstance(node, DirNode):
                raise FsError("ENOTDIR", path)
            child = node.children.get(part)
            if child is None:
                child = DirNode(mode=0o755, mtime=self.clock)
                node.children[part] = child
            elif isinstance(child, LinkNode):
                child = self._lookup(self.normalize(child.target, "/"))
            node = child

    def _tick(self) -> int:
        self.clock += 1
        return self.clock

    def now(self) -> int:
        """The frozen clock's current time (seconds since the epoch)."""
        return self.clock

    # -- queries ---------------------------------------------------------------------------------

    def stat(self, path: str, follow: bool = True) -> Node:
        """The node at ``path`` (raises ``ENOENT``/``ENOTDIR``)."""
        return self._lookup(self.normalize(path), follow)

    def lstat(self, path: str) -> Node:
        return self.stat(path, follow=False)

    def _probe(self, path: str, follow: bool = True) -> Node | None:
        """The node at ``path``, or None where there is none (or it cannot be reached)."""
        try:
            return self.stat(path, follow)
        except FsError:
            return None

    def exists(self, path: str) -> bool:
        return self._probe(path) is not None

    def lexists(self, path: str) -> bool:
        return self._probe(path, follow=False) is not None

    def is_dir(self, path: str) -> bool:
        return isinstance(self._probe(path), DirNode)

    def is_file(self, path: str) -> bool:
        return isinstance(self._probe(path), FileNode)

    def is_link(self, path: str) -> bool:
        return isinstance(self._probe(path, follow=False), LinkNode)

    def readlink(self, path: str) -> str:
        node = self.lstat(path)
        if not isinstance(node, LinkNode):
            raise FsError("EINVAL", path)
        return node.target

    def realpath(self, path: str) -> str:
        """``path`` with every symbolic link resolved (missing tail components are kept)."""
        path = self.normalize(path)
        resolved = "/"
        parts = self._components(path)
        for i, part in enumerate(parts):
            candidate = posixpath.join(resolved, part)
            try:
                node = self.lstat(candidate)
            except FsError:
                return posixpath.join(candidate, *parts[i + 1 :])
            if isinstance(node, LinkNode):
                candidate = self.realpath(self.normalize(node.target, resolved))
            resolved = candidate
        return resolved

    def read(self, path: str) -> str | bytes:
        """The content of a file (``EISDIR`` for a directory)."""
        node = self.stat(path)
        if isinstance(node, DirNode):
            raise FsError("EISDIR", path)
        assert isinstance(node, FileNode)
        return node.content

    def read_text(self, path: str) -> str:
        return as_text(self.read(path))

    def listdir(self, path: str) -> list[str]:
        """Entry names of a directory, sorted (``ENOTDIR`` for a file)."""
        node = self.stat(path)
        if not isinstance(node, DirNode):
            raise FsError("ENOTDIR", path)
        return sorted(node.children)

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        """Like :func:`os.walk` (top-down, sorted, symbolic links not followed)."""
        top = self.normalize(top)
        node = self.stat(top)
        if not isinstance(node, DirNode):
            return
        dirs = sorted(n for n, c in node.children.items() if isinstance(c, DirNode))
        files = sorted(n for n, c in node.children.items() if not isinstance(c, DirNode))
        yield top, dirs, files
        for d in dirs:
            yield from self.walk(posixpath.join(top, d))

    # -- mutations -------------------------------------------------------------------------------

    def _existing(self, path: str) -> Node | None:
        """The node at a normalized ``path``; None where nothing is (other failures raise)."""
        try:
            return self._lookup(path)
        except FsError as exc:
            if exc.code != "ENOENT":
                raise
            return None

    def write(self, path: str, content: str | bytes, append: bool = False) -> None:
        """Create or replace (or append to) a file; the parent directory must exist."""
        path = self.normalize(path)
        node = self._existing(path)
        now = self._tick()
        if node is None:
            parent, name = self._parent(path)
            link = parent.children.get(name)
            if isinstance(link, LinkNode):  # a dangling link: create its target
                self.write(self.normalize(link.target, posixpath.dirname(path)), content, append)
                return
            parent.children[name] = FileNode(mode=0o644, mtime=now, content=content)
            parent.mtime = now
            return
        if isinstance(node, DirNode):
            raise FsError("EISDIR", path)
        assert isinstance(node, FileNode)
        if append and node.content:
            old = node.content
            if isinstance(old, bytes) or isinstance(content, bytes):
                node.content = _as_bytes(old) + _as_bytes(content)
            else:
                node.content = old + content
        else:
            node.content = content
        node.mtime = now

    def append(self, path: str, content: str | bytes) -> None:
        self.write(path, content, append=True)

    def touch(self, path: str) -> None:
        """Create an empty file, or bump the modification time of an existing entry."""
        path = self.normalize(path)
        node = self._existing(path)
        if node is None:
            self.write(path, "")
            return
        node.mtime = self._tick()

    def mkdir(self, path: str, parents: bool = False, mode: int = 0o755) -> None:
        """Create a directory (``EEXIST`` if anything is there, unless ``parents`` and a directory)."""
        path = self.normalize(path)
        if parents:
            current = "/"
            for part in self._components(path):
                current = posixpath.join(current, part)
                node = self._existing(current)
                if node is None:
                    self.mkdir(current, mode=mode)
                elif not isinstance(node, DirNode):
                    raise FsError("EEXIST" if current == path else "ENOTDIR", current)
            return
        parent, name = self._parent(path)
        if name in parent.children:
            raise FsError("EEXIST", path)
        now = self._tick()
        parent.children[name] = DirNode(mode=mode, mtime=now)
        parent.mtime = now

    def symlink(self, target: str, path: str) -> None:
        parent, name = self._parent(path)
        if name in parent.children:
            raise FsError("EEXIST", path)
        now = self._tick()
        parent.children[name] = LinkNode(mode=0o777, mtime=now, target=target)
        parent.mtime = now

    def remove(self, path: str) -> None:
        """Remove a file or link (``EISDIR`` for a directory)."""
        parent, name = self._parent(path)
        node = parent.children.get(name)
        if node is None:
            raise FsError("ENOENT", path)
        if isinstance(node, DirNode):
            raise FsError("EISDIR", path)
        del parent.children[name]
        parent.mtime = self._tick()

    def rmdir(self, path: str) -> None:
        """Remove an empty directory (``ENOTEMPTY``, ``ENOTDIR``)."""
        parent, name = self._parent(path)
        node = parent.children.get(name)
        if node is None:
            raise FsError("ENOENT", path)
        if not isinstance(node, DirNode):
            raise FsError("ENOTDIR", path)
        if node.children:
            raise FsError("ENOTEMPTY", path)
        del parent.children[name]
        parent.mtime = self._tick()

    def rmtree(self, path: str) -> None:
        """Remove a directory and everything below it (or a single file)."""
        parent, name = self._parent(path)
        if name not in parent.children:
            raise FsError("ENOENT", path)
        del parent.children[name]
        parent.mtime = self._tick()

    def clear(self) -> None:
        """Empty the whole tree (what ``rm -rf --no-preserve-root /`` leaves)."""
        self.root.children.clear()
        self.root.mtime = self._tick()

    def copy(self, src: str, dst: str, recursive: bool = False) -> None:
        """Copy a file (or, with ``recursive``, a directory) to the exact path ``dst``."""
        node = self.stat(src)
        if isinstance(node, DirNode) and not recursive:
            raise FsError("EISDIR", src)
        dst = self.normalize(dst)
        parent, name = self._parent(dst)
        existing = parent.children.get(name)
        now = self._tick()
        if isinstance(node, DirNode):
            if existing is not None and not isinstance(existing, DirNode):
                raise FsError("ENOTDIR", dst)
            fresh = copy.deepcopy(node)
            _set_mtimes(fresh, now)
            if isinstance(existing, DirNode):
                existing.children.update(fresh.children)
                existing.mtime = now
            else:
                parent.children[name] = fresh
        else:
            if isinstance(existing, DirNode):
                raise FsError("EISDIR", dst)
            assert isinstance(node, FileNode)
            if isinstance(existing, FileNode):
                existing.content = node.content
                existing.mtime = now
            else:
                parent.children[name] = FileNode(mode=node.mode, mtime=now, content=node.content)
        parent.mtime = now

    def move(self, src: str, dst: str) -> None:
        """Rename ``src`` to the exact path ``dst`` (replacing a file there)."""
        src = self.normalize(src)
        dst = self.normalize(dst)
        sparent, sname = self._parent(src)
        node = sparent.children.get(sname)
        if node is None:
            raise FsError("ENOENT", src)
        if dst == src:
            return
        if dst.startswith(src + "/"):
            raise FsError("EINVAL", dst)
        dparent, dname = self._parent(dst)
        existing = dparent.children.get(dname)
        if isinstance(existing, DirNode):
            if not isinstance(node, DirNode):
                raise FsError("EISDIR", dst)
            if existing.children:
                raise FsError("ENOTEMPTY", dst)
        elif existing is not None and isinstance(node, DirNode):
            raise FsError("ENOTDIR", dst)
        del sparent.children[sname]
        dparent.children[dname] = node
        now = self._tick()
        sparent.mtime = now
        dparent.mtime = now

    def chmod(self, path: str, mode: int) -> None:
        node = self.stat(path)
        node.mode = mode & 0o7777
        self._tick()

    def set_mtime(self, path: str, mtime: int) -> None:
        self.stat(path).mtime = mtime

    # -- export ----------------------------------------------------------------------------------

    def snapshot(self, top: str = "/") -> dict[str, SeedValue]:
        """Every entry under ``top`` as ``{path: content}``: directories end with ``/`` (value
        ``""``), links are :class:`Symlink`. ``VirtualFS.from_seed(fs.snapshot())`` rebuilds it."""
        out: dict[str, SeedValue] = {}
        top = self.normalize(top)

        def visit(path: str, node: Node) -> None:
            if isinstance(node, DirNode):
                if path != "/":
                    out[path + "/"] = ""
                prefix = path.rstrip("/")  # names hold no "/": posixpath.join's work, done once
                for name in sorted(node.children):
                    visit(f"{prefix}/{name}", node.children[name])
            elif isinstance(node, LinkNode):
                out[path] = Symlink(node.target)
            else:
                assert isinstance(node, FileNode)
                out[path] = node.content

        visit(top, self.stat(top, follow=False) if top != "/" else self.root)
        return out

    def __deepcopy__(self, memo: dict[int, object]) -> VirtualFS:
        fresh = VirtualFS(self.home)
        fresh.clock = self.clock
        fresh.root = _copy_tree(self.root)  # type: ignore[assignment]
        return fresh


def _copy_tree(node: Node) -> Node:
    if isinstance(node, DirNode):
        return DirNode(node.mode, node.mtime, {k: _copy_tree(v) for k, v in node.children.items()})
    if isinstance(node, LinkNode):
        return LinkNode(node.mode, node.mtime, node.target)
    assert isinstance(node, FileNode)
    return FileNode(node.mode, node.mtime, node.content)


def _set_mtimes(node: Node, mtime: int) -> None:
    node.mtime = mtime
    if isinstance(node, DirNode):
        for child in node.children.values():
            _set_mtimes(child, mtime)


def mode_string(node: Node) -> str:
    """``drwxr-xr-x``-style permissions, as ``ls -l`` prints them."""
    kind = "d" if isinstance(node, DirNode) else "l" if isinstance(node, LinkNode) else "-"
    mode = node.mode
    chars = []
    for shift, special, special_char in ((6, 0o4000, "s"), (3, 0o2000, "s"), (0, 0o1000, "t")):
        bits = (mode >> shift) & 7
        r = "r" if bits & 4 else "-"
        w = "w" if bits & 2 else "-"
        x = "x" if bits & 1 else "-"
        if mode & special:
            x = special_char if bits & 1 else special_char.upper()
        chars.append(r + w + x)
    return kind + "".join(chars)
