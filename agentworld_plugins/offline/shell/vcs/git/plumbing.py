"""``git diff-tree``: a commit against its parent (or two trees) in git's raw format
(``:100644 100644 <old> <new> M<TAB>path``), top-level entries unless ``-r``, the commit id first
unless ``--no-commit-id``; ``-p``, ``--stat``, ``--name-only``, ``--name-status`` as ``git diff``
prints them; ``--root`` for a first commit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diffopts import diff_output, operands, shown_changes
from .graph import named_commits
from .repo import ZERO, Entries, GitError, Repo
from .text import changed_paths
from .trees import tree_items
from .work import need_repo, pathspec_filter

if TYPE_CHECKING:
    from ...proc import _Proc


#: git diff-tree's usage (stderr, status 129)
_USAGE = (
    "usage: git diff-tree [--stdin] [-m] [-s] [-v] [--no-commit-id] [--pretty]\n"
    "              [-t] [-r] [-c | --cc] [--combined-all-paths] [--root] [--merge-base]\n"
    "              [<common-diff-options>] <tree-ish> [<tree-ish>] [<path>...]\n"
    "\n"
    "  -r            diff recursively\n"
    "  -c            show combined diff for merge commits\n"
    "  --cc          show combined diff for merge commits removing uninteresting hunks\n"
    "  --combined-all-paths\n"
    "                show name of file in all parents for combined diffs\n"
    "  --root        include the initial commit as diff against /dev/null\n"
    "\n"
    "common diff options:\n"
    "  -z            output diff-raw with lines terminated with NUL.\n"
    "  -p            output patch format.\n"
    "  -u            synonym for -p.\n"
    "  --patch-with-raw\n"
    "                output both a patch and the diff-raw format.\n"
    "  --stat        show diffstat instead of patch.\n"
    "  --numstat     show numeric diffstat instead of patch.\n"
    "  --patch-with-stat\n"
    "                output a patch and prepend its diffstat.\n"
    "  --name-only   show only names of changed files.\n"
    "  --name-status show names and status of changed files.\n"
    "  --full-index  show full object name on index lines.\n"
    "  --abbrev=<n>  abbreviate object names in diff-tree header and diff-raw.\n"
    "  -R            swap input file pairs.\n"
    "  -B            detect complete rewrites.\n"
    "  -M            detect renames.\n"
    "  -C            detect copies.\n"
    "  --find-copies-harder\n"
    "                try unchanged files as candidate for copy detection.\n"
    "  -l<n>         limit rename attempts up to <n> paths.\n"
    "  -O<file>      reorder diffs according to the <file>.\n"
    "  -S<string>    find filepair whose only one side contains the string.\n"
    "  --pickaxe-all\n"
    "                show all files diff when -S is used and hit is found.\n"
    "  -a  --text    treat all files as text.\n"
    "\n"
)


def _top(repo: Repo, tree: str | None) -> Entries:
    """A tree's own entries (folders as ``040000`` entries): ``{name: (mode, id)}``."""
    if tree is None:
        return {}
    return {name: (mode.zfill(6), sha) for mode, name, sha in tree_items(repo, tree)}


def cmd_diff_tree(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    output = diff_output(p, args, repo)
    words = operands(args)
    specs: list[str] | None = None
    if "--" in words:
        k = words.index("--")
        words, specs = words[:k], words[k + 1 :]
    flags = {a for a in words if a.startswith("-")}
    names = [a for a in words if not a.startswith("-")]
    known = {"-r", "-t", "--no-commit-id", "--root", "-p", "-u", "--patch", "--stat", "--numstat", "--shortstat",
             "--name-only", "--name-status", "-s", "--no-patch", "--no-renames"}  # fmt: skip
    if flags - known or not 1 <= len(names) <= 2:
        return p.not_simulated() if names else _usage()
    shas = named_commits(
        repo, names, "ambiguous argument '{}': unknown revision or path not in the working tree."
    )
    if len(shas) == 2:
        old_sha: str | None = shas[0]
        new_sha, header = shas[1], ""
    else:
        commit = repo.commit(shas[0])
        if not commit.parents and "--root" not in flags:
            return 0
        if len(commit.parents) > 1:
            return p.not_simulated()  # a merge's combined listing
        old_sha = commit.parents[0] if commit.parents else None
        new_sha, header = shas[0], "" if "--no-commit-id" in flags else shas[0] + "\n"
    old, new = repo.commit_entries(old_sha), repo.commit_entries(new_sha)
    paths = pathspec_filter(p, repo, specs) if specs else None
    formatted = output.shows_any(default_patch=False)
    if formatted:
        body = shown_changes(repo, old, new, output, default_patch=False, paths=paths)
    else:
        body = _raw(repo, old, new, old_sha, new_sha, recursive="-r" in flags, paths=paths)
    if body:
        p.out(header + body)
    return 0


def _raw(
    repo: Repo,
    old: Entries,
    new: Entries,
    old_sha: str | None,
    new_sha: str,
    recursive: bool,
    paths: list[str] | None,
) -> str:
    if not recursive:  # the top level: a changed folder is one line, its tree ids
        changed = {q.split("/")[0] for q in changed_paths(old, new)}
        old = {
            k: v
            for k, v in _top(repo, repo.commit(old_sha).tree if old_sha else None).items()
            if k in changed
        }
        new = {k: v for k, v in _top(repo, repo.commit(new_sha).tree).items() if k in changed}
    lines = []
    for path, kind in sorted(changed_paths(old, new).items()):
        if paths is not None and not any(path == x or path.startswith(x + "/") or not x for x in paths):
            continue
        a, b = old.get(path, ("000000", ZERO)), new.get(path, ("000000", ZERO))
        lines.append(f":{a[0]} {b[0]} {a[1]} {b[1]} {kind}\t{path}\n")
    return "".join(lines)


def _usage() -> int:
    raise GitError(_USAGE[:-1], 129, raw=True)
