"""A git repository kept in the virtual filesystem: objects, index, refs, config, work tree.

Objects are stored the way git stores loose objects (``.git/objects/ab/cdef...``, zlib over
``"<kind> <size>\\0" + body``) and named by the same SHA-1, so a blob's id is the one real git
gives the same bytes. The index is a small JSON file (``.git/index``: path -> mode and blob id)
rather than git's binary format; refs, ``HEAD`` and ``config`` are git's text files.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import zlib
from dataclasses import dataclass

from ....vfs import DirNode, FileNode, FsError, LinkNode, VirtualFS, content_of
from .configfile import read_config
from .ignore import Ignores

#: the branch ``git init`` starts on (git 2.43 without init.defaultBranch)
DEFAULT_BRANCH = "master"
ZERO = "0" * 40

#: path -> (mode, blob id): a tree flattened, the index, or the work tree hashed
Entries = dict[str, tuple[str, str]]


@dataclass
class Commit:
    sha: str
    tree: str
    parents: list[str]
    author: str
    committer: str
    message: str

    @property
    def author_name(self) -> str:
        return self.author.split(" <")[0]

    @property
    def author_email(self) -> str:
        m = re.search(r"<([^>]*)>", self.author)
        return m.group(1) if m else ""

    @property
    def time(self) -> int:
        return _when(self.author)[0]

    @property
    def tz(self) -> str:
        return _when(self.author)[1]

    @property
    def committer_name(self) -> str:
        return self.committer.split(" <")[0]

    @property
    def committer_email(self) -> str:
        m = re.search(r"<([^>]*)>", self.committer)
        return m.group(1) if m else ""

    @property
    def commit_time(self) -> int:
        return _when(self.committer)[0]

    @property
    def commit_tz(self) -> str:
        return _when(self.committer)[1]

    @property
    def subject(self) -> str:
        """The title: the first paragraph's lines joined by blanks (git's ``%s``)."""
        lines = self.message.strip("\n").split("\n")
        end = next((k for k, line in enumerate(lines) if not line.strip()), len(lines))
        return " ".join(line.rstrip() for line in lines[:end])


def _when(ident: str) -> tuple[int, str]:
    m = re.search(r"> (\d+) ([-+]\d{4})", ident)
    return (int(m.group(1)), m.group(2)) if m else (0, "+0000")


class GitError(Exception):
    """A failure git reports as ``fatal: ...`` (status 128) or ``error: ...`` (given status)."""

    def __init__(self, message: str, status: int = 128, raw: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        #: printed as it is, without ``fatal: `` (``No stash entries found.``)
        self.raw = raw


def _bytes(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape")


def blob_id(data: bytes) -> str:
    """The id git gives a blob of ``data``."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


class Repo:
    """The repository whose work tree is ``root`` (``root/.git`` holds the rest)."""

    def __init__(self, fs: VirtualFS, root: str) -> None:
        self.fs = fs
        self.root = root
        self.gitdir = posixpath.join(root, ".git")

    # -- finding and making ----------------------------------------------------------------------

    @classmethod
    def discover(cls, fs: VirtualFS, cwd: str) -> Repo | None:
        """The repository ``cwd`` is in (searched upwards, as git does), or None."""
        path = cwd
        while True:
            if fs.is_dir(posixpath.join(path, ".git")) and fs.is_file(posixpath.join(path, ".git", "HEAD")):
                return cls(fs, path)
            if path == "/":
                return None
            path = posixpath.dirname(path)

    @classmethod
    def init(cls, fs: VirtualFS, root: str, branch: str | None = None) -> tuple[Repo, bool]:
        """Create (or find) the repository at ``root``; whether it existed already."""
        repo = cls(fs, root)
        existed = fs.is_file(posixpath.join(repo.gitdir, "HEAD"))
        if not existed:
            for sub in ("objects", "refs/heads", "refs/tags", "info", "hooks"):
                fs.mkdir(posixpath.join(repo.gitdir, sub), parents=True)
            fs.write(posixpath.join(repo.gitdir, "HEAD"), f"ref: refs/heads/{branch or DEFAULT_BRANCH}\n")
            fs.write(
                posixpath.join(repo.gitdir, "config"),
                "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
                "\tlogallrefupdates = true\n",
            )
            fs.write(posixpath.join(repo.gitdir, "description"), "Unnamed repository; edit this file.\n")
            fs.write(
                posixpath.join(repo.gitdir, "info", "exclude"), "# git ls-files --others --exclude-from\n"
            )
        return repo, existed

    def _git(self, *parts: str) -> str:
        return posixpath.join(self.gitdir, *parts)

    # -- objects ---------------------------------------------------------------------------------

    def write_object(self, kind: str, body: bytes) -> str:
        raw = f"{kind} {len(body)}".encode() + b"\x00" + body
        sha = hashlib.sha1(raw).hexdigest()
        path = self._git("objects", sha[:2], sha[2:])
        if not self.fs.exists(path):
            self.fs.mkdir(self._git("objects", sha[:2]), parents=True)
            self.fs.write(path, zlib.compress(raw))
        return sha

    def read_object(self, sha: str) -> tuple[str, bytes]:
        try:
            raw = zlib.decompress(_bytes(self.fs.read(self._git("objects", sha[:2], sha[2:]))))
        except (FsError, zlib.error):
            raise GitError(f"bad object {sha}") from None
        header, _, body = raw.partition(b"\x00")
        return header.split(b" ")[0].decode(), body

    def has_object(self, sha: str) -> bool:
        return self.fs.is_file(self._git("objects", sha[:2], sha[2:]))

    def write_blob(self, data: bytes) -> str:
        return self.write_object("blob", data)

    def blob(self, sha: str) -> bytes:
        return self.read_object(sha)[1]

    def write_tree(self, entries: Entries) -> str:
        """Store the nested trees of flat ``entries``; the root tree's id."""
        children: dict[str, Entries] = {}
        files: dict[str, tuple[str, str]] = {}
        for path, entry in entries.items():
            head, _, rest = path.partition("/")
            if rest:
                children.setdefault(head, {})[rest] = entry
            else:
                files[head] = entry
        items = [(name, mode, sha) for name, (mode, sha) in files.items()]
        items += [(name, "40000", self.write_tree(sub)) for name, sub in children.items()]
        # git orders a tree's entries by name, a directory's name compared as if it ended in "/"
        items.sort(key=lambda item: item[0] + ("/" if item[1] == "40000" else ""))
        body = b"".join(f"{mode} {name}".encode() + b"\x00" + bytes.fromhex(sha) for name, mode, sha in items)
        return self.write_object("tree", body)

    def read_tree(self, sha: str, prefix: str = "") -> Entries:
        """A tree flattened to ``{path: (mode, blob id)}``."""
        kind, body = self.read_object(sha)
        if kind != "tree":
            raise GitError(f"not a tree object: {sha}")
        out: Entries = {}
        i = 0
        while i < len(body):
            space = body.index(b" ", i)
            nul = body.index(b"\x00", space)
            mode = body[i:space].decode()
            name = body[space + 1 : nul].decode("utf-8", "surrogateescape")
            sha_hex = body[nul + 1 : nul + 21].hex()
            i = nul + 21
            path = prefix + name
            if mode == "40000":
                out.update(self.read_tree(sha_hex, path + "/"))
            else:
                out[path] = (mode, sha_hex)
        return out

    def write_commit(
        self, tree: str, parents: list[str], author: str, message: str, committer: str | None = None
    ) -> str:
        lines = [
            f"tree {tree}",
            *(f"parent {p}" for p in parents),
            f"author {author}",
            f"committer {committer or author}",
        ]
        return self.write_object(
            "commit", ("\n".join(lines) + "\n\n" + message).encode("utf-8", "surrogateescape")
        )

    def commit(self, sha: str) -> Commit:
        kind, body = self.read_object(sha)
        if kind != "commit":
            raise GitError(f"{sha} is not a commit")
        text = body.decode("utf-8", "surrogateescape")
        header, _, message = text.partition("\n\n")
        fields: dict[str, list[str]] = {}
        for line in header.split("\n"):
            key, _, value = line.partition(" ")
            fields.setdefault(key, []).append(value)
        return Commit(
            sha,
            fields["tree"][0],
            fields.get("parent", []),
            fields.get("author", [""])[0],
            fields.get("committer", [""])[0],
            message,
        )

    def commit_entries(self, sha: str | None) -> Entries:
        return self.read_tree(self.commit(sha).tree) if sha else {}

    # -- refs ------------------------------------------------------------------------------------

    def head_ref(self) -> str | None:
        """``refs/heads/<branch>`` HEAD points at, None when it is detached."""
        text = self.fs.read_text(self._git("HEAD")).strip()
        return text[5:].strip() if text.startswith("ref:") else None

    def branch(self) -> str | None:
        ref = self.head_ref()
        return ref[len("refs/heads/") :] if ref and ref.startswith("refs/heads/") else None

    def ref(self, name: str) -> str | None:
        try:
            return self.fs.read_text(self._git(name)).strip() or None
        except FsError:
            return None

    def head(self) -> str | None:
        """The commit HEAD names (None before the first commit)."""
        ref = self.head_ref()
        if ref is None:
            return self.fs.read_text(self._git("HEAD")).strip()
        return self.ref(ref)

    def set_ref(self, name: str, sha: str) -> None:
        self.fs.mkdir(posixpath.dirname(self._git(name)), parents=True)
        self.fs.write(self._git(name), sha + "\n")

    def set_head(self, sha: str, reason: str = "", who: str = "") -> None:
        """Move what HEAD points at (the branch, or HEAD itself when detached) to ``sha``;
        ``reason`` (with the committer ``who``) goes into HEAD's reflog."""
        if reason:
            self.log_head(self.head(), sha, who, reason)
        ref = self.head_ref()
        if ref is None:
            self.fs.write(self._git("HEAD"), sha + "\n")
        else:
            self.set_ref(ref, sha)

    def point_head(self, branch: str | None, sha: str | None = None) -> None:
        self.fs.write(self._git("HEAD"), f"ref: refs/heads/{branch}\n" if branch else f"{sha}\n")

    def log_head(self, old: str | None, new: str, who: str, reason: str) -> None:
        """One line of ``.git/logs/HEAD``: ``old new Name <email> epoch zone<TAB>reason``."""
        self.fs.mkdir(self._git("logs"), parents=True)
        self.fs.append(self._git("logs", "HEAD"), f"{old or ZERO} {new} {who}\t{reason}\n")

    def head_log(self) -> list[tuple[str, str, str, str]]:
        """HEAD's reflog, oldest first: ``(old, new, who, reason)``."""
        try:
            text = self.fs.read_text(self._git("logs", "HEAD"))
        except FsError:
            return []
        out = []
        for line in text.split("\n"):
            head, _, reason = line.partition("\t")
            parts = head.split(" ", 2)
            if len(parts) == 3:
                out.append((parts[0], parts[1], parts[2], reason))
        return out

    def previous_branch(self, n: int) -> str | None:
        """What ``@{-n}`` names: the branch (or commit) checked out n switches ago."""
        moves = [
            m.group(1)
            for *_, reason in reversed(self.head_log())
            if (m := re.fullmatch(r"checkout: moving from (\S+) to \S+", reason))
        ]
        return moves[n - 1] if 0 < n <= len(moves) else None

    def branches(self) -> list[str]:
        out: list[str] = []
        heads = self._git("refs", "heads")
        if self.fs.is_dir(heads):
            for top, _, files in self.fs.walk(heads):
                out.extend(posixpath.relpath(posixpath.join(top, f), heads) for f in files)
        return sorted(out)

    def all_refs(self) -> list[tuple[str, str]]:
        """Every ref under ``.git/refs`` as ``(full name, id)``, sorted by name as git lists them."""
        out: list[tuple[str, str]] = []
        top = self._git("refs")
        if self.fs.is_dir(top):
            for folder, _, files in self.fs.walk(top):
                for f in files:
                    name = "refs/" + posixpath.relpath(posixpath.join(folder, f), top)
                    sha = self.ref(name)
                    if sha and re.fullmatch(r"[0-9a-f]{40}", sha):
                        out.append((name, sha))
        return sorted(out)

    def resolve(self, rev: str) -> str | None:
        """A commit id for ``rev``: HEAD, a branch or tag, a (short) id, with ``~N``/``^`` suffixes."""
        m = re.fullmatch(r"(.+?)((?:[~^]\d*|\^\{\w*\})*)", rev)
        if not m:
            return None
        base, suffix = m.group(1), m.group(2)
        sha: str | None
        stash = re.fullmatch(r"stash(?:@\{(\d+)\})?", base)
        back = re.fullmatch(r"@\{-(\d+)\}", base)
        logged = re.fullmatch(r"(?:HEAD)?@\{(\d+)\}", base)
        if base == "HEAD" or base == "@":
            sha = self.head()
        elif back:
            name = self.previous_branch(int(back.group(1)))
            sha = None if name is None else self.resolve(name)
        elif logged:
            log = self.head_log()
            k = int(logged.group(1))
            sha = log[len(log) - 1 - k][1] if k < len(log) else None
        elif stash:
            sha = self._stash_entry(int(stash.group(1) or 0))
        elif base.startswith("refs/"):
            sha = self.ref(base)
        else:
            sha = self.ref(f"refs/heads/{base}")
            if sha is None and self.ref(f"refs/tags/{base}"):
                sha = self.peel(self.ref(f"refs/tags/{base}") or "")
            if sha is None and re.fullmatch(r"[0-9a-f]{4,40}", base):
                sha = self._expand(base)
        for op, count in re.findall(r"([~^])(\d*)", re.sub(r"\^\{\w*\}", "", suffix)):
            steps = int(count) if count else 1
            for _ in range(steps if op == "~" else 1):
                if sha is None:
                    return None
                parents = self.commit(sha).parents
                index = (steps - 1) if op == "^" else 0
                sha = parents[index] if index < len(parents) else None
        return sha

    def _stash_entry(self, k: int) -> str | None:
        try:
            lines = self.fs.read_text(self._git("logs", "refs", "stash")).splitlines()
        except FsError:
            return None
        if k >= len(lines):
            return None
        parts = lines[len(lines) - 1 - k].split(" ")
        return parts[1] if len(parts) > 1 else None

    def peel(self, sha: str) -> str:
        """The commit a tag object (or a commit) names."""
        for _ in range(10):
            kind, body = self.read_object(sha)
            if kind != "tag":
                return sha
            sha = body.split(b"\n", 1)[0].split(b" ")[1].decode()
        return sha

    def _expand(self, short: str) -> str | None:
        folder = self._git("objects", short[:2])
        if not self.fs.is_dir(folder):
            return None
        found = [short[:2] + name for name in self.fs.listdir(folder) if (short[:2] + name).startswith(short)]
        return found[0] if len(found) == 1 else None

    # -- index -----------------------------------------------------------------------------------

    def read_index(self) -> Entries:
        try:
            data = json.loads(self.fs.read_text(self._git("index")))
        except (FsError, ValueError):
            return {}
        return {path: (mode, sha) for path, (mode, sha) in data.get("entries", {}).items()}

    def write_index(self, entries: Entries) -> None:
        body = {"version": 1, "entries": {p: list(entries[p]) for p in sorted(entries)}}
        self.fs.write(self._git("index"), json.dumps(body, indent=0) + "\n")

    # -- work tree -------------------------------------------------------------------------------

    def abspath(self, rel: str) -> str:
        return posixpath.join(self.root, rel)

    def relpath(self, path: str) -> str | None:
        """``path`` (absolute) relative to the work tree root; None when outside it."""
        if path == self.root:
            return ""
        if not path.startswith(self.root.rstrip("/") + "/"):
            return None
        return path[len(self.root.rstrip("/")) + 1 :]

    def worktree(self, ignored: list[str] | None = None, force: bool = False) -> dict[str, tuple[str, bytes]]:
        """Every file of the work tree not ignored: ``{path: (mode, content)}`` (``.git`` left out).
        ``ignored`` collects what the rules leave out (a folder as ``name/``), as ``status
        --ignored`` lists it: a folder holding only ignored files counts as ignored. ``force``
        (``git add -f``): ignored files too."""
        rules = ignore_rules(self)
        tracked = set(self.read_index())
        tracked_dirs = {q.rsplit("/", 1)[0] for q in tracked if "/" in q}
        tracked_dirs |= {d.rsplit("/", k)[0] for d in list(tracked_dirs) for k in range(1, d.count("/") + 1)}

        def hidden(rel: str, is_dir: bool) -> bool:
            if force or rel in tracked or (is_dir and rel in tracked_dirs):  # never a tracked file
                return False
            return rules.excluded(rel, is_dir)

        out: dict[str, tuple[str, bytes]] = {}

        def visit(path: str, rel: str, skipped: list[str] | None) -> None:
            node = self.fs.lstat(path)
            if isinstance(node, DirNode):
                for name in sorted(node.children):
                    if not rel and name == ".git":
                        continue
                    child_rel = f"{rel}/{name}" if rel else name
                    child = node.children[name]
                    is_dir = isinstance(child, DirNode)
                    if hidden(child_rel, is_dir):
                        if skipped is not None and not (isinstance(child, DirNode) and not child.children):
                            skipped.append(child_rel + "/" if is_dir else child_rel)
                        continue
                    if skipped is not None and is_dir and child_rel not in tracked_dirs:
                        inner: list[str] = []
                        before = len(out)
                        visit(posixpath.join(path, name), child_rel, inner)
                        if len(out) == before and inner:  # nothing in it but ignored files
                            skipped.append(child_rel + "/")
                        else:
                            skipped.extend(inner)
                        continue
                    visit(posixpath.join(path, name), child_rel, skipped)
            elif isinstance(node, LinkNode):
                out[rel] = ("120000", node.target.encode("utf-8", "surrogateescape"))
            elif isinstance(node, FileNode):
                out[rel] = ("100755" if node.mode & 0o111 else "100644", _bytes(node.content))

        visit(self.root, "", ignored)
        return out

    def hashed_worktree(self) -> Entries:
        return {path: (mode, blob_id(data)) for path, (mode, data) in self.worktree().items()}

    def checkout_entries(self, entries: Entries, old: Entries) -> None:
        """Make the work tree hold ``entries`` where it held ``old`` (files only in ``old`` go)."""
        for path in old:
            if path not in entries:
                try:
                    self.fs.remove(self.abspath(path))
                except FsError:
                    pass
                self._prune(posixpath.dirname(path))
        for path, (mode, sha) in entries.items():
            self.write_file(path, mode, sha)

    def write_file(self, path: str, mode: str, sha: str) -> None:
        full = self.abspath(path)
        data = self.blob(sha)
        if self.fs.is_dir(full):
            self.fs.rmtree(full)
        self.fs.mkdir(posixpath.dirname(full), parents=True)
        if self.fs.lexists(full) and self.fs.is_link(full):
            self.fs.remove(full)
        if mode == "120000":
            self.fs.symlink(data.decode("utf-8", "surrogateescape"), full)
            return
        self.fs.write(full, content_of(data))
        self.fs.chmod(full, 0o755 if mode == "100755" else 0o644)

    def _prune(self, rel_dir: str) -> None:
        while rel_dir:
            full = self.abspath(rel_dir)
            try:
                if self.fs.listdir(full):
                    return
                self.fs.rmdir(full)
            except FsError:
                return
            rel_dir = posixpath.dirname(rel_dir)

    # -- config ----------------------------------------------------------------------------------

    def config_files(self) -> list[str]:
        return [posixpath.join(self.fs.home, ".gitconfig"), self._git("config")]


def ignore_rules(repo: Repo) -> Ignores:
    """The ignore rules of ``repo``'s work tree, with its ``core.excludesFile`` setting."""
    return Ignores(repo, read_config(repo.fs, repo.config_files()).get("core.excludesfile"))
