"""The ``files`` family: the shell's :class:`~agentworld_plugins.offline.vfs.VirtualFS`, answered
the way ``@modelcontextprotocol/server-filesystem`` answers.

Facts taken from that server (its README and ``index.ts``/``lib.ts``): a write answers
``Successfully wrote to PATH``; ``create_directory`` ``Successfully created directory PATH``;
``move_file`` ``Successfully moved A to B`` and fails when the destination exists; listings are
``[FILE] name`` / ``[DIR] name`` lines; ``get_file_info`` prints ``key: value`` lines (``size``,
``created``, ``modified``, ``accessed``, ``isDirectory``, ``isFile``, ``permissions``);
``search_files`` prints full paths or ``No matches found`` (its pattern a minimatch glob on the
path relative to the search root: :mod:`.globs`); ``read_multiple_files`` joins
``PATH:\\nCONTENT\\n`` blocks with ``\\n---\\n``; relative paths resolve against the first allowed
directory and paths outside the allowed ones are refused with ``Access denied - ...``.

>>> files = FileStore.from_context({"files": {"notes/": ""}})
>>> files.run("write", {"path": "/app/notes/a.txt", "content": "hi\\n"}).text
'Successfully wrote to /app/notes/a.txt'
>>> files.run("list", {"path": "/app/notes"}).text
'[FILE] a.txt'
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
from datetime import datetime, timezone
from typing import Any

from ...vfs import DirNode, FsError, LinkNode, VirtualFS, as_text
from . import Answer
from .globs import glob_match

_CODES = {
    "ENOENT": "no such file or directory",
    "EEXIST": "file already exists",
    "ENOTDIR": "not a directory",
    "EISDIR": "illegal operation on a directory",
    "ENOTEMPTY": "directory not empty",
    "EINVAL": "invalid argument",
    "ELOOP": "too many symbolic links encountered",
    "EACCES": "permission denied",
}
_TREE_LIMIT = 5000  # entries in one directory_tree answer


def _node_error(exc: FsError, syscall: str, path: str) -> str:
    # Node's fs errors read "ENOENT: no such file or directory, open '/x'"
    return f"{exc.code}: {_CODES.get(exc.code, exc.strerror.lower())}, {syscall} '{path}'"


#: a unified-diff hunk header; jsdiff (the server's createTwoFilesPatch) always writes both counts
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.MULTILINE)


def _counted(match: re.Match[str]) -> str:
    return f"@@ -{match.group(1)}{match.group(2) or ',1'} +{match.group(3)}{match.group(4) or ',1'} @@"


def _js_date(epoch: int) -> str:
    # what String(new Date(...)) prints in a Node process running in UTC
    moment = datetime.fromtimestamp(epoch, tz=timezone.utc)
    return moment.strftime("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)")


def format_size(size: int) -> str:
    """A size the way the filesystem server's ``formatSize`` writes it (``1.50 KB``)."""
    if size <= 0:
        return "0 B"
    units = ["B", "KB", "MB", "GB", "TB"]
    index = 0
    while index < len(units) - 1 and size >= 1024 ** (index + 1):
        index += 1
    return f"{size} B" if index == 0 else f"{size / 1024**index:.2f} {units[index]}"


def _arg(args: dict[str, Any], *names: str) -> Any:
    return next((args[n] for n in names if n in args and args[n] is not None), None)


class FileStore:
    """A session's files: a virtual filesystem and the directories the tools may reach."""

    def __init__(self, fs: VirtualFS, allowed: list[str], base: str) -> None:
        self.fs = fs
        self.allowed = allowed
        self.base = base

    @classmethod
    def from_context(cls, context: dict[str, Any]) -> FileStore:
        """The default machine's filesystem (``context["files"]`` seeds it, relative paths under
        ``cwd``, default ``/app``); ``context["allowed_directories"]`` limits the tools (default:
        the whole filesystem, relative paths resolving against ``cwd``)."""
        base = str(context.get("cwd") or "/app")
        seed = context.get("files")
        fs = VirtualFS.from_seed(seed if isinstance(seed, (dict, str)) else None, base=base)
        return cls.on(fs, context)

    @classmethod
    def on(cls, fs: VirtualFS, context: dict[str, Any]) -> FileStore:
        """The tools on an existing filesystem (a named world's, which the shell shares):
        ``context["allowed_directories"]`` and ``cwd`` as for :meth:`from_context`."""
        base = str(context.get("cwd") or "/app")
        if not fs.exists(base):
            fs.mkdir(base, parents=True)
        allowed = context.get("allowed_directories")
        dirs = [fs.normalize(str(d)) for d in allowed] if isinstance(allowed, list) and allowed else ["/"]
        for d in dirs:
            if not fs.exists(d):
                fs.mkdir(d, parents=True)
        return cls(fs, dirs, dirs[0] if dirs != ["/"] else base)

    # -- paths -----------------------------------------------------------------------------------

    def _inside(self, path: str) -> bool:
        return any(d == "/" or path == d or path.startswith(d + "/") for d in self.allowed)

    def resolve(self, raw: Any) -> str:
        """An absolute path inside the allowed directories; :class:`ValueError` with the server's
        text when it is outside them."""
        if not isinstance(raw, str) or not raw:
            raise ValueError("path must be a non-empty string")
        path = self.fs.normalize(raw, self.base)
        if not self._inside(path):
            raise ValueError(
                f"Access denied - path outside allowed directories: {path} not in {', '.join(self.allowed)}"
            )
        try:
            real = self.fs.realpath(path)
        except FsError:
            return path
        if not self._inside(real):
            raise ValueError(
                f"Access denied - symlink target outside allowed directories: {real} not in "
                f"{', '.join(self.allowed)}"
            )
        return path

    # -- the operations --------------------------------------------------------------------------

    def run(self, op: str, args: dict[str, Any], out_schema: Any = None) -> Answer:
        """Answer one call of the ``files`` family; never raises for bad input."""
        handler = getattr(self, f"_op_{op}", None)
        if handler is None:
            return Answer(f"Error: unsupported file operation {op!r}", is_error=True)
        try:
            return handler(args)  # type: ignore[no-any-return]
        except ValueError as exc:
            return Answer(str(exc), is_error=True)

    def _text(self, text: str, **data: Any) -> Answer:
        return Answer(text, data={"content": text, **data})

    def _op_allowed(self, args: dict[str, Any]) -> Answer:
        return self._text("Allowed directories:\n" + "\n".join(self.allowed))

    def _read_one(self, path: str) -> str:
        try:
            return as_text(self.fs.read(path))
        except FsError as exc:
            raise ValueError(_node_error(exc, "open", path)) from None

    def _op_read(self, args: dict[str, Any]) -> Answer:
        raw = _arg(args, "path", "file_path", "filepath", "filename", "file")
        path = self.resolve(raw)
        head, tail = _arg(args, "head"), _arg(args, "tail")
        if head and tail:
            raise ValueError("Cannot specify both head and tail parameters simultaneously")
        content = self._read_one(path)
        if isinstance(tail, int) and tail > 0:
            content = "\n".join(content.replace("\r\n", "\n").split("\n")[-tail:])
        elif isinstance(head, int) and head > 0:
            content = "\n".join(content.split("\n")[:head])
        return self._text(content, path=path, size=len(content.encode("utf-8", "surrogateescape")))

    def _op_read_many(self, args: dict[str, Any]) -> Answer:
        paths = _arg(args, "paths", "files", "file_paths")
        if not isinstance(paths, list) or not paths:
            raise ValueError("At least one file path must be provided")
        blocks = []
        for raw in paths:
            try:
                blocks.append(f"{raw}:\n{self._read_one(self.resolve(raw))}\n")
            except ValueError as exc:
                blocks.append(f"{raw}: Error - {exc}")
        return self._text("\n---\n".join(blocks))

    def _op_write(self, args: dict[str, Any], append: bool = False) -> Answer:
        raw = _arg(args, "path", "file_path", "filepath", "filename", "file")
        path = self.resolve(raw)
        content = _arg(args, "content", "text", "data", "contents", "body")
        content = content if isinstance(content, str) else json.dumps(content) if content is not None else ""
        try:
            self.fs.write(path, content, append=append)
        except FsError as exc:
            return Answer(_node_error(exc, "open", path), is_error=True)
        size = self.fs.stat(path).size  # type: ignore[attr-defined]
        verb = "appended to" if append else "wrote to"
        return self._text(f"Successfully {verb} {raw}", path=path, size=size, success=True)

    def _op_append(self, args: dict[str, Any]) -> Answer:
        return self._op_write(args, append=True)

    def _op_edit(self, args: dict[str, Any]) -> Answer:
        raw = _arg(args, "path", "file_path", "filepath")
        path = self.resolve(raw)
        original = self._read_one(path).replace("\r\n", "\n")
        edits = args.get("edits")
        if not isinstance(edits, list):
            old, new = (
                _arg(args, "oldText", "old_text", "old_str", "old"),
                _arg(args, "newText", "new_text", "new_str", "new"),
            )
            edits = [{"oldText": old, "newText": new}] if isinstance(old, str) else []
        modified = original
        for edit in edits:
            old = str((edit or {}).get("oldText", (edit or {}).get("old_text", "")))
            new = str((edit or {}).get("newText", (edit or {}).get("new_text", "")))
            if old and old in modified:
                modified = modified.replace(old, new, 1)
            else:
                raise ValueError(f"Could not find exact match for edit:\n{old}")
        diff = _HUNK.sub(
            _counted,
            "".join(
                difflib.unified_diff(
                    original.splitlines(keepends=True),
                    modified.splitlines(keepends=True),
                    fromfile=f"{path}\toriginal",
                    tofile=f"{path}\tmodified",
                )
            ),
        )
        fence = "```"
        while fence in diff:
            fence += "`"
        text = f"{fence}diff\nIndex: {path}\n{'=' * 67}\n{diff}{fence}\n\n"
        if not args.get("dryRun"):
            self.fs.write(path, modified)
        return self._text(text)

    def _op_mkdir(self, args: dict[str, Any]) -> Answer:
        raw = _arg(args, "path", "directory", "dir")
        path = self.resolve(raw)
        try:
            self.fs.mkdir(path, parents=True)
        except FsError as exc:
            return Answer(_node_error(exc, "mkdir", path), is_error=True)
        return self._text(f"Successfully created directory {raw}", path=path, success=True)

    def _entries(self, path: str) -> list[tuple[str, Any]]:
        try:
            names = self.fs.listdir(path)
        except FsError as exc:
            raise ValueError(_node_error(exc, "scandir", path)) from None
        out = []
        for name in names:
            full = posixpath.join(path, name)
            try:
                node = self.fs.stat(full)
            except FsError:
                node = self.fs.lstat(full)
            out.append((name, node))
        return out

    def _op_list(self, args: dict[str, Any]) -> Answer:
        path = self.resolve(_arg(args, "path", "directory", "dir") or ".")
        entries = self._entries(path)
        lines = [f"{'[DIR]' if isinstance(node, DirNode) else '[FILE]'} {name}" for name, node in entries]
        listed = [{"name": n, "type": "directory" if isinstance(d, DirNode) else "file"} for n, d in entries]
        return self._text("\n".join(lines), entries=listed, path=path)

    def _op_list_sizes(self, args: dict[str, Any]) -> Answer:
        path = self.resolve(_arg(args, "path", "directory", "dir") or ".")
        entries = self._entries(path)
        if args.get("sortBy") == "size":
            entries.sort(key=lambda e: -(0 if isinstance(e[1], DirNode) else e[1].size))
        lines = []
        for name, node in entries:
            is_dir = isinstance(node, DirNode)
            size = "" if is_dir else format_size(node.size).rjust(10)
            lines.append(f"{'[DIR]' if is_dir else '[FILE]'} {name.ljust(30)} {size}")
        files = [n for _, n in entries if not isinstance(n, DirNode)]
        total = sum(n.size for n in files)
        lines += [
            "",
            f"Total: {len(files)} files, {len(entries) - len(files)} directories",
            f"Combined size: {format_size(total)}",
        ]
        return self._text("\n".join(lines))

    def _excluded(self, rel: str, patterns: Any, *, tree: bool = False) -> bool:
        """Whether ``rel`` is excluded: minimatch on the relative path (``search_files``); for
        ``directory_tree`` a pattern without ``*`` also matches a name at any depth or a folder
        and all below it, as the server's tree walk adds ``**/P`` and ``**/P/**``."""
        for pattern in patterns if isinstance(patterns, list) else []:
            pattern = str(pattern)
            if glob_match(pattern, rel):
                return True
            if (
                tree
                and "*" not in pattern
                and (glob_match(f"**/{pattern}", rel) or glob_match(f"**/{pattern}/**", rel))
            ):
                return True
        return False

    def _op_tree(self, args: dict[str, Any]) -> Answer:
        root = self.resolve(_arg(args, "path", "directory", "dir") or ".")
        exclude = args.get("excludePatterns") or args.get("exclude_patterns")
        count = [0]

        def build(path: str) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for name, node in self._entries(path):
                full = posixpath.join(path, name)
                if (
                    self._excluded(posixpath.relpath(full, root), exclude, tree=True)
                    or count[0] >= _TREE_LIMIT
                ):
                    continue
                count[0] += 1
                entry: dict[str, Any] = {
                    "name": name,
                    "type": "directory" if isinstance(node, DirNode) else "file",
                }
                if isinstance(node, DirNode) and not isinstance(self.fs.lstat(full), LinkNode):
                    entry["children"] = build(full)
                elif isinstance(node, DirNode):
                    entry["children"] = []
                out.append(entry)
            return out

        tree = build(root)
        return self._text(json.dumps(tree, indent=2, ensure_ascii=False), tree=tree)

    def _op_move(self, args: dict[str, Any]) -> Answer:
        src_raw = _arg(args, "source", "src", "from", "old_path", "path")
        dst_raw = _arg(args, "destination", "dest", "dst", "to", "new_path", "target")
        src, dst = self.resolve(src_raw), self.resolve(dst_raw)
        if self.fs.lexists(dst):
            raise ValueError(f"Destination already exists: {dst}")
        try:
            self.fs.move(src, dst)
        except FsError as exc:
            return Answer(
                f"{exc.code}: {_CODES.get(exc.code, exc.strerror.lower())}, rename '{src}' -> '{dst}'",
                is_error=True,
            )
        return self._text(f"Successfully moved {src_raw} to {dst_raw}", success=True)

    def _op_copy(self, args: dict[str, Any]) -> Answer:
        src_raw = _arg(args, "source", "src", "from", "path")
        dst_raw = _arg(args, "destination", "dest", "dst", "to", "target")
        src, dst = self.resolve(src_raw), self.resolve(dst_raw)
        try:
            self.fs.copy(src, dst, recursive=True)
        except FsError as exc:
            return Answer(_node_error(exc, "copyfile", src), is_error=True)
        return self._text(f"Successfully copied {src_raw} to {dst_raw}", success=True)

    def _op_delete(self, args: dict[str, Any]) -> Answer:
        raw = _arg(args, "path", "file_path", "filepath", "directory")
        path = self.resolve(raw)
        try:
            if self.fs.is_dir(path) and not self.fs.is_link(path):
                if self.fs.listdir(path) and not args.get("recursive"):
                    raise FsError("ENOTEMPTY", path)
                self.fs.rmtree(path)
            else:
                self.fs.remove(path)
        except FsError as exc:
            return Answer(_node_error(exc, "rm", path), is_error=True)
        return self._text(f"Successfully deleted {raw}", success=True)

    def _op_search(self, args: dict[str, Any]) -> Answer:
        root = self.resolve(_arg(args, "path", "directory", "dir") or ".")
        pattern = str(_arg(args, "pattern", "query", "glob", "name") or "*")
        exclude = args.get("excludePatterns") or args.get("exclude_patterns")
        if not self.fs.is_dir(root):
            raise ValueError(_node_error(FsError("ENOTDIR"), "scandir", root))
        found: list[str] = []

        def visit(top: str) -> None:  # depth first, in directory order, like the server's walk
            for name, node in self._entries(top):
                full = posixpath.join(top, name)
                rel = posixpath.relpath(full, root)
                if self._excluded(rel, exclude) or len(found) >= _TREE_LIMIT:
                    continue
                if glob_match(pattern, rel):  # the relative path, as the server's minimatch
                    found.append(full)
                if isinstance(node, DirNode) and not self.fs.is_link(full):
                    visit(full)

        visit(root)
        text = "\n".join(found) if found else "No matches found"
        return self._text(text, matches=found)

    def _op_info(self, args: dict[str, Any]) -> Answer:
        raw = _arg(args, "path", "file_path", "filepath")
        path = self.resolve(raw)
        try:
            node = self.fs.stat(path)
        except FsError as exc:
            return Answer(_node_error(exc, "stat", path), is_error=True)
        is_dir = isinstance(node, DirNode)
        info = {
            "size": node.size,  # type: ignore[attr-defined]
            "created": _js_date(node.mtime),
            "modified": _js_date(node.mtime),
            "accessed": _js_date(node.mtime),
            "isDirectory": str(is_dir).lower(),
            "isFile": str(not is_dir).lower(),
            "permissions": f"{node.mode & 0o777:03o}",
        }
        text = "\n".join(f"{k}: {v}" for k, v in info.items())
        iso = datetime.fromtimestamp(node.mtime, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        data = {
            "path": path,
            "name": posixpath.basename(path) or "/",
            "type": "directory" if is_dir else "file",
            "size": node.size,  # type: ignore[attr-defined]
            "created": iso,
            "modified": iso,
            "accessed": iso,
            "isDirectory": is_dir,
            "isFile": not is_dir,
            "permissions": info["permissions"],
        }
        return Answer(text, data={"content": text, **data})
