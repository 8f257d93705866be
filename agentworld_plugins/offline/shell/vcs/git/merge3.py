"""Three-way merges as git makes them: of lines (xdiff's ``zealous`` merge: the changes each side
made to the base, taken where they do not touch, identical ones once, a conflict between
``<<<<<<<``/``=======``/``>>>>>>>`` markers where they do, narrowed to the lines that differ) and
of trees (path by path, a content merge where both sides changed a file)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...limits import spend
from ...xdiff import Options, git_hunks, split_lines
from .repo import Entries, Repo

#: (base start, base length, side start, side length): one change of a side against the base
_Change = tuple[int, int, int, int]

#: how merge-ort diffs each side against the base, and one side against the other in a conflict:
#: the histogram algorithm, without the indent heuristic (that is ``git diff``'s, not the merge's)
_MERGE_DIFF = Options(algorithm="histogram", indent_heuristic=False)


def _changes(a: list[str], b: list[str]) -> list[_Change]:
    """The changes from ``a`` to ``b`` (the diff charges the step's budget for its reading)."""
    return [(i1, i2 - i1, j1, j2 - j1) for i1, i2, j1, j2 in git_hunks(a, b, _MERGE_DIFF)]


@dataclass
class _Merge:
    """One stretch of the merge (xdiff's ``xdmerge``): mode 1 ours, 2 theirs, 0 a conflict,
    4 a conflict whose sides turned out the same; ``i1``/``chg1`` in ours, ``i2``/``chg2`` in
    theirs."""

    mode: int
    i0: int
    chg0: int
    i1: int
    chg1: int
    i2: int
    chg2: int


def _append(
    merges: list[_Merge], mode: int, i0: int, chg0: int, i1: int, chg1: int, i2: int, chg2: int
) -> None:
    if merges:
        m = merges[-1]
        if i1 <= m.i1 + m.chg1 or i2 <= m.i2 + m.chg2:
            if mode != m.mode:
                m.mode = 0
            m.chg0 = i0 + chg0 - m.i0
            m.chg1 = i1 + chg1 - m.i1
            m.chg2 = i2 + chg2 - m.i2
            return
    merges.append(_Merge(mode, i0, chg0, i1, chg1, i2, chg2))


def _stretches(base: list[str], ours: list[str], theirs: list[str]) -> list[_Merge]:
    one, two = _changes(base, ours), _changes(base, theirs)
    merges: list[_Merge] = []
    a = b = 0
    while a < len(one) and b < len(two):
        x, y = one[a], two[b]
        if x[0] + x[1] < y[0]:
            _append(merges, 1, x[0], x[1], x[2], x[3], y[2] - y[0] + x[0], x[1])
            a += 1
            continue
        if y[0] + y[1] < x[0]:
            _append(merges, 2, y[0], y[1], x[2] - x[0] + y[0], y[1], y[2], y[3])
            b += 1
            continue
        same = (
            x[0] == y[0]
            and x[1] == y[1]
            and x[3] == y[3]
            and ours[x[2] : x[2] + x[3]] == theirs[y[2] : y[2] + y[3]]
        )
        if not same:
            off = x[0] - y[0]
            ffo = off + x[1] - y[1]
            i0, i1, i2 = x[0], x[2], y[2]
            if off > 0:
                i0 -= off
                i1 -= off
            else:
                i2 += off
            chg0 = x[0] + x[1] - i0
            chg1 = x[2] + x[3] - i1
            chg2 = y[2] + y[3] - i2
            if ffo < 0:
                chg0 -= ffo
                chg1 -= ffo
            else:
                chg2 += ffo
            _append(merges, 0, i0, chg0, i1, chg1, i2, chg2)
        end1, end2 = x[0] + x[1], y[0] + y[1]
        if end1 >= end2:
            b += 1
        if end2 >= end1:
            a += 1
    for x in one[a:]:
        _append(merges, 1, x[0], x[1], x[2], x[3], x[0] + len(theirs) - len(base), x[1])
    for y in two[b:]:
        _append(merges, 2, y[0], y[1], y[0] + len(ours) - len(base), y[1], y[2], y[3])
    return _simplified(_refine(merges, ours, theirs))


def _refine(merges: list[_Merge], ours: list[str], theirs: list[str]) -> list[_Merge]:
    """Conflicts narrowed to the lines in which the two sides differ (xdiff's zealous level)."""
    out: list[_Merge] = []
    for m in merges:
        if m.mode or not m.chg1 or not m.chg2:
            out.append(m)
            continue
        inner = _changes(ours[m.i1 : m.i1 + m.chg1], theirs[m.i2 : m.i2 + m.chg2])
        if not inner:
            m.mode = 4
            out.append(m)
            continue
        for i1, chg1, i2, chg2 in inner:
            out.append(_Merge(0, m.i0, m.chg0, m.i1 + i1, chg1, m.i2 + i2, chg2))
    return out


def _simplified(merges: list[_Merge]) -> list[_Merge]:
    """Two conflicts at most three lines apart made one (xdiff's ``xdl_simplify_non_conflicts``
    at the zealous level): the lines between them go inside it, on both sides."""
    out: list[_Merge] = []
    for m in merges:
        last = out[-1] if out else None
        if last is not None and last.mode == 0 and m.mode == 0 and m.i1 - (last.i1 + last.chg1) <= 3:
            last.chg0 = m.i0 + m.chg0 - last.i0
            last.chg1 = m.i1 + m.chg1 - last.i1
            last.chg2 = m.i2 + m.chg2 - last.i2
            continue
        out.append(m)
    return out


def merge_lines(base: str, ours: str, theirs: str, ours_name: str, theirs_name: str) -> tuple[str, int]:
    """The merged text and its number of conflicts."""
    b, o, t = split_lines(base), split_lines(ours), split_lines(theirs)
    out: list[str] = []
    conflicts = 0
    i = 0
    for m in _stretches(b, o, t):
        if m.mode == 4:
            continue
        out.extend(o[i : m.i1])
        if m.mode == 0:
            conflicts += 1
            out.append(f"<<<<<<< {ours_name}\n")
            out.extend(_ended(o[m.i1 : m.i1 + m.chg1]))
            out.append("=======\n")
            out.extend(_ended(t[m.i2 : m.i2 + m.chg2]))
            out.append(f">>>>>>> {theirs_name}\n")
        elif m.mode == 1:
            out.extend(o[m.i1 : m.i1 + m.chg1])
        else:
            out.extend(t[m.i2 : m.i2 + m.chg2])
        i = m.i1 + m.chg1
    out.extend(o[i:])
    return "".join(out), conflicts


def _ended(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return lines


@dataclass
class TreeMerge:
    """What a three-way merge of trees gives: the entries to stage, the paths left in conflict
    (with their ``git status`` word) and the lines git prints as it goes."""

    entries: Entries
    #: path -> (the text to leave in the work tree, status word: "both modified", "both added", ...)
    conflicts: dict[str, tuple[bytes | None, str]] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def merge_trees(
    repo: Repo, base: Entries, ours: Entries, theirs: Entries, ours_name: str, theirs_name: str
) -> TreeMerge:
    result = TreeMerge({})
    for path in sorted(set(base) | set(ours) | set(theirs)):
        spend(1)
        b, o, t = base.get(path), ours.get(path), theirs.get(path)
        if o == t or b == t:
            if o is not None:
                result.entries[path] = o
            continue
        if b == o:
            if t is not None:
                result.entries[path] = t
            continue
        if o is None or t is None:
            kept = o or t
            assert kept is not None
            gone_in, kept_in = (ours_name, theirs_name) if o is None else (theirs_name, ours_name)
            result.messages.append(
                f"CONFLICT (modify/delete): {path} deleted in {gone_in} and modified in {kept_in}.  "
                f"Version {kept_in} of {path} left in tree.\n"
            )
            result.entries[path] = kept
            result.conflicts[path] = (None, "deleted by us" if o is None else "deleted by them")
            continue
        result.messages.append(f"Auto-merging {path}\n")
        text, count = merge_lines(
            _text(repo, b[1]) if b else "", _text(repo, o[1]), _text(repo, t[1]), ours_name, theirs_name
        )
        mode = o[0] if (b is None or o[0] != b[0]) else t[0]
        data = text.encode("utf-8", "surrogateescape")
        if count:
            kind = "add/add" if b is None else "content"
            result.messages.append(f"CONFLICT ({kind}): Merge conflict in {path}\n")
            result.entries[path] = o
            result.conflicts[path] = (data, "both added" if b is None else "both modified")
            continue
        result.entries[path] = (mode, repo.write_blob(data))
    return result


def _text(repo: Repo, sha: str) -> str:
    return repo.blob(sha).decode("utf-8", "surrogateescape")
