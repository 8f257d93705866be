"""Values kept by the identity of the objects they were made from.

A session hands its worlds the same objects on every call: its tool definitions, their schemas.
What is read from them (an index, a validator) can be kept by those objects' identity, found with
a dict lookup instead of a walk or a JSON dump. The objects are held with the value, so their ids
cannot be reused by other objects while the entry lives. Such objects are treated as read only: a
caller that changes one in place must not expect what was read from it to follow.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

__all__ = ["KeptByObject"]

V = TypeVar("V")


class KeptByObject(Generic[V]):
    """At most ``limit`` values, each by the identity of some objects and a plain ``key``;
    cleared whole when full (the objects of a run are few, and come back)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: dict[tuple[Any, ...], tuple[tuple[Any, ...], V]] = {}

    def get(self, *objects: Any, key: Hashable = None) -> V | None:
        found = self._kept.get(_key(key, objects))
        if found is None or any(a is not b for a, b in zip(found[0], objects)):
            return None
        return found[1]

    def put(self, value: V, *objects: Any, key: Hashable = None) -> V:
        if len(self._kept) >= self.limit:
            self._kept.clear()
        self._kept[_key(key, objects)] = (objects, value)  # held: their ids stay theirs
        return value


def _key(key: Hashable, objects: tuple[Any, ...]) -> tuple[Any, ...]:
    return (key, *[id(o) for o in objects])
