"""The edit script GNU diff chooses: lines that match nothing in the other file set aside
(``discard_confusing_lines``), Myers' middle-snake search over the rest (``diag`` /
``compareseq``), then runs of changes slid to where GNU puts them (``shift_boundaries``).

Among the many shortest edit scripts between two files, this picks the one GNU diff prints, so
``diff`` and ``diff -u`` answer line for line as diffutils does. The search is O((N+M)·D) and
each step is counted against the step's work budget; like GNU it gives up on a minimal script
past an expense bound and splits at the best diagonal found.
"""

from __future__ import annotations

from collections.abc import Sequence

from .limits import current

Hunk = tuple[int, int, int, int]  # (a_start, a_end, b_start, b_end), half-open


def _discard(equivs: list[list[int]]) -> list[list[int]]:
    """GNU's discard marks: 1 for a line with no match in the other file, 2 for one with very many
    (provisional), 0 to keep; provisional marks survive only inside runs of discards."""
    counts = [{} for _ in range(2)]  # type: list[dict[int, int]]
    for f in range(2):
        for e in equivs[f]:
            counts[f][e] = counts[f].get(e, 0) + 1
    marks = []
    for f in range(2):
        end = len(equivs[f])
        many = 5
        tem = end // 64
        while True:
            tem >>= 2
            if tem <= 0:
                break
            many *= 2
        other = counts[1 - f]
        row = []
        for e in equivs[f]:
            n = other.get(e, 0)
            row.append(1 if n == 0 else 2 if n > many else 0)
        marks.append(row)
    for f in range(2):
        d = marks[f]
        end = len(d)
        i = 0
        while i < end:
            if d[i] == 2:
                d[i] = 0
            elif d[i] != 0:
                provisional = 0
                j = i
                while j < end and d[j] != 0:
                    if d[j] == 2:
                        provisional += 1
                    j += 1
                while j > i and d[j - 1] == 2:
                    j -= 1
                    d[j] = 0
                    provisional -= 1
                length = j - i
                if provisional * 4 > length:
                    while j > i:
                        j -= 1
                        if d[j] == 2:
                            d[j] = 0
                else:
                    minimum = 1
                    tem = length >> 2
                    while True:
                        tem >>= 2
                        if tem <= 0:
                            break
                        minimum <<= 1
                    minimum += 1
                    j = consec = 0
                    while j < length:
                        if d[i + j] != 2:
                            consec = 0
                        else:
                            consec += 1
                            if minimum == consec:
                                j -= consec
                            elif minimum < consec:
                                d[i + j] = 0
                        j += 1
                    consec = 0
                    for j in range(length):
                        if j >= 8 and d[i + j] == 1:
                            break
                        if d[i + j] == 2:
                            consec = 0
                            d[i + j] = 0
                        elif d[i + j] == 0:
                            consec = 0
                        else:
                            consec += 1
                        if consec == 3:
                            break
                    i += length - 1
                    consec = 0
                    for j in range(length):
                        if j >= 8 and d[i - j] == 1:
                            break
                        if d[i - j] == 2:
                            consec = 0
                            d[i - j] = 0
                        elif d[i - j] == 0:
                            consec = 0
                        else:
                            consec += 1
                        if consec == 3:
                            break
            i += 1
    return marks


def bogosqrt(n: int) -> int:
    """The power of two near the square root of ``n`` that diff programs bound their search by."""
    root = 1
    while n > 0:
        n >>= 2
        root <<= 1
    return root


Split = tuple[int, int, bool, bool]  # (x, y, lower part minimal, upper part minimal)


class Search:
    """Myers' middle-snake search of GNU's ``diag``/``compareseq`` over the class numbers ``xv``
    and ``yv``. Past ``too_expensive`` rounds it settles for the furthest-reaching diagonal;
    :meth:`shortcut` (none here) may end a round earlier when a round followed a snake longer than
    :attr:`snake` (git's xdiff, :mod:`.xdiff`, has one)."""

    #: a round that followed a snake longer than this may take :meth:`shortcut`
    snake = 1 << 62

    def __init__(self, xv: list[int], yv: list[int], least_cost: int = 4096) -> None:
        self.xv, self.yv = xv, yv
        self.too_expensive = max(least_cost, bogosqrt(len(xv) + len(yv) + 3))
        self.fd: dict[int, int] = {}
        self.bd: dict[int, int] = {}
        self.budget = current()

    def shortcut(
        self, c: int, box: tuple[int, int, int, int], span: tuple[int, int, int, int]
    ) -> Split | None:
        """A good-enough split after ``c`` rounds in ``box`` (xoff, xlim, yoff, ylim) with the
        diagonals ``span`` (fmin, fmax, bmin, bmax) reached, or None to go on."""
        return None

    def diag(self, xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool) -> Split:
        xv, yv, fd, bd, snake = self.xv, self.yv, self.fd, self.bd, self.snake
        dmin, dmax = xoff - ylim, xlim - yoff
        fmid, bmid = xoff - yoff, xlim - ylim
        fmin = fmax = fmid
        bmin = bmax = bmid
        odd = (fmid - bmid) & 1
        fd[fmid] = xoff
        bd[bmid] = xlim
        c = 0
        while True:
            c += 1
            got_snake = False
            self.budget.spend(1 + (fmax - fmin + bmax - bmin) // 2)
            if fmin > dmin:
                fmin -= 1
                fd[fmin - 1] = -1
            else:
                fmin += 1
            if fmax < dmax:
                fmax += 1
                fd[fmax + 1] = -1
            else:
                fmax -= 1
            for d in range(fmax, fmin - 1, -2):
                tlo, thi = fd.get(d - 1, -1), fd.get(d + 1, -1)
                x = start = thi if tlo < thi else tlo + 1
                y = x - d
                while x < xlim and y < ylim and xv[x] == yv[y]:
                    x += 1
                    y += 1
                if x - start > snake:
                    got_snake = True
                fd[d] = x
                if odd and bmin <= d <= bmax and bd[d] <= x:
                    return x, y, True, True
            if bmin > dmin:
                bmin -= 1
                bd[bmin - 1] = 1 << 62
            else:
                bmin += 1
            if bmax < dmax:
                bmax += 1
                bd[bmax + 1] = 1 << 62
            else:
                bmax -= 1
            for d in range(bmax, bmin - 1, -2):
                tlo, thi = bd.get(d - 1, 1 << 62), bd.get(d + 1, 1 << 62)
                x = start = tlo if tlo < thi else thi - 1
                y = x - d
                while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                    x -= 1
                    y -= 1
                if start - x > snake:
                    got_snake = True
                bd[d] = x
                if not odd and fmin <= d <= fmax and x <= fd[d]:
                    return x, y, True, True
            if minimal:
                continue
            if got_snake:
                cut = self.shortcut(c, (xoff, xlim, yoff, ylim), (fmin, fmax, bmin, bmax))
                if cut is not None:
                    return cut
            if c < self.too_expensive:
                continue
            fxybest, fxbest = -1, 0
            for d in range(fmax, fmin - 1, -2):
                x = min(fd[d], xlim)
                y = x - d
                if ylim < y:
                    x, y = ylim + d, ylim
                if fxybest < x + y:
                    fxybest, fxbest = x + y, x
            bxybest, bxbest = 1 << 62, 0
            for d in range(bmax, bmin - 1, -2):
                x = max(xoff, bd[d])
                y = x - d
                if y < yoff:
                    x, y = yoff + d, yoff
                if x + y < bxybest:
                    bxybest, bxbest = x + y, x
            if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
                return fxbest, fxybest - fxbest, True, False
            return bxbest, bxybest - bxbest, False, True

    def compare(self, deleted: list[bool], inserted: list[bool], minimal: bool = False) -> None:
        """Mark the lines of x deleted and of y inserted by GNU's compareseq (``minimal``: never
        settle for a good-enough split)."""
        xv, yv = self.xv, self.yv
        stack = [(0, len(xv), 0, len(yv), minimal)]
        while stack:
            xoff, xlim, yoff, ylim, minimal = stack.pop()
            while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
                xoff += 1
                yoff += 1
            while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
                xlim -= 1
                ylim -= 1
            if xoff == xlim:
                for k in range(yoff, ylim):
                    inserted[k] = True
            elif yoff == ylim:
                for k in range(xoff, xlim):
                    deleted[k] = True
            else:
                xmid, ymid, lo_min, hi_min = self.diag(xoff, xlim, yoff, ylim, minimal)
                stack.append((xmid, xlim, ymid, ylim, hi_min))  # done second
                stack.append((xoff, xmid, yoff, ymid, lo_min))


def _shift_boundaries(equivs: list[list[int]], changed: list[list[bool]]) -> None:
    for f in range(2):
        eq = equivs[f]
        ch = [False, *changed[f], False]  # sentinels: ch[k + 1] is line k
        other = [False, *changed[1 - f], False]
        i_end = len(eq)
        i = j = 0

        def c(k: int, ch: list[bool] = ch) -> bool:
            return ch[k + 1]

        def o(k: int, other: list[bool] = other) -> bool:
            return other[k + 1]

        while True:
            while i < i_end and not c(i):
                while o(j):
                    j += 1
                j += 1
                i += 1
            if i == i_end:
                break
            start = i
            i += 1
            while c(i):
                i += 1
            while o(j):
                j += 1
            while True:
                runlength = i - start
                while start and eq[start - 1] == eq[i - 1]:
                    start -= 1
                    ch[start + 1] = True
                    i -= 1
                    ch[i + 1] = False
                    while c(start - 1):
                        start -= 1
                    j -= 1
                    while o(j):
                        j -= 1
                corresponding = i if o(j - 1) else i_end
                while i != i_end and eq[start] == eq[i]:
                    ch[start + 1] = False
                    start += 1
                    ch[i + 1] = True
                    i += 1
                    while c(i):
                        i += 1
                    j += 1
                    while o(j):
                        j += 1
                        corresponding = i
                if runlength == i - start:
                    break
            while corresponding < i:
                start -= 1
                ch[start + 1] = True
                i -= 1
                ch[i + 1] = False
                j -= 1
                while o(j):
                    j -= 1
        changed[f][:] = ch[1:-1]


def gnu_hunks(a: list[str], b: list[str], horizon: int = 0) -> list[Hunk]:
    """The changed blocks GNU diff reports between the lines ``a`` and ``b``. GNU sets the
    identical first and last lines aside first but for ``horizon`` of each (the lines of context
    it shows), as ``find_identical_ends`` does."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    head, tail = max(0, head - horizon), max(0, tail - horizon)
    inner = _hunks(a[head : len(a) - tail], b[head : len(b) - tail])
    return [(i1 + head, i2 + head, j1 + head, j2 + head) for i1, i2, j1, j2 in inner]


def _hunks(a: list[str], b: list[str]) -> list[Hunk]:
    equivs = classes(a, b)
    marks = _discard(equivs)
    changed = [[bool(m) for m in marks[f]] for f in range(2)]
    kept = [[k for k in range(len(equivs[f])) if not marks[f][k]] for f in range(2)]
    search = Search([equivs[0][k] for k in kept[0]], [equivs[1][k] for k in kept[1]])
    deleted = [False] * len(kept[0])
    inserted = [False] * len(kept[1])
    search.compare(deleted, inserted)
    for k, hit in enumerate(deleted):
        if hit:
            changed[0][kept[0][k]] = True
    for k, hit in enumerate(inserted):
        if hit:
            changed[1][kept[1][k]] = True
    _shift_boundaries(equivs, changed)
    return blocks(changed[0], changed[1])


def classes(a: list[str], b: list[str]) -> list[list[int]]:
    """Each line of ``a`` and ``b`` as the number of its class of equal lines (from 1)."""
    seen: dict[str, int] = {}
    current().spend(1 + len(a) + len(b))
    return [[seen.setdefault(line, len(seen) + 1) for line in side] for side in (a, b)]


def blocks(changed_a: Sequence[int], changed_b: Sequence[int]) -> list[Hunk]:
    """The changed blocks of two files whose changed lines are marked (truthy) in ``changed_a`` and
    ``changed_b``, in order (their unchanged lines pair up one to one)."""
    hunks: list[Hunk] = []
    i = j = 0
    n, m = len(changed_a), len(changed_b)
    while i < n or j < m:
        if (i < n and changed_a[i]) or (j < m and changed_b[j]):
            i0, j0 = i, j
            while i < n and changed_a[i]:
                i += 1
            while j < m and changed_b[j]:
                j += 1
            hunks.append((i0, i, j0, j))
        else:
            i += 1
            j += 1
    return hunks


def as_opcodes(hunks: list[Hunk], n: int, m: int) -> list[tuple[str, int, int, int, int]]:
    """Changed blocks of files of ``n`` and ``m`` lines as :class:`difflib.SequenceMatcher` opcodes
    (``equal`` between them)."""
    out: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for i1, i2, j1, j2 in hunks:
        if i1 > i:
            out.append(("equal", i, i1, j, j1))
        tag = "replace" if i2 > i1 and j2 > j1 else "delete" if i2 > i1 else "insert"
        out.append((tag, i1, i2, j1, j2))
        i, j = i2, j2
    if i < n or j < m or not out:
        out.append(("equal", i, n, j, m))
    return out


def opcodes(a: list[str], b: list[str], horizon: int = 0) -> list[tuple[str, int, int, int, int]]:
    """:func:`gnu_hunks` as :class:`difflib.SequenceMatcher` opcodes (``equal`` between them)."""
    return as_opcodes(gnu_hunks(a, b, horizon), len(a), len(b))
