"""The edit script git's diffs choose (xdiff, the Myers algorithm git uses by default).

git prepares the two files as ``xdl_prepare_env`` does: the identical first and last lines set
aside, then the lines between that match nothing in the other file (and lines with very many
matches inside runs of those) set aside too (``xdl_cleanup_records``). Myers' middle-snake
search runs over what is left (:class:`~.gnu_diff.Search`, with xdiff's cost bound and its
"good snake" shortcut), and each run of changed lines is then slid (``xdl_change_compact``): as
far as it goes, merging the runs it touches; back to line up with a change in the other file if
it can; else, with the indent heuristic (git's default since 2.14), to the place whose two edges
score best by the indentation and blank lines around them.

Every stage counts its work against the step's budget (:func:`~.limits.current`); like git, the
search gives up on a minimal script past a cost bound of about the square root of the lines
(``--minimal`` lifts it), so a large diff ends either that way or with the step's CPU limit.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .gnu_diff import Hunk, Search, Split, blocks, bogosqrt, classes
from .limits import Budget, current

#: lines with at least this many matches in the other file (or the root of its length, if less)
#: count as "many" when git sets lines aside
_MAX_EQLIMIT = 1024
#: how far ``xdl_clean_mmatch`` looks either side of a line with many matches
_SIMSCAN_WINDOW = 100
#: a run of "many" lines is set aside when more than this share of it (1/4) has no match
_KPDIS_RUN = 4
#: xdiff's cost bound is at least this many rounds; its snake shortcut starts past this many
_MAX_COST_MIN = 256
_HEUR_MIN_COST = 256
#: a snake this long makes a diagonal "interesting" for the shortcut, which wants this factor
_SNAKE_CNT = 20
_K_HEUR = 4

#: the indent heuristic: indents clamp here, blank runs count up to this, slides look this far
_MAX_INDENT = 200
_MAX_BLANKS = 20
_MAX_SLIDING = 100
#: its weights (git's empirically chosen numbers; smaller scores are better)
_START_OF_FILE_PENALTY = 1
_END_OF_FILE_PENALTY = 21
_TOTAL_BLANK_WEIGHT = -30
_POST_BLANK_WEIGHT = 6
_RELATIVE_INDENT_PENALTY = -4
_RELATIVE_INDENT_WITH_BLANK_PENALTY = 10
_RELATIVE_OUTDENT_PENALTY = 24
_RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17
_RELATIVE_DEDENT_PENALTY = 23
_RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17
_INDENT_WEIGHT = 60


@dataclass(frozen=True)
class Options:
    """How git chooses the edit script: ``--minimal``, ``--[no-]indent-heuristic``, and which
    whitespace makes no difference between two lines: ``all`` (``-w``), ``change`` (``-b``:
    runs of blanks count as one, blanks at the end as none), ``eol`` (``--ignore-space-at-eol``),
    ``cr`` (``--ignore-cr-at-eol``: a carriage return before the newline), or none."""

    minimal: bool = False
    indent_heuristic: bool = True
    whitespace: str = ""
    #: ``myers`` (git's default), ``patience`` or ``histogram``
    algorithm: str = "myers"
    #: ``--anchored=`` texts (patience): a line of the first file that starts with one is kept
    anchors: tuple[str, ...] = ()
    #: how the hunks are printed (:mod:`.xemit`): ``--ignore-blank-lines`` leaves out changes of
    #: blank lines alone where it can; ``-W`` shows the whole functions changed
    ignore_blank_lines: bool = False
    function_context: bool = False
    #: ``-I``: changes whose every line matches one of these POSIX extended regexes are left out
    ignore_regexes: tuple[str, ...] = ()

    @property
    def by_content(self) -> bool:
        """Whether a file counts as changed by what its diff shows, not by its id (git's
        ``diff_from_contents``: whitespace ignored, or ``-I``)."""
        return bool(self.whitespace or self.ignore_regexes)


DEFAULT = Options()

#: git's whitespace (``isspace`` of its own ctype): space, tab, newline and carriage return
_BLANKS = re.compile(r"[ \t\n\r]+")


def _cr_at_eol(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
        return line[:-1] if line.endswith("\r") else line
    return line


#: the part of a line that decides whether two lines match, for each kind of ignored whitespace
#: (``xdl_recmatch``'s flags, an equivalence: a line matches another when their keys are equal)
_KEYS: dict[str, Callable[[str], str]] = {
    "all": lambda line: _BLANKS.sub("", line),
    "change": lambda line: _BLANKS.sub(" ", line).rstrip(" "),
    "eol": lambda line: line.rstrip(" \t\n\r"),
    "cr": _cr_at_eol,
}


def split_lines(text: str) -> list[str]:
    """git's records: the lines of ``text`` cut after each ``\\n`` only (a ``\\r`` or a form feed
    is part of its line), each with its newline; a last line without one kept as it is."""
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def git_hunks(a: list[str], b: list[str], how: Options = DEFAULT) -> list[Hunk]:
    """The changed blocks git's diff reports between the records ``a`` and ``b`` (from
    :func:`split_lines`), chosen ``how`` the options say."""
    budget = current()
    key = _KEYS.get(how.whitespace)
    if key is None:
        ha = classes(a, b)
    else:
        budget.spend(1 + (len(a) + len(b)) // 4 + sum(map(len, a)) // 64 + sum(map(len, b)) // 64)
        ha = classes([key(line) for line in a], [key(line) for line in b])
    files = (_File(a, ha[0]), _File(b, ha[1]))
    whole = (0, len(a), 0, len(b))
    if how.algorithm == "patience":
        _patience(files, whole, how, budget)
    elif how.algorithm == "histogram":
        _histogram(files, whole, how.minimal, budget)
    else:
        _classic(files, whole, how.minimal, budget)
    _compact(files[0], files[1], how.indent_heuristic, budget)
    _compact(files[1], files[0], how.indent_heuristic, budget)
    return blocks(files[0].rchg[1:-1], files[1].rchg[1:-1])


Box = tuple[int, int, int, int]  # lines lo1..hi1 of the first file and lo2..hi2 of the second


def _classic(files: tuple[_File, _File], box: Box, minimal: bool, budget: Budget) -> None:
    """Mark the changed lines of ``box`` as ``xdl_do_diff`` finds them with Myers' algorithm:
    the identical ends set aside, then the lines git discards, then the search."""
    lo1, hi1, lo2, hi2 = box
    x, y = files[0].ha[lo1:hi1], files[1].ha[lo2:hi2]
    n, m = len(x), len(y)
    head = 0
    while head < n and head < m and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and x[n - 1 - tail] == y[m - 1 - tail]:
        tail += 1
    budget.spend(1 + head + tail + n // 8 + m // 8)
    kept = _set_aside((x, y), head, (n - tail, m - tail), budget)
    search = _XSearch([x[k] for k in kept[0]], [y[k] for k in kept[1]])
    hits = [False] * len(kept[0]), [False] * len(kept[1])
    search.compare(hits[0], hits[1], minimal)
    for f, lo in enumerate((lo1, lo2)):
        rchg = files[f].rchg
        changed = set(range(head, (n, m)[f] - tail)).difference(kept[f])
        changed.update(kept[f][k] for k, hit in enumerate(hits[f]) if hit)
        for k in changed:
            rchg[lo + k + 1] = 1


class _File:
    """One side: its records, their classes, and ``rchg`` (1 for a changed line; ``rchg[k + 1]``
    is line ``k``, with an unchanged line before the first and after the last)."""

    __slots__ = ("ha", "indents", "lines", "n", "rchg")

    def __init__(self, lines: list[str], ha: list[int]) -> None:
        self.lines, self.ha, self.n = lines, ha, len(lines)
        self.rchg = bytearray(self.n + 2)
        self.indents: dict[int, int] = {}

    def indent(self, k: int) -> int:
        """Line ``k``'s indentation in columns (a tab to the next multiple of 8), -1 for a blank
        line, at most :data:`_MAX_INDENT` (git's ``get_indent``)."""
        found = self.indents.get(k)
        if found is None:
            found = -1
            width = 0
            for ch in self.lines[k]:
                if ch == " ":
                    width += 1
                elif ch == "\t":
                    width += 8 - width % 8
                elif ch not in "\n\r":
                    found = width
                    break
                if width >= _MAX_INDENT:
                    found = _MAX_INDENT
                    break
            self.indents[k] = found
        return found


def _set_aside(
    ha: tuple[list[int], list[int]], head: int, ends: tuple[int, int], budget: Budget
) -> list[list[int]]:
    """The lines between the identical ends that git keeps for the search (``ha``: the classes
    of the lines): not those without a match in the other file, nor those with many matches amid
    such lines."""
    counts = [Counter(ha[0]), Counter(ha[1])]
    kept: list[list[int]] = []
    for f in range(2):
        limit = min(bogosqrt(len(ha[f])), _MAX_EQLIMIT)
        other = counts[1 - f]
        dis = {}
        for k in range(head, ends[f]):
            found = other[ha[f][k]]
            dis[k] = 0 if found == 0 else 2 if found >= limit else 1
        budget.spend(1 + ends[f] - head)
        kept.append(
            [
                k
                for k in range(head, ends[f])
                if dis[k] == 1 or (dis[k] == 2 and not _lone_many(dis, k, head, ends[f] - 1, budget))
            ]
        )
    return kept


def _lone_many(dis: dict[int, int], i: int, start: int, end: int, budget: Budget) -> bool:
    """Whether line ``i`` (one with many matches) sits inside a run of lines without a match,
    mostly such lines, within :data:`_SIMSCAN_WINDOW` either side (``xdl_clean_mmatch``)."""
    runs = []
    for side in (
        range(i - 1, max(start, i - _SIMSCAN_WINDOW) - 1, -1),
        range(i + 1, min(end, i + _SIMSCAN_WINDOW) + 1),
    ):
        none, many = 0, 1
        for k in side:
            if dis[k] == 1:
                break
            if dis[k]:
                many += 1
            else:
                none += 1
        budget.spend(1 + none + many)
        if none == 0:
            return False
        runs.append((none, many))
    none, many = runs[0][0] + runs[1][0], runs[0][1] + runs[1][1]
    return many * _KPDIS_RUN < many + none


class _XSearch(Search):
    """xdiff's ``xdl_split``: GNU's search with a cost bound of the root of the lines (at least
    256 rounds) and, past 256 rounds of a search that followed a snake of over 20 lines, a split
    at a diagonal that ends in such a snake far enough along."""

    snake = _SNAKE_CNT

    def __init__(self, xv: list[int], yv: list[int]) -> None:
        super().__init__(xv, yv, _MAX_COST_MIN)

    def shortcut(
        self, c: int, box: tuple[int, int, int, int], span: tuple[int, int, int, int]
    ) -> Split | None:
        if c <= _HEUR_MIN_COST:
            return None
        fmin, fmax, bmin, bmax = span
        self.budget.spend(1 + (fmax - fmin + bmax - bmin) // 2)
        at = self._snake_end(c, box, range(fmax, fmin - 1, -2), forward=True)
        if at is not None:
            return at[0], at[1], True, False
        at = self._snake_end(c, box, range(bmax, bmin - 1, -2), forward=False)
        if at is not None:
            return at[0], at[1], False, True
        return None

    def _snake_end(
        self, c: int, box: tuple[int, int, int, int], diagonals: range, forward: bool
    ) -> tuple[int, int] | None:
        """The point, among those the forward (or backward) search reached on ``diagonals``,
        furthest along (less its distance from the middle diagonal, and more than
        :data:`_K_HEUR` times the cost ``c``) that ends a snake of :data:`_SNAKE_CNT` lines."""
        xv, yv, reach = self.xv, self.yv, self.fd if forward else self.bd
        xoff, xlim, yoff, ylim = box
        mid = xoff - yoff if forward else xlim - ylim
        best, at = 0, None
        for d in diagonals:
            x = reach[d]
            y = x - d
            along = (x - xoff) + (y - yoff) if forward else (xlim - x) + (ylim - y)
            v = along - abs(d - mid)
            lo = x - _SNAKE_CNT if forward else x  # the snake's first line in x
            if forward:
                inside = xoff <= lo and yoff <= lo - d and x < xlim and y < ylim
            else:
                inside = xoff < x and yoff < y and lo + _SNAKE_CNT <= xlim and lo - d + _SNAKE_CNT <= ylim
            if (
                inside
                and v > _K_HEUR * c
                and v > best
                and xv[lo : lo + _SNAKE_CNT] == yv[lo - d : lo - d + _SNAKE_CNT]
            ):
                best, at = v, (x, y)
        return at


def _compact(f: _File, other: _File, indent_heuristic: bool, budget: Budget) -> None:
    """``xdl_change_compact`` of ``f``'s changes: each group slid up and down as far as it goes
    (merging the groups it meets), then placed against a change of ``other`` if it can line up
    with one, else (``indent_heuristic``) where its edges score best. ``other`` moves in step
    (its groups are walked alongside, never changed)."""
    g = _Group(f)
    go = _Group(other)
    while True:
        if g.end != g.start:
            while True:
                size = g.end - g.start
                top = g.start
                matching_end = -1
                while g.slide_up():
                    go.previous()
                earliest_end, risen = g.end, top - g.start
                if go.end > go.start:
                    matching_end = g.end
                while g.slide_down():
                    go.next()
                    if go.end > go.start:
                        matching_end = g.end
                budget.spend(1 + risen + g.end - earliest_end)
                if size == g.end - g.start:
                    break
            if g.end == earliest_end:
                pass
            elif matching_end != -1:
                while go.end == go.start:
                    g.slide_up()
                    go.previous()
            elif indent_heuristic:
                best = _best_shift(f, g.end, size, earliest_end, budget)
                while g.end > best:
                    g.slide_up()
                    go.previous()
        if not g.next():
            break
        go.next()


def _best_shift(f: _File, end: int, size: int, earliest_end: int, budget: Budget) -> int:
    """The end, among those a group of ``size`` lines slid down to ``end`` could have (from
    ``earliest_end``, at most :data:`_MAX_SLIDING` back), whose two splits score best (the
    lowest end on a tie)."""
    best_shift = -1
    best = (0, 0)
    for shift in range(max(earliest_end, end - size - 1, end - _MAX_SLIDING), end + 1):
        indent_a, penalty_a = _split_score(f, shift, budget)
        indent_b, penalty_b = _split_score(f, shift - size, budget)
        score = (indent_a + indent_b, penalty_a + penalty_b)
        if best_shift == -1:
            best_shift, best = shift, score
            continue
        order = (score[0] > best[0]) - (score[0] < best[0])
        if _INDENT_WEIGHT * order + score[1] - best[1] <= 0:
            best_shift, best = shift, score
    return best_shift


def _split_score(f: _File, split: int, budget: Budget) -> tuple[int, int]:
    """(effective indent, penalty) of cutting ``f`` just above line ``split`` (git's
    ``measure_split`` and ``score_add_split``)."""
    end_of_file = split >= f.n
    indent = -1 if end_of_file else f.indent(split)
    pre_blank, pre_indent = _blanks(f, range(split - 1, -1, -1))
    post_blank, post_indent = _blanks(f, range(split + 1, f.n))
    budget.spend(3 + pre_blank + post_blank)
    penalty = 0
    if pre_indent == -1 and pre_blank == 0:
        penalty += _START_OF_FILE_PENALTY
    if end_of_file:
        penalty += _END_OF_FILE_PENALTY
    blank_after = 1 + post_blank if indent == -1 else 0
    total_blank = pre_blank + blank_after
    penalty += _TOTAL_BLANK_WEIGHT * total_blank + _POST_BLANK_WEIGHT * blank_after
    if indent == -1:
        indent = post_indent
    blanks = total_blank != 0
    if indent == -1 or pre_indent == -1 or indent == pre_indent:
        pass
    elif indent > pre_indent:
        penalty += _RELATIVE_INDENT_WITH_BLANK_PENALTY if blanks else _RELATIVE_INDENT_PENALTY
    elif post_indent != -1 and post_indent > indent:
        penalty += _RELATIVE_OUTDENT_WITH_BLANK_PENALTY if blanks else _RELATIVE_OUTDENT_PENALTY
    else:
        penalty += _RELATIVE_DEDENT_WITH_BLANK_PENALTY if blanks else _RELATIVE_DEDENT_PENALTY
    return indent, penalty


def _blanks(f: _File, lines: range) -> tuple[int, int]:
    """(blank lines, indent of the first other line: -1 if none, 0 past :data:`_MAX_BLANKS`
    blanks) of ``f`` in the order of ``lines``."""
    blank = 0
    for k in lines:
        indent = f.indent(k)
        if indent != -1:
            return blank, indent
        blank += 1
        if blank == _MAX_BLANKS:
            return blank, 0
    return blank, -1


class _Group:
    """A run of changed lines of a file, ``start`` to ``end`` (half-open); an empty one sits just
    above line ``start``. There is one at each end of the file and between any two unchanged
    lines (xdiff's ``struct xdlgroup``)."""

    __slots__ = ("end", "f", "start")

    def __init__(self, f: _File) -> None:
        self.f = f
        self.start = self.end = 0
        while f.rchg[self.end + 1]:
            self.end += 1

    def next(self) -> bool:
        """Move to the next group; False at the end of the file."""
        if self.end == self.f.n:
            return False
        rchg = self.f.rchg
        self.start = self.end = self.end + 1
        while rchg[self.end + 1]:
            self.end += 1
        return True

    def previous(self) -> bool:
        """Move to the previous group; False at the start of the file."""
        if self.start == 0:
            return False
        rchg = self.f.rchg
        self.start = self.end = self.start - 1
        while rchg[self.start]:
            self.start -= 1
        return True

    def slide_down(self) -> bool:
        """Slide one line down if the first line equals the one after, merging a group met."""
        f = self.f
        if self.end < f.n and f.ha[self.start] == f.ha[self.end]:
            f.rchg[self.start + 1] = 0
            f.rchg[self.end + 1] = 1
            self.start += 1
            self.end += 1
            while f.rchg[self.end + 1]:
                self.end += 1
            return True
        return False

    def slide_up(self) -> bool:
        """Slide one line up if the last line equals the one before, merging a group met."""
        f = self.f
        if self.start > 0 and f.ha[self.start - 1] == f.ha[self.end - 1]:
            self.start -= 1
            self.end -= 1
            f.rchg[self.start + 1] = 1
            f.rchg[self.end + 1] = 0
            while f.rchg[self.start]:
                self.start -= 1
            return True
        return False


def _mark_all(files: tuple[_File, _File], box: Box) -> None:
    lo1, hi1, lo2, hi2 = box
    files[0].rchg[lo1 + 1 : hi1 + 1] = b"\x01" * (hi1 - lo1)
    files[1].rchg[lo2 + 1 : hi2 + 1] = b"\x01" * (hi2 - lo2)


def _ranges(files: tuple[_File, _File], work: list[Box], budget: Budget) -> Iterator[Box]:
    """The ranges left to diff, taken from ``work`` (which the caller extends as it goes), those
    empty on one side marked changed on the other instead."""
    while work:
        part = work.pop()
        lo1, hi1, lo2, hi2 = part
        if lo1 == hi1 or lo2 == hi2:
            _mark_all(files, part)
            continue
        budget.spend(1 + 3 * (hi1 - lo1 + hi2 - lo2))  # a map of one side, a pass over both
        yield part


#: patience: a line of the first file seen again there, or more than once in the second
_NON_UNIQUE = -2


def _patience(files: tuple[_File, _File], box: Box, how: Options, budget: Budget) -> None:
    """Mark the changed lines of ``box`` as git's patience diff does: the longest sequence of
    lines unique in both ranges, in order in both (``--anchored`` lines never left out of it),
    the common runs grown around them, the ranges between diffed the same way; a range without
    such lines falls back to Myers (:func:`_classic`)."""
    x, y = files[0].ha, files[1].ha
    lines = files[0].lines
    work = [box]
    for part in _ranges(files, work, budget):
        lo1, hi1, lo2, hi2 = part
        found: dict[int, list[int]] = {}  # class: [its line in x, its line in y, or -1 / _NON_UNIQUE]
        for i in range(lo1, hi1):
            entry = found.get(x[i])
            if entry is None:
                found[x[i]] = [i, -1]
            else:
                entry[1] = _NON_UNIQUE
        matches = False
        for j in range(lo2, hi2):
            entry = found.get(y[j])
            if entry is not None:
                matches = True
                entry[1] = j if entry[1] == -1 else _NON_UNIQUE
        if not matches:
            _mark_all(files, part)
            continue
        chain = _unique_common(found, lines, how.anchors, budget)
        if not chain:
            _classic(files, part, how.minimal, budget)
            continue
        work.extend(_between(x, y, part, chain, budget))


def _unique_common(
    found: dict[int, list[int]], lines: list[str], anchors: tuple[str, ...], budget: Budget
) -> list[tuple[int, int]]:
    """The longest sequence, in the first file's order, of the unique lines whose lines in the
    second file increase too (patience sorting; an anchored line is never displaced)."""
    tops: list[int] = []  # the line in y of the top of each pile
    piles: list[tuple[int, int]] = []
    below: dict[tuple[int, int], tuple[int, int] | None] = {}
    anchored = -1
    for i, j in found.values():
        if j < 0:
            continue
        at = bisect_left(tops, j) - 1
        below[i, j] = piles[at] if at >= 0 else None
        at += 1
        if at <= anchored:
            continue
        if at == len(piles):
            piles.append((i, j))
            tops.append(j)
        else:
            piles[at], tops[at] = (i, j), j
        if anchors and lines[i].startswith(anchors):
            anchored = at
            del piles[at + 1 :], tops[at + 1 :]
    budget.spend(1 + 3 * len(found))  # a binary search each
    chain = []
    link = piles[-1] if piles else None
    while link is not None:
        chain.append(link)
        link = below[link]
    return chain[::-1]


def _between(x: list[int], y: list[int], box: Box, chain: list[tuple[int, int]], budget: Budget) -> list[Box]:
    """The ranges left between the lines of ``chain`` once the common runs around each have
    grown (git's ``walk_common_sequence``)."""
    lo1, hi1, lo2, hi2 = box
    out = []
    k = 0
    line1, line2 = lo1, lo2
    while True:
        if k < len(chain):
            next1, next2 = chain[k]
            while next1 > line1 and next2 > line2 and x[next1 - 1] == y[next2 - 1]:
                next1 -= 1
                next2 -= 1
        else:
            next1, next2 = hi1, hi2
        while line1 < next1 and line2 < next2 and x[line1] == y[line2]:
            line1 += 1
            line2 += 1
        budget.spend(1)
        if next1 > line1 or next2 > line2:
            out.append((line1, next1, line2, next2))
        if k == len(chain):
            return out
        while k + 1 < len(chain) and chain[k + 1] == (chain[k][0] + 1, chain[k][1] + 1):
            k += 1
        line1, line2 = chain[k][0] + 1, chain[k][1] + 1
        k += 1


#: histogram: a line with more occurrences than this in the first range is never a pivot
_MAX_CHAIN = 64


def _histogram(files: tuple[_File, _File], box: Box, minimal: bool, budget: Budget) -> None:
    """Mark the changed lines of ``box`` as git's histogram diff does: the longest common run
    around the line of the second range that is rarest in the first, the ranges on either side
    diffed the same way; Myers (:func:`_classic`) where every common line is too frequent."""
    x, y = files[0].ha, files[1].ha
    work = [box]
    for part in _ranges(files, work, budget):
        lo1, hi1, lo2, hi2 = part
        first: dict[int, int] = {}  # class: its first line in x
        count: Counter[int] = Counter()
        after = {}  # line of x: the next line of its class
        for i in range(hi1 - 1, lo1 - 1, -1):
            after[i] = first.get(x[i], -1)
            first[x[i]] = i
            count[x[i]] += 1
        best = _MAX_CHAIN + 1
        common = False
        lcs: Box | None = None
        b = lo2
        while b < hi2:
            b_next = b + 1
            a = first.get(y[b], -1)
            if a >= 0:
                common = True
                if count[y[b]] > best:
                    a = -1  # too frequent: every line of its class is skipped
            while a >= 0:
                s1, s2, e1, e2, rc = a, b, a, b, count[y[b]]
                while lo1 < s1 and lo2 < s2 and x[s1 - 1] == y[s2 - 1]:
                    s1, s2 = s1 - 1, s2 - 1
                    rc = min(rc, count[x[s1]]) if rc > 1 else rc
                while e1 < hi1 - 1 and e2 < hi2 - 1 and x[e1 + 1] == y[e2 + 1]:
                    e1, e2 = e1 + 1, e2 + 1
                    rc = min(rc, count[x[e1]]) if rc > 1 else rc
                budget.spend(1 + e1 - s1)
                b_next = max(b_next, e2 + 1)
                if (lcs[1] - lcs[0] if lcs else 0) < e1 - s1 or rc < best:
                    lcs, best = (s1, e1, s2, e2), rc
                a = after[a]
                while 0 <= a <= e1:
                    a = after[a]
            b = b_next
        if common and best > _MAX_CHAIN:
            _classic(files, part, minimal, budget)
        elif lcs is None:
            _mark_all(files, part)
        else:
            s1, e1, s2, e2 = lcs
            work.append((lo1, s1, lo2, s2))
            work.append((e1 + 1, hi1, e2 + 1, hi2))
