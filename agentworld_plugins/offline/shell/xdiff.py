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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .gnu_diff import Hunk, Search, Split, as_opcodes, blocks, bogosqrt, classes
from .limits import Budget, current
from .unified import Opcode

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
    """The changed blocks git's default (Myers) diff reports between the records ``a`` and ``b``
    (from :func:`split_lines`), chosen ``how`` the options say."""
    budget = current()
    key = _KEYS.get(how.whitespace)
    if key is None:
        ha = classes(a, b)
    else:
        budget.spend(1 + (len(a) + len(b)) // 4 + sum(map(len, a)) // 64 + sum(map(len, b)) // 64)
        ha = classes([key(line) for line in a], [key(line) for line in b])
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and ha[0][head] == ha[1][head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and ha[0][n - 1 - tail] == ha[1][m - 1 - tail]:
        tail += 1
    budget.spend(1 + head + tail)
    files = [_File(a, ha[0]), _File(b, ha[1])]
    ends = (n - tail, m - tail)
    kept = _set_aside(files, ha, head, ends, budget)
    search = _XSearch([ha[0][k] for k in kept[0]], [ha[1][k] for k in kept[1]])
    deleted, inserted = [False] * len(kept[0]), [False] * len(kept[1])
    search.compare(deleted, inserted, how.minimal)
    for f, hits in enumerate((deleted, inserted)):
        for k, hit in enumerate(hits):
            if hit:
                files[f].rchg[kept[f][k] + 1] = 1
    _compact(files[0], files[1], how.indent_heuristic, budget)
    _compact(files[1], files[0], how.indent_heuristic, budget)
    return blocks(files[0].rchg[1:-1], files[1].rchg[1:-1])


def git_opcodes(a: list[str], b: list[str], how: Options = DEFAULT) -> list[Opcode]:
    """:func:`git_hunks` as :class:`difflib.SequenceMatcher` opcodes (``equal`` between them)."""
    return as_opcodes(git_hunks(a, b, how), len(a), len(b))


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
    files: list[_File], ha: list[list[int]], head: int, ends: tuple[int, int], budget: Budget
) -> list[list[int]]:
    """Mark changed the lines between the identical ends that git leaves out of the search (no
    match in the other file, or many matches amid such lines); returns the lines kept."""
    counts = [Counter(ha[0]), Counter(ha[1])]
    kept: list[list[int]] = []
    for f in range(2):
        limit = min(bogosqrt(files[f].n), _MAX_EQLIMIT)
        other = counts[1 - f]
        dis = {}
        for k in range(head, ends[f]):
            found = other[ha[f][k]]
            dis[k] = 0 if found == 0 else 2 if found >= limit else 1
        budget.spend(1 + ends[f] - head)
        keep = []
        for k in range(head, ends[f]):
            if dis[k] == 1 or (dis[k] == 2 and not _lone_many(dis, k, head, ends[f] - 1, budget)):
                keep.append(k)
            else:
                files[f].rchg[k + 1] = 1
        kept.append(keep)
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
