"""Where ``git apply`` reads a file's old text and writes its new one: the work tree (the
default), the index (``--cached``) or both (``--index``), with git's refusals."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ....vfs import FsError, LinkNode
from .repo import Entries, Repo

if TYPE_CHECKING:
    from ...proc import _Proc
    from .apply import FilePatch


class Refused(Exception):
    """A patch git will not apply to what is there (``error: x: already exists ...``)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


class Target:
    def __init__(self, p: _Proc, repo: Repo | None, cached: bool, index: bool) -> None:
        self.p = p
        self.repo = repo
        self.use_work = not cached
        self.use_index = cached or index
        self.entries: Entries = repo.read_index() if repo is not None and self.use_index else {}
        #: path -> the text an earlier patch of the input left (None: it removed the file)
        self.plan: dict[str, str | None] = {}

    def _rel(self, name: str) -> str:
        if self.repo is None:
            return name
        rel = self.repo.relpath(posixpath.join(self.p.vm.cwd, name))
        return rel if rel is not None else name

    def _exists(self, name: str) -> bool:
        if name in self.plan:
            return self.plan[name] is not None
        if self.use_work and self.p.fs.lexists(self.p.path(name)):
            return True
        return self.use_index and self._rel(name) in self.entries

    def before(self, fp: FilePatch) -> tuple[str, str]:
        """The old text and mode of what ``fp`` changes; :class:`Refused` where it cannot."""
        if fp.is_new:
            name = fp.name
            if self._exists(name):
                where = "working directory" if self.use_work else "index"
                if self.use_work and self.use_index and name not in self.plan:
                    where = "index" if self._rel(name) in self.entries else "working directory"
                raise Refused(f"error: {name}: already exists in {where}\n")
            return "", fp.new_mode or "100644"
        name = fp.old_name or fp.name
        if fp.is_rename and fp.new_name and fp.new_name != name and self._exists(fp.new_name):
            raise Refused(f"error: {fp.new_name}: already exists in working directory\n")
        if name in self.plan:
            text = self.plan[name]
            if text is None:
                raise Refused(f"error: {name}: No such file or directory\n")
            return text, fp.old_mode or "100644"
        rel = self._rel(name)
        if self.use_index and rel not in self.entries:
            raise Refused(f"error: {name}: does not exist in index\n")
        if self.use_work:
            try:
                node = self.p.fs.lstat(self.p.path(name))
                data = self.p.fs.read(self.p.path(name)) if not isinstance(node, LinkNode) else ""
            except FsError:
                raise Refused(f"error: {name}: No such file or directory\n") from None
            text = data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")
            mode = "100755" if getattr(node, "mode", 0) & 0o111 else "100644"
            if self.use_index and self.repo is not None:
                from .repo import blob_id

                if blob_id(text.encode("utf-8", "surrogateescape")) != self.entries[rel][1]:
                    raise Refused(f"error: {name}: does not match index\n")
            return text, mode
        assert self.repo is not None
        mode, sha = self.entries[rel]
        return self.repo.blob(sha).decode("utf-8", "surrogateescape"), mode

    def planned(self, fp: FilePatch, text: str | None) -> None:
        old = fp.old_name or fp.name
        if fp.is_rename and old != fp.new_name:
            self.plan[old] = None
        self.plan[fp.name if not fp.is_delete else old] = text

    def write(self, fp: FilePatch, text: str | None, mode: str) -> None:
        old = fp.old_name or fp.name
        new_mode = fp.new_mode or mode
        gone = [old] if text is None or (fp.is_rename and old != fp.new_name) else []
        fs = self.p.fs
        for name in gone:
            if self.use_work:
                try:
                    fs.remove(self.p.path(name))
                except FsError:
                    pass
                self._prune(posixpath.dirname(self.p.path(name)))
            if self.use_index:
                self.entries.pop(self._rel(name), None)
        if text is None:
            return
        name = fp.name
        if self.use_work:
            full = self.p.path(name)
            fs.mkdir(posixpath.dirname(full), parents=True)
            fs.write(full, text)
            fs.chmod(full, 0o755 if new_mode == "100755" else 0o644)
        if self.use_index and self.repo is not None:
            sha = self.repo.write_blob(text.encode("utf-8", "surrogateescape"))
            self.entries[self._rel(name)] = (new_mode, sha)

    def _prune(self, folder: str) -> None:
        top = self.repo.root if self.repo is not None else self.p.vm.cwd
        while folder.startswith(top.rstrip("/") + "/"):
            try:
                if self.p.fs.listdir(folder):
                    return
                self.p.fs.rmdir(folder)
            except FsError:
                return
            folder = posixpath.dirname(folder)

    def finish(self) -> None:
        if self.use_index and self.repo is not None:
            self.repo.write_index(self.entries)
