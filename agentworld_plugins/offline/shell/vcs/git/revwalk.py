"""Which commits ``git log``, ``rev-list`` and ``shortlog`` list, and in what order: revisions and
ranges (``A``, ``^A``, ``A..B``, ``A...B``, ``--all``, ``--branches``, ``--tags``), paths
(history simplified as git's default does), ``-n``, ``--skip``, ``--reverse``, ``--author``,
``--committer``, ``--grep`` (``-i``, ``-E``, ``-F``, ``--all-match``, ``--invert-grep``),
``--since``/``--until``, ``--merges``/``--no-merges``, ``--first-parent``; and the format
options of :mod:`.pretty`. Every commit visited counts against the step's work budget."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...dates import parse_date as gnu_date
from ...limits import current
from ...patterns import posix_regex
from ...regex import compile_regex
from .graph import ancestors, merge_bases
from .ident import parse_date
from .pretty import Pretty, Unsupported, check_date_mode, choose
from .repo import Commit, Entries, GitError, Repo
from .work import pathspec_filter, under

if TYPE_CHECKING:
    from ...proc import _Proc

#: options whose value may be the next word (``--author X`` as well as ``--author=X``)
_VALUED = ("--author", "--committer", "--grep", "--since", "--after", "--until", "--before",
           "--max-count", "--skip", "--date", "--min-parents", "--max-parents")  # fmt: skip
#: options that change only how commits or diffs print (diffopts and pretty read them), or nothing
_QUIET_OPTIONS = re.compile(
    r"-[pusWwb]|--patch|--no-patch|-U\d*|--unified(=.*)?|--stat|--numstat|--shortstat|--name-only"
    r"|--name-status|--(no-)?minimal|--(no-)?indent-heuristic|--patience|--histogram|--anchored=.*"
    r"|--diff-algorithm(=.*)?|--ignore-.*|-I.*|--(no-)?function-context|--no-renames|--no-ext-diff"
    r"|--no-textconv|--exit-code|--quiet|--no-expand-tabs|--no-mailmap|--no-notes|--no-show-signature"
    r"|--no-pager|--show-pulls|--no-color|--full-diff"
)
#: options of log and rev-list that take their value only after ``=``
_EQUALS = ("--pretty", "--format", "--decorate", "--branches", "--tags", "--abbrev")

AMBIGUOUS = (
    "ambiguous argument '{}': unknown revision or path not in the working tree.\n"
    "Use '--' to separate paths from revisions, like this:\n"
    "'git <command> [<revision>...] -- [<file>...]'"
)


@dataclass
class LogOptions:
    limit: int | None = None
    skip: int = 0
    reverse: bool = False
    authors: list[str] = field(default_factory=list)
    committers: list[str] = field(default_factory=list)
    greps: list[str] = field(default_factory=list)
    ignore_case: bool = False
    extended: bool = False
    fixed: bool = False
    all_match: bool = False
    invert_grep: bool = False
    since: int | None = None
    until: int | None = None
    min_parents: int = 0
    max_parents: int | None = None
    first_parent: bool = False
    graph: bool = False
    count: bool = False
    parents: bool = False
    #: --topo-order and friends: the same order as git's default while no merge is listed
    reordered: bool = False
    no_walk: bool = False
    follow: bool = False
    left_right: bool = False
    #: the commits only the left side of ``A...B`` reaches (``<`` under --left-right)
    left: set[str] = field(default_factory=set)
    pretty: Pretty = field(default_factory=Pretty)
    #: whether a format was named (rev-list prints only ids otherwise)
    formatted: bool = False
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    #: whether any revision was named (else HEAD)
    named: bool = False
    paths: list[str] | None = None


def _number(value: str) -> int:
    if not re.fullmatch(r"-?\d+", value.strip()):
        raise GitError(f"'{value}': not an integer", 128)
    return int(value)


def _when(p: _Proc, value: str) -> int:
    """A date of ``--since``/``--until`` (git's approxidate, for the forms people write)."""
    parsed = parse_date(value)
    if parsed is not None:
        return parsed[0]
    text = value.strip().replace(".", " ")
    m = re.fullmatch(r"(\d+)\s*(second|minute|hour|day|week|month|year)s?(\s+ago)?", text)
    if m:
        seconds = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800,
                   "month": 2592000, "year": 31536000}[m.group(2)]  # fmt: skip
        return p.fs.now() - int(m.group(1)) * seconds
    epoch = gnu_date(value, p.fs.now())
    if epoch is None:
        p.unknown()  # approxidate reads almost anything; this world does not
        return p.fs.now()
    return epoch


def parse(p: _Proc, repo: Repo, args: list[str]) -> LogOptions:
    """The revision and format options among ``args`` (diff options are read elsewhere and
    skipped here); revisions resolved, paths made relative to the work tree's root."""
    o = LogOptions()
    words: list[str] = []
    specs: list[str] | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            specs = args[i + 1 :]
            break
        name, eq, value = a.partition("=")
        if name in _VALUED and not eq:
            if i + 1 >= len(args):
                raise GitError(f"{name[2:]} requires an argument", 129)
            value, eq = args[i + 1], "="
            i += 1
        i += 1
        if name == "--max-count" or (a == "-n" and i < len(args)):
            if a == "-n":
                value = args[i]
                i += 1
            o.limit = _number(value)
        elif re.fullmatch(r"-n?\d+", a):
            o.limit = int(a.lstrip("-n"))
        elif name == "--skip":
            o.skip = _number(value)
        elif a == "--reverse":
            o.reverse = True
        elif name == "--author":
            o.authors.append(value)
        elif name == "--committer":
            o.committers.append(value)
        elif name == "--grep":
            o.greps.append(value)
        elif a in ("-i", "--regexp-ignore-case"):
            o.ignore_case = True
        elif a in ("-E", "--extended-regexp"):
            o.extended = True
        elif a in ("-F", "--fixed-strings"):
            o.fixed = True
        elif a == "--all-match":
            o.all_match = True
        elif a == "--invert-grep":
            o.invert_grep = True
        elif name in ("--since", "--after", "--since-as-filter"):
            o.since = _when(p, value)
        elif name in ("--until", "--before"):
            o.until = _when(p, value)
        elif a == "--merges":
            o.min_parents = 2
        elif a == "--no-merges":
            o.max_parents = 1
        elif name == "--min-parents":
            o.min_parents = _number(value)
        elif name == "--max-parents":
            o.max_parents = _number(value)
        elif a == "--first-parent":
            o.first_parent = True
        elif a == "--graph":
            o.graph = True
        elif a == "--count":
            o.count = True
        elif a == "--parents":
            o.parents = True
        elif a == "--oneline":
            o.pretty.kind, o.pretty.abbrev, o.formatted = "oneline", True, True
        elif name in ("--pretty", "--format"):
            if not eq and name == "--pretty":
                value = "medium"
            o.pretty.kind, o.pretty.fmt, o.pretty.terminated = choose(value)
            o.formatted = True
        elif a == "--abbrev-commit":
            o.pretty.abbrev = True
        elif a == "--no-abbrev-commit":
            o.pretty.abbrev = False
        elif name == "--date":
            o.pretty.date = check_date_mode(value)
        elif name == "--decorate":
            o.pretty.decorate = value if eq else "short"
            if o.pretty.decorate not in ("short", "full", "no", "auto"):
                raise GitError(f"invalid --decorate option: {value}")
        elif a == "--no-decorate":
            o.pretty.decorate = "no"
        elif a in ("--color", "--color=always"):
            o.pretty.color = True
        elif a in ("--no-color", "--color=never"):
            o.pretty.color = False
        elif a == "--all":
            head = repo.head()
            o.include += [repo.peel(sha) for _, sha in repo.all_refs()] + ([head] if head else [])
            o.named = True
        elif name in ("--branches", "--tags"):
            kind = "heads" if name == "--branches" else "tags"
            pattern = value if eq else "*"
            o.include += [
                repo.peel(sha)
                for ref, sha in repo.all_refs()
                if ref.startswith(f"refs/{kind}/") and fnmatch.fnmatchcase(ref[len(kind) + 6 :], pattern)
            ]
            o.named = True
        elif a.startswith("-L") or a in (
            "-g",
            "--walk-reflogs",
            "--cherry-pick",
            "--cherry-mark",
            "--boundary",
        ):
            raise Unsupported(a)  # line ranges, reflog walks, patch-id marks: not simulated
        elif a in ("--topo-order", "--date-order", "--author-date-order"):
            o.reordered = True
        elif a == "--no-walk" or a == "--no-walk=sorted":
            o.no_walk = True
        elif a == "--follow":
            o.follow = True
        elif a == "--left-right":
            o.left_right = True
        elif a.startswith("-") and a != "-":
            if not _QUIET_OPTIONS.fullmatch(a):
                p.unknown()  # an option that would change what is listed: not guessed silently
        else:
            words.append(a)
    paths: list[str] = []
    for k, word in enumerate(words):
        if _add_revision(o, repo, word):
            continue
        if specs is None and p.fs.lexists(p.path(word)):
            if any(_add_revision(LogOptions(), repo, w) for w in words[k + 1 :]):
                raise GitError(AMBIGUOUS.format(words[k]))
            paths = words[k:]
            break
        raise GitError(AMBIGUOUS.format(word))
    if specs is not None:
        paths += specs
    if paths:
        o.paths = pathspec_filter(p, repo, paths)
    return o


def range_ends(repo: Repo, word: str) -> tuple[str, str, str] | None:
    """``A..B`` or ``A...B`` (an empty side is HEAD): the dots and the two ends' ids; None when
    ``word`` is not a range of two revisions."""
    for dots in ("...", ".."):
        if dots in word:
            left, _, right = word.partition(dots)
            a, b = repo.resolve(left or "HEAD"), repo.resolve(right or "HEAD")
            return (dots, a, b) if a is not None and b is not None else None
    return None


def _add_revision(o: LogOptions, repo: Repo, word: str) -> bool:
    """Take ``word`` as a revision or range (False when it names none)."""
    ends = range_ends(repo, word)
    if ends is not None:
        dots, a, b = ends
        if dots == "...":  # what either reaches and not both
            o.include += [a, b]
            o.exclude += merge_bases(repo, a, b)
            o.left |= ancestors(repo, [a]) - ancestors(repo, [b])
        else:
            o.exclude.append(a)
            o.include.append(b)
    elif ".." in word:
        return False
    elif word.startswith("^") and len(word) > 1:
        sha = repo.resolve(word[1:])
        if sha is None:
            return False
        o.exclude.append(sha)
    else:
        sha = repo.resolve(word)
        if sha is None:
            return False
        o.include.append(sha)
    o.named = True
    return True


def _matcher(o: LogOptions, pattern: str) -> re.Pattern[str]:
    text = re.escape(pattern) if o.fixed else posix_regex(pattern, o.extended)
    try:
        return compile_regex(text, re.IGNORECASE if o.ignore_case else 0)
    except re.error:
        raise GitError(f"command line, '{pattern}': Invalid regular expression") from None


class _Filters:
    """The commit filters of ``o``, their regexes compiled once for the whole walk."""

    def __init__(self, o: LogOptions) -> None:
        self.o = o
        self.authors = [_matcher(o, x) for x in o.authors]
        self.committers = [_matcher(o, x) for x in o.committers]
        self.greps = [_matcher(o, x) for x in o.greps]

    def keep(self, c: Commit) -> bool:
        o = self.o
        parents = len(c.parents)
        if parents < o.min_parents or (o.max_parents is not None and parents > o.max_parents):
            return False
        if o.since is not None and c.commit_time < o.since:
            return False
        if o.until is not None and c.commit_time > o.until:
            return False
        if self.authors and not any(rx.search(c.author.rsplit(" ", 2)[0]) for rx in self.authors):
            return False
        if self.committers and not any(rx.search(c.committer.rsplit(" ", 2)[0]) for rx in self.committers):
            return False
        if self.greps:
            hits = [rx.search(c.message) is not None for rx in self.greps]
            if (all(hits) if o.all_match else any(hits)) == o.invert_grep:
                return False
        return True


def _limited(entries: Entries, paths: list[str]) -> Entries:
    return {q: e for q, e in entries.items() if any(under(q, x) for x in paths)}


def _renamed_from(repo: Repo, commit: Commit, parent: str, path: str) -> list[str] | None:
    """``--follow``: the name ``path`` had before ``commit`` renamed it (an exact rename: a file
    gone in the same commit with the same content); a rename with edits, which git finds by
    similarity, is not simulated."""
    mine, theirs = repo.commit_entries(commit.sha), repo.commit_entries(parent)
    if path in theirs or path not in mine:
        return None
    gone = [q for q in theirs if q not in mine]
    same = [q for q in gone if theirs[q][1] == mine[path][1]]
    if same:
        return [same[0]]
    if gone:
        raise Unsupported("--follow")
    return None


def walk(repo: Repo, o: LogOptions) -> list[Commit]:
    """The commits the options select, in git's default order (newest committer date first,
    ties in the order they were reached), after ``--skip`` and ``-n``, reversed by ``--reverse``."""
    budget = current()
    include = list(o.include)
    if not o.named:
        head = repo.head()
        if head is None:
            raise GitError(f"your current branch '{repo.branch()}' does not have any commits yet")
        include = [head]
    if o.no_walk:  # only the commits named, newest first
        named = sorted(
            {repo.commit(x).sha: repo.commit(x) for x in include}.values(), key=lambda c: -c.commit_time
        )
        return named[::-1] if o.reverse else named
    hidden = ancestors(repo, o.exclude) if o.exclude else set()
    queue: list[Commit] = []
    seen: set[str] = set()
    for sha in include:
        if sha not in seen and sha not in hidden:
            seen.add(sha)
            queue.append(repo.commit(sha))
    picked: list[Commit] = []
    filters = _Filters(o)
    skipped = 0
    trees: dict[str, Entries] = {}

    paths = list(o.paths or [])

    def limited(sha: str) -> Entries:
        key = sha + "\0" + "\0".join(paths)
        if key not in trees:
            budget.spend(8)
            trees[key] = _limited(repo.commit_entries(sha), paths)
        return trees[key]

    while queue and (o.limit is None or len(picked) < o.limit):
        newest = max(range(len(queue)), key=lambda k: (queue[k].commit_time, -k))
        commit = queue.pop(newest)
        budget.spend(4)
        parents = commit.parents[:1] if o.first_parent else commit.parents
        shown = True
        if o.paths is not None:
            mine = limited(commit.sha)
            same = [x for x in parents if limited(x) == mine]
            if same:  # TREESAME to a parent: hidden, and the history goes on through that one only
                shown, parents = False, same[:1]
            elif not parents:
                shown = bool(mine)
        if o.follow and shown and len(paths) == 1 and parents:
            paths = _renamed_from(repo, commit, parents[0], paths[0]) or paths
        for parent in parents:
            if parent not in seen and parent not in hidden:
                seen.add(parent)
                queue.append(repo.commit(parent))
        if not shown or not filters.keep(commit):
            continue
        if skipped < o.skip:
            skipped += 1
            continue
        picked.append(commit)
    if o.reordered and any(len(c.parents) > 1 for c in picked):
        raise Unsupported("--topo-order")  # an order that differs from the default only over merges
    return picked[::-1] if o.reverse else picked
