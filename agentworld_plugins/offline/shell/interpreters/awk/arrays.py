"""awk arrays laid out as mawk 1.3.4 lays them out, so ``for (k in a)`` visits the keys in mawk's
order (the order Ubuntu's and Debian's default awk prints them in).

mawk keeps an array in one of three forms. A fresh array is empty. ``split()`` fills a *split*
array: the values 1..n in a vector. Any other use turns it into a *hash table* of 64 slots
(doubled, list by list and keeping each list's order, when it holds more than 12 keys per slot).
A key can be on two lists: an integer list (slot ``ival & mask``), for subscripts that are whole
numbers, and a string list (slot ``FNV-1a(key) & mask``). Every lookup that finds a key moves it to
the front of the list it was found on; a new key goes in at the front. While a table has only
integer keys it keeps only integer lists; the first string subscript, or the first ``for (k in
a)``, gives every key its string (walking the integer lists slot by slot, each pushed to the front
of its string list), and from then on the string lists alone decide the order: ``for (k in a)``
walks them slot by slot, front to back. With ``WHINY_USERS`` in the environment the keys are
sorted instead, as mawk does. The values live in the ``dict`` itself, keyed by the key's string.
"""

from __future__ import annotations

from typing import Any

from .values import UNINIT, format_printf, to_str

_EMPTY, _SPLIT, _INTS, _STRINGS = range(4)
_START_MASK = 63
_PER_SLOT = 12
#: mawk's integers are 64 bits: whole numbers up to this are integer subscripts
_MAX_INT = (1 << 63) - 1


def fnv1a(text: str) -> int:
    h = 2166136261
    for byte in text.encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def _ival(key: str) -> int | None:
    """The integer a key stands for when it is one as mawk writes integers (``%ld``)."""
    try:
        ival = int(key)
    except ValueError:
        return None
    return ival if str(ival) == key else None


def _to_front(chain: list[str], key: str) -> None:
    if chain[0] != key:
        chain.remove(key)
        chain.insert(0, key)


class MawkArray(dict[str, Any]):
    """An awk array (its values by key string) with mawk's table beside it for the loop order."""

    __slots__ = ("_form", "_ints", "_mask", "_strs")

    def __init__(self) -> None:
        super().__init__()
        self._reset()

    def _reset(self, form: int = _EMPTY) -> None:
        self._form = form
        self._mask = _START_MASK
        self._ints: dict[int, list[str]] = {}  # slot -> keys, front first (integer lists)
        self._strs: dict[int, list[str]] = {}  # slot -> keys, front first (string lists)

    # -- what awk does with an array ---------------------------------------------------------------

    def find(self, sub: int | str, create: bool) -> str | None:
        """The key ``sub`` names, made (uninitialized) when absent and ``create``, else None; the
        table is left as mawk's lookup leaves it."""
        if not self and not create:
            return None
        if isinstance(sub, str):
            return self._find_str(sub, create)
        if self._form == _SPLIT:
            if 1 <= sub <= len(self):
                return str(sub)
            if not create:
                return None
            self._split_to_table()
        elif self._form == _EMPTY:
            self._form = _INTS
        return self._find_int(sub, create)

    def make(self, sub: int | str) -> str:
        """:meth:`find` with ``create``: the key, there now."""
        key = self.find(sub, True)
        assert key is not None
        return key

    def remove(self, sub: int | str) -> None:
        """``delete a[sub]``."""
        if not self:
            return
        if isinstance(sub, int) and self._form == _SPLIT:
            if not 1 <= sub <= len(self):
                return
            self._split_to_table()
        key = self._find_int(sub, False) if isinstance(sub, int) else self._find_str(sub, False)
        if key is None:
            return
        del self[key]
        ival = _ival(key)
        if ival is not None and key in self._ints.get(ival & self._mask, ()):
            self._ints[ival & self._mask].remove(key)
        if key in self._strs.get(fnv1a(key) & self._mask, ()):
            self._strs[fnv1a(key) & self._mask].remove(key)
        if not self:
            self._reset()

    def clear(self) -> None:
        """``delete a``."""
        super().clear()
        self._reset()

    def load(self, values: list[Any]) -> None:
        """``split()``: the values under 1..n, a split array."""
        super().clear()
        self._reset(_SPLIT)
        for k, value in enumerate(values, 1):
            self[str(k)] = value

    def loop_keys(self, sort: bool = False) -> list[str]:
        """The keys ``for (k in a)`` visits, in mawk's order (``sort``: byte order, mawk's order
        with ``WHINY_USERS`` set)."""
        if not self:
            return []
        if self._form != _STRINGS:
            self._add_strings()
        keys = [key for slot in sorted(self._strs) for key in self._strs[slot]]
        if sort:
            keys.sort(key=lambda k: k.encode("utf-8", "surrogateescape"))
        return keys

    # -- mawk's table ------------------------------------------------------------------------------

    def _new_key(self, key: str) -> None:
        """A key made: the table doubles once it holds more than 12 keys a slot, each list split
        in two (the keys that now belong ``mask + 1`` slots on move there, in their order)."""
        self[key] = UNINIT
        if len(self) > (self._mask + 1) * _PER_SLOT:
            old = self._mask
            self._mask = old * 2 + 1
            self._ints = self._split_lists(self._ints, old, int)
            self._strs = self._split_lists(self._strs, old, fnv1a)

    def _split_lists(self, lists: dict[int, list[str]], old: int, slot_of: Any) -> dict[int, list[str]]:
        grown: dict[int, list[str]] = {}
        for slot, chain in lists.items():
            stay = [key for key in chain if slot_of(key) & self._mask == slot]
            moved = [key for key in chain if slot_of(key) & self._mask != slot]
            if stay:
                grown[slot] = stay
            if moved:
                grown[slot + old + 1] = moved
        return grown

    def _find_int(self, ival: int, create: bool) -> str | None:
        key = str(ival)
        chain = self._ints.get(ival & self._mask)
        if chain and key in chain:
            _to_front(chain, key)
            return key
        if self._form == _STRINGS:
            if self._find_str(key, create) is None:
                return None
        elif create:
            self._new_key(key)
        else:
            return None
        self._ints.setdefault(ival & self._mask, []).insert(0, key)
        return key

    def _find_str(self, key: str, create: bool) -> str | None:
        if self._form != _STRINGS:
            self._add_strings()
        if key in self:
            _to_front(self._strs[fnv1a(key) & self._mask], key)
            return key
        if not create:
            return None
        self._new_key(key)
        self._strs.setdefault(fnv1a(key) & self._mask, []).insert(0, key)
        return key

    def _add_strings(self) -> None:
        """Every key gets its string: the integer lists walked slot by slot, each key pushed to the
        front of its string list."""
        if self._form == _SPLIT:
            self._split_to_table()
        for slot in sorted(self._ints):
            for key in self._ints[slot]:
                self._strs.setdefault(fnv1a(key) & self._mask, []).insert(0, key)
        self._form = _STRINGS

    def _split_to_table(self) -> None:
        n = len(self)
        self._mask = _START_MASK
        while n > (self._mask + 1) * _PER_SLOT:
            self._mask = self._mask * 2 + 1
        self._ints = {}
        for ival in range(1, n + 1):
            self._ints.setdefault(ival & self._mask, []).insert(0, str(ival))
        self._form = _INTS


def subscript(value: Any, convfmt: str) -> int | str:
    """What mawk looks a subscript up by: a number that is whole (and within its 64-bit integers)
    by its integer, any other number by ``CONVFMT``, a string by itself."""
    if isinstance(value, float):
        if value != value:
            return format_printf(convfmt, [value])
        # mawk clamps to its largest integer, compared as a double (2^63 becomes 2^63 - 1)
        limit = float(_MAX_INT)
        ival = _MAX_INT if value >= limit else int(value) if -value <= limit else -_MAX_INT
        if float(ival) == value:
            return ival
        return format_printf(convfmt, [value])
    return to_str(value, convfmt)
