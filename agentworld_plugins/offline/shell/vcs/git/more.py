"""git grep, mv, clean, describe and shortlog."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .graph import ancestors, merge_bases, named_commits
from .repo import GitError, Repo, ignore_rules
from .revwalk import parse, walk
from .text import shown_path
from .work import need_repo, status_sets, under

if TYPE_CHECKING:
    from ...proc import _Proc


def cmd_mv(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    force = any(a in ("-f", "--force") for a in args)
    names = [a for a in args if not a.startswith("-")]
    if len(names) < 2:
        p.ctx.err.write("usage: git mv [<options>] <source>... <destination>\n")
        return 129
    *sources, dest = names
    index = repo.read_index()
    dest_path = p.path(dest)
    into = p.fs.is_dir(dest_path)
    for src in sources:
        rel = repo.relpath(p.path(src))
        target = posixpath.join(dest_path, posixpath.basename(src)) if into else dest_path
        shown_target = posixpath.join(dest, posixpath.basename(src)) if into else dest
        moved = [q for q in index if rel is not None and under(q, rel)]
        if rel is None or not moved or not p.fs.lexists(p.path(src)):
            why = "not under version control" if p.fs.lexists(p.path(src)) else "bad source"
            raise GitError(f"{why}, source={src}, destination={shown_target}")
        if p.fs.lexists(target) and not force:
            raise GitError(f"destination exists, source={src}, destination={shown_target}")
        new_rel = repo.relpath(target) or ""
        p.fs.move(p.path(src), target)
        for q in moved:
            index[new_rel + q[len(rel) :]] = index.pop(q)
    repo.write_index(index)
    return 0


def cmd_clean(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    flags = set("".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--")))
    flags |= {{"--dry-run": "n", "--force": "f", "--quiet": "q"}.get(a, "") for a in args}
    if "n" not in flags and "f" not in flags:
        raise GitError(
            "clean.requireForce defaults to true and neither -i, -n, nor -f given; refusing to clean"
        )
    if flags & {"x", "X"}:
        return p.not_simulated()  # cleaning ignored files follows git's directory walk, not simulated
    out = []
    for path in _cleanable(repo, "d" in flags):
        shown = shown_path(repo, p.vm.cwd, path)
        if "n" in flags:
            out.append(f"Would remove {shown}\n")
            continue
        full = repo.abspath(path.rstrip("/"))
        if path.endswith("/"):
            p.fs.rmtree(full)
        else:
            p.fs.remove(full)
        if "q" not in flags:
            out.append(f"Removing {shown}\n")
    p.out("".join(out))
    return 0


def _cleanable(repo: Repo, folders: bool) -> list[str]:
    """What ``git clean`` removes: untracked files outside untracked folders; with ``-d`` also
    those inside, an untracked folder named whole (``dir/``) only where nothing in it is ignored
    (git keeps ignored files, and so the folders that hold them)."""
    ignored: list[str] = []
    work = repo.worktree(ignored)
    index = repo.read_index()
    tracked_dirs = {"/".join(q.split("/")[:k]) for q in index for k in range(1, q.count("/") + 1)}
    shown: set[str] = set()
    for path in work:
        if path in index:
            continue
        parts = path.split("/")
        untracked = [
            "/".join(parts[:k]) for k in range(1, len(parts)) if "/".join(parts[:k]) not in tracked_dirs
        ]
        if not untracked:
            shown.add(path)
            continue
        if not folders:
            continue
        whole = next((d for d in untracked if not any(x.startswith(d + "/") for x in ignored)), None)
        shown.add(whole + "/" if whole else path)
    return sorted(shown)


def cmd_describe(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    lightweight = "--tags" in args
    always = "--always" in args
    revs = [a for a in args if not a.startswith("-")]
    dirty = next((a.partition("=")[2] or "-dirty" for a in args if a.split("=")[0] == "--dirty"), None)
    suffix = ""
    if dirty is not None:
        if revs:
            raise GitError("option '--dirty' and commit-ishes cannot be used together")
        head, index, work = status_sets(repo)
        tracked = {q: e for q, e in work.items() if q in index}
        suffix = dirty if head != index or any(index[q] != tracked.get(q) for q in index) else ""
    start = repo.resolve(revs[0] if revs else "HEAD")
    if start is None:
        raise GitError(f"Not a valid object name {revs[0] if revs else 'HEAD'}")
    tags: dict[str, list[str]] = {}
    folder = repo.gitdir + "/refs/tags"
    names = sorted(p.fs.listdir(folder)) if p.fs.is_dir(folder) else []
    unannotated = False
    for name in names:
        tag_sha = repo.ref(f"refs/tags/{name}") or ""
        annotated = repo.read_object(tag_sha)[0] == "tag"
        if annotated or lightweight:
            tags.setdefault(repo.peel(tag_sha), []).append(name)
        else:
            unannotated = True
    sha: str | None = start
    depth = 0
    while sha:
        if sha in tags:
            name = tags[sha][0]
            p.out((name if depth == 0 else f"{name}-{depth}-g{start[:7]}") + suffix + "\n")
            return 0
        parents = repo.commit(sha).parents
        sha = parents[0] if parents else None
        depth += 1
    if always:
        p.out(start[:7] + suffix + "\n")
        return 0
    if unannotated:
        raise GitError(
            f"No annotated tags can describe '{start}'.\nHowever, there were unannotated tags: try --tags."
        )
    raise GitError("No names found, cannot describe anything.")


def cmd_shortlog(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    own = {"--summary": "s", "--numbered": "n", "--email": "e"}
    flags = {own[a] for a in args if a in own}
    rest = []
    for a in args:
        if re.fullmatch(r"-[sne]+", a):
            flags.update(a[1:])
        elif a not in own:
            rest.append(a)
    o = parse(p, repo, rest)  # the revisions, ranges, paths and filters log takes
    if not o.named and not p.ctx.out.tty:  # away from a terminal git shortlog reads a log from stdin
        p.ctx.stdin.read()
        return 0
    commits = walk(repo, o)
    authors: dict[str, list[str]] = {}
    for commit in commits:
        who = commit.author_name + (f" <{commit.author_email}>" if "e" in flags else "")
        authors.setdefault(who, []).append(commit.subject)
    order = sorted(authors, key=lambda w: (-len(authors[w]), w) if "n" in flags else (0, w))
    out = []
    for who in order:
        if "s" in flags:
            out.append(f"{len(authors[who]):6d}\t{who}\n")
        else:
            out.append(f"{who} ({len(authors[who])}):\n")
            out.extend(f"      {subject}\n" for subject in reversed(authors[who]))
            out.append("\n")
    p.out("".join(out))
    return 0


#: git merge-base's usage (stderr, status 129)
_MERGE_BASE_USAGE = (
    "usage: git merge-base [-a | --all] <commit> <commit>...\n"
    "   or: git merge-base [-a | --all] --octopus <commit>...\n"
    "   or: git merge-base --is-ancestor <commit> <commit>\n"
    "   or: git merge-base --independent <commit>...\n"
    "   or: git merge-base --fork-point <ref> [<commit>]\n"
    "\n"
    "    -a, --all             output all common ancestors\n"
    "    --octopus             find ancestors for a single n-way merge\n"
    "    --independent         list revs not reachable from others\n"
    "    --is-ancestor         is the first one ancestor of the other?\n"
    "    --fork-point          find where <commit> forked from reflog of <ref>\n"
    "\n"
)


def cmd_merge_base(p: _Proc, args: list[str]) -> int:
    """``git merge-base A B`` (``--all``), ``--is-ancestor A B`` (status 0 or 1)."""
    repo = need_repo(p)
    names = [a for a in args if not a.startswith("-")]
    every = "--all" in args or "-a" in args
    if any(a.startswith("-") and a not in ("--all", "-a", "--is-ancestor") for a in args):
        return p.not_simulated()  # --octopus, --independent, --fork-point
    shas = named_commits(repo, names, "Not a valid object name {}")
    if "--is-ancestor" in args:
        if len(shas) != 2:
            raise GitError("--is-ancestor takes exactly two commits", 129)
        return 0 if shas[0] in ancestors(repo, [shas[1]]) else 1
    if len(shas) < 2:
        raise GitError(_MERGE_BASE_USAGE[:-1], 129, raw=True)
    if len(shas) > 2:
        return p.not_simulated()
    bases = merge_bases(repo, shas[0], shas[1])
    if not bases:
        return 1
    found = sorted(bases, key=lambda sha: -repo.commit(sha).commit_time)
    p.out("".join(sha + "\n" for sha in (found if every else found[:1])))
    return 0


def cmd_check_ignore(p: _Proc, args: list[str]) -> int:
    """``git check-ignore [-q] [-v] [-n] [--no-index] [--stdin] [-z] PATH...``: the paths the
    rules ignore (with ``-v`` the deciding line, negated ones too); status 1 when none is."""
    repo = need_repo(p)
    flags: set[str] = set()
    paths: list[str] = []
    names = {"--quiet": "q", "--verbose": "v", "--non-matching": "n", "--no-index": "i", "--stdin": "s"}
    for k, a in enumerate(args):
        if a == "--":
            paths.extend(args[k + 1 :])
            break
        if a in names:
            flags.add(names[a])
        elif a.startswith("-") and len(a) > 1 and not a.startswith("--") and set(a[1:]) <= set("qvnz"):
            flags.update(a[1:])
        elif a.startswith("-"):
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        else:
            paths.append(a)
    if "s" in flags:
        text = p.stdin()
        paths.extend(x for x in text.split("\0" if "z" in flags else "\n") if x)
    if "q" in flags and "v" in flags:
        raise GitError("cannot have both --quiet and --verbose", 128)
    if "n" in flags and "v" not in flags:
        raise GitError("--non-matching is only valid with --verbose", 128)
    if not paths:
        raise GitError("no path specified", 128)
    rules = ignore_rules(repo)
    tracked = set(repo.read_index())
    end = "\0" if "z" in flags else "\n"
    out: list[str] = []
    found = 0
    for path in paths:
        rel = repo.relpath(p.path(path))
        if rel is None:
            raise GitError(f"{path}: '{path}' is outside repository at '{repo.root}'")
        rule = None if rel in tracked and "i" not in flags else rules.why(rel, p.fs.is_dir(p.path(path)))
        if rule is not None and rule.negate and "v" not in flags:
            rule = None
        if rule is not None:
            found += 1
        if "q" in flags:
            continue
        if "v" in flags and (rule is not None or "n" in flags):
            where = f"{rule.source}:{rule.line}:{rule.pattern}" if rule else "::"
            out.append(
                f"{where}\t{path}{end}"
                if end == "\n"
                else f"{rule.source if rule else ''}\0"
                f"{rule.line if rule else ''}\0{rule.pattern if rule else ''}\0{path}\0"
            )
        elif rule is not None:
            out.append(path + end)
    p.out("".join(out))
    return 0 if found else 1
