"""The edit script GNU diff chooses: lines that match nothing in the other file set aside
(``discard_confusing_lines``), Myers' middle-snake search over the rest (``diag`` /
``compareseq``), then runs of changes slid to where GNU puts them (``shift_boundaries``).

Among the many shortest edit scripts between two files, this picks the one GNU diff prints, so
``diff`` and ``diff -u`` answer line for line as diffutils does. The search is O((N+M)·D) and
each step is counted against the step's work budget; like GNU it gives up on a minimal script
past an expense bound and splits at the best diagonal found.
"""

from __future__ import annotations

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


class _Search:
    def __init__(self, xv: list[int], yv: list[int]) -> None:
        self.xv, self.yv = xv, yv
        diags = len(xv) + len(yv) + 3
        expensive = 1
        while diags:
            diags >>= 2
            expensive <<= 1
        self.too_expensive = max(4096, expensive)
        self.fd: dict[int, int] = {}
        self.bd: dict[int, int] = {}
        self.budget = current()

    def diag(self, xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool) -> tuple[int, int, bool, bool]:
        xv, yv, fd, bd = self.xv, self.yv, self.fd, self.bd
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
                x = thi if tlo < thi else tlo + 1
                y = x - d
                while x < xlim and y < ylim and xv[x] == yv[y]:
                    x += 1
                    y += 1
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
                x = tlo if tlo < thi else thi - 1
                y = x - d
                while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                    x -= 1
                    y -= 1
                bd[d] = x
                if not odd and fmin <= d <= fmax and x <= fd[d]:
                    return x, y, True, True
            if minimal or c < self.too_expensive:
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

    def compare(self, deleted: list[bool], inserted: list[bool]) -> None:
        """Mark the lines of x deleted and of y inserted by GNU's compareseq."""
        xv, yv = self.xv, self.yv
        stack = [(0, len(xv), 0, len(yv), False)]
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
    classes: dict[str, int] = {}
    equivs = [[classes.setdefault(line, len(classes) + 1) for line in side] for side in (a, b)]
    marks = _discard(equivs)
    changed = [[bool(m) for m in marks[f]] for f in range(2)]
    kept = [[k for k in range(len(equivs[f])) if not marks[f][k]] for f in range(2)]
    search = _Search([equivs[0][k] for k in kept[0]], [equivs[1][k] for k in kept[1]])
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
    hunks: list[Hunk] = []
    i = j = 0
    n, m = len(a), len(b)
    while i < n or j < m:
        if (i < n and changed[0][i]) or (j < m and changed[1][j]):
            i0, j0 = i, j
            while i < n and changed[0][i]:
                i += 1
            while j < m and changed[1][j]:
                j += 1
            hunks.append((i0, i, j0, j))
        else:
            i += 1
            j += 1
    return hunks


def opcodes(a: list[str], b: list[str], horizon: int = 0) -> list[tuple[str, int, int, int, int]]:
    """:func:`gnu_hunks` as :class:`difflib.SequenceMatcher` opcodes (``equal`` between them)."""
    out: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for i1, i2, j1, j2 in gnu_hunks(a, b, horizon):
        if i1 > i:
            out.append(("equal", i, i1, j, j1))
        tag = "replace" if i2 > i1 and j2 > j1 else "delete" if i2 > i1 else "insert"
        out.append((tag, i1, i2, j1, j2))
        i, j = i2, j2
    if i < len(a) or j < len(b) or not out:
        out.append(("equal", i, len(a), j, len(b)))
    return out
