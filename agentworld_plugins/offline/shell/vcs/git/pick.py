"""git cherry-pick and git revert of one commit: the three-way merge of :mod:`.merge3` (the
commit's parent as the base for a pick, the commit itself for a revert), git's messages and
commit summaries, and ``CHERRY_PICK_HEAD`` / ``REVERT_HEAD`` while conflicts wait."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import mergestate
from .ident import person
from .merge import _reset_to_head, write_result
from .merge3 import merge_trees
from .repo import Commit, GitError, Repo
from .text import changed_paths, diffstat, git_date
from .work import long_status, need_repo

if TYPE_CHECKING:
    from ...proc import _Proc


def cmd_cherry_pick(p: _Proc, args: list[str]) -> int:
    return _pick(p, args, revert=False)


def cmd_revert(p: _Proc, args: list[str]) -> int:
    return _pick(p, args, revert=True)


def sequencer_summary(repo: Repo, sha: str) -> str:
    """What cherry-pick and revert print for the commit they made: ``[branch id] subject``,
    `` Author:`` when it is not the committer, `` Date:`` and the change summary."""
    made = repo.commit(sha)
    branch = repo.branch() or "detached HEAD"
    out = [f"[{branch} {sha[:7]}] {made.subject}\n"]
    if (made.author_name, made.author_email) != (made.committer_name, made.committer_email):
        out.append(f" Author: {made.author_name} <{made.author_email}>\n")
    out.append(f" Date: {git_date(made.time, made.tz)}\n")
    parent = repo.commit_entries(made.parents[0]) if made.parents else {}
    out.append(diffstat(repo, parent, repo.commit_entries(sha), summary_only=True))
    return "".join(out)


def _pick(p: _Proc, args: list[str], revert: bool) -> int:
    verb = "revert" if revert else "cherry-pick"
    repo = need_repo(p)
    no_commit = record = False
    action = None
    revs: list[str] = []
    for a in args:
        if a in ("-n", "--no-commit"):
            no_commit = True
        elif a == "--no-edit":
            pass
        elif a == "-x" and not revert:
            record = True
        elif a in ("--abort", "--continue", "--quit"):
            action = a[2:]
        elif a.startswith("-"):
            return p.not_simulated()  # -m (a merge's parent), -e, --skip, -s, --strategy, ...
        else:
            revs.append(a)
    head_kind = "REVERT_HEAD" if revert else "CHERRY_PICK_HEAD"
    if action is not None:
        return _action(p, repo, action, verb, head_kind)
    if len(revs) != 1 or ".." in revs[0]:
        return p.not_simulated()  # several commits, a range: the sequencer's todo list
    sha = repo.resolve(revs[0])
    if sha is None:
        raise GitError(f"bad revision '{revs[0]}'")
    commit = repo.commit(repo.peel(sha))
    head = repo.head()
    if head is None:
        return p.not_simulated()
    if len(commit.parents) > 1:
        raise GitError(
            f"error: commit {commit.sha} is a merge but no -m option was given.\nfatal: {verb} failed"
        )
    if mergestate.in_progress(repo) is not None:
        return p.not_simulated()  # a pick while another operation waits
    parent = repo.commit_entries(commit.parents[0]) if commit.parents else {}
    mine = repo.commit_entries(commit.sha)
    short = f"{commit.sha[:7]} ({commit.subject})"
    base, theirs = (mine, parent) if revert else (parent, mine)
    label = f"parent of {short}" if revert else short
    ours = repo.commit_entries(head)
    merged = merge_trees(repo, base, ours, theirs, "HEAD", label)
    touched = sorted(set(changed_paths(ours, merged.entries)) | set(merged.conflicts))
    index, work = repo.read_index(), repo.hashed_worktree()
    if any(
        index.get(q) != ours.get(q) or work.get(q) != index.get(q) for q in touched if q in ours or q in work
    ):
        raise GitError(
            f"error: your local changes would be overwritten by {verb}.\n"
            f"hint: commit your changes or stash them to proceed.\nfatal: {verb} failed"
        )
    message = _message(commit, revert, record)
    write_result(repo, ours, merged.entries, merged.conflicts)
    p.out("".join(merged.messages))
    if merged.conflicts or no_commit:
        if merged.conflicts or revert:
            mergestate.write_state(repo, head_kind, commit.sha + "\n")
        note = (
            "\n# Conflicts:\n" + "".join(f"#\t{q}\n" for q in sorted(merged.conflicts))
            if merged.conflicts
            else ""
        )
        mergestate.write_state(repo, "MERGE_MSG", message + note)
        if merged.conflicts:
            mergestate.write_unmerged(repo, {q: word for q, (_, word) in merged.conflicts.items()})
            what = "revert" if revert else "apply"
            p.ctx.err.write(
                f"error: could not {what} {commit.sha[:7]}... {commit.subject}\n"
                "hint: After resolving the conflicts, mark them with\n"
                'hint: "git add/rm <pathspec>", then run\n'
                f'hint: "git {verb} --continue".\n'
                f'hint: You can instead skip this commit with "git {verb} --skip".\n'
                f'hint: To abort and get back to the state before "git {verb}",\n'
                f'hint: run "git {verb} --abort".\n'
            )
            return 1
        return 0
    if merged.entries == ours:
        mergestate.write_state(repo, head_kind, commit.sha + "\n")
        mergestate.write_state(repo, "MERGE_MSG", message)
        head_now, index_now, work_now = ours, repo.read_index(), repo.hashed_worktree()
        unstaged = {q: k for q, k in changed_paths(index_now, work_now).items() if k != "A"}
        from .work import untracked_paths

        p.out(
            long_status(
                p,
                repo,
                head,
                changed_paths(head_now, index_now),
                unstaged,
                untracked_paths(index_now, work_now),
            )
        )
        p.ctx.err.write(
            f"The previous {verb} is now empty, possibly due to conflict resolution.\n"
            "If you wish to commit it anyway, use:\n\n    git commit --allow-empty\n\n"
            f"Otherwise, please use 'git {verb} --skip'\n"
        )
        return 1
    author = person(p, repo, "author") if revert else commit.author
    committer = person(p, repo, "committer")
    made = repo.write_commit(repo.write_tree(merged.entries), [head], author, message, committer)
    repo.set_head(made, f"{'revert' if revert else 'cherry-pick'}: {message.split(chr(10))[0]}", committer)
    p.out(sequencer_summary(repo, made))
    return 0


def _message(commit: Commit, revert: bool, record: bool) -> str:
    if revert:
        return f'Revert "{commit.subject}"\n\nThis reverts commit {commit.sha}.\n'
    text = commit.message.rstrip("\n") + "\n"
    if record:
        text += f"\n(cherry picked from commit {commit.sha})\n"
    return text


def _action(p: _Proc, repo: Repo, action: str, verb: str, head_kind: str) -> int:
    waiting = mergestate.state_file(repo, head_kind)
    if waiting is None:
        raise GitError(f"error: no {verb} in progress")
    if action == "abort":
        _reset_to_head(repo)
        return 0
    if action == "quit":
        mergestate.clear(repo)
        return 0
    if mergestate.read_unmerged(repo):
        return p.not_simulated()  # --continue with conflicts left: git's own refusal is not simulated
    commit = repo.commit(waiting.strip())
    message = (mergestate.state_file(repo, "MERGE_MSG") or "").strip("\n") + "\n"
    author = person(p, repo, "author") if head_kind == "REVERT_HEAD" else commit.author
    head = repo.head() or ""
    index = repo.read_index()
    committer = person(p, repo, "committer")
    made = repo.write_commit(repo.write_tree(index), [head], author, message, committer)
    verb = "revert" if head_kind == "REVERT_HEAD" else "cherry-pick"
    repo.set_head(made, f"{verb}: {message.split(chr(10))[0]}", committer)
    mergestate.clear(repo)
    p.out(sequencer_summary(repo, made))
    return 0
