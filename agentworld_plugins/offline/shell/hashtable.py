"""bash's table of the commands it found on ``PATH`` (what ``hash`` lists and ``type`` calls
"hashed").

A command run by name is searched on ``PATH`` once; bash remembers where it found it and how many
times the name was looked up since, and runs that path from then on, even after the file is
gone (``shopt -s checkhash`` searches again then). Any assignment to ``PATH`` empties the table.

The table is listed in bash's own order: its 256 buckets in turn, chosen by the FNV-1 hash of the
name, the newest entry first within a bucket. So ``hash`` lists commands as bash does.
"""

from __future__ import annotations

from dataclasses import dataclass

_BUCKETS = 256
_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619
#: more names than any session runs; past it the table starts over (bash's never fills)
MAX_ENTRIES = 4096


def fnv1(name: str) -> int:
    """bash's ``hash_string``: 32-bit FNV-1 over the bytes of ``name``."""
    h = _FNV_OFFSET
    for byte in name.encode("utf-8", "surrogateescape"):
        h = ((h * _FNV_PRIME) & 0xFFFFFFFF) ^ byte
    return h


def bucket(name: str) -> int:
    """The bucket of the command hash table that ``name`` is in."""
    return fnv1(name) & (_BUCKETS - 1)


@dataclass
class Entry:
    path: str
    hits: int
    #: when the name was put in its bucket (later ones are listed first)
    order: int


class CommandHash:
    """The remembered paths of one shell (a subshell works on a copy)."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._inserted = 0

    def __bool__(self) -> bool:
        return bool(self._entries)

    def copy(self) -> CommandHash:
        new = CommandHash()
        new._entries = {name: Entry(e.path, e.hits, e.order) for name, e in self._entries.items()}
        new._inserted = self._inserted
        return new

    def search(self, name: str) -> str | None:
        """The path remembered for ``name``; each search counts as a hit, as in bash (``type``,
        ``command -v`` and ``hash -t`` search too)."""
        entry = self._entries.get(name)
        if entry is None:
            return None
        entry.hits += 1
        return entry.path

    def insert(self, name: str, path: str, hits: int) -> None:
        """Remember ``path`` for ``name`` (a name already there keeps its place)."""
        entry = self._entries.get(name)
        if entry is not None:
            entry.path, entry.hits = path, hits
            return
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
        self._inserted += 1
        self._entries[name] = Entry(path, hits, self._inserted)

    def remove(self, name: str) -> bool:
        return self._entries.pop(name, None) is not None

    def clear(self) -> None:
        self._entries.clear()

    def listing(self) -> list[tuple[str, Entry]]:
        """The entries in the order bash walks its table."""
        return sorted(self._entries.items(), key=lambda item: (bucket(item[0]), -item[1].order))
