"""The elements of an associative array, listed in bash's order.

bash keeps an associative array in a hash table: 1024 buckets chosen by the FNV-1 hash of the
key, each a chain with the newest key first. ``${!m[@]}``, ``${m[@]}``, ``declare -p`` and
``${m[@]@K}`` walk the buckets in turn, so the keys come out in that order, not in the order they
were set. Before a new key goes into a table that holds twice as many keys as it has buckets, the
table grows fourfold: each key is moved, in the order of the walk, to the head of its new
bucket. Setting a key that is there keeps its place; unsetting and setting it again makes it the
newest. All of this was found by comparing the listings of bash 5.2 with this model, up to 9000
keys.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from .hashtable import fnv1

#: the buckets of a new associative array
FIRST_BUCKETS = 1024
#: a table that holds this many keys per bucket grows before the next new key
KEYS_PER_BUCKET = 2
#: how much it grows
GROWTH = 4

#: a key's hash, once per key (a listing hashes every key; loops list the same keys again)
_hash = functools.lru_cache(maxsize=1 << 16)(fnv1)


class AssocItems(dict[str, str]):
    """The keys and values of one associative array. The dict's own order is the order the keys
    went into bash's table (after its last growth); :meth:`ordered` is the order bash lists."""

    __slots__ = ("buckets",)

    def __init__(self, items: Iterable[tuple[str, str]] = (), buckets: int = FIRST_BUCKETS) -> None:
        super().__init__()
        self.buckets = buckets
        for key, value in items:
            self[key] = value

    def __setitem__(self, key: str, value: str) -> None:
        if key not in self and len(self) >= self.buckets * KEYS_PER_BUCKET:
            self._grow()
        super().__setitem__(key, value)

    def _grow(self) -> None:
        walk = [(key, self[key]) for key in self.ordered()]
        super().clear()
        self.buckets *= GROWTH
        for key, value in walk:  # each moved to the head of its bucket: the last moved is newest
            super().__setitem__(key, value)

    def ordered(self) -> list[str]:
        """The keys as bash lists them: bucket by bucket, the newest key of a bucket first."""
        mask = self.buckets - 1
        return sorted(reversed(self), key=lambda key: _hash(key) & mask)

    def copy(self) -> AssocItems:  # type: ignore[override]
        return _rebuilt(list(self.items()), self.buckets)

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (list(self.items()), self.buckets)


def _rebuilt(items: list[tuple[str, str]], buckets: int) -> AssocItems:
    """A table with ``items`` in this order and ``buckets`` (a copy, an unpickled session): no
    growth on the way, which would reorder them."""
    table = AssocItems(buckets=buckets)
    for key, value in items:
        dict.__setitem__(table, key, value)
    return table


def listing_order(items: dict[Any, str]) -> list[Any]:
    """The keys of an array's elements in the order bash lists them: an associative array's
    (:meth:`AssocItems.ordered`), an indexed one's by index."""
    return items.ordered() if isinstance(items, AssocItems) else sorted(items)
