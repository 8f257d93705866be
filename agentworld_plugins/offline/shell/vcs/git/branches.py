"""``git branch``: list (``--list PATTERN``, ``-v``/``-vv``, ``-a``, ``-r``, ``--merged``,
``--no-merged``, ``--contains``, ``--no-contains``, ``--sort``, ``--format`` with the common
atoms, ``--show-current``), create (``-f``), delete (``-d`` refusing an unmerged branch,
``-D``), rename (``-m``/``-M``) and copy (``-c``/``-C``), with git's messages."""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from .graph import ancestors
from .repo import GitError, Repo
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc

_VALUED = ("--merged", "--no-merged", "--contains", "--no-contains", "--sort", "--format", "--points-at")


def create_branch(repo: Repo, name: str, start: str, force: bool = False) -> int:
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", name) or name.startswith("-") or ".." in name or name == "HEAD":
        raise GitError(f"'{name}' is not a valid branch name")
    if repo.ref(f"refs/heads/{name}") is not None and not force:
        raise GitError(f"a branch named '{name}' already exists")
    if force and name == repo.branch():
        raise GitError(f"cannot force update the branch '{name}' checked out at '{repo.root}'")
    sha = repo.resolve(start)
    if sha is None:
        raise GitError(f"not a valid object name: '{start}'")
    repo.set_ref(f"refs/heads/{name}", repo.peel(sha))
    return 0


def _atom(repo: Repo, name: str, sha: str, current: str | None, atom: str) -> str | None:
    commit = repo.commit(sha)
    values = {
        "refname": f"refs/heads/{name}", "refname:short": name, "refname:lstrip=2": name,
        "objectname": sha, "objectname:short": sha[:7], "subject": commit.subject,
        "contents:subject": commit.subject, "HEAD": "*" if name == current else " ",
        "authorname": commit.author_name, "authoremail": f"<{commit.author_email}>",
        "committername": commit.committer_name, "committeremail": f"<{commit.committer_email}>",
        "objecttype": "commit",
    }  # fmt: skip
    return values.get(atom)


def _sort_key(repo: Repo, key: str, name: str, sha: str) -> tuple[object, ...]:
    field = key.lstrip("-")
    if field in ("committerdate", "creatordate"):
        return (repo.commit(sha).commit_time, name)
    if field == "authordate":
        return (repo.commit(sha).time, name)
    if field in ("refname", ""):
        return (name,)
    raise GitError(f"unknown field name: {field}")


def cmd_branch(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    current = repo.branch()
    flags: list[str] = []
    values: dict[str, str] = {}
    names: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        key, eq, value = a.partition("=")
        if key in _VALUED:
            if not eq:
                if key in ("--merged", "--no-merged", "--contains", "--no-contains", "--points-at"):
                    value = args[k] if k < len(args) and not args[k].startswith("-") else "HEAD"
                    k += value != "HEAD" or (k < len(args) and args[k] == "HEAD")
                elif k < len(args):
                    value, k = args[k], k + 1
            values[key] = value
        elif a == "--":
            names.extend(args[k:])
            break
        elif a.startswith("--"):
            flags.append(a)
        elif a.startswith("-") and len(a) > 1:
            flags.extend("-" + c for c in a[1:])
        else:
            names.append(a)
    if "--show-current" in flags:
        p.out(f"{current}\n" if current else "")
        return 0
    force = any(f in ("-f", "--force") for f in flags)
    if any(f in ("-d", "-D", "--delete") for f in flags):
        return _delete(p, repo, names, force or "-D" in flags)
    for move in (("-m", "-M", "--move"), ("-c", "-C", "--copy")):
        if any(f in move for f in flags):
            return _rename(p, repo, names, copy=move[0] == "-c", force=force or move[1] in flags)
    listing = any(f in ("-l", "--list", "-a", "--all", "-r", "--remotes") for f in flags) or set(values) - {
        "--sort"
    }
    if names and not listing:
        return create_branch(repo, names[0], names[1] if len(names) > 1 else "HEAD", force)
    return _list(p, repo, flags, values, names)


def _delete(p: _Proc, repo: Repo, names: list[str], force: bool) -> int:
    if not names:
        raise GitError("branch name required")
    status = 0
    head = repo.head()
    for name in names:
        sha = repo.ref(f"refs/heads/{name}")
        if sha is None:
            p.ctx.err.write(f"error: branch '{name}' not found.\n")
            status = 1
            continue
        if name == repo.branch():
            p.ctx.err.write(f"error: Cannot delete branch '{name}' checked out at '{repo.root}'\n")
            status = 1
            continue
        if not force and (head is None or sha not in ancestors(repo, [head])):
            p.ctx.err.write(
                f"error: The branch '{name}' is not fully merged.\n"
                f"If you are sure you want to delete it, run 'git branch -D {name}'.\n"
            )
            status = 1
            continue
        p.fs.remove(repo.gitdir + f"/refs/heads/{name}")
        p.out(f"Deleted branch {name} (was {sha[:7]}).\n")
    return status


def _rename(p: _Proc, repo: Repo, names: list[str], copy: bool, force: bool) -> int:
    if len(names) == 1:
        names = [repo.branch() or "HEAD", names[0]]
    if len(names) != 2:
        raise GitError("too many arguments for a rename operation" if names else "branch name required")
    old, new = names
    sha = repo.ref(f"refs/heads/{old}")
    if sha is None:
        raise GitError(f"No branch named '{old}'.")
    if old == new and not copy:
        return 0
    if repo.ref(f"refs/heads/{new}") is not None and not force:
        raise GitError(f"a branch named '{new}' already exists")
    create_branch(repo, new, sha, force=True)
    if not copy:
        p.fs.remove(repo.gitdir + f"/refs/heads/{old}")
        if repo.branch() == old:
            repo.point_head(new)
    return 0


def _list(p: _Proc, repo: Repo, flags: list[str], values: dict[str, str], patterns: list[str]) -> int:
    current = repo.branch()
    if any(f in ("-r", "--remotes") for f in flags):
        return 0  # no remote-tracking branches: nothing was ever fetched
    head = repo.head()
    #: (branch name, tip); the detached HEAD is listed (and filtered) as ``None``
    chosen: list[tuple[str | None, str]] = [(n, repo.ref(f"refs/heads/{n}") or "") for n in repo.branches()]
    if current is None and head:
        chosen.insert(0, (None, head))
    if patterns:
        chosen = [
            (n, t) for n, t in chosen if n is not None and any(fnmatch.fnmatchcase(n, x) for x in patterns)
        ]
    for option, keep in (
        ("--merged", True),
        ("--no-merged", False),
        ("--contains", True),
        ("--no-contains", False),
    ):
        if option in values:
            target = repo.resolve(values[option])
            if target is None:
                raise GitError(f"malformed object name {values[option]}")
            if "merged" in option:
                reach = ancestors(repo, [target])
                chosen = [(n, t) for n, t in chosen if (t in reach) == keep]
            else:
                chosen = [(n, t) for n, t in chosen if (target in ancestors(repo, [t])) == keep]
    if "--points-at" in values:
        target = repo.resolve(values["--points-at"])
        chosen = [(n, t) for n, t in chosen if t == target]
    if "--sort" in values:
        key = values["--sort"]
        chosen.sort(
            key=lambda item: _sort_key(repo, key, item[0] or "HEAD", item[1]), reverse=key.startswith("-")
        )
    lines = []
    if "--format" in values:
        for name, sha in chosen:
            text = values["--format"]

            def fill(m: re.Match[str], name: str | None = name, sha: str = sha) -> str:
                value = _atom(repo, name or "HEAD", sha, current, m.group(1))
                if value is None:
                    raise GitError(f"unknown field name: {m.group(1)}")
                return value

            lines.append(re.sub(r"%\(([^)]*)\)", fill, text).replace("%%", "%") + "\n")
        p.out("".join(lines))
        return 0
    verbose = any(f in ("-v", "--verbose", "-vv") for f in flags)
    shown = [(name or f"(HEAD detached at {sha[:7]})", name, sha) for name, sha in chosen]
    width = max((len(label) for label, _, _ in shown), default=0)
    for label, name, sha in shown:
        mark = "* " if name == current else "  "
        if verbose:
            lines.append(f"{mark}{label:<{width}} {sha[:7]} {repo.commit(sha).subject}\n")
        else:
            lines.append(f"{mark}{label}\n")
    p.out("".join(lines))
    return 0
