"""``git blame``: which commit last changed each line of a file, found as git finds it.

Every line starts as the suspect's (the work tree, else the named commit). Newest commit first,
each suspect hands to a parent holding the same blob all its lines, else, parent by parent,
the lines a diff (git's, :mod:`...xdiff`) finds unchanged against that parent; what no parent
takes is the suspect's own. Root commits are boundaries (``^``) unless ``--root``. Output as
git prints it: the default columns, ``-s``, ``-e``, ``-l``, ``-n``, ``-f``, ``-t``, ``-b``,
``--date``, ``--abbrev``, ``-L`` ranges, ``--porcelain`` and ``--line-porcelain``. Files
renamed in history are followed no further than the rename (git's rename search is not
simulated), and ``-M``/``-C`` answer as not simulated."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...limits import current
from ...xdiff import DEFAULT, git_hunks, split_lines
from .pretty import Unsupported, check_date_mode, relative, show_date
from .repo import ZERO, Commit, GitError, Repo
from .work import need_repo, pathspec_filter

if TYPE_CHECKING:
    from ...proc import _Proc

#: how wide each --date mode's column is (git pads the date to it)
_DATE_WIDTHS = {"relative": len("4 years, 11 months ago"), "short": 10, "default": 30, "local": 24}
_NOT_COMMITTED = "Not Committed Yet"


@dataclass
class _Suspect:
    """A version of the file lines are blamed on: a commit, or the work tree (``sha`` all zeros)."""

    sha: str
    commit: Commit | None
    lines: list[str]
    #: final line number -> this version's line number (both from 0)
    owned: dict[int, int] = field(default_factory=dict)
    previous: str | None = None


@dataclass
class _Options:
    quiet_author: bool = False
    email: bool = False
    long: bool = False
    number: bool = False
    name: bool = False
    raw_time: bool = False
    blank_boundary: bool = False
    root: bool = False
    porcelain: str = ""
    date: str = "iso"
    abbrev: int = 8
    ranges: list[str] = field(default_factory=list)


class _File:
    """The file's versions in the commits blame visits: each commit's tree read once, each
    blob decoded once."""

    def __init__(self, repo: Repo, path: str) -> None:
        self.repo = repo
        self.path = path
        self._ids: dict[str, str | None] = {}
        self._lines: dict[str, list[str]] = {}

    def blob(self, sha: str) -> str | None:
        """The file's blob id in commit ``sha`` (None where the commit has no such file)."""
        if sha not in self._ids:
            entry = self.repo.commit_entries(sha).get(self.path)
            self._ids[sha] = entry[1] if entry else None
        return self._ids[sha]

    def lines(self, sha: str) -> list[str] | None:
        blob = self.blob(sha)
        if blob is None:
            return None
        if blob not in self._lines:
            self._lines[blob] = split_lines(self.repo.blob(blob).decode("utf-8", "surrogateescape"))
        return self._lines[blob]


def _range(spec: str, lines: list[str], path: str) -> tuple[int, int]:
    """``-L start,end`` (``+N``/``-N`` counts, ``/regex/`` starts) as 0-based half-open lines."""
    start_text, _, end_text = spec.partition(",")
    total = len(lines)

    def where(text: str, after: int) -> int:
        m = re.fullmatch(r"/(.*)/", text)
        if m:
            rx = re.compile(m.group(1))
            for k in range(after, total):
                if rx.search(lines[k]):
                    return k + 1
            raise GitError(f"-L parameter '{m.group(1)}' starting at line {after + 1}: no match")
        if not re.fullmatch(r"\d+", text):
            raise GitError(f"invalid -L argument '{spec}'", 128)
        return int(text)

    start = where(start_text, 0) if start_text else 1
    if start > total:
        raise GitError(f"file {path} has only {total} line{'s' if total != 1 else ''}")
    start = max(start, 1)
    if not end_text:
        end = total
    elif end_text.startswith("+"):
        end = start + int(end_text[1:] or 0) - 1 if end_text[1:].isdigit() else total
    elif end_text.startswith("-"):
        count = int(end_text[1:] or 0)
        start, end = max(1, start - count + 1), start
    else:
        end = where(end_text, start)
    if end < start:
        start, end = end, start
    return start - 1, min(end, total)


def _options(args: list[str]) -> tuple[_Options, list[str]]:
    o = _Options()
    words: list[str] = []
    k = 0
    flags = {"-s": "quiet_author", "-e": "email", "--show-email": "email", "-l": "long", "-n": "number",
             "--show-number": "number", "-f": "name", "--show-name": "name", "-t": "raw_time",
             "-b": "blank_boundary", "--root": "root"}  # fmt: skip
    while k < len(args):
        a = args[k]
        k += 1
        if a == "--":
            words.append("--")
            words.extend(args[k:])
            break
        if a in flags:
            setattr(o, flags[a], True)
        elif a in ("-p", "--porcelain", "--line-porcelain"):
            o.porcelain = "line" if a == "--line-porcelain" else "group"
        elif a == "-L" and k < len(args):
            o.ranges.append(args[k])
            k += 1
        elif a.startswith("-L") and len(a) > 2:
            o.ranges.append(a[2:])
        elif a.startswith("--date="):
            o.date = check_date_mode(a[7:])
        elif a.startswith("--abbrev="):
            o.abbrev = int(a[9:]) + 1
        elif a in ("-w", "--minimal", "-M", "-C", "-c", "--reverse", "--incremental", "-S", "--contents"):
            raise Unsupported(a)
        elif a.startswith("-") and a != "-":
            raise GitError(f"unknown option `{a.lstrip('-')}'", 129)
        else:
            words.append(a)
    return o, words


def _assign(file: _File, final: _Suspect) -> list[_Suspect]:
    """Hand every line of ``final`` back through history; the suspects that keep lines."""
    budget = current()
    repo = file.repo
    queue: dict[str, _Suspect] = {final.sha: final}
    done: list[_Suspect] = []
    while queue:
        sha = max(queue, key=lambda s: _date(queue[s]))
        suspect = queue.pop(sha)
        done.append(suspect)
        parents = _parents(repo, suspect)
        budget.spend(4 + len(suspect.owned))
        blob = None if suspect.commit is None else file.blob(suspect.sha)
        for parent in parents:  # a parent with the very same blob takes every line
            if blob is not None and file.blob(parent) == blob:
                _hand(queue, file, parent, suspect, dict.fromkeys(range(len(suspect.lines)), 0))
                parents = []
                break
        for parent in parents:
            old = file.lines(parent)
            if old is None:
                continue
            if suspect.previous is None:
                suspect.previous = parent
            unchanged: dict[int, int] = {}
            i = j = 0
            ends = (len(old), len(old), len(suspect.lines), len(suspect.lines))
            for _, a1, b0, b1 in [*git_hunks(old, suspect.lines, DEFAULT), ends]:
                while j < b0:
                    unchanged[j] = i - j
                    i += 1
                    j += 1
                i, j = a1, b1
            _hand(queue, file, parent, suspect, unchanged)
    return [s for s in done if s.owned]


def _date(suspect: _Suspect) -> int:
    """The order suspects are taken in: newest committer date first, the work tree before all."""
    return suspect.commit.commit_time if suspect.commit is not None else 1 << 62


def _parents(repo: Repo, suspect: _Suspect) -> list[str]:
    if suspect.commit is None:
        head = repo.head()
        return [head] if head else []
    return list(suspect.commit.parents)


def _hand(
    queue: dict[str, _Suspect], file: _File, parent: str, suspect: _Suspect, shifts: dict[int, int]
) -> None:
    """Move the lines of ``suspect`` whose own line numbers are in ``shifts`` to ``parent``
    (their line there: theirs plus the shift)."""
    moving = {final: mine for final, mine in suspect.owned.items() if mine in shifts}
    if not moving:
        return
    target = queue.get(parent)
    if target is None:
        target = _Suspect(parent, file.repo.commit(parent), file.lines(parent) or [])
        queue[parent] = target
    for final, mine in moving.items():
        del suspect.owned[final]
        target.owned[final] = mine + shifts[mine]


def cmd_blame(p: _Proc, args: list[str]) -> int:
    repo = need_repo(p)
    o, words = _options(args)
    if "--" in words:
        k = words.index("--")
        revs, files = words[:k], words[k + 1 :]
    else:
        revs, files = words[:-1], words[-1:]
    if len(files) != 1 or len(revs) > 1:
        raise GitError("usage: git blame [<options>] [<rev-opts>] [<rev>] [--] <file>", 129, raw=True)
    (path,) = pathspec_filter(p, repo, files)
    file = _File(repo, path)
    final = _final(p, file, revs[0] if revs else None)
    total = len(final.lines)
    wanted = [_range(spec, final.lines, path) for spec in o.ranges] or [(0, total)]
    final.owned = {k: k for a, b in wanted for k in range(a, b)}
    suspects = _assign(file, final)
    p.out(_render(p, o, suspects, final, path))
    return 0


def _final(p: _Proc, file: _File, rev: str | None) -> _Suspect:
    repo, path = file.repo, file.path
    if rev is not None:
        sha = repo.resolve(rev)
        if sha is None:
            raise GitError(f"bad revision '{rev}'")
        lines = file.lines(sha)
        if lines is None:
            raise GitError(f"no such path {path} in {rev}")
        return _Suspect(sha, repo.commit(sha), lines)
    full = repo.abspath(path)
    head = repo.head()
    if not p.fs.is_file(full):
        if head is None or file.blob(head) is None:
            raise GitError(f"no such path '{path}' in HEAD")
        raise GitError(f"Cannot lstat '{path}': No such file or directory")
    if head is None or (path not in repo.read_index() and file.blob(head) is None):
        raise GitError(f"no such path '{path}' in HEAD")
    return _Suspect(ZERO, None, split_lines(p.fs.read_text(full)))


@dataclass
class _Line:
    final: int
    mine: int
    suspect: _Suspect


def _render(p: _Proc, o: _Options, suspects: list[_Suspect], final: _Suspect, path: str) -> str:
    lines = sorted(
        (_Line(f, mine, s) for s in suspects for f, mine in s.owned.items()), key=lambda x: x.final
    )
    if not lines:
        return ""
    if o.porcelain:
        return _porcelain(p, o, lines, final, path)
    now = p.fs.now()
    people = [_author(p, o, line.suspect, now) for line in lines]
    widest = max(len(name) for name, _ in people)
    digits = len(str(max(x.final for x in lines) + 1))
    orig_digits = len(str(max(x.mine for x in lines) + 1))
    out = []
    for line, (name, date) in zip(lines, people):
        s = line.suspect
        boundary = s.commit is not None and not s.commit.parents and not o.root
        width = 40 if o.long else o.abbrev
        if boundary and o.blank_boundary:
            head = " " * width
        elif boundary:
            head = "^" + s.sha[: width - 1]
        else:
            head = s.sha[:width]
        if o.name:
            head += f" {path}"
        if o.number:
            head += f" {line.mine + 1:>{orig_digits}}"
        if not o.quiet_author:
            head += f" ({name:<{widest}} {date}"
        text = final.lines[line.final]
        out.append(f"{head} {line.final + 1:>{digits}}) {text if text.endswith(chr(10)) else text + chr(10)}")
    return "".join(out)


def _author(p: _Proc, o: _Options, s: _Suspect, now: int) -> tuple[str, str]:
    if s.commit is None:
        name, email, epoch, tz = _NOT_COMMITTED, "not.committed.yet", now, "+0000"
    else:
        c = s.commit
        name, email, epoch, tz = c.author_name, c.author_email, c.time, c.tz
    who = f"<{email}>" if o.email else name
    if o.raw_time:
        return who, f"{epoch} {tz}"
    mode = o.date
    date = relative(epoch, now) if mode == "relative" else show_date(epoch, tz, mode, now)
    return who, f"{date:<{_DATE_WIDTHS.get(mode, 0)}}"


def _porcelain(p: _Proc, o: _Options, lines: list[_Line], final: _Suspect, path: str) -> str:
    out: list[str] = []
    shown: set[str] = set()
    k = 0
    now = p.fs.now()
    while k < len(lines):
        first = lines[k]
        n = 1
        while (
            k + n < len(lines)
            and lines[k + n].suspect is first.suspect
            and lines[k + n].final == first.final + n
            and lines[k + n].mine == first.mine + n
        ):
            n += 1
        for j in range(n):
            line = lines[k + j]
            s = line.suspect
            head = f"{s.sha} {line.mine + 1} {line.final + 1}" + (f" {n}" if j == 0 else "")
            out.append(head + "\n")
            if o.porcelain == "line" or s.sha not in shown:
                shown.add(s.sha)
                out.append(_meta(o, s, path, now))
            text = final.lines[line.final]
            out.append("\t" + (text if text.endswith("\n") else text + "\n"))
        k += n
    return "".join(out)


def _meta(o: _Options, s: _Suspect, path: str, now: int) -> str:
    if s.commit is None:
        fake = f"{_NOT_COMMITTED} <not.committed.yet> {now} +0000"
        c = Commit(ZERO, ZERO, [], fake, fake, "Version of " + path + " from " + path + "\n")
    else:
        c = s.commit
    rows = []
    for role, name, email, epoch, tz in (
        ("author", c.author_name, c.author_email, c.time, c.tz),
        ("committer", c.committer_name, c.committer_email, c.commit_time, c.commit_tz),
    ):
        rows += [f"{role} {name}", f"{role}-mail <{email}>", f"{role}-time {epoch}", f"{role}-tz {tz}"]
    rows.append(f"summary {c.subject}")
    if s.commit is not None and not s.commit.parents and not o.root:
        rows.append("boundary")
    if s.previous is not None:
        rows.append(f"previous {s.previous} {path}")
    rows.append(f"filename {path}")
    return "".join(row + "\n" for row in rows)
