"""Gymnasium spaces for text and for BrowserGym's free-form observation parts.

:func:`Unicode` is a :class:`gymnasium.spaces.Text` whose charset covers printable Unicode (every
assigned character except control characters other than tab, newline and carriage return), so
that any page, screen or answer the world model writes is a member. Building that charset takes
about half a second; it is built once per process and each space gets a cheap copy with its own
random generator.
"""

from __future__ import annotations

import copy
import unicodedata
from functools import lru_cache
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = [
    "ACTION_MAX_LENGTH",
    "OBSERVATION_MAX_LENGTH",
    "AnyBox",
    "AnyDict",
    "Float",
    "Unicode",
    "printable_charset",
]

#: how long a sample of an unbounded ``Unicode()`` space may be (characters; any text is a member)
OBSERVATION_MAX_LENGTH = 1 << 20
#: the longest action text of the text environments (they refuse a longer one)
ACTION_MAX_LENGTH = 8192

_LAST_ASSIGNED = 0x323B0  # past CJK extension H (Unicode 15); later planes hold no characters but tags


@lru_cache(maxsize=1)
def printable_charset() -> str:
    """Every assigned code point except surrogates and control characters (tab, newline and
    carriage return are kept), in code point order."""
    category = unicodedata.category
    chars = ["\t", "\n", "\r"]
    for point in (*range(0x20, _LAST_ASSIGNED), *range(0xE0000, 0xE0200)):
        char = chr(point)
        if category(char) not in ("Cc", "Cn", "Cs"):
            chars.append(char)
    return "".join(chars)


@lru_cache(maxsize=1)
def _prototype() -> gym.spaces.Text:
    return gym.spaces.Text(max_length=OBSERVATION_MAX_LENGTH, min_length=0, charset=printable_charset())


class Unicode(gym.spaces.Text):
    """Any text (BrowserGym's ``Unicode()``), or any text up to ``max_length`` characters."""

    def __init__(self, max_length: int | None = None, *, seed: int | None = None) -> None:
        # the prototype's state, charset tables shared (read-only), instead of rebuilding them
        self.__dict__.update(copy.copy(_prototype()).__dict__)
        self.limit = None if max_length is None else int(max_length)
        self.max_length = OBSERVATION_MAX_LENGTH if max_length is None else int(max_length)
        self.min_length = 0
        self._np_random = None  # its own generator, seeded lazily
        if seed is not None:
            self.seed(seed)

    def contains(self, x: Any) -> bool:
        # as BrowserGym's Unicode, the characters are not checked
        return isinstance(x, str) and (self.limit is None or len(x) <= self.limit)

    def __repr__(self) -> str:
        return "Unicode()" if self.limit is None else f"Unicode(max_length={self.limit})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unicode) and other.limit == self.limit


class AnyDict(gym.spaces.Space[dict]):
    """Any ``dict`` (BrowserGym's DOM and accessibility objects)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(None, None, seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict)

    def sample(self, mask: Any = None, probability: Any = None) -> dict:
        return {}

    def __repr__(self) -> str:
        return "AnyDict()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyDict)


class Float(gym.spaces.Space[float]):
    """Any Python or numpy float (chat message timestamps)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__((), np.float64, seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, (float, np.floating))

    def sample(self, mask: Any = None, probability: Any = None) -> float:
        return float(self.np_random.random())

    def __repr__(self) -> str:
        return "Float()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Float)


class AnyBox(gym.spaces.Space[np.ndarray]):
    """Arrays of a fixed dtype and rank whose ``-1`` dimensions may have any size (screenshots)."""

    def __init__(
        self, low: float, high: float, shape: tuple[int, ...], dtype: Any = np.uint8, seed: int | None = None
    ) -> None:
        super().__init__(None, dtype, seed)
        self.low, self.high = low, high
        self.pattern = tuple(int(d) for d in shape)

    def contains(self, x: Any) -> bool:
        if not isinstance(x, np.ndarray) or x.dtype != self.dtype or x.ndim != len(self.pattern):
            return False
        if any(want != -1 and want != got for want, got in zip(self.pattern, x.shape)):
            return False
        return bool(x.size == 0 or (x.min() >= self.low and x.max() <= self.high))

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        shape = tuple(1 if d == -1 else d for d in self.pattern)
        return np.full(shape, self.low, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"AnyBox({self.low}, {self.high}, {self.pattern}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyBox) and (self.pattern, self.dtype) == (other.pattern, other.dtype)
