"""git apply: unified diffs (git's own and ``diff -u``'s) read and applied with git's rules.

A hunk's context must match exactly (no fuzz); it may match some lines away from where the
patch says (an offset), searched the way git searches (forward one, back one, forward two, ...).
A hunk that changes the first lines must match at the top, one without trailing context at the
end. Every patch of the input is checked before any is applied, so a failure changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ....vfs import FsError
from ...applet_io import lines_with_ends
from ...limits import spend
from .repo import GitError, Repo

if TYPE_CHECKING:
    from ...proc import _Proc

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_EXTENDED = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "rename from ",
    "rename to ",
    "rename old ",
    "rename new ",
    "copy from ",
    "copy to ",
    "similarity index ",
    "dissimilarity index ",
    "index ",
)


@dataclass
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    #: (tag, text with its newline unless the patch said ``\ No newline at end of file``)
    lines: list[tuple[str, str]] = field(default_factory=list)
    #: the line of the patch the hunk's header is on
    at: int = 0

    def image(self, side: str) -> list[str]:
        keep = (" ", "-") if side == "old" else (" ", "+")
        return [text for tag, text in self.lines if tag in keep]


@dataclass
class FilePatch:
    old_name: str | None
    new_name: str | None
    old_mode: str | None = None
    new_mode: str | None = None
    is_new: bool = False
    is_delete: bool = False
    is_rename: bool = False
    is_copy: bool = False
    similarity: int = 0
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.new_name or self.old_name or ""

    def counts(self) -> tuple[int, int]:
        added = sum(1 for h in self.hunks for tag, _ in h.lines if tag == "+")
        removed = sum(1 for h in self.hunks for tag, _ in h.lines if tag == "-")
        return added, removed

    def reversed(self) -> FilePatch:
        flipped = FilePatch(
            self.new_name,
            self.old_name,
            self.new_mode,
            self.old_mode,
            self.is_delete,
            self.is_new,
            self.is_rename,
            self.is_copy,
            self.similarity,
            self.binary,
        )
        swap = {"+": "-", "-": "+", " ": " "}
        flipped.hunks = [
            Hunk(h.new_start, h.new_count, h.old_start, h.old_count, [(swap[t], x) for t, x in h.lines], h.at)
            for h in self.hunks
        ]
        return flipped


class PatchError(GitError):
    pass


def _strip(name: str, p: int) -> str | None:
    name = name.split("\t")[0]
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    if name == "/dev/null":
        return None
    parts = name.split("/")
    if p >= len(parts):
        return parts[-1] if p == 0 else None
    return "/".join(parts[p:])


def _git_header_name(line: str, p: int) -> str | None:
    """The name in ``diff --git a/x b/x`` when both sides are the same file."""
    rest = line[len("diff --git ") :]
    half = len(rest) // 2
    if len(rest) % 2 and rest[half] == " ":
        first, second = rest[:half], rest[half + 1 :]
        a, b = _strip(first, p), _strip(second, p)
        if a is not None and a == b:
            return a
    return None


def _traditional_name(line: str, p: int, default: str | None) -> str | None:
    """A ``---``/``+++`` name with ``p`` components stripped, as git reads one of ``diff -u``:
    too few components, or a longer variant of ``default`` (``a.txt.orig``), give ``default``."""
    name = line.split("\t")[0].rstrip()
    if name == "/dev/null":
        return None
    parts = name.split("/")
    if p >= len(parts) or not "/".join(parts[p:]):
        return default
    found = "/".join(parts[p:])
    if default is not None and len(default) < len(found) and found.startswith(default):
        return default
    return found


def _guess_strip(line: str) -> int:
    name = line.split("\t")[0].rstrip()
    if name == "/dev/null":
        return -1
    return 0 if "/" not in name else -1


def parse_patch(text: str, p: int | None = None) -> list[FilePatch]:
    """The file patches of ``text``; :class:`PatchError` for a corrupt one (git's wording).
    ``p``: the ``-p`` given (None: 1 for git's diffs, guessed for ``diff -u``'s as git guesses)."""
    known = p is not None
    strip = 1 if p is None else p
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    spend(len(lines))
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            patch, i = _git_patch(lines, i, strip)
            patches.append(patch)
            continue
        if (
            line.startswith("--- ")
            and i + 2 < len(lines)
            and lines[i + 1].startswith("+++ ")
            and _HUNK.match(lines[i + 2])
        ):
            first, second = line[4:], lines[i + 1][4:]
            if not known:
                guess, other = _guess_strip(first), _guess_strip(second)
                guess = other if guess < 0 else guess
                if guess >= 0 and guess == other:
                    strip, known = guess, True
            gone, born = first.split("\t")[0] == "/dev/null", second.split("\t")[0] == "/dev/null"
            if gone and born:
                raise PatchError(f"error: corrupt patch at line {i + 1}", 128)
            name = _traditional_name(first, strip, None) if not gone else None
            name = _traditional_name(second, strip, name) if not born else name
            patch = FilePatch(None if gone else name, None if born else name, is_new=gone, is_delete=born)
            i = _hunks(lines, i + 2, patch)
            patches.append(patch)
            continue
        if _HUNK.match(line):
            raise PatchError(f"error: patch fragment without header at line {i + 1}: {line}", 128)
        i += 1
    return patches


def _git_patch(lines: list[str], i: int, p: int) -> tuple[FilePatch, int]:
    header_line = i + 1
    name = _git_header_name(lines[i], p)
    patch = FilePatch(name, name)
    i += 1
    while i < len(lines) and lines[i].startswith(_EXTENDED):
        line = lines[i]
        key, _, value = line.partition(" ")
        if line.startswith("old mode "):
            patch.old_mode = line[9:]
        elif line.startswith("new mode "):
            patch.new_mode = line[9:]
        elif line.startswith("deleted file mode "):
            patch.is_delete, patch.old_mode, patch.new_name = True, line[18:], None
        elif line.startswith("new file mode "):
            patch.is_new, patch.new_mode, patch.old_name = True, line[14:], None
        elif line.startswith(("rename from ", "copy from ", "rename old ")):
            patch.old_name = line.split(" ", 2)[2]
            patch.is_rename, patch.is_copy = key == "rename", key == "copy"
        elif line.startswith(("rename to ", "copy to ", "rename new ")):
            patch.new_name = line.split(" ", 2)[2]
        elif line.startswith(("similarity index ", "dissimilarity index ")):
            patch.similarity = int(value.split(" ")[-1].rstrip("%") or 0)
        elif line.startswith("index ") and " " in value:
            patch.old_mode = patch.new_mode = patch.old_mode or value.split(" ")[1]
        i += 1
    if patch.old_mode and patch.new_mode is None and not patch.is_delete:
        patch.new_mode = patch.old_mode
    if i < len(lines) and lines[i].startswith("Binary files "):
        patch.binary = True
        return patch, i + 1
    if i + 1 < len(lines) and lines[i].startswith("--- ") and lines[i + 1].startswith("+++ "):
        old, new = _strip(lines[i][4:], p), _strip(lines[i + 1][4:], p)
        if not patch.is_new:
            patch.old_name = old if old is not None else patch.old_name
        if not patch.is_delete:
            patch.new_name = new if new is not None else patch.new_name
        i = _hunks(lines, i + 2, patch)
    if patch.name == "":
        raise PatchError(
            f"error: git diff header lacks filename information when removing {p} leading pathname "
            f"component{'s' if p != 1 else ''} (line {header_line})",
            128,
        )
    return patch, i


def _hunks(lines: list[str], i: int, patch: FilePatch) -> int:
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if not m:
            break
        hunk = Hunk(
            int(m.group(1)),
            int(m.group(2)) if m.group(2) is not None else 1,
            int(m.group(3)),
            int(m.group(4)) if m.group(4) is not None else 1,
            at=i + 1,
        )
        old_left, new_left = hunk.old_count, hunk.new_count
        i += 1
        while i < len(lines) and (old_left > 0 or new_left > 0):
            line = lines[i]
            tag = line[:1] or " "
            if tag == "\\":
                i += 1
                continue
            if tag not in " -+":
                raise PatchError(f"error: corrupt patch at line {i + 1}", 128)
            if tag != "+":
                old_left -= 1
            if tag != "-":
                new_left -= 1
            hunk.lines.append((tag, line[1:] + "\n"))
            i += 1
        if old_left > 0 or new_left > 0 or old_left < 0 or new_left < 0:
            raise PatchError(f"error: corrupt patch at line {i + 1}", 128)
        if i < len(lines) and lines[i].startswith("\\"):
            _no_newline(hunk)
            i += 1
        _no_newline_inside(hunk, lines, i)
        patch.hunks.append(hunk)
    return i


def _no_newline(hunk: Hunk) -> None:
    tag, text = hunk.lines[-1]
    hunk.lines[-1] = (tag, text[:-1])


def _no_newline_inside(hunk: Hunk, lines: list[str], end: int) -> None:
    """``\\ No newline`` markers in the middle of a hunk (after the old side's last line)."""
    start = hunk.at  # the line after the header, 0-based
    k = -1
    for j in range(start, end):
        if lines[j].startswith("\\"):
            if k >= 0 and hunk.lines[k][1].endswith("\n"):
                tag, text = hunk.lines[k]
                hunk.lines[k] = (tag, text[:-1])
        else:
            k += 1


# -- applying ------------------------------------------------------------------------------------


class ApplyFailed(Exception):
    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def _find(image: list[str], pre: list[str], line: int, begin: bool, end: bool) -> int:
    """Where ``pre`` matches ``image`` nearest ``line`` (git's search order), or -1."""
    if len(pre) > len(image):
        return -1
    if begin:
        line = 0
    elif end:
        line = len(image) - len(pre)
    line = min(line, len(image))
    back = fwd = tried = line
    i = 0
    size = max(len(pre), 1)
    while True:
        spend(size)
        if _matches(image, pre, tried, begin, end):
            return tried
        while True:
            if back == 0 and fwd == len(image):
                return -1
            if i & 1:
                if back == 0:
                    i += 1
                    continue
                back -= 1
                tried = back
            else:
                if fwd == len(image):
                    i += 1
                    continue
                fwd += 1
                tried = fwd
            break
        i += 1


def _matches(image: list[str], pre: list[str], at: int, begin: bool, end: bool) -> bool:
    if begin and at != 0:
        return False
    if end and at + len(pre) != len(image):
        return False
    return image[at : at + len(pre)] == pre


def apply_hunks(patch: FilePatch, text: str, verbose: list[str] | None = None, reverse: bool = False) -> str:
    """``text`` with ``patch``'s hunks applied; :class:`ApplyFailed` with git's error lines.
    ``verbose`` gathers the ``Hunk #N succeeded at`` notes of hunks that moved."""
    image = lines_with_ends(text)
    for number, hunk in enumerate(patch.hunks, 1):
        pre, post = hunk.image("old"), hunk.image("new")
        trailing = next((k for k, (tag, _) in enumerate(reversed(hunk.lines)) if tag != " "), 0)
        begin = hunk.old_start <= 1
        end = trailing == 0
        expected = hunk.new_start - 1 if hunk.new_start else 0
        at = _find(image, pre, expected, begin, end)
        if at < 0:
            lines = []
            if verbose is not None:
                lines.append("error: while searching for:\n" + "".join(pre))
            lines.append(f"error: patch failed: {patch.old_name or patch.name}:{hunk.old_start}")
            raise ApplyFailed(lines)
        if verbose is not None and at != expected:
            shift = (expected - at) if reverse else (at - expected)
            verbose.append(
                f"Hunk #{number} succeeded at {at + 1} (offset {shift} line{'s' if abs(shift) != 1 else ''}).\n"
            )
        image[at : at + len(pre)] = post
        spend(len(post) + len(pre))
    return "".join(image)


# -- the command ---------------------------------------------------------------------------------


@dataclass
class _Options:
    check: bool = False
    stat: bool = False
    numstat: bool = False
    summary: bool = False
    reverse: bool = False
    cached: bool = False
    index: bool = False
    verbose: bool = False
    quiet_ws: bool = False
    allow_empty: bool = False
    apply: bool = False
    strip: int | None = None
    files: list[str] = field(default_factory=list)


class _NotSimulated(Exception):
    """An option of git apply this world does not carry out (``--3way``, ``--reject``, ``-C``)."""


def _options(args: list[str]) -> _Options:
    o = _Options()
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--check":
            o.check = True
        elif a == "--stat":
            o.stat = True
        elif a == "--numstat":
            o.numstat = True
        elif a == "--summary":
            o.summary = True
        elif a in ("-R", "--reverse"):
            o.reverse = True
        elif a == "--cached":
            o.cached = True
        elif a == "--index":
            o.index = True
        elif a in ("-v", "--verbose"):
            o.verbose = True
        elif a == "--apply":
            o.apply = True
        elif a == "--allow-empty":
            o.allow_empty = True
        elif a in ("--whitespace=nowarn", "--whitespace=fix", "--whitespace=strip"):
            o.quiet_ws = True
        elif a in ("--whitespace=warn",):
            pass
        elif re.fullmatch(r"-p\d+", a):
            o.strip = int(a[2:])
        elif a == "-p" and i + 1 < len(args) and args[i + 1].isdigit():
            o.strip = int(args[i + 1])
            i += 1
        elif a == "--":
            o.files.extend(args[i + 1 :])
            break
        elif a.startswith("-") and a != "-":
            raise _NotSimulated(a)
        else:
            o.files.append(a)
        i += 1
    return o


_WS_SHOWN = 5


def _whitespace(source: str, text: str) -> list[str]:
    """git's default ``warn`` report of added lines ending in blanks (the lines after the list)."""
    shown: list[str] = []
    errors = 0
    for k, line in enumerate(text.split("\n"), 1):
        if (
            line.startswith("+")
            and not line.startswith("+++ ")
            and line != line.rstrip(" \t")
            and len(line) > 1
        ):
            errors += 1
            if errors <= _WS_SHOWN:
                shown.append(f"{source}:{k}: trailing whitespace.\n{line[1:]}\n")
    if errors > _WS_SHOWN:
        left = errors - _WS_SHOWN
        shown.append(f"warning: squelched {left} whitespace error{'s' if left != 1 else ''}\n")
    if errors:
        shown.append(
            f"warning: {errors} line{'s' if errors != 1 else ''} add{'' if errors != 1 else 's'} whitespace errors.\n"
        )
    return shown


def cmd_apply(p: _Proc, args: list[str]) -> int:
    try:
        o = _options(args)
    except _NotSimulated:
        return p.not_simulated()
    sources = o.files or ["-"]
    patches: list[tuple[str, FilePatch]] = []
    ws: list[str] = []
    for source in sources:
        if source == "-":
            text, shown = p.stdin(), "<stdin>"
        else:
            try:
                text = p.read(source)
            except FsError:
                raise GitError(f"error: can't open patch '{source}': No such file or directory") from None
            shown = source
        found = parse_patch(text, o.strip)
        if not o.quiet_ws:
            ws.extend(_whitespace(shown, text) if not o.reverse else [])
        patches.extend((shown, fp.reversed() if o.reverse else fp) for fp in found)
    if not patches and not o.allow_empty:
        raise GitError('error: No valid patches in input (allow with "--allow-empty")', 128)
    report = o.stat or o.numstat or o.summary
    out = []
    if o.numstat:
        for _, fp in patches:
            added, removed = fp.counts()
            out.append("-\t-\t" if fp.binary else f"{added}\t{removed}\t")
            out.append(fp.name + "\n")
    if o.stat:
        out.extend(_stat(patches))
    if o.summary:
        out.extend(_summary(fp) for _, fp in patches)
    p.out("".join(out))
    if report and not o.apply:
        return 0
    repo = Repo.discover(p.fs, p.vm.cwd) if (o.cached or o.index) else None
    if (o.cached or o.index) and repo is None:
        raise GitError("not a git repository (or any of the parent directories): .git")
    return _apply_all(p, o, patches, repo, [] if o.check or o.quiet_ws else ws)


def _arrow(old: str, new: str) -> str:
    """``dir/{a => b}``, the way git shows a rename's two names."""
    pre = 0
    while pre < min(len(old), len(new)) and old[pre] == new[pre]:
        pre += 1
    pre = old.rfind("/", 0, pre) + 1
    suf = 0
    while suf < min(len(old), len(new)) - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    suf_at = old.find("/", len(old) - suf) if suf else -1
    tail = old[suf_at:] if suf and suf_at >= 0 else ""
    if not pre and not tail:
        return f"{old} => {new}"
    return f"{old[:pre]}{{{old[pre : len(old) - len(tail)]} => {new[pre : len(new) - len(tail)]}}}{tail}"


def _stat(patches: list[tuple[str, FilePatch]]) -> list[str]:
    from .text import summary_line

    names = [fp.name for _, fp in patches]
    width = min(max((len(n) for n in names), default=0), 50)
    most = max((sum(fp.counts()) for _, fp in patches), default=0)
    out = []
    total_add = total_del = 0
    for name, (_, fp) in zip(names, patches):
        if len(name) > width:
            cut = name.find("/", len(name) + 3 - width)
            name = "..." + (name[cut:] if cut >= 0 else name[len(name) + 3 - width :])
        if fp.binary:
            out.append(f" {name:<{width}} |  Bin\n")
            continue
        added, removed = fp.counts()
        total_add += added
        total_del += removed
        graph = 70 - width if width + most > 70 else most
        add, rem = added, removed
        if most > 0:
            total = ((added + removed) * graph + most // 2) // most
            add = (added * graph + most // 2) // most
            rem = total - add
        out.append(f" {name:<{width}} |{added + removed:5d} {'+' * add}{'-' * rem}\n")
    out.append(summary_line(len(patches), total_add, total_del))
    return out


def _summary(fp: FilePatch) -> str:
    if fp.is_new:
        return f" create mode {fp.new_mode or '100644'} {fp.name}\n"
    if fp.is_delete:
        return f" delete mode {fp.old_mode or '100644'} {fp.old_name}\n"
    line = ""
    if fp.is_rename or fp.is_copy:
        word = "rename" if fp.is_rename else "copy"
        line = f" {word} {_arrow(fp.old_name or '', fp.new_name or '')} ({fp.similarity}%)\n"
    if fp.old_mode and fp.new_mode and fp.old_mode != fp.new_mode:
        if line:
            line += f" mode change {fp.old_mode} => {fp.new_mode}\n"
        else:
            line = f" mode change {fp.old_mode} => {fp.new_mode} {fp.name}\n"
    return line


def _apply_all(
    p: _Proc, o: _Options, patches: list[tuple[str, FilePatch]], repo: Repo | None, ws: list[str]
) -> int:
    from .apply_io import Refused, Target

    target = Target(p, repo, cached=o.cached, index=o.index)
    failed = False
    lines: list[str] = []
    results: list[tuple[FilePatch, str | None, str]] = []
    for _, fp in patches:
        if o.verbose:
            lines.append(f"Checking patch {_checking_name(fp)}...\n")
        try:
            text, mode = target.before(fp)
            notes: list[str] | None = [] if o.verbose else None
            new_text = apply_hunks(fp, text, notes, o.reverse)
            if fp.is_delete and new_text:
                raise ApplyFailed(["error: removal patch leaves file contents"])
            lines.extend(notes or [])
            results.append((fp, None if fp.is_delete else new_text, mode))
            target.planned(fp, None if fp.is_delete else new_text)
        except ApplyFailed as exc:
            failed = True
            lines.extend(line + "\n" for line in exc.lines)
            lines.append(f"error: {fp.old_name or fp.name}: patch does not apply\n")
        except Refused as exc:
            failed = True
            lines.append(exc.line)
    if failed:
        ws = [w for w in ws if not w.startswith("warning: ")]
    p.ctx.err.write("".join(ws) + "".join(lines))
    if failed:
        return 1
    if o.check:
        return 0
    for fp, result, mode in results:
        target.write(fp, result, mode)
        if o.verbose:
            p.ctx.err.write(f"Applied patch {_checking_name(fp)} cleanly.\n")
    target.finish()
    return 0


def _checking_name(fp: FilePatch) -> str:
    if (fp.is_rename or fp.is_copy) and fp.old_name and fp.new_name:
        return f"{fp.old_name} => {fp.new_name}"
    return fp.name


__all__ = ["ApplyFailed", "FilePatch", "Hunk", "apply_hunks", "cmd_apply", "parse_patch"]
