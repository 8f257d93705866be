"""The hunks git prints for an edit script (xdiff's ``xdl_get_hunk`` and ``xdl_emit_diff``):
which changes go together, with how much context, which blank-line changes are left out
(``--ignore-blank-lines``) and how far a hunk reaches to show whole functions
(``-W``/``--function-context``)."""

from __future__ import annotations

import re
from typing import Any

from .gnu_diff import Hunk
from .limits import Budget, current
from .patterns import posix_regex
from .regex import compile_regex
from .xdiff import DEFAULT, Options

Group = tuple[int, int, int, int, list[Hunk]]  # a hunk's lines s1..e1, s2..e2, and its changes

#: git's whitespace (its own ``isspace``)
_BLANKS = " \t\n\r"


def is_function_line(line: str) -> bool:
    """git's default "funcname" line: one that starts with a letter, ``_`` or ``$``."""
    return bool(line) and ((line[0].isascii() and line[0].isalpha()) or line[0] in "_$")


def hunk_groups(
    a: list[str],
    b: list[str],
    hunks: list[Hunk],
    context: int,
    how: Options = DEFAULT,
) -> list[Group]:
    """The hunks git prints for the changes ``hunks`` of ``a`` to ``b`` with ``context`` lines
    around: changes whose context would touch are one hunk; with ``--ignore-blank-lines`` a
    change of blank lines only is dropped unless it lies within ``context`` of a change that is
    not (or inside a hunk that shows it anyway); ``how.function_context`` (``-W``) widens each hunk to
    the whole functions it touches (from the function line above to the next one, less the blank
    lines before it), merging the hunks that then meet."""
    budget = current()
    function_context = how.function_context
    ignore = [False] * len(hunks)
    if how.ignore_blank_lines:
        blank = (lambda line: not line.strip(_BLANKS)) if how.whitespace else (lambda line: len(line) <= 1)
        ignore = [all(map(blank, a[i1:i2])) and all(map(blank, b[j1:j2])) for i1, i2, j1, j2 in hunks]
    if how.ignore_regexes:
        patterns = [line_regex(text) for text in how.ignore_regexes]

        def matched(line: str) -> bool:
            budget.spend(1 + len(patterns) * (1 + len(line) // 64))
            return any(pattern.search(line) for pattern in patterns)

        for k, (i1, i2, j1, j2) in enumerate(hunks):
            ignore[k] = ignore[k] or (all(map(matched, a[i1:i2])) and all(map(matched, b[j1:j2])))
    budget.spend(1 + len(hunks))
    groups: list[Group] = []
    begin = 0
    while begin < len(hunks):
        start, last = _together(hunks, ignore, begin, context)
        if start == len(hunks):
            break
        s1, s2 = _top(a, b, hunks, begin, start, context, function_context, budget)
        while s1 < 0:  # the function reached up into a change left out: it is shown after all
            start = -s1 - 1
            s1, s2 = _top(a, b, hunks, begin, start, context, function_context, budget)
        while True:
            end = hunks[last]
            after = min(context, len(a) - end[1], len(b) - end[3])
            e1, e2 = end[1] + after, end[3] + after
            if not function_context:
                break
            fe1 = _function_line(a, end[1], len(a), budget)
            while fe1 > 0 and not a[fe1 - 1].strip(_BLANKS):
                fe1 -= 1
            if fe1 < 0:
                fe1 = len(a)
            if fe1 > e1:
                e1, e2 = fe1, min(e2 + fe1 - e1, len(b))
            if last + 1 == len(hunks):
                break
            nxt = min(hunks[last + 1][0], len(a) - 1)
            if not (nxt - context <= e1 or _function_line(a, nxt, e1, budget) < 0):
                break
            last += 1  # the next change is within this function: one hunk
        groups.append((s1, e1, s2, e2, hunks[start : last + 1]))
        begin = last + 1
    return groups


def line_regex(text: str) -> Any:
    """``-I``'s regex: POSIX extended, ``^``/``$`` at each line's ends (``REG_NEWLINE``, so
    ``^$`` also matches after a line's newline); :class:`re.error` if it is not one."""
    return compile_regex(posix_regex(text, extended=True), re.M)


def _together(hunks: list[Hunk], ignore: list[bool], begin: int, context: int) -> tuple[int, int]:
    """(first, last) of the changes from ``begin`` that make one hunk (``xdl_get_hunk``): the
    blank-line changes leading them too far from the next change left out."""
    most, near = 2 * context, context
    start = begin
    k = begin
    while k < len(hunks) and ignore[k]:
        if k + 1 == len(hunks) or hunks[k + 1][0] - hunks[k][1] >= near:
            start = k + 1
        k += 1
    if start == len(hunks):
        return start, start
    last, ignored = start, 0
    for k in range(start + 1, len(hunks)):
        distance = hunks[k][0] - hunks[k - 1][1]
        if distance > most:
            break
        if distance < near and (not ignore[k] or last == k - 1):
            last, ignored = k, 0
        elif distance < near and ignore[k]:
            ignored += hunks[k][3] - hunks[k][2]
        elif last != k - 1 and hunks[k][0] + ignored - hunks[last][1] > most:
            break
        elif not ignore[k]:
            last, ignored = k, 0
        else:
            ignored += hunks[k][3] - hunks[k][2]
    return start, last


def _top(
    a: list[str],
    b: list[str],
    hunks: list[Hunk],
    begin: int,
    start: int,
    context: int,
    function_context: bool,
    budget: Budget,
) -> tuple[int, int]:
    """Where the hunk that shows change ``start`` first begins in ``a`` and ``b``; with function
    context from its function's line, or ``(-k - 1, 0)`` when that reaches back into change
    ``k`` (from ``begin``), left out, which the hunk must show then."""
    i1, _, i2, _ = hunks[start]
    s1, s2 = max(i1 - context, 0), max(i2 - context, 0)
    if not function_context:
        return s1, s2
    if i1 >= len(a):  # appended: no more context if a whole function was added
        if any(is_function_line(line) for line in b[i2:]):
            return s1, s2
        i1 = len(a) - 1
    fs1 = _function_line(a, i1, -1, budget)
    while fs1 > 0 and a[fs1 - 1].strip(_BLANKS) and not is_function_line(a[fs1 - 1]):
        fs1 -= 1
    fs1 = max(fs1, 0)
    if fs1 < s1:
        s2, s1 = max(s2 - (s1 - fs1), 0), fs1
        k = begin
        while k != start and hunks[k][1] <= s1 and hunks[k][3] <= s2:
            k += 1
        if k != start:
            return -k - 1, 0
    return s1, s2


def _function_line(a: list[str], start: int, limit: int, budget: Budget) -> int:
    """The first function line of ``a`` from ``start`` towards ``limit`` (not included), or -1
    (git's ``get_func_line``)."""
    step = -1 if start > limit else 1
    k = start
    while k != limit and 0 <= k < len(a):
        if is_function_line(a[k]):
            budget.spend(1 + abs(k - start))
            return k
        k += step
    budget.spend(1 + abs(k - start))
    return -1
