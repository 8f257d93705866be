"""GNU patch: applies unified, context and normal diffs to the virtual files.

Hunks are found as GNU patch 2.7.6 finds them (from the line the patch names, outward, with
up to ``-F`` lines of fuzz at the ends of the context), and what it says is said word for
word; its questions get the answer GNU patch takes without a terminal (the default).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..applet_io import lines_with_ends
from ..errors import _UsageError
from ..getopt import _getopt
from ..limits import current
from ..patch_hunks import FilePatch, Hunk, Reader, locate
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc

_SHORT = "p:i:d:o:r:F:D:B:z:V:g:sRNftEbuncelZTx:"
_LONG: dict[str, str | None] = {
    "strip=": "p",
    "input=": "i",
    "directory=": "d",
    "output=": "o",
    "reject-file=": "r",
    "fuzz=": "F",
    "ifdef=": "D",
    "prefix=": "B",
    "suffix=": "z",
    "version-control=": "V",
    "get=": "g",
    "silent": "s",
    "quiet": "s",
    "reverse": "R",
    "forward": "N",
    "force": "f",
    "batch": "t",
    "remove-empty-files": "E",
    "backup": "b",
    "unified": "u",
    "context": "c",
    "normal": "n",
    "ed": "e",
    "ignore-whitespace": "l",
    "set-utc": "Z",
    "set-time": "T",
    "dry-run": "dry",
    "verbose": "verbose",
    "posix": None,
    "binary": None,
    "no-backup-if-mismatch": "nobackup",
    "backup-if-mismatch": None,
    "merge": None,
    "quoting-style=": None,
    "reject-format=": None,
    "read-only=": None,
    "follow-symlinks": None,
    "debug=": None,
}


class _Fatal(Exception):
    """``patch: **** MESSAGE``: patch gives up, status 2."""


@dataclass
class _Run:
    """One run of patch: its options and what it has said."""

    p: _Proc
    opts: dict[str, object]
    cwd: str
    status: int = 0
    said: list[str] = field(default_factory=list)

    @property
    def silent(self) -> bool:
        return bool(self.opts.get("s"))

    def say(self, text: str, always: bool = False) -> None:
        """A message on stdout (stderr when the patched text goes to stdout), unless ``-s``."""
        if always or not self.silent:
            if self.opts.get("o") == ["-"]:
                self.p.ctx.err.write(text)
            else:
                self.p.out(text)

    def value(self, key: str) -> str | None:
        values = self.opts.get(key)
        return values[-1] if isinstance(values, list) else None

    def path(self, name: str) -> str:
        return self.p.fs.normalize(name, self.cwd)

    def exists(self, name: str) -> bool:
        return self.p.fs.is_file(self.path(name))


def _strip(name: str | None, strip: int | None) -> str | None:
    """A header's file name with ``-p`` components taken off (none: its base name)."""
    if name is None or name == "/dev/null" or not name:
        return None
    if strip is None:
        return posixpath.basename(name) or None
    parts = name.split("/")
    if strip == 0:
        return name
    kept = [part for part in parts[strip:]]
    if len(parts) <= strip or not "".join(kept):
        return None
    return "/".join(kept)


def _best(names: list[str]) -> str:
    """GNU's best of several names: fewest components, shortest base name, shortest name."""
    return min(names, key=lambda n: (n.count("/"), len(posixpath.basename(n)), len(n)))


def _target(run: _Run, fp: FilePatch, operand: str | None) -> tuple[str | None, bool]:
    """The file ``fp`` patches and whether the patch creates it."""
    strip_v = run.value("p")
    strip = None if strip_v is None else int(strip_v)
    creates = fp.names.get("old") == "/dev/null" or bool(
        fp.hunks and not fp.hunks[0].old() and fp.hunks[0].old_start <= 1 and len(fp.hunks) == 1
    )
    if run.opts.get("R"):
        creates = fp.names.get("new") == "/dev/null"
    if operand is not None:
        return operand, creates
    keys = ("git_old", "git_new") if fp.git else ("old", "new", "index")
    names = [n for n in (_strip(fp.names.get(k), strip) for k in keys) if n]
    if not fp.git:
        names += [n for n in [_strip(fp.names.get("index"), strip)] if n and n not in names]
    existing = [n for n in names if run.exists(n)]
    if existing:
        return _best(existing), creates
    if creates and names:
        new = _strip(fp.names.get("git_new" if fp.git else "new"), strip)
        return new or _best(names), True
    return None, False


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ask_reverse(run: _Run, what: str) -> str:
    """What patch does on finding a reversed patch: ``skip``, ``reverse`` or ``apply``."""
    reverse = bool(run.opts.get("R"))
    if run.opts.get("N"):
        run.say(f"{what}  Skipping patch.\n", always=True)
        return "skip"
    if run.opts.get("t"):
        run.say(f"{what}  {'Ignoring -R.' if reverse else 'Assuming -R.'}\n", always=True)
        return "reverse"
    run.say(f"{what}  {'Ignore -R? [n] ' if reverse else 'Assume -R? [n] '}\n", always=True)
    run.say("Apply anyway? [n] \n", always=True)
    run.say("Skipping patch.\n")
    return "skip"


def _fuzz_limit(run: _Run, hunk: Hunk) -> int:
    value = run.value("F")
    limit = 2 if value is None else int(value)
    return min(limit, max(hunk.prefix(), hunk.suffix()))


@dataclass
class _State:
    """Where patch is in a file: the input lines, what is written, the offsets so far."""

    src: list[str]
    out: list[str] = field(default_factory=list)
    frozen: int = 0
    in_offset: int = 0
    out_offset: int = 0
    #: whether a hunk went in with an offset or fuzz (GNU then keeps a ``.orig`` backup)
    mismatch: bool = False

    def apply(self, hunk: Hunk, where: int) -> None:
        self.out.extend(self.src[self.frozen : where - 1])
        pos = where - 1
        for tag, text in hunk.lines:
            if tag == " ":
                self.out.append(self.src[pos])
                pos += 1
            elif tag == "-":
                pos += 1
            else:
                self.out.append(text)
        current().spend(1 + len(hunk.lines) // 4)
        self.frozen = pos
        self.out_offset += len(hunk.new()) - len(hunk.old())

    def rest(self) -> list[str]:
        return self.out + self.src[self.frozen :]


def _find(run: _Run, hunk: Hunk, state: _State, first: bool) -> tuple[int, int, str | None]:
    """Where a hunk goes and with what fuzz; on the first hunk, a reversed patch's verdict."""
    limit = _fuzz_limit(run, hunk)
    guess = hunk.old_start + state.in_offset
    for fuzz in range(limit + 1):
        where = locate(hunk, state.src, guess, state.frozen, fuzz)
        if where:
            return where, fuzz, None
        if first and not run.opts.get("f"):
            back = hunk.reversed()
            if locate(back, state.src, back.old_start + state.in_offset, state.frozen, fuzz):
                what = "Unreversed" if run.opts.get("R") else "Reversed (or previously applied)"
                return 0, fuzz, _ask_reverse(run, f"{what} patch detected!")
    return 0, 0, None


def _rej_range(first: int, count: int) -> str:
    if count == 1:
        return str(first)
    return f"{first - 1 if count == 0 else first},{count}"


def _reject_text(fp: FilePatch, rejects: list[tuple[Hunk, int]]) -> str:
    """The ``.rej`` file: the patch's header and the hunks not applied, placed as in the output."""
    out = list(fp.heads)
    for hunk, shift in rejects:
        old, new = hunk.old(), hunk.new()
        if fp.kind == "unified":
            out.append(
                f"@@ -{_rej_range(hunk.old_start + shift, len(old))} "
                f"+{_rej_range(hunk.new_start + shift, len(new))} @@\n"
            )
            out += [tag + text for tag, text in hunk.lines]
            continue
        out.append("***************\n")
        out.append(f"*** {_ctx_range(hunk.old_start + shift, len(old))} ****\n")
        if any(t == "-" for t, _ in hunk.lines):
            out += [_ctx_mark(hunk, k, "-") + text for k, (t, text) in enumerate(hunk.lines) if t != "+"]
        out.append(f"--- {_ctx_range(hunk.new_start + shift, len(new))} ----\n")
        if any(t == "+" for t, _ in hunk.lines):
            out += [_ctx_mark(hunk, k, "+") + text for k, (t, text) in enumerate(hunk.lines) if t != "-"]
    return "".join(out)


def _ctx_range(first: int, count: int) -> str:
    if count == 0:
        return str(first - 1)
    return str(first) if count == 1 else f"{first},{first + count - 1}"


def _ctx_mark(hunk: Hunk, k: int, side: str) -> str:
    """A context diff's mark of line ``k``: ``! `` where the change both removes and adds."""
    tag = hunk.lines[k][0]
    if tag == " ":
        return "  "
    lo = hi = k
    while lo > 0 and hunk.lines[lo - 1][0] != " ":
        lo -= 1
    while hi + 1 < len(hunk.lines) and hunk.lines[hi + 1][0] != " ":
        hi += 1
    tags = {t for t, _ in hunk.lines[lo : hi + 1]}
    return "! " if len(tags) == 2 else side + " "


def _missing(run: _Run, fp: FilePatch) -> None:
    run.say(f"can't find file to patch at input line {fp.at}\n")
    if fp.heads or fp.leading:
        hint = "you used the wrong" if run.value("p") is not None else "you should have used the"
        run.say(f"Perhaps {hint} -p or --strip option?\n")
        run.say("The text leading up to this was:\n--------------------------\n", always=True)
        run.say("".join("|" + _text(line) for line in fp.leading), always=True)
        run.say("--------------------------\n", always=True)
    run.say("File to patch: \nSkip this patch? [y] \n", always=True)
    run.say("Skipping patch.\n")
    n = len(fp.hunks)
    run.say(f"{n} out of {_plural(n, 'hunk')} ignored\n", always=True)


def _text(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


def _patch_file(run: _Run, fp: FilePatch, operand: str | None) -> None:
    """Apply one file's patch: messages, the new text or the removal, the rejects."""
    name, creates = _target(run, fp, operand)
    if name is None:
        _missing(run, fp)
        run.status = max(run.status, 1)
        return
    hunks = [h.reversed() for h in fp.hunks] if run.opts.get("R") else list(fp.hunks)
    out_name = run.value("o")
    verb = "checking" if run.opts.get("dry") else "patching"
    shown = f"{out_name} (read from {name})" if out_name else name
    exists = run.exists(name)
    if creates and exists and operand is None and run.p.fs.read(run.path(name)):
        run.say("The next patch would create the file " + name + ",\nwhich already exists!  ", always=True)
        run.say("Assume -R? [n] \nApply anyway? [n] \n", always=True)
        run.say("Skipping patch.\n")
        run.say(f"{len(hunks)} out of {_plural(len(hunks), 'hunk')} ignored\n", always=True)
        run.status = max(run.status, 1)
        return
    run.say(f"{verb} file {shown}\n")
    try:
        text = run.p.read_path(run.path(name)) if exists else ""
    except FsError:
        text = ""
    state = _State(lines_with_ends(text))
    current().spend(1 + len(state.src) // 16)
    rejects: list[tuple[Hunk, int]] = []
    skip = False
    ignored = False
    k = 0
    while k < len(hunks):
        hunk = hunks[k]
        k += 1
        if skip:
            rejects.append((hunk, state.out_offset))
            continue
        where, fuzz, verdict = _find(run, hunk, state, k == 1)
        if verdict == "skip":
            skip = ignored = True
            rejects.append((hunk, state.out_offset))
            continue
        if verdict == "reverse":
            hunks = [h.reversed() for h in hunks]
            k -= 1
            run.opts["R"] = not run.opts.get("R")
            continue
        if not where:
            run.say(f"Hunk #{k} FAILED at {hunk.old_start + state.out_offset}.\n")
            rejects.append((hunk, state.out_offset))
            continue
        offset = where - hunk.old_start
        newwhere = where + state.out_offset
        state.in_offset = offset
        state.apply(hunk, where)
        if fuzz or offset:
            state.mismatch = True
            fuzzed = f" with fuzz {fuzz}" if fuzz else ""
            moved = f" (offset {offset} line{'' if offset == 1 else 's'})" if offset else ""
            run.say(f"Hunk #{k} succeeded at {newwhere}{fuzzed}{moved}.\n")
    if fp.error:
        raise _Fatal(fp.error)
    result = "".join(state.rest())
    target = out_name or name
    if rejects:
        rej = run.value("r") or target + ".rej"
        what = "ignored" if ignored else "FAILED"
        line = f"{len(rejects)} out of {_plural(len(hunks), 'hunk')} {what}"
        run.status = max(run.status, 1)
        if run.opts.get("dry"):
            run.say(line + "\n", always=True)
        else:
            run.say(f"{line} -- saving rejects to file {rej}\n", always=True)
            _write(run, rej, _reject_text(fp, rejects))
        if ignored:
            return
    if run.opts.get("dry"):
        return
    removes = fp.names.get("old" if run.opts.get("R") else "new") == "/dev/null"
    mismatch = bool(rejects) or state.mismatch
    if exists and (run.opts.get("b") or (mismatch and not out_name and not run.opts.get("nobackup"))):
        _write(run, name + ".orig", text)
    if target == "-":
        run.p.out(result)
    elif (removes or run.opts.get("E")) and not result and not out_name:
        _remove(run, name)
    else:
        _write(run, target, result)


def _remove(run: _Run, name: str) -> None:
    """Remove an emptied file, and the directories its removal leaves empty."""
    path = run.path(name)
    run.p.fs.remove(path)
    parent = posixpath.dirname(path)
    while parent.startswith(run.cwd + "/") and not run.p.fs.listdir(parent):
        run.p.fs.rmdir(parent)
        parent = posixpath.dirname(parent)


def _write(run: _Run, name: str, text: str) -> None:
    path = run.path(name)
    parent = posixpath.dirname(path)
    if not run.p.fs.is_dir(parent):
        run.p.fs.mkdir(parent, parents=True)
    current().spend(1 + len(text) // 16)
    run.p.fs.write(path, text)


def _options(p: _Proc) -> tuple[dict[str, object], list[str]]:
    try:
        opts, operands = _getopt(p.args, _SHORT, _LONG, status=2)
    except _UsageError as exc:
        p.err(exc.message)
        p.err(f"Try '{p.name} --help' for more information.")
        raise _Fatal("") from None
    for key, what in (("p", "strip count"), ("F", "fuzz factor")):
        value = opts.get(key)
        if isinstance(value, list) and not value[-1].isdigit():
            raise _Fatal(f"{what} {value[-1]} is not a number")
    return opts, operands


@applet("patch")
def _u_patch(p: _Proc) -> int:
    try:
        return _main(p)
    except _Fatal as exc:
        if exc.args[0]:
            p.err(f"**** {exc.args[0]}")
        return 2


def _main(p: _Proc) -> int:
    opts, operands = _options(p)
    run = _Run(p, opts, p.vm.cwd)
    directory = run.value("d")
    if directory is not None:
        if not p.fs.is_dir(run.path(directory)):
            raise _Fatal(f"Can't change to directory {directory} : No such file or directory")
        run.cwd = run.path(directory)
    source = run.value("i") or (operands[1] if len(operands) > 1 else None)
    if len(operands) > 2:
        p.err(f"{operands[2]}: extra operand")
        p.err(f"Try '{p.name} --help' for more information.")
        return 2
    try:
        text = p.read_path(run.path(source)) if source and source != "-" else p.stdin()
    except FsError as exc:
        raise _Fatal(f"Can't open patch file {source} : {exc.strerror}") from None
    patches = Reader(text).patches()
    if not patches:
        if text.strip():
            raise _Fatal("Only garbage was found in the patch input.")
        return 0
    operand = operands[0] if operands else None
    for fp in patches:
        try:
            _patch_file(run, fp, operand)
        except FsError as exc:
            raise _Fatal(f"{exc.path}: {exc.strerror}") from None
    return run.status
