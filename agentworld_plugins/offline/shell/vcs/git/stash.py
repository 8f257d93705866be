"""git stash: push (``-m``, ``-u``), list, show, apply (``--index``), pop, drop, clear.

A stash is stored as git stores it: a commit of the work tree whose parents are HEAD and a commit
of the index (and, with ``-u``, a third of the untracked files), ``refs/stash`` pointing at the
newest, and the list in the reflog ``logs/refs/stash``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ....vfs import FsError
from .diffopts import diff_output, operands, shown_changes
from .ident import person
from .repo import Entries, GitError, Repo
from .text import changed_paths
from .work import long_status, need_repo, status_sets, untracked_paths

if TYPE_CHECKING:
    from ...proc import _Proc

_LOG = "logs/refs/stash"


def _entries(repo: Repo) -> list[tuple[str, str]]:
    """(stash commit, message), oldest first."""
    try:
        text = repo.fs.read_text(repo.gitdir + "/" + _LOG)
    except FsError:
        return []
    out = []
    for line in text.splitlines():
        head, _, message = line.partition("\t")
        parts = head.split(" ")
        if len(parts) > 1:
            out.append((parts[1], message))
    return out


def _save(repo: Repo, entries: list[tuple[str, str]], ident: str) -> None:
    path = repo.gitdir + "/" + _LOG
    if not entries:
        for name in (path, repo.gitdir + "/refs/stash"):
            try:
                repo.fs.remove(name)
            except FsError:
                pass
        return
    lines = []
    previous = "0" * 40
    for sha, message in entries:
        lines.append(f"{previous} {sha} {ident}\t{message}\n")
        previous = sha
    repo.fs.mkdir(repo.gitdir + "/logs/refs", parents=True)
    repo.fs.write(path, "".join(lines))
    repo.set_ref("refs/stash", entries[-1][0])


def _pick(repo: Repo, operands: list[str]) -> int:
    """The position (in :func:`_entries`) of the stash an operand names (default the newest)."""
    entries = _entries(repo)
    if not entries:
        raise GitError("No stash entries found.", 1, raw=True)
    k = 0
    if operands:
        m = re.fullmatch(r"(?:stash@\{(\d+)\}|(\d+))", operands[0])
        if not m:
            raise GitError(f"'{operands[0]}' is not a stash-like commit")
        k = int(m.group(1) or m.group(2))
        if k >= len(entries):
            raise GitError(f"stash@{{{k}}} is not a valid reference", 1)
    return len(entries) - 1 - k


def cmd_stash(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    sub = args[0] if args and not args[0].startswith("-") else "push"
    rest = args[1:] if args and not args[0].startswith("-") else args
    if sub in ("push", "save"):
        return _push(p, repo, rest, sub == "save")
    if sub == "list":
        p.out("".join(f"stash@{{{k}}}: {msg}\n" for k, (_, msg) in enumerate(reversed(_entries(repo)))))
        return 0
    words = [a for a in operands(rest) if not a.startswith("-")]
    if sub == "clear":
        _save(repo, [], "")
        return 0
    position = _pick(repo, words)
    sha = _entries(repo)[position][0]
    if sub == "show":
        stash = repo.commit(sha)
        old, new = repo.commit_entries(stash.parents[0]), repo.commit_entries(sha)
        output = diff_output(p, rest, repo)
        # the stat unless a format is asked for
        output.stat = output.stat or not (output.patch or output.numstat or output.shortstat)
        p.out(shown_changes(repo, old, new, output, default_patch=False))
        return 0
    quiet = "-q" in rest or "--quiet" in rest
    shown = words[0] if words else "refs/stash@{0}"
    if sub in ("apply", "pop"):
        status = _apply(p, repo, sha, "--index" in rest, quiet)
        if status or sub == "apply":
            return status
        return _drop(p, repo, position, shown, quiet)
    if sub == "drop":
        return _drop(p, repo, position, shown, quiet)
    if sub == "branch":
        return p.not_simulated()
    raise GitError(f"unknown subcommand: {sub}", 129)


def _drop(p: _Proc, repo: Repo, position: int, shown: str, quiet: bool) -> int:
    entries = _entries(repo)
    sha = entries[position][0]
    del entries[position]
    _save(repo, entries, person(p, repo, "committer") if entries else "")
    if not quiet:
        p.out(f"Dropped {shown} ({sha})\n")
    return 0


def _push(p: _Proc, repo: Repo, args: list[str], save: bool) -> int:
    message = None
    untracked = quiet = False
    i = 0
    words = []
    while i < len(args):
        a = args[i]
        if a in ("-m", "--message") and i + 1 < len(args):
            message = args[i + 1]
            i += 1
        elif a.startswith("--message="):
            message = a.split("=", 1)[1]
        elif a in ("-u", "--include-untracked"):
            untracked = True
        elif a in ("-q", "--quiet"):
            quiet = True
        elif not a.startswith("-"):
            words.append(a)
        i += 1
    if save and words:
        message = " ".join(words)
    head_sha = repo.head()
    if head_sha is None:
        raise GitError("You do not have the initial commit yet")
    head, index, work = status_sets(repo)
    tracked_work: Entries = {q: work[q] for q in index if q in work}
    new_files = untracked_paths(index, work) if untracked else []
    loose = [q for q in work if q not in index] if untracked else []
    if not changed_paths(head, index) and not changed_paths(index, tracked_work) and not new_files:
        if not quiet:
            p.out("No local changes to save\n")
        return 0
    ident = person(p, repo, "committer")
    author = person(p, repo, "author")
    commit = repo.commit(head_sha)
    branch = repo.branch() or "(no branch)"
    base = f"{branch}: {head_sha[:7]} {commit.subject}"
    index_sha = repo.write_commit(repo.write_tree(index), [head_sha], author, f"index on {base}\n", ident)
    files = repo.worktree()
    for q in tracked_work:
        repo.write_blob(files[q][1])
    parents = [head_sha, index_sha]
    if loose:
        loose_entries = {q: (files[q][0], repo.write_blob(files[q][1])) for q in loose}
        parents.append(
            repo.write_commit(
                repo.write_tree(loose_entries), [], author, f"untracked files on {base}\n", ident
            )
        )
    title = f"On {branch}: {message}" if message else f"WIP on {base}"
    sha = repo.write_commit(repo.write_tree(tracked_work), parents, author, title, ident)
    _save(repo, [*_entries(repo), (sha, title)], ident)
    repo.checkout_entries(head, {**index, **tracked_work, **{q: work[q] for q in loose}})
    repo.write_index(head)
    if not quiet:
        p.out(f"Saved working directory and index state {title}\n")
    return 0


def _apply(p: _Proc, repo: Repo, sha: str, restore_index: bool, quiet: bool) -> int:
    stash = repo.commit(sha)
    base = repo.commit_entries(stash.parents[0])
    saved_index = repo.commit_entries(stash.parents[1]) if len(stash.parents) > 1 else base
    saved_work = repo.commit_entries(sha)
    loose = repo.commit_entries(stash.parents[2]) if len(stash.parents) > 2 else {}
    head, index, work = status_sets(repo)
    changes = changed_paths(base, saved_work)
    staged = changed_paths(base, saved_index)
    local = set(changed_paths(head, index)) | {q for q, k in changed_paths(index, work).items() if k != "A"}
    clashes = sorted(q for q in set(changes) | set(staged) if q in local)
    clashes += sorted(q for q in loose if q in work)
    if clashes:
        p.ctx.err.write(
            "error: Your local changes to the following files would be overwritten by merge:\n"
            + "".join(f"\t{q}\n" for q in clashes)
            + "Please commit your changes or stash them before you merge.\nAborting\n"
        )
        return 1
    for q, kind in changes.items():
        if kind == "D":
            try:
                repo.fs.remove(repo.abspath(q))
            except FsError:
                pass
        else:
            repo.write_file(q, *saved_work[q])
    for q, entry in loose.items():
        repo.write_file(q, *entry)
    for q, kind in staged.items():
        if restore_index:
            if kind == "D":
                index.pop(q, None)
            else:
                index[q] = saved_index[q]
        elif kind == "A":  # a new file comes back added, as git does
            index[q] = saved_index[q]
    repo.write_index(index)
    if not changes and not staged:
        p.out("Already up to date.\n")
    if quiet:
        return 0
    head_sha = repo.head()
    head, index, work = status_sets(repo)
    unstaged = {q: k for q, k in changed_paths(index, work).items() if k != "A"}
    p.out(long_status(p, repo, head_sha, changed_paths(head, index), unstaged, untracked_paths(index, work)))
    return 0
