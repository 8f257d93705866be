"""git's diff output options (``-p``, ``-U<n>``/``--unified=<n>``, ``--stat``, ``--numstat``,
``--shortstat``, ``--name-only``, ``--name-status``, ``-s``/``--no-patch``), the options that pick
the edit script (``--minimal``, ``--[no-]indent-heuristic``, ``--diff-algorithm=``, the
``diff.algorithm`` / ``diff.indentHeuristic`` settings, ``--patience``, ``--histogram``,
``--anchored=``, ``-w``, ``-b``, ``--ignore-space-at-eol``, ``--ignore-cr-at-eol``,
``--ignore-blank-lines``, ``-I``/``--ignore-matching-lines``, ``-W``/``--function-context``) and the
changes part they print, shared by ``git diff``, ``log``, ``show`` and ``stash show``. A setting
this world does not simulate (a ``diff.algorithm`` git refuses) answers as a program it cannot
run (:class:`NotSimulated`), never with the default diff in its place."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ...xdiff import DEFAULT, Options
from ...xemit import line_regex
from .ident import config
from .renames import DEFAULT_SCORE, MAX_SCORE, find_renames, similarity_index
from .repo import Entries, GitError, Repo
from .text import changed_paths, diffstat, limited, tree_diff

if TYPE_CHECKING:
    from ...proc import _Proc

#: what C's strtol takes whole: blanks, a sign and digits, or nothing at all (which reads as 0)
_NUMBER = re.compile(r"(\s*[+-]?\d+)?")

#: options that choose another edit script than git's default Myers diff, or ignore some changes
#: the values of ``--diff-algorithm`` and ``diff.algorithm``: the algorithm, and whether minimal
_ALGORITHMS = {
    "myers": ("myers", False),
    "default": ("myers", False),
    "minimal": ("myers", True),
    "patience": ("patience", False),
    "histogram": ("histogram", False),
}
#: the whitespace options, weakest first: a stronger one ignores all a weaker one does
_WHITESPACE = {"--ignore-cr-at-eol": "cr", "--ignore-space-at-eol": "eol", "-b": "change",
               "--ignore-space-change": "change", "-w": "all", "--ignore-all-space": "all"}  # fmt: skip
_STRENGTH = ["", "cr", "eol", "change", "all"]
_FLAGS = {
    "--minimal",
    "--no-minimal",
    "--indent-heuristic",
    "--no-indent-heuristic",
    "--patience",
    "--histogram",
}
_BAD_ALGORITHM = 'error: option diff-algorithm accepts "myers", "minimal", "patience" and "histogram"'


class NotSimulated(Exception):
    """An option of git's diff this world cannot honour: the command answers as one the offline
    world cannot run (flagged as an unknown effect), rather than with a different diff."""


@dataclass
class DiffOutput:
    """The output formats asked for, as git's ``output_format`` bits: ``-p``/``-U`` ask for the
    patch and undo an earlier ``-s``; a later ``-s`` drops everything; ``--name-only`` and
    ``--name-status`` win over the patch and the stat wherever they stand."""

    context: int = 3
    patch: bool = False
    stat: bool = False
    numstat: bool = False
    shortstat: bool = False
    names: str = ""
    silent: bool = False
    how: Options = DEFAULT
    #: the rename threshold (out of renames.MAX_SCORE), None when renames are not looked for
    renames: int | None = DEFAULT_SCORE

    def wants_patch(self, default: bool) -> bool:
        """``default``: whether the command prints a patch when no format is named (diff, show)."""
        if self.silent or self.names:
            return False
        return self.patch or (default and not (self.stat or self.numstat or self.shortstat))

    def wants_stat(self) -> bool:
        return (self.stat or self.numstat or self.shortstat) and not self.silent and not self.names

    def shows_any(self, default_patch: bool) -> bool:
        return bool(self.names) or self.wants_stat() or self.wants_patch(default_patch)


def _settings(p: _Proc, repo: Repo | None) -> Options:
    """The edit script the ``diff.algorithm`` and ``diff.indentHeuristic`` settings ask for."""
    values = config(p, repo)
    how = DEFAULT
    chosen = values.get("diff.algorithm")
    if chosen is not None:
        found = _ALGORITHMS.get(chosen.lower())
        if found is None:  # git's message names the file and line it read it from
            raise NotSimulated(chosen)
        how = replace(how, algorithm=found[0], minimal=found[1])
    heuristic = values.get("diff.indentheuristic")
    if heuristic is not None and heuristic.lower() in ("false", "no", "off", "0"):
        how = replace(how, indent_heuristic=False)
    return how


def _algorithm(how: Options, a: str, value: str | None) -> Options:
    """``how`` after the option ``a`` (``value``: a ``--diff-algorithm`` value)."""
    if a in ("--minimal", "--no-minimal"):
        return replace(how, minimal=a == "--minimal")
    if a in ("--indent-heuristic", "--no-indent-heuristic"):
        return replace(how, indent_heuristic=a == "--indent-heuristic")
    if a in _WHITESPACE:
        return replace(how, whitespace=max(how.whitespace, _WHITESPACE[a], key=_STRENGTH.index))
    if a == "--patience":  # it forgets the --anchored texts before it
        return replace(how, algorithm="patience", anchors=())
    if a == "--histogram":
        return replace(how, algorithm="histogram")
    if a.startswith("--anchored="):
        return replace(how, algorithm="patience", anchors=(*how.anchors, a.partition("=")[2]))
    if value is None:
        raise GitError("error: option `diff-algorithm' requires a value", 129)
    found = _ALGORITHMS.get(value.lower())
    if found is None:
        raise GitError(_BAD_ALGORITHM, 129)
    return replace(how, algorithm=found[0], minimal=found[1])


def _ignore_matching(how: Options, a: str, value: str | None) -> Options:
    """``how`` with one more ``-I`` regex, refused as git refuses a bad one."""
    if value is None:
        name = "I" if a == "-I" else "ignore-matching-lines"
        raise GitError(f"error: {'switch' if a == '-I' else 'option'} `{name}' requires a value", 129)
    try:
        line_regex(value)
    except re.error:
        raise GitError(f"error: invalid regex given to -I: '{value}'", 129) from None
    return replace(how, ignore_regexes=(*how.ignore_regexes, value))


def diff_output(p: _Proc, args: list[str], repo: Repo | None = None) -> DiffOutput:
    """The output options among ``args`` (up to ``--``), on top of ``repo``'s settings; a ``-U``
    value that is not a number is refused as git refuses it. An option this world does not
    simulate raises :class:`NotSimulated`."""
    out = DiffOutput(how=_settings(p, repo))
    setting = config(p, repo).get("diff.renames", "true").lower()
    if setting == "copies" or setting == "copy":
        raise NotSimulated("diff.renames=copies")
    if setting in ("false", "no", "off", "0"):
        out.renames = None
    taken = False
    for k, a in enumerate(args):
        if taken:  # the value of a ``--diff-algorithm`` before it
            taken = False
            continue
        if a == "--":
            break
        if a in ("-I", "--ignore-matching-lines") or a.startswith(("-I", "--ignore-matching-lines=")):
            taken = a in ("-I", "--ignore-matching-lines")
            value = (
                (args[k + 1] if k + 1 < len(args) else None) if taken else a[2:] if a[1] == "I" else a[24:]
            )
            out.how = _ignore_matching(out.how, a, value)
            continue
        if a == "--ignore-blank-lines":
            out.how = replace(out.how, ignore_blank_lines=True)
        elif a in ("-W", "--function-context", "--no-function-context"):
            out.how = replace(out.how, function_context=a != "--no-function-context")
        elif a in _FLAGS or a in _WHITESPACE or a.startswith("--anchored="):
            out.how = _algorithm(out.how, a, None)
        elif a == "--diff-algorithm":
            taken = True
            out.how = _algorithm(out.how, a, args[k + 1] if k + 1 < len(args) else None)
        elif a.startswith("--diff-algorithm="):
            out.how = _algorithm(out.how, a, a.partition("=")[2])
        if a == "--no-renames":
            out.renames = None
        elif a.startswith(("-M", "--find-renames")):
            out.renames = _rename_score(a.partition("=")[2] if a.startswith("--") else a[2:])
        elif a.startswith(("-C", "--find-copies", "-B", "--break-rewrites", "--word-diff", "--color-words")):
            raise NotSimulated(a)
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
        elif a in ("--numstat", "--shortstat"):
            setattr(out, a[2:], True)
        elif a in ("--name-only", "--name-status"):
            out.names = a[2:]
        elif a in ("-s", "--no-patch"):
            out.silent = True
    return out


def _rename_score(text: str) -> int:
    """``-M<n>``: ``50%``, or digits read as a fraction (``-M5`` and ``-M50`` are both half)."""
    if not text:
        return DEFAULT_SCORE
    digits = text.rstrip("%")
    if not digits.isdigit():
        raise GitError(f"error: invalid argument to -M: {text}", 129)
    if text.endswith("%"):
        return min(MAX_SCORE, int(digits) * MAX_SCORE // 100)
    return min(MAX_SCORE, int(digits) * MAX_SCORE // 10 ** len(digits))


def operands(args: list[str]) -> list[str]:
    """``args`` less the values of diff options given as words of their own
    (``--diff-algorithm myers``), which are not revisions or paths."""
    out = []
    skip = False
    for k, a in enumerate(args):
        if skip:
            skip = False
        elif a in ("--diff-algorithm", "-I", "--ignore-matching-lines") and "--" not in args[:k]:
            skip = True
        else:
            out.append(a)
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
    ``--oneline``); a stat followed by a patch has ``---`` in its place and a blank line between.
    Nothing at all only where nothing changed: changes all ignored (``-w``) still show the lead
    and the separators, as git's do."""
    changed = {
        path: kind
        for path, kind in changed_paths(old, new).items()
        if paths is None or any(_under(path, prefix) for prefix in paths)
    }
    if not changed:
        return ""
    if out.names:
        moved = find_renames(repo, limited(old, paths), limited(new, paths), out.renames)
        for src, _ in moved.values():
            del changed[src]
        rows = []
        for path, kind in sorted(changed.items()):
            if out.names == "name-only":
                rows.append(f"{path}\n")
            elif path in moved:
                rows.append(f"R{similarity_index(moved[path][1]):03d}\t{moved[path][0]}\t{path}\n")
            else:
                rows.append(f"{kind}\t{path}\n")
        return lead + "".join(rows)
    wants_stat, wants_patch = out.wants_stat(), out.wants_patch(default_patch)
    if not (wants_stat or wants_patch):
        return ""
    stat = ""
    if wants_stat:
        kinds = ("numstat",) * out.numstat + ("stat",) * out.stat + ("shortstat",) * out.shortstat
        stat = diffstat(
            repo, old, new, paths=paths, how=out.how, kinds=kinds, context=out.context, renames=out.renames
        )
    patch = tree_diff(repo, old, new, paths, out.context, out.how, out.renames) if wants_patch else ""
    # (what changed shows the lead and the separators even when ignored changes leave them empty)
    if wants_stat and wants_patch:  # the "---" line stands for the blank line only with --stat
        return ("---\n" if lead and out.stat else lead) + stat + "\n" + patch
    return lead + stat + patch
