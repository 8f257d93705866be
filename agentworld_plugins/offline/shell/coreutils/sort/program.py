"""sort as GNU coreutils' sort: keys (``-k F[.C][OPTS][,F[.C][OPTS]]``, any number of them, each
with its own options or the global ones), fields split at blanks or ``-t``, the orders (text,
``-n``, ``-g``, ``-h``, ``-M``, ``-V``, ``-R``, with ``-b -d -f -i -r``), the last-resort
comparison of whole lines, ``-u``, ``-s``, ``-c``/``-C``, ``-m``, ``-o``, ``-z`` and GNU's
messages."""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ....vfs import FsError
from ...applet_io import _write_or_err, from_host, to_host
from ...errors import _Refused
from ...getopt import _getopt, _last, argmatch
from ...limits import spend
from ...quoting import locale_quote, quote_if_needed
from ...registry import applet
from .orders import general_number, human_order, month_of, version_compare

if TYPE_CHECKING:
    from ...proc import _Proc

_BLANKS = " \t\n"
#: the ordering options, in the order GNU lists them in its messages
_ORDER_LETTERS = "bdfghiMnRrV"
_SORT_WORDS = {"general-numeric": "g", "human-numeric": "h", "month": "M", "numeric": "n", "random": "R",
               "version": "V"}  # fmt: skip
_NUMBER = re.compile(r"[ \t\n]*(-?)([0-9]*)(?:\.([0-9]*))?")
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@dataclass
class _Key:
    """One ``-k``: where it starts and ends (0-based fields, characters) and how it compares."""

    sword: int | None = None  # None: the line's start
    schar: int = 0
    eword: int | None = None  # None: the line's end
    echar: int = 0  # 0: the end of the field
    skip_start: bool = False  # b on the start (or global)
    skip_end: bool = False  # b on the end (or global)
    dictionary: bool = False
    fold: bool = False
    nonprinting: bool = False
    order: str = ""  # "", n, g, h, M, V, R
    reverse: bool = False

    def letters(self) -> str:
        on = {"b": self.skip_start or self.skip_end, "d": self.dictionary, "f": self.fold,
              "i": self.nonprinting, "r": self.reverse}  # fmt: skip
        return "".join(c for c in _ORDER_LETTERS if on.get(c) or c in self.order)

    def plain(self) -> bool:
        """No options of its own (GNU then gives it the global ones)."""
        return not self.letters()


def _set(key: _Key, letters: str, end: bool = False) -> _Key:
    for c in letters:
        if c == "b":
            if end:
                key.skip_end = True
            else:
                key.skip_start = True
        elif c == "d":
            key.dictionary, key.nonprinting = True, False  # one table of ignored bytes: d's wins
        elif c == "f":
            key.fold = True
        elif c == "i":
            key.nonprinting = not key.dictionary
        elif c == "r":
            key.reverse = True
        elif c in "ghMnRV":
            key.order = key.order + c if key.order and key.order != c else c
    return key


def _count(text: str, at: int, what: str, spec: str) -> tuple[int, int]:
    m = re.match(r"[0-9]+", text[at:])
    if not m:
        raise _Refused(f"{what}: invalid count at start of {locale_quote(text[at:])}", 2)
    return int(m.group(0)), at + m.end()


def _parse_key(spec: str) -> _Key:
    def bad(why: str) -> _Refused:
        return _Refused(f"{why}: invalid field specification {locale_quote(spec)}", 2)

    key = _Key()
    field, i = _count(spec, 0, "invalid number at field start", spec)
    if field == 0:
        raise bad("field number is zero")
    char = 1
    if i < len(spec) and spec[i] == ".":
        char, i = _count(spec, i + 1, "invalid number after '.'", spec)
        if char == 0:
            raise bad("character offset is zero")
    key.sword, key.schar = (None, 0) if field == 1 and char == 1 else (field - 1, char - 1)
    m = re.match(r"[bdfgiMhnRrV]*", spec[i:])
    assert m is not None
    _set(key, m.group(0))
    i += m.end()
    if i < len(spec) and spec[i] == ",":
        field, i = _count(spec, i + 1, "invalid number after ','", spec)
        if field == 0:
            raise bad("field number is zero")
        key.eword = field - 1
        if i < len(spec) and spec[i] == ".":
            key.echar, i = _count(spec, i + 1, "invalid number after '.'", spec)
        m = re.match(r"[bdfgiMhnRrV]*", spec[i:])
        assert m is not None
        _set(key, m.group(0), end=True)
        i += m.end()
    if i < len(spec):
        raise bad("stray character in field spec")
    return key


class _Sorter:
    """The comparison of two lines: the keys in turn, then the whole lines."""

    def __init__(self, keys: list[_Key], tab: str | None, reverse: bool, unique: bool, stable: bool) -> None:
        self.keys, self.tab = keys, tab
        # with keys, -u and -s compare by them alone; without, the whole line is the key
        self.reverse, self.last_resort = reverse, not (unique or stable) or not keys

    def _begin(self, line: str, key: _Key) -> int:
        ptr, lim = 0, len(line)
        if key.sword is not None:
            for _ in range(key.sword):
                if ptr >= lim:
                    break
                if self.tab is not None:
                    ptr = line.find(self.tab, ptr)
                    ptr = lim if ptr < 0 else ptr + 1
                else:
                    ptr = _past_field(line, ptr)
        return min(lim, (_past_blanks(line, ptr) if key.skip_start else ptr) + key.schar)

    def _limit(self, line: str, key: _Key) -> int:
        lim = len(line)
        if key.eword is None:
            return lim
        eword, ptr = key.eword + (key.echar == 0), 0
        while ptr < lim and eword:
            eword -= 1
            if self.tab is not None:
                found = line.find(self.tab, ptr)
                ptr = lim if found < 0 else found
                if ptr < lim and (eword or key.echar):
                    ptr += 1
            else:
                ptr = _past_field(line, ptr)
        if key.echar:
            ptr = min(lim, (_past_blanks(line, ptr) if key.skip_end else ptr) + key.echar)
        return ptr

    def field(self, line: str, key: _Key) -> str:
        begin, end = self._begin(line, key), self._limit(line, key)
        return line[begin:end] if end > begin else ""

    def sort_key(self, line: str) -> tuple[Any, ...]:
        """What :meth:`compare` compares, as one tuple Python orders the same way (each line's
        fields read once, not at every comparison)."""
        parts: list[Any] = []
        for key in self.keys:
            text = self.field(line, key)
            if key.dictionary or key.nonprinting or key.fold:
                text = _filtered(text, key)
            order = key.order
            value: Any
            if order == "n":
                value = _decimal(text)
            elif order == "h":
                value = (human_order(text), _decimal(text))
            elif order == "g":
                number = general_number(text)
                value = (0, 0.0) if number is None else (1, 0.0) if math.isnan(number) else (2, number)
            elif order == "M":
                value = month_of(text)
            elif order == "V":
                value = _Version(text)
            else:
                value = text
            parts.append(_reversed(value) if key.reverse else value)
        if self.last_resort:
            parts.append(_reversed(line) if self.reverse else line)
        return tuple(parts)

    def compare(self, a: str, b: str) -> int:
        """-1, 0 or 1: the keys in turn, then (unless -s or -u with keys) the whole lines."""
        return _compare(self.sort_key(a), self.sort_key(b))


class _Version:
    """A ``-V`` key: ordered by filevercmp."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __lt__(self, other: _Version) -> bool:
        return version_compare(self.text, other.text) < 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Version) and version_compare(self.text, other.text) == 0


class _Reversed:
    """Any key value, ordered the other way."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and bool(self.value == other.value)


def _reversed(value: Any) -> Any:
    """``value`` ordered the other way: numbers negated, a text as its negated code points (with
    a mark after them, so a longer text sorts first), anything else wrapped."""
    if isinstance(value, (int, Decimal)):
        return -value
    if isinstance(value, tuple):
        return tuple(_reversed(v) for v in value)
    if isinstance(value, float):
        return -value
    if isinstance(value, str):
        return (*(-ord(c) for c in value), 1)
    return _Reversed(value)


def _past_blanks(line: str, ptr: int) -> int:
    while ptr < len(line) and line[ptr] in _BLANKS:
        ptr += 1
    return ptr


def _past_field(line: str, ptr: int) -> int:
    """Past the next field: its blanks, then what is not blank."""
    ptr = _past_blanks(line, ptr)
    while ptr < len(line) and line[ptr] not in _BLANKS:
        ptr += 1
    return ptr


def _compare(x: Any, y: Any) -> int:
    return (x > y) - (x < y)


def _decimal(text: str) -> Decimal:
    """``-n``'s number: blanks, an optional ``-``, digits, a fraction (no ``+``, no exponent)."""
    m = _NUMBER.match(text)
    assert m is not None
    sign, whole, frac = m.groups()
    if not whole and not frac:
        return Decimal(0)
    return Decimal(f"{sign}{whole or '0'}.{frac or '0'}")


def _filtered(text: str, key: _Key) -> str:
    if key.dictionary:
        text = "".join(c for c in text if c in _BLANKS[:2] or (c.isascii() and c.isalnum()))
    if key.nonprinting:
        text = "".join(c for c in text if " " <= c <= "~")
    return text.translate(_UPPER) if key.fold else text


def _shuffled(p: _Proc, lines: list[str], sorter: _Sorter) -> list[str]:
    """``sort -R``: lines ordered by a hash of their keys salted from the world's random source
    (a new order each run, the same runs in the same world; equal keys end up together), ties
    broken by the other keys and the last-resort comparison."""
    salt = p.vm.device_random().getrandbits(128).to_bytes(16, "big")

    def digest(line: str) -> bytes:
        keys = [sorter.field(line, key) for key in sorter.keys if key.order == "R"] or [line]
        data = "\0".join(keys).encode("utf-8", "surrogateescape")
        return hashlib.blake2b(data, digest_size=16, key=salt).digest()

    return sorted(lines, key=lambda line: (digest(line), sorter.sort_key(line)))  # each line hashed once


def _options(args: list[str]) -> list[str]:
    """GNU's optional-argument spellings turned into the plain ones ``_getopt`` reads."""
    out = []
    for a in args:
        if a.startswith("--check=") and a[8:] in ("quiet", "silent"):
            out.append("-C")
        elif a.startswith("--check=") and a[8:] == "diagnose-first":
            out.append("-c")
        elif a.startswith("--sort="):
            out.append("-" + _SORT_WORDS[argmatch(a[7:], list(_SORT_WORDS), "--sort", status=1)])
        else:
            out.append(a)
    return out


_LONGS = {
    "reverse": "r", "numeric-sort": "n", "unique": "u", "ignore-case": "f", "key=": "k",
    "field-separator=": "t", "human-numeric-sort": "h", "output=": "o", "version-sort": "V",
    "stable": "s", "general-numeric-sort": "g", "check": "c", "random-sort": "R", "month-sort": "M",
    "dictionary-order": "d", "ignore-leading-blanks": "b", "ignore-nonprinting": "i", "merge": "m",
    "zero-terminated": "z", "buffer-size=": "S", "temporary-directory=": "T", "parallel=": None,
    "random-source=": None, "debug": None, "batch-size=": None, "compress-program=": None,
}  # fmt: skip


@applet("sort")
def _u_sort(p: _Proc) -> int:
    opts, files = _getopt(_options(p.args), "bcdfghik:Mmno:RrsS:t:T:uVzC", _LONGS, status=2)
    for size in opts.get("S", []):
        if not re.fullmatch(r"[0-9]+[%bKMGTPEZYkmgtpezy]?", size):
            raise _Refused(f"invalid suffix in -S argument '{size}'", 2)
    tab = _last(opts, "t")
    if tab is not None:
        if tab == "":
            raise _Refused("empty tab", 2)
        if tab == "\\0":
            tab = "\0"
        elif len(tab) > 1:
            raise _Refused(f"multi-character tab {locale_quote(tab)}", 2)
    if len(opts.get("o", [])) > 1 and len(set(opts["o"])) > 1:
        raise _Refused("multiple output files specified", 2)
    check = "C" if "C" in opts else "c" if "c" in opts else ""
    if check and len(files) > 1:
        raise _Refused(f"extra operand '{files[1]}' not allowed with -{check}", 2)
    glob = _set(_Key(), "".join(c * (c in opts) for c in _ORDER_LETTERS if c != "b"))
    glob.skip_start = glob.skip_end = "b" in opts
    keys = [_parse_key(spec) for spec in opts.get("k", [])]
    keys = [replace(glob, sword=k.sword, schar=k.schar, eword=k.eword, echar=k.echar) if k.plain() else k
            for k in keys]  # fmt: skip
    if not keys and not glob.plain():
        keys = [glob]
    for key in keys:
        bad = sum(c in key.order for c in "nghM") + (
            "V" in key.order or "R" in key.order or key.dictionary or key.nonprinting
        )
        if bad > 1:
            shown = replace(key, reverse=False, skip_start=False, skip_end=False).letters()
            raise _Refused(f"options '-{shown}' are incompatible", 2)
    end = "\0" if "z" in opts else "\n"
    texts: list[tuple[str, str]] = []
    for name in files or ["-"]:
        try:
            texts.append((name, p.read(name)))
        except FsError as exc:
            p.err(
                f"cannot read: {quote_if_needed(name)}: {exc.strerror}"
                if exc.code != "EISDIR"
                else f"read failed: {quote_if_needed(name)}: Is a directory"
            )
            return 2
    # n log2 n comparisons, each a unit of work, charged before the lines are split and sorted
    count = sum(text.count(end) + (not text.endswith(end)) for _, text in texts if text)
    spend(count * count.bit_length())
    inputs: list[tuple[str, list[str]]] = []
    for name, text in texts:
        records = from_host(text).split(end)  # GNU sort counts bytes: offsets, -d, -i, -f
        if records and records[-1] == "":
            records.pop()
        inputs.append((name, records))
    sorter = _Sorter(keys, tab, glob.reverse, "u" in opts, "s" in opts)
    if check:
        return _check(p, inputs[0], sorter, "u" in opts, quiet=check == "C")
    if "m" in opts:
        ordered = list(heapq.merge(*(records for _, records in inputs), key=sorter.sort_key))
    elif glob.order == "R" or any(k.order == "R" for k in keys):
        ordered = _shuffled(p, [line for _, records in inputs for line in records], sorter)
    else:
        ordered = sorted((line for _, records in inputs for line in records), key=sorter.sort_key)
    if "u" in opts:
        unique: list[str] = []
        for line in ordered:
            if not unique or sorter.compare(unique[-1], line) != 0:
                unique.append(line)
        ordered = unique
    out = to_host("".join(line + end for line in ordered))
    target = _last(opts, "o")
    if target:
        return 0 if _write_or_err(p, target, out, "open failed: {}: {}") else 2
    p.out(out)
    return 0


def _check(p: _Proc, source: tuple[str, list[str]], sorter: _Sorter, unique: bool, quiet: bool) -> int:
    """``-c``/``-C``: 1 at the first line out of order (``-c`` names it), else 0."""
    name, records = source
    for n in range(1, len(records)):
        diff = sorter.compare(records[n - 1], records[n])
        if diff > 0 or (unique and diff == 0):
            if not quiet:
                p.err(f"{name}:{n + 1}: disorder: {to_host(records[n])}")
            return 1
    return 0
