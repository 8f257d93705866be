"""Which untracked paths git ignores, and by which line: ``.gitignore`` files in every folder
(their patterns relative to that folder, a deeper file over a shallower one), then
``.git/info/exclude``, then ``core.excludesFile`` (``~/.config/git/ignore`` by default); within
a file the last matching line decides. A pattern with a slash before its end is anchored to its
folder, one without matches a name at any depth; ``!`` re-includes, a trailing ``/`` matches
folders only, ``**`` spans folders, ``\\#`` / ``\\!`` and a backslash before a trailing blank
keep those characters. Nothing inside an ignored folder can be re-included, as in git."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...patterns import path_glob
from .repo import GitError, read_config
from .work import need_repo

if TYPE_CHECKING:
    from ...proc import _Proc
    from .repo import Repo


@dataclass(frozen=True)
class Rule:
    #: the file as ``check-ignore -v`` names it, and the line's number there
    source: str
    line: int
    #: the pattern as written (``!`` included)
    pattern: str
    negate: bool
    dir_only: bool
    #: the folder (relative to the work tree) the pattern is relative to
    base: str
    regex: re.Pattern[str]

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1 :]
        return self.regex.match(rel) is not None


def _rules(text: str, source: str, base: str) -> list[Rule]:
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        stripped = line.rstrip(" ")
        if len(stripped) < len(line) and stripped.endswith("\\"):
            stripped += " "  # an escaped trailing blank stays
        line = stripped
        if not line or line.startswith("#"):
            continue
        shown = line
        negate = line.startswith("!")
        if negate or line.startswith(("\\#", "\\!")):
            line = line[1:]
        dir_only = line.endswith("/")
        body = line.rstrip("/")
        if not body:
            continue
        anchored = "/" in body
        rx = path_glob(body.lstrip("/").replace("\\ ", " ")) + r"\Z"
        regex = re.compile(rx if anchored else "(?:.*/)?" + rx, re.DOTALL)
        out.append(Rule(source, number, shown, negate, dir_only, base, regex))
    return out


class Ignores:
    """The ignore rules of ``repo``'s work tree (``.gitignore`` files read as folders are met)."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self._folders: dict[str, list[Rule]] = {}
        configured = read_config(repo.fs, repo.config_files()).get("core.excludesfile")
        if configured and configured.startswith("~/"):
            configured = posixpath.join(repo.fs.home, configured[2:])
        home_ignore = configured or posixpath.join(repo.fs.home, ".config", "git", "ignore")
        #: info/exclude, then the excludes file, each last line first (the first match decides)
        self._outer = [
            *reversed(self._read(repo.gitdir + "/info/exclude", ".git/info/exclude", "")),
            *reversed(self._read(home_ignore, home_ignore, "")),
        ]

    def _read(self, path: str, shown: str, base: str) -> list[Rule]:
        try:
            return _rules(self.repo.fs.read_text(path), shown, base)
        except FsError:
            return []

    def _folder(self, base: str) -> list[Rule]:
        if base not in self._folders:
            shown = posixpath.join(base, ".gitignore") if base else ".gitignore"
            self._folders[base] = self._read(self.repo.abspath(shown), shown, base)
        return self._folders[base]

    def decide(self, rel: str, is_dir: bool) -> Rule | None:
        """The line that decides ``rel`` (itself, not its folders): a negated one re-includes."""
        parts = rel.split("/")
        folders = ["/".join(parts[:k]) for k in range(len(parts) - 1, -1, -1)]
        for base in folders:  # the nearest .gitignore first
            for rule in reversed(self._folder(base)):
                if rule.matches(rel, is_dir):
                    return rule
        for rule in self._outer:
            if rule.matches(rel, is_dir):
                return rule
        return None

    def excluded(self, rel: str, is_dir: bool) -> bool:
        rule = self.decide(rel, is_dir)
        return rule is not None and not rule.negate

    def why(self, rel: str, is_dir: bool) -> Rule | None:
        """What ``check-ignore`` reports: the rule excluding a folder above ``rel``, else the
        one that decides ``rel`` itself (negated or not)."""
        parts = rel.split("/")
        for k in range(1, len(parts)):
            folder = "/".join(parts[:k])
            rule = self.decide(folder, True)
            if rule is not None and not rule.negate:
                return rule
        return self.decide(rel, is_dir)


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
    rules = Ignores(repo)
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
