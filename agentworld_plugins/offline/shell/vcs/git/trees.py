"""``git ls-tree``: the entries of a tree as git lists them (``-r``, ``-t``, ``-d``, ``-l``,
``--name-only``/``--name-status``, ``--object-only``, ``--full-name``, ``--full-tree``,
``--abbrev``, ``-z``), paths relative to the current folder as git takes them."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...limits import current
from .repo import GitError, Repo
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc

_KINDS = {"40000": "tree", "160000": "commit"}


#: git ls-tree's usage (stderr, status 129, when no tree is named)
_USAGE = (
    "usage: git ls-tree [<options>] <tree-ish> [<path>...]\n"
    "\n"
    "    -d                    only show trees\n"
    "    -r                    recurse into subtrees\n"
    "    -t                    show trees when recursing\n"
    "    -z                    terminate entries with NUL byte\n"
    "    -l, --long            include object size\n"
    "    --name-only           list only filenames\n"
    "    --name-status         list only filenames\n"
    "    --object-only         list only objects\n"
    "    --full-name           use full path names\n"
    "    --full-tree           list entire tree; not just current directory (implies --full-name)\n"
    "    --format <format>     format to use for the output\n"
    "    --abbrev[=<n>]        use <n> digits to display object names\n"
    "\n"
)


def tree_items(repo: Repo, sha: str) -> Iterator[tuple[str, str, str]]:
    """``(mode, name, id)`` of a tree's own entries, in the tree's order."""
    kind, body = repo.read_object(sha)
    if kind != "tree":
        raise GitError("not a tree object")
    i = 0
    while i < len(body):
        space = body.index(b" ", i)
        nul = body.index(b"\x00", space)
        yield (
            body[i:space].decode(),
            body[space + 1 : nul].decode("utf-8", "surrogateescape"),
            body[nul + 1 : nul + 21].hex(),
        )
        i = nul + 21


def _tree_of(repo: Repo, name: str) -> str:
    rev, colon, inner = name.partition(":")
    sha = repo.resolve(rev or "HEAD")
    if sha is None:
        raise GitError("Not a valid object name " + name)
    sha = repo.peel(sha)
    kind, _ = repo.read_object(sha)
    tree = repo.commit(sha).tree if kind == "commit" else sha
    for part in [x for x in inner.split("/") if x] if colon else []:
        found = [s for mode, n, s in tree_items(repo, tree) if n == part and mode == "40000"]
        if not found:
            raise GitError("Not a valid object name " + name)
        tree = found[0]
    return tree


def cmd_ls_tree(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    flags: set[str] = set()
    abbrev = 40
    words: list[str] = []
    longs = {"--long": "l", "--name-only": "n", "--name-status": "n", "--object-only": "o",
             "--full-name": "f", "--full-tree": "F"}  # fmt: skip
    for a in args:
        if a in longs:
            flags.add(longs[a])
        elif a.startswith("--abbrev"):
            abbrev = int(a.partition("=")[2] or 7)
        elif a.startswith("-") and len(a) > 1 and set(a[1:]) <= set("rtdlz"):
            flags.update(a[1:])
        elif a.startswith("-") and a != "--":
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        elif a != "--":
            words.append(a)
    if not words:
        raise GitError(_USAGE[:-1], 129, raw=True)
    tree = _tree_of(repo, words[0])
    here = "" if "F" in flags else (repo.relpath(p.vm.cwd) or "")
    specs: list[tuple[str, bool]] = []  # (path from the top, whether its contents are wanted)
    for w in words[1:]:
        full = posixpath.normpath(posixpath.join(here, w)) if here else posixpath.normpath(w)
        specs.append(("" if full == "." else full, w.endswith("/") or full == "."))
    if not specs:
        specs = [(here, True)]
    end = "\0" if "z" in flags else "\n"
    out: list[str] = []
    budget = current()

    def show(mode: str, sha: str, path: str) -> None:
        kind = _KINDS.get(mode, "blob")
        if "d" in flags and kind != "tree":
            return
        name = path if "f" in flags or "F" in flags else posixpath.relpath(path, here or ".")
        if "o" in flags:
            out.append(sha[:abbrev] + end)
        elif "n" in flags:
            out.append(name + end)
        else:
            size = ""
            if "l" in flags:
                size = " " + (f"{len(repo.blob(sha)):>7}" if kind == "blob" else f"{'-':>7}")
            out.append(f"{mode.zfill(6)} {kind} {sha[:abbrev]}{size}\t{name}{end}")

    def visit(sha: str, base: str) -> None:
        for mode, name, child in tree_items(repo, sha):
            budget.spend(2)
            path = base + name
            is_tree = mode == "40000"
            for spec, contents in specs:
                inside = not spec or path.startswith(spec + "/")
                if path == spec and not (is_tree and contents):
                    descend = is_tree and "r" in flags and "d" not in flags
                    if not descend or "t" in flags:
                        show(mode, child, path)
                    if descend:
                        visit(child, path + "/")
                elif inside or path == spec:
                    direct = path == spec or "/" not in path[len(spec) + 1 if spec else 0 :]
                    if path == spec:  # a folder whose contents were asked for
                        visit(child, path + "/")
                    elif "r" in flags and is_tree and "d" not in flags:
                        if "t" in flags:
                            show(mode, child, path)
                        visit(child, path + "/")
                    elif direct or "r" in flags:
                        show(mode, child, path)
                elif is_tree and spec.startswith(path + "/"):
                    if "t" in flags:
                        show(mode, child, path)
                    visit(child, path + "/")
                else:
                    continue
                break

    visit(tree, "")
    p.out("".join(out))
    return 0
