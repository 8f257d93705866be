"""A backtracking regex matcher whose every step is counted against the step's work budget.

RE2 (:mod:`.regex`) matches in linear time but has no back-references (``\\(a\\)\\1``) and no
look-arounds (``grep -P '(?<=x)y'``, ``grep -w``). Those patterns run here: the tree Python's
own parser makes of the pattern (so the syntax, the groups and the errors are :mod:`re`'s), walked
by a backtracking matcher that spends one unit of work per step. A pattern that would backtrack
for minutes ends the step at its budget (``CPU time limit exceeded``), the same way on every
machine, and no other session waits for it: the matcher is Python, so it lets go of the
interpreter between steps as any Python code does.

A single-character atom under a quantifier (``.*``, ``[a-z]+``, ``x{2,5}``) is repeated by a
loop, so the depth of the matcher's recursion grows with the pattern's groups, not the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

from .limits import current

#: the work of one step of the matcher (a call of :meth:`BacktrackPattern._seq`, ~2 us)
STEP_WORK = 2

_SINGLE = {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_POSSESSIVE = getattr(_c, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)

Caps = tuple[Any, ...]
Cont = Callable[[int, Caps], Any]


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    _c.CATEGORY_DIGIT: str.isdigit,
    _c.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    _c.CATEGORY_SPACE: str.isspace,
    _c.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    _c.CATEGORY_WORD: _word,
    _c.CATEGORY_NOT_WORD: lambda c: not _word(c),
}


def _first_literal(seq: Any) -> str | None:
    """The literal character a match of ``seq`` must start with (None: not known)."""
    if not len(seq):
        return None
    op, av = seq[0]
    if op is _c.LITERAL:
        return chr(av)
    if op is _c.SUBPATTERN:
        return _first_literal(av[-1])
    if op is _c.ASSERT or op is _c.ASSERT_NOT or op is _c.AT:  # zero-width: the next item starts it
        return _first_literal(seq[1:])
    if op is _c.MAX_REPEAT or op is _c.MIN_REPEAT:
        return _first_literal(av[2]) if av[0] > 0 else None
    return None


class BacktrackMatch:
    """What :mod:`re`'s match objects offer that the shell's programs use."""

    __slots__ = ("_caps", "pos", "re", "string")

    def __init__(self, rx: BacktrackPattern, string: str, caps: Caps, pos: int = 0) -> None:
        self.re = rx
        self.string = string
        self._caps = caps
        self.pos = pos

    def span(self, group: int = 0) -> tuple[int, int]:
        got = self._caps[group]
        return got if got is not None else (-1, -1)

    def start(self, group: int = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int = 0) -> int:
        return self.span(group)[1]

    def group(self, *groups: int) -> Any:
        if len(groups) > 1:
            return tuple(self.group(g) for g in groups)
        got = self._caps[groups[0] if groups else 0]
        return None if got is None else self.string[got[0] : got[1]]

    def __getitem__(self, group: int) -> Any:
        return self.group(group)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(default if c is None else self.string[c[0] : c[1]] for c in self._caps[1:])

    @property
    def lastindex(self) -> int | None:
        found = [k for k, c in enumerate(self._caps) if k and c is not None]
        return found[-1] if found else None

    def expand(self, template: str) -> str:
        return re.sub(
            r"\\(\d+)|\\g<(\d+)>", lambda t: self.group(int(t.group(1) or t.group(2))) or "", template
        )


class BacktrackPattern:
    """A compiled pattern with :mod:`re`'s methods, matched by the budgeted backtracker."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        re.compile(pattern, flags)  # re's own errors, in re's words
        self.pattern = pattern
        self._tree = _p.parse(pattern, flags)
        self.flags = self._tree.state.flags
        self.groups = self._tree.state.groups - 1
        self._icase = bool(self.flags & re.IGNORECASE)
        self._dotall = bool(self.flags & re.DOTALL)
        self._multiline = bool(self.flags & re.MULTILINE)
        #: the character every match starts with, when there is one (a search skips to it)
        self._first = None if self._icase else _first_literal(self._tree)

    # -- the re interface --------------------------------------------------------------------

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> BacktrackMatch | None:
        return self._at(text, pos, endpos, whole=False)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> BacktrackMatch | None:
        return self._at(text, pos, endpos, whole=True)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> BacktrackMatch | None:
        end = len(text) if endpos is None else min(endpos, len(text))
        start = pos
        while start <= end:
            if self._first is not None:
                start = text.find(self._first, start, end)
                if start < 0:
                    return None
            found = self._at(text, start, end, whole=False)
            if found is not None:
                return found
            start += 1
        return None

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[BacktrackMatch]:
        end = len(text) if endpos is None else min(endpos, len(text))
        i = pos
        last_empty_at = -1
        while i <= end:
            found = self.search(text, i, end)
            if found is None:
                return
            s, e = found.span()
            if s == e == last_empty_at:  # an empty match where the last one ended: move on
                i = s + 1
                continue
            yield found
            if s == e:
                last_empty_at = e
                i = e
            else:
                last_empty_at = e
                i = e
        return

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        out: list[Any] = []
        for m in self.finditer(text, pos, endpos):
            groups = m.groups("")
            out.append(m.group(0) if not groups else groups[0] if len(groups) == 1 else groups)
        return out

    def subn(self, repl: Any, text: str, count: int = 0) -> tuple[str, int]:
        fill = repl if callable(repl) else (lambda m: m.expand(repl))
        out: list[str] = []
        last = 0
        done = 0
        for m in self.finditer(text):
            if count and done >= count:
                break
            out.append(text[last : m.start()])
            out.append(fill(m))
            last = m.end()
            done += 1
        out.append(text[last:])
        return "".join(out), done

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        return self.subn(repl, text, count)[0]

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        out: list[str] = []
        last = 0
        for k, m in enumerate(self.finditer(text)):
            if maxsplit and k >= maxsplit:
                break
            out.append(text[last : m.start()])
            out.extend(m.groups())
            last = m.end()
        out.append(text[last:])
        return out

    # -- matching ----------------------------------------------------------------------------

    def _at(self, text: str, start: int, endpos: int | None, whole: bool) -> BacktrackMatch | None:
        end = len(text) if endpos is None else min(endpos, len(text))
        view = text[:end] if end < len(text) else text
        caps: Caps = (None,) * (self.groups + 1)

        def done(i: int, c: Caps) -> Any:
            if whole and i != len(view):
                return None
            return (i, c)

        found = self._seq(view, self._tree, 0, start, caps, done)
        if found is None:
            return None
        i, c = found
        return BacktrackMatch(self, text, ((start, i), *c[1:]), start)

    def _one(self, op: Any, av: Any, ch: str) -> bool:
        if op is _c.LITERAL:
            return ch == chr(av) or (self._icase and ch.lower() == chr(av).lower())
        if op is _c.NOT_LITERAL:
            return not (ch == chr(av) or (self._icase and ch.lower() == chr(av).lower()))
        if op is _c.ANY:
            return self._dotall or ch != "\n"
        return self._in(av, ch) or (self._icase and (self._in(av, ch.lower()) or self._in(av, ch.upper())))

    def _in(self, items: Any, ch: str) -> bool:
        negate = False
        hit = False
        code = ord(ch)
        for op, av in items:
            if op is _c.NEGATE:
                negate = True
            elif op is _c.LITERAL:
                hit = code == av
            elif op is _c.RANGE:
                hit = av[0] <= code <= av[1]
            elif op is _c.CATEGORY:
                hit = _CATEGORIES.get(av, lambda c: False)(ch)
            elif op is _c.NOT_LITERAL:
                hit = code != av
            if hit:
                break
        return hit != negate

    def _anchor(self, text: str, av: Any, i: int) -> bool:
        n = len(text)
        if av is _c.AT_BEGINNING:
            return i == 0 or (self._multiline and text[i - 1] == "\n")
        if av is _c.AT_BEGINNING_STRING:
            return i == 0
        if av is _c.AT_END:
            if self._multiline:
                return i == n or text[i] == "\n"
            return i == n or (i == n - 1 and text[i] == "\n")
        if av is _c.AT_END_STRING:
            return i == n
        before = i > 0 and _word(text[i - 1])
        after = i < n and _word(text[i])
        if av is _c.AT_BOUNDARY:
            return before != after
        if av is _c.AT_NON_BOUNDARY:
            return before == after
        raise re.error(f"unsupported anchor {av}")

    def _seq(self, text: str, seq: Any, k: int, i: int, caps: Caps, cont: Cont) -> Any:
        current().spend(STEP_WORK)
        if k == len(seq):
            return cont(i, caps)
        op, av = seq[k]

        def nxt(j: int, c: Caps) -> Any:
            return self._seq(text, seq, k + 1, j, c, cont)

        if op in _SINGLE:
            if i < len(text) and self._one(op, av, text[i]):
                return nxt(i + 1, caps)
            return None
        if op is _c.AT:
            return nxt(i, caps) if self._anchor(text, av, i) else None
        if op is _c.BRANCH:
            for alt in av[1]:
                found = self._seq(text, alt, 0, i, caps, nxt)
                if found is not None:
                    return found
            return None
        if op is _c.SUBPATTERN:
            group, sub = av[0], av[-1]

            def close(j: int, c: Caps) -> Any:
                if group:
                    c = (*c[:group], (i, j), *c[group + 1 :])
                return nxt(j, c)

            return self._seq(text, sub, 0, i, caps, close)
        if op in _REPEATS:
            return self._repeat(text, op, av, i, caps, nxt)
        if op is _c.GROUPREF:
            span = caps[av]
            if span is None:
                return None
            ref = text[span[0] : span[1]]
            got = text[i : i + len(ref)]
            if got == ref or (self._icase and got.lower() == ref.lower() and len(got) == len(ref)):
                current().spend(1 + len(ref) // 16)
                return nxt(i + len(ref), caps)
            return None
        if op is _c.GROUPREF_EXISTS:
            group, yes, no = av
            branch = yes if caps[group] is not None else no
            return self._seq(text, branch or [], 0, i, caps, nxt)
        if op is _c.ASSERT or op is _c.ASSERT_NOT:
            direction, sub = av
            start = i
            if direction < 0:
                start = i - sub.getwidth()[0]
            found = None
            if start >= 0:
                found = self._seq(
                    text, sub, 0, start, caps, lambda j, c: (j, c) if direction > 0 or j == i else None
                )
            if op is _c.ASSERT:
                return nxt(i, found[1]) if found is not None else None
            return nxt(i, caps) if found is None else None
        if _ATOMIC is not None and op is _ATOMIC:
            found = self._seq(text, av, 0, i, caps, lambda j, c: (j, c))
            return nxt(found[0], found[1]) if found is not None else None
        raise re.error(f"unsupported regular expression construct {op}")

    def _repeat(self, text: str, op: Any, av: Any, i: int, caps: Caps, nxt: Cont) -> Any:
        lo, hi, sub = av
        unbounded = hi is _c.MAXREPEAT
        if len(sub) == 1 and sub[0][0] in _SINGLE:  # one character at a time: a loop, no recursion
            sop, sav = sub[0]
            limit = len(text) if unbounded else min(len(text), i + hi)
            j = i
            while j < limit and self._one(sop, sav, text[j]):
                j += 1
            current().spend(1 + (j - i) // 4)
            if j - i < lo:
                return None
            if op is _c.MIN_REPEAT:
                ends: Any = range(i + lo, j + 1)
            elif _POSSESSIVE is not None and op is _POSSESSIVE:
                ends = (j,)
            else:
                ends = range(j, i + lo - 1, -1)
            for e in ends:
                current().spend(1)
                found = nxt(e, caps)
                if found is not None:
                    return found
            return None
        lazy = op is _c.MIN_REPEAT

        def again(count: int, j: int, c: Caps) -> Any:
            current().spend(1)
            if lazy and count >= lo:
                found = nxt(j, c)
                if found is not None:
                    return found
            if unbounded or count < hi:

                def after(e: int, c2: Caps) -> Any:
                    if e == j and count >= lo:  # an empty pass: no further ones
                        return None
                    return again(count + 1, e, c2)

                found = self._seq(text, sub, 0, j, c, after)
                if found is not None:
                    return found
            if not lazy and count >= lo:
                return nxt(j, c)
            return None

        return again(0, i, caps)
