"""git tag (lightweight and annotated, list, delete) and git remote (list, -v, add, remove,
get-url, set-url, rename): refs and config, with git's messages."""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from .configfile import remove_section, write_config
from .ident import config, person
from .repo import GitError, Repo
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc


def tag_names(repo: Repo) -> list[str]:
    folder = repo.gitdir + "/refs/tags"
    if not repo.fs.is_dir(folder):
        return []
    names: list[str] = []
    for top, _, files in repo.fs.walk(folder):
        names.extend((top[len(folder) + 1 :] + "/" + f).lstrip("/") for f in files)
    return sorted(names)


def _tag_message(repo: Repo, name: str) -> str:
    sha = repo.ref(f"refs/tags/{name}") or ""
    kind, body = repo.read_object(sha)
    if kind == "tag":
        message = body.decode("utf-8", "surrogateescape").partition("\n\n")[2]
    else:
        message = repo.commit(sha).message
    return message.strip("\n").split("\n")[0]


def cmd_tag(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    annotate = delete = listing = False
    force = False
    messages: list[str] = []
    lines = 0
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-a", "--annotate", "-s"):
            annotate = True
        elif a in ("-d", "--delete"):
            delete = True
        elif a in ("-l", "--list"):
            listing = True
        elif a in ("-f", "--force"):
            force = True
        elif a in ("-m", "--message") and i + 1 < len(args):
            messages.append(args[i + 1])
            annotate = True
            i += 1
        elif a.startswith("-m") and len(a) > 2:
            messages.append(a[2:])
            annotate = True
        elif re.fullmatch(r"-n\d*", a):
            lines = int(a[2:] or 1)
            listing = True
        elif a.startswith("-"):
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        else:
            rest.append(a)
        i += 1
    if delete:
        status = 0
        for name in rest:
            sha = repo.ref(f"refs/tags/{name}")
            if sha is None:
                p.ctx.err.write(f"error: tag '{name}' not found.\n")
                status = 1
                continue
            p.fs.remove(repo.gitdir + f"/refs/tags/{name}")
            p.out(f"Deleted tag '{name}' (was {sha[:7]})\n")
        return status
    if listing or not rest:
        names = [n for n in tag_names(repo) if not rest or any(fnmatch.fnmatchcase(n, pat) for pat in rest)]
        if lines:
            p.out("".join(f"{n:<15} {_tag_message(repo, n)}\n" for n in names))
        else:
            p.out("".join(n + "\n" for n in names))
        return 0
    name = rest[0]
    if not re.fullmatch(r"[A-Za-z0-9._/+-]+", name) or name.startswith(("-", "/")) or ".." in name:
        raise GitError(f"'{name}' is not a valid tag name.")
    target = rest[1] if len(rest) > 1 else "HEAD"
    sha = repo.resolve(target)
    if sha is None:
        raise GitError(f"Failed to resolve '{target}' as a valid ref.")
    if repo.ref(f"refs/tags/{name}") is not None and not force:
        raise GitError(f"tag '{name}' already exists")
    if annotate:
        if not messages:
            raise GitError("no tag message given (the offline world has no editor; use -m)")
        message = "\n\n".join(m.strip("\n") for m in messages) + "\n"
        tagger = person(p, repo, "committer")
        body = f"object {sha}\ntype commit\ntag {name}\ntagger {tagger}\n\n{message}"
        sha = repo.write_object("tag", body.encode("utf-8", "surrogateescape"))
    repo.set_ref(f"refs/tags/{name}", sha)
    return 0


def _remotes(p: _Proc, repo: Repo) -> dict[str, str]:
    values = config(p, repo)
    found: dict[str, str] = {}
    for key, value in values.items():
        m = re.fullmatch(r"remote\.(.+)\.url", key)
        if m:
            found[m.group(1)] = value
    return found


def cmd_remote(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    path = repo.gitdir + "/config"
    verbose = any(a in ("-v", "--verbose") for a in args)
    rest = [a for a in args if a not in ("-v", "--verbose")]
    remotes = _remotes(p, repo)
    if not rest:
        if verbose:
            p.out("".join(f"{n}\t{u} (fetch)\n{n}\t{u} (push)\n" for n, u in remotes.items()))
        else:
            p.out("".join(n + "\n" for n in remotes))
        return 0
    sub, operands = rest[0], [a for a in rest[1:] if not a.startswith("-")]
    if sub == "add":
        if len(operands) != 2:
            p.ctx.err.write("usage: git remote add [<options>] <name> <url>\n")
            return 129
        name, url = operands
        if name in remotes:
            p.ctx.err.write(f"error: remote {name} already exists.\n")
            return 3
        if not re.fullmatch(r"[A-Za-z0-9._/-]+", name):
            raise GitError(f"'{name}' is not a valid remote name")
        write_config(p.fs, path, f"remote.{name}.url", url)
        write_config(p.fs, path, f"remote.{name}.fetch", f"+refs/heads/*:refs/remotes/{name}/*")
        return 0
    if sub in ("remove", "rm"):
        if len(operands) != 1:
            p.ctx.err.write(f"usage: git remote {sub} <name>\n")
            return 129
        name = operands[0]
        if name not in remotes or not remove_section(p.fs, path, f'remote "{name}"'):
            p.ctx.err.write(f"error: No such remote: '{name}'\n")
            return 2
        return 0
    if sub == "get-url":
        if not operands or operands[0] not in remotes:
            p.ctx.err.write(f"error: No such remote '{operands[0] if operands else ''}'\n")
            return 2
        p.out(remotes[operands[0]] + "\n")
        return 0
    if sub == "set-url":
        if len(operands) < 2:
            p.ctx.err.write("usage: git remote set-url [--push] <name> <newurl> [<oldurl>]\n")
            return 129
        if operands[0] not in remotes:
            p.ctx.err.write(f"error: No such remote '{operands[0]}'\n")
            return 2
        write_config(p.fs, path, f"remote.{operands[0]}.url", operands[1])
        return 0
    if sub == "rename":
        if len(operands) != 2 or operands[0] not in remotes:
            p.ctx.err.write(f"error: No such remote: '{operands[0] if operands else ''}'\n")
            return 2
        old, new = operands
        if new in remotes:
            p.ctx.err.write(f"error: remote {new} already exists.\n")
            return 3
        remove_section(p.fs, path, f'remote "{old}"')
        write_config(p.fs, path, f"remote.{new}.url", remotes[old])
        write_config(p.fs, path, f"remote.{new}.fetch", f"+refs/heads/*:refs/remotes/{new}/*")
        return 0
    if sub == "show" and operands:
        if operands[0] not in remotes:
            p.ctx.err.write(f"fatal: '{operands[0]}' does not appear to be a git repository\n")
            return 128
        return p.not_simulated()
    if sub in ("update", "prune", "set-head", "show"):
        return p.not_simulated()
    p.ctx.err.write(f"error: unknown subcommand: `{sub}'\n")
    return 129
