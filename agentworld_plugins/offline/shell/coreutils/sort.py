"""sort (keys, numeric and human-readable orders)."""

from __future__ import annotations

import hashlib
import re
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from ...vfs import FsError
from ..applet_io import _lines, _write_or_err
from ..getopt import _getopt, _last
from ..limits import spend
from ..quoting import quote_if_needed
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


def _sort_key_parts(line: str, opts: dict[str, Any]) -> str:
    keys = opts.get("k", [])
    if not keys:
        return line
    sep = _last(opts, "t")
    fields = line.split(sep) if sep else re.findall(r"\s*\S+", line)
    spec = keys[0]
    m = re.match(r"(\d+)(?:\.\d+)?[a-zA-Z]*(?:,(\d+)(?:\.\d+)?[a-zA-Z]*)?", spec)
    if not m:
        return line
    start = int(m.group(1)) - 1
    end = int(m.group(2)) if m.group(2) else len(fields)
    joiner = sep if sep else ""
    return joiner.join(fields[start:end]).strip() if not sep else joiner.join(fields[start:end])


def _numeric_prefix(text: str) -> float:
    m = re.match(r"\s*([-+]?\d*\.?\d+|[-+]?\d+)", text)
    return float(m.group(1)) if m else 0.0


_HUMAN_UNITS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def _human_value(text: str) -> float:
    m = re.match(r"\s*([-+]?\d*\.?\d+)([KMGTPE]?)", text)
    if not m:
        return 0.0
    return float(m.group(1)) * (1024 ** _HUMAN_UNITS[m.group(2)])


def _shuffled(p: _Proc, lines: list[str], key_of: Any, stable: bool, reverse: bool) -> list[str]:
    """``sort -R``: lines ordered by a hash of their key salted from the world's random source
    (a new order each run, the same runs in the same world; equal keys end up together)."""
    salt = p.vm.device_random().getrandbits(128).to_bytes(16, "big")

    def rank(line: str) -> tuple[bytes, str, str]:
        key = key_of(line)
        digest = hashlib.blake2b(key.encode("utf-8", "surrogateescape"), digest_size=16, key=salt).digest()
        return digest, key, "" if stable else line

    return sorted(lines, key=rank, reverse=reverse)


@applet("sort")
def _u_sort(p: _Proc) -> int:
    opts, files = _getopt(
        p.args,
        "rnufk:t:sho:bdVMgRc",
        {
            "reverse": "r",
            "numeric-sort": "n",
            "unique": "u",
            "ignore-case": "f",
            "key=": "k",
            "field-separator=": "t",
            "human-numeric-sort": "h",
            "output=": "o",
            "version-sort": "V",
            "stable": "s",
            "general-numeric-sort": "g",
            "check": "c",
            "random-sort": "R",
            "random-source=": None,
        },
        status=2,
    )
    text_parts = []
    for name in files or ["-"]:
        try:
            text_parts.append(p.read(name))
        except FsError as exc:
            p.err(
                f"cannot read: {quote_if_needed(name)}: {exc.strerror}"
                if exc.code != "EISDIR"
                else f"read failed: {quote_if_needed(name)}: Is a directory"
            )
            return 2
    # n log2 n comparisons, each a unit of work, charged before the lines are split and sorted
    count = sum(t.count("\n") + (not t.endswith("\n")) for t in text_parts if t)
    spend(count * count.bit_length())
    lines: list[str] = []
    for t in text_parts:
        lines.extend(_lines(t))

    def key_of(line: str) -> str:
        k = _sort_key_parts(line, opts)
        if "b" in opts:
            k = k.lstrip()
        return k.lower() if "f" in opts else k

    def compare(a: str, b: str) -> int:
        ka, kb = key_of(a), key_of(b)
        if "n" in opts or "g" in opts:
            na, nb = _numeric_prefix(ka), _numeric_prefix(kb)
            c = (na > nb) - (na < nb)
        elif "h" in opts:
            na, nb = _human_value(ka), _human_value(kb)
            c = (na > nb) - (na < nb)
        elif "V" in opts:
            va = [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", ka)]
            vb = [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", kb)]
            try:
                c = (va > vb) - (va < vb)
            except TypeError:
                c = (ka > kb) - (ka < kb)
        else:
            c = (ka > kb) - (ka < kb)
        if c == 0 and "s" not in opts and "u" not in opts:
            c = (a > b) - (a < b)
        return -c if "r" in opts else c

    if "R" in opts:
        ordered = _shuffled(p, lines, key_of, "s" in opts, "r" in opts)
    else:
        ordered = sorted(lines, key=cmp_to_key(compare))
    if "u" in opts:
        unique: list[str] = []
        for line in ordered:
            if not unique or compare(unique[-1], line) != 0:
                unique.append(line)
        ordered = unique
    text = "".join(line + "\n" for line in ordered)
    target = _last(opts, "o")
    if target:
        return 0 if _write_or_err(p, target, text, "open failed: {}: {}") else 2
    p.out(text)
    return 0
