"""The commit graph: what a commit reaches, and the merge bases of two commits (each commit
visited counts against the step's work budget)."""

from __future__ import annotations

from ...limits import current
from .repo import GitError, Repo


def ancestors(repo: Repo, starts: list[str]) -> set[str]:
    """Every commit ``starts`` reach (themselves included)."""
    budget = current()
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        budget.spend(4)
        todo.extend(repo.commit(sha).parents)
    return seen


def is_ancestor(repo: Repo, old: str, new: str) -> bool:
    return old in ancestors(repo, [new])


def merge_bases(repo: Repo, a: str, b: str) -> list[str]:
    """The best common ancestors of ``a`` and ``b`` (none that another one reaches), newest
    committer date first."""
    common = ancestors(repo, [a]) & ancestors(repo, [b])
    reached: set[str] = set()
    for sha in common:
        reached |= ancestors(repo, repo.commit(sha).parents) & common
    return sorted(common - reached, key=lambda sha: (-repo.commit(sha).commit_time, sha))


def merge_base(repo: Repo, a: str, b: str) -> str | None:
    """The best common ancestor git's merge picks (the newest of them)."""
    bases = merge_bases(repo, a, b)
    return bases[0] if bases else None


def named_commits(repo: Repo, names: list[str], refusal: str) -> list[str]:
    """The commits ``names`` name (tags peeled); ``refusal`` (with ``{}`` for the name) for one
    that names nothing."""
    out = []
    for name in names:
        sha = repo.resolve(name)
        if sha is None:
            raise GitError(refusal.format(name))
        out.append(repo.peel(sha))
    return out
