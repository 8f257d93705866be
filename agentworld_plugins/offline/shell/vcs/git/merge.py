"""git merge, cherry-pick and revert over the three-way merge of :mod:`.merge3`, with git's
messages (``Updating a..b`` / ``Fast-forward``, ``Merge made by the 'ort' strategy.``,
``CONFLICT (content): ...``), its state files while conflicts wait, and its default commit
messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....vfs import FsError
from . import mergestate
from .graph import is_ancestor, merge_base
from .ident import person, reflog_ident
from .merge3 import TreeMerge, merge_trees
from .repo import Entries, GitError, Repo
from .text import changed_paths, diffstat
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc


def stat_with_modes(repo: Repo, old: Entries, new: Entries) -> str:
    """The ``--stat`` lines, the summary and the ``create mode`` lines, as merge prints them."""
    full = diffstat(repo, old, new)
    modes = diffstat(repo, old, new, summary_only=True).split("\n", 1)
    return full + (modes[1] if len(modes) > 1 else "")


def _dirty(repo: Repo, head: Entries, paths: list[str]) -> tuple[list[str], list[str]]:
    """Of ``paths`` (what the merge will write), those with local changes and the untracked ones
    it would overwrite."""
    index = repo.read_index()
    work = repo.hashed_worktree()
    changed = [q for q in paths if q in head and (index.get(q) != head[q] or work.get(q) != index.get(q))]
    untracked = [q for q in paths if q not in head and q not in index and q in work]
    return changed, untracked


def _refusal(changed: list[str], untracked: list[str], verb: str) -> str:
    if changed:
        return (
            f"error: Your local changes to the following files would be overwritten by {verb}:\n"
            + "".join(f"\t{q}\n" for q in changed)
            + f"Please commit your changes or stash them before you {verb}.\nAborting\n"
        )
    return (
        f"error: The following untracked working tree files would be overwritten by {verb}:\n"
        + "".join(f"\t{q}\n" for q in untracked)
        + f"Please move or remove them before you {verb}.\nAborting\n"
    )


def write_result(
    repo: Repo, old: Entries, new: Entries, conflicts: dict[str, tuple[bytes | None, str]]
) -> None:
    """Move the index and work tree from ``old`` to ``new`` (only the paths that change), the
    conflicted files written with their markers."""
    index = repo.read_index()
    for path, kind in changed_paths(old, new).items():
        if kind == "D":
            index.pop(path, None)
            try:
                repo.fs.remove(repo.abspath(path))
            except FsError:
                pass
            repo._prune(path.rpartition("/")[0])
        else:
            index[path] = new[path]
            repo.write_file(path, *new[path])
    for path, (data, _) in conflicts.items():
        if data is not None:
            full = repo.abspath(path)
            repo.fs.write(full, data.decode("utf-8", "surrogateescape"))
    repo.write_index(index)


def _label(repo: Repo, rev: str) -> str:
    if repo.ref(f"refs/heads/{rev}"):
        return f"branch '{rev}'"
    if repo.ref(f"refs/tags/{rev}"):
        return f"tag '{rev}'"
    return f"commit '{rev}'"


def cmd_merge(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    quiet = no_ff = ff_only = abort = stat = False
    stat = True
    message: str | None = None
    revs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-q", "--quiet"):
            quiet = True
        elif a == "--no-ff":
            no_ff = True
        elif a == "--ff-only":
            ff_only = True
        elif a == "--ff":
            no_ff = False
        elif a == "--abort":
            abort = True
        elif a in ("-n", "--no-stat"):
            stat = False
        elif a == "--stat":
            stat = True
        elif a in ("--no-edit", "--allow-unrelated-histories"):
            pass
        elif a in ("-m", "--message") and i + 1 < len(args):
            message = args[i + 1]
            i += 1
        elif a.startswith("-m") and len(a) > 2:
            message = a[2:]
        elif a.startswith("--message="):
            message = a.split("=", 1)[1]
        elif a in ("-s", "--strategy") and i + 1 < len(args) and args[i + 1] in ("ort", "recursive"):
            i += 1
        elif a.startswith("-"):
            return p.not_simulated()  # --squash, --no-commit, -X, -s octopus, --continue, ...
        else:
            revs.append(a)
        i += 1
    if abort:
        if mergestate.state_file(repo, "MERGE_HEAD") is None:
            raise GitError("There is no merge to abort (MERGE_HEAD missing).")
        _reset_to_head(repo)
        return 0
    if mergestate.state_file(repo, "MERGE_HEAD") is not None:
        if mergestate.read_unmerged(repo):
            raise GitError(
                "error: Merging is not possible because you have unmerged files.\n"
                + mergestate.UNMERGED_REFUSAL
            )
        raise GitError(
            "You have not concluded your merge (MERGE_HEAD exists).\nPlease, commit your changes before you merge."
        )
    if len(revs) != 1:
        if not revs:
            raise GitError("No remote for the current branch.")
        return p.not_simulated()  # an octopus merge
    rev = revs[0]
    head = repo.head()
    theirs = repo.resolve(rev)
    if theirs is None:
        p.ctx.err.write(f"merge: {rev} - not something we can merge\n")
        return 1
    theirs = repo.peel(theirs)
    if head is None:
        return p.not_simulated()  # merging into an unborn branch
    repo.set_ref("ORIG_HEAD", head)
    if is_ancestor(repo, theirs, head):
        if not quiet:
            p.out("Already up to date.\n")
        return 0
    ours_entries = repo.commit_entries(head)
    theirs_entries = repo.commit_entries(theirs)
    if is_ancestor(repo, head, theirs) and not no_ff:
        if not quiet:
            p.out(f"Updating {head[:7]}..{theirs[:7]}\n")
        changed, untracked = _dirty(repo, ours_entries, list(changed_paths(ours_entries, theirs_entries)))
        if changed or untracked:
            p.ctx.err.write(_refusal(changed, untracked, "merge"))
            return 1
        write_result(repo, ours_entries, theirs_entries, {})
        repo.set_head(theirs, f"merge {rev}: Fast-forward", reflog_ident(p, repo))
        if not quiet:
            p.out("Fast-forward\n" + (stat_with_modes(repo, ours_entries, theirs_entries) if stat else ""))
        return 0
    if ff_only:
        raise GitError("Not possible to fast-forward, aborting.")
    base = merge_base(repo, head, theirs)
    if base is None and "--allow-unrelated-histories" not in args:
        raise GitError("refusing to merge unrelated histories")
    branch = repo.branch()
    default = f"Merge {_label(repo, rev)}" + (
        f" into {branch}" if branch not in ("master", "main", None) else ""
    )
    text = (message if message is not None else default).rstrip("\n") + "\n"
    merged = merge_trees(repo, repo.commit_entries(base), ours_entries, theirs_entries, "HEAD", rev)
    if _refused(p, repo, ours_entries, merged, "merge"):
        p.ctx.err.write("Merge with strategy ort failed.\n")
        return 2
    write_result(repo, ours_entries, merged.entries, merged.conflicts)
    out = "".join(merged.messages) if not quiet or merged.conflicts else ""
    if merged.conflicts:
        mergestate.write_state(repo, "MERGE_HEAD", theirs + "\n")
        mergestate.write_state(repo, "MERGE_MODE", "")
        mergestate.write_state(repo, "MERGE_MSG", text + _conflict_note(merged))
        mergestate.write_unmerged(repo, {q: word for q, (_, word) in merged.conflicts.items()})
        p.out(out + "Automatic merge failed; fix conflicts and then commit the result.\n")
        return 1
    tree = repo.write_tree(merged.entries)
    committer = person(p, repo, "committer")
    sha = repo.write_commit(tree, [head, theirs], person(p, repo, "author"), text, committer)
    repo.set_head(sha, f"merge {rev}: Merge made by the 'ort' strategy.", committer)
    if not quiet:
        p.out(out + "Merge made by the 'ort' strategy.\n")
        if stat:
            p.out(stat_with_modes(repo, ours_entries, merged.entries))
    return 0


def _conflict_note(merged: TreeMerge) -> str:
    return "\n# Conflicts:\n" + "".join(f"#\t{q}\n" for q in sorted(merged.conflicts))


def _refused(p: _Proc, repo: Repo, ours: Entries, merged: TreeMerge, verb: str) -> bool:
    touched = sorted(set(changed_paths(ours, merged.entries)) | set(merged.conflicts))
    changed, untracked = _dirty(repo, ours, touched)
    if changed or untracked:
        p.ctx.err.write(_refusal(changed, untracked, verb))
        return True
    return False


def _reset_to_head(repo: Repo) -> None:
    head = repo.commit_entries(repo.head())
    index = repo.read_index()
    repo.checkout_entries(head, {**index, **head})
    repo.write_index(head)
    mergestate.clear(repo)
