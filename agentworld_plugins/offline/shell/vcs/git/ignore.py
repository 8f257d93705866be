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

if TYPE_CHECKING:
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

    def __init__(self, repo: Repo, configured: str | None = None) -> None:
        """``configured``: the ``core.excludesFile`` setting, if any."""
        self.repo = repo
        self._folders: dict[str, list[Rule]] = {}
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
