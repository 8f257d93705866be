"""The state a merge, cherry-pick or revert leaves while its conflicts wait: ``MERGE_HEAD`` (or
``CHERRY_PICK_HEAD`` / ``REVERT_HEAD``), ``MERGE_MSG``, ``MERGE_MODE``, and the unmerged paths.

git keeps unmerged paths as index stages 1-3; this index has one entry a path, so the paths in
conflict (each with the word ``git status`` shows: ``both modified``, ``deleted by them``, ...)
are kept beside it in ``.git/AW_UNMERGED``, and the index holds our side for them."""

from __future__ import annotations

import json

from ....vfs import FsError
from .repo import Repo

_UNMERGED = "AW_UNMERGED"
_STATE = ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE", _UNMERGED)


def _path(repo: Repo, name: str) -> str:
    return f"{repo.gitdir}/{name}"


def read_unmerged(repo: Repo) -> dict[str, str]:
    try:
        data = json.loads(repo.fs.read_text(_path(repo, _UNMERGED)))
    except (FsError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()}


def write_unmerged(repo: Repo, paths: dict[str, str]) -> None:
    if paths:
        repo.fs.write(_path(repo, _UNMERGED), json.dumps(paths, sort_keys=True) + "\n")
    elif repo.fs.exists(_path(repo, _UNMERGED)):
        repo.fs.remove(_path(repo, _UNMERGED))


def resolved(repo: Repo, paths: list[str]) -> None:
    """``git add``/``git rm`` of these paths marks them resolved."""
    unmerged = read_unmerged(repo)
    if unmerged:
        write_unmerged(repo, {k: v for k, v in unmerged.items() if k not in paths})


def state_file(repo: Repo, name: str) -> str | None:
    try:
        return repo.fs.read_text(_path(repo, name))
    except FsError:
        return None


def write_state(repo: Repo, name: str, text: str) -> None:
    repo.fs.write(_path(repo, name), text)


def clear(repo: Repo) -> None:
    """Forget a merge, cherry-pick or revert in progress (a commit or ``reset`` ends it)."""
    for name in _STATE:
        if repo.fs.exists(_path(repo, name)):
            repo.fs.remove(_path(repo, name))


def in_progress(repo: Repo) -> str | None:
    """``merge``, ``cherry-pick``, ``revert`` or None."""
    for name, kind in (
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
    ):
        if repo.fs.exists(_path(repo, name)):
            return kind
    return None


UNMERGED_REFUSAL = (
    "hint: Fix them up in the work tree, and then use 'git add/rm <file>'\n"
    "hint: as appropriate to mark resolution and make a commit.\n"
    "fatal: Exiting because of an unresolved conflict."
)


def status_note(repo: Repo, unmerged: bool) -> str:
    """What ``git status`` says under ``On branch`` while a merge, cherry-pick or revert waits."""
    kind = in_progress(repo)
    if kind == "merge":
        if unmerged:
            return (
                'You have unmerged paths.\n  (fix conflicts and run "git commit")\n'
                '  (use "git merge --abort" to abort the merge)\n\n'
            )
        return 'All conflicts fixed but you are still merging.\n  (use "git commit" to conclude merge)\n\n'
    if kind is None:
        return ""
    head = (state_file(repo, "CHERRY_PICK_HEAD" if kind == "cherry-pick" else "REVERT_HEAD") or "").strip()
    word = "cherry-picking" if kind == "cherry-pick" else "reverting"
    lines = [f"You are currently {word} commit {head[:7]}.\n"]
    if unmerged:
        lines.append(f'  (fix conflicts and run "git {kind} --continue")\n')
    else:
        lines.append(f'  (all conflicts fixed: run "git {kind} --continue")\n')
    lines.append(f'  (use "git {kind} --skip" to skip this patch)\n')
    lines.append(f'  (use "git {kind} --abort" to cancel the {kind} operation)\n\n')
    return "".join(lines)
