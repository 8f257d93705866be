"""HEAD's reflog (``.git/logs/HEAD``): who moved HEAD, when and why (``commit: ...``,
``checkout: moving from a to b``, ``reset: moving to HEAD~1``, ``merge x: Fast-forward``), so
``HEAD@{N}``, ``@{-N}``, ``git checkout -`` and ``git reflog`` answer as git's do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ident import reflog_ident
from .pretty import Formatter, Pretty
from .repo import GitError, Repo
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc


def note_switch(p: _Proc, repo: Repo, old: str | None, new: str, target: str) -> None:
    """A checkout's line: ``checkout: moving from <branch or id> to <what was asked>``."""
    if old is None:
        return
    origin = repo.branch() or old
    repo.log_head(old, new, reflog_ident(p, repo), f"checkout: moving from {origin} to {target}")


def cmd_reflog(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    words = list(args)
    if words and words[0] in ("expire", "delete", "exists"):
        return p.not_simulated()
    if words and words[0] == "show":
        words = words[1:]
    limit = None
    refs = []
    k = 0
    while k < len(words):
        a = words[k]
        if a == "-n" and k + 1 < len(words):
            limit = int(words[k + 1])
            k += 1
        elif (a.startswith("-n") and a[2:].isdigit()) or (a[1:].isdigit() and a.startswith("-")):
            limit = int(a.lstrip("-n"))
        elif a.startswith("--max-count="):
            limit = int(a.partition("=")[2])
        elif not a.startswith("-"):
            refs.append(a)
        elif a not in ("--oneline", "--no-decorate", "--decorate"):
            return p.not_simulated()
        k += 1
    if refs and refs[0] != "HEAD":
        return p.not_simulated()  # a branch's own reflog is not kept
    log = repo.head_log()
    if not log:
        if repo.head() is None:
            raise GitError(f"your current branch '{repo.branch()}' does not have any commits yet")
        return 0
    show = Formatter(repo, Pretty(kind="oneline", abbrev=True), p.fs.now(), p.ctx.out.tty)
    lines = []
    for n, (_, new, _, reason) in enumerate(reversed(log)):
        if limit is not None and n >= limit:
            break
        lines.append(f"{new[:7]}{show.decoration(new)} HEAD@{{{n}}}: {reason}\n")
    p.out("".join(lines))
    return 0
