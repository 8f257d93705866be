"""git's diff output options (``-p``, ``-U<n>``/``--unified=<n>``, ``--stat``, ``--name-only``,
``--name-status``, ``-s``/``--no-patch``) and the changes part they print, shared by ``git diff``,
``log``, ``show`` and ``stash show``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .repo import Entries, GitError, Repo
from .text import changed_paths, diffstat, tree_diff

if TYPE_CHECKING:
    from ...proc import _Proc

#: what C's strtol takes whole: blanks, a sign and digits, or nothing at all (which reads as 0)
_NUMBER = re.compile(r"(\s*[+-]?\d+)?")


@dataclass
class DiffOutput:
    """The output formats asked for, as git's ``output_format`` bits: ``-p``/``-U`` ask for the
    patch and undo an earlier ``-s``; a later ``-s`` drops everything; ``--name-only`` and
    ``--name-status`` win over the patch and the stat wherever they stand."""

    context: int = 3
    patch: bool = False
    stat: bool = False
    names: str = ""
    silent: bool = False

    def wants_patch(self, default: bool) -> bool:
        """``default``: whether the command prints a patch when no format is named (diff, show)."""
        if self.silent or self.names:
            return False
        return self.patch or (default and not self.stat)

    def wants_stat(self) -> bool:
        return self.stat and not self.silent and not self.names

    def shows_any(self, default_patch: bool) -> bool:
        return bool(self.names) or self.wants_stat() or self.wants_patch(default_patch)


def diff_output(p: _Proc, args: list[str]) -> DiffOutput:
    """The output options among ``args`` (up to ``--``); a ``-U`` value that is not a number is
    refused as git refuses it."""
    out = DiffOutput()
    for a in args:
        if a == "--":
            break
        if a in ("-p", "-u", "--patch"):
            out.patch, out.silent = True, False
        elif a.startswith("-U") or a == "--unified" or a.startswith("--unified="):
            value = a[2:] if a.startswith("-U") else a.partition("=")[2]
            if (a.startswith("-U") and not value) or a == "--unified":
                pass  # no value: the context stays as it was
            elif not _NUMBER.fullmatch(value):
                raise GitError("error: --unified expects a numerical value", 129)
            else:
                out.context = int(value) if value.strip() else 0
                if out.context < 0:  # git prints malformed hunk headers for these
                    p.unknown()
                    out.context = 0
            out.patch, out.silent = True, False
        elif a == "--stat":
            out.stat = True
        elif a in ("--name-only", "--name-status"):
            out.names = a[2:]
        elif a in ("-s", "--no-patch"):
            out.silent = True
    return out


def _under(path: str, prefix: str) -> bool:
    return not prefix or path == prefix or path.startswith(prefix + "/")


def shown_changes(
    repo: Repo,
    old: Entries,
    new: Entries,
    out: DiffOutput,
    default_patch: bool,
    lead: str = "",
    paths: list[str] | None = None,
) -> str:
    """The changes from ``old`` to ``new`` in the asked formats (empty when there are none):
    ``lead`` sets them off from a commit's header (``\\n`` after its message, nothing after
    ``--oneline``); a stat followed by a patch has ``---`` in its place and a blank line between."""
    if out.names:
        changed = changed_paths(old, new)
        shown = [
            (path, kind)
            for path, kind in sorted(changed.items())
            if paths is None or any(_under(path, prefix) for prefix in paths)
        ]
        body = "".join(
            f"{path}\n" if out.names == "name-only" else f"{kind}\t{path}\n" for path, kind in shown
        )
        return lead + body if body else ""
    stat = diffstat(repo, old, new, paths=paths) if out.wants_stat() else ""
    patch = tree_diff(repo, old, new, paths, out.context) if out.wants_patch(default_patch) else ""
    if stat and patch:
        return ("---\n" if lead else "") + stat + "\n" + patch
    body = stat + patch
    return lead + body if body else ""
