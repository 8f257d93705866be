"""Rename detection as git's diffcore-rename does it (on by default: ``diff.renames``): a path
gone and one added become a rename when their blobs are the same (exact, 100%), else when
git's similarity estimate reaches the threshold (50%, ``-M<n>``): both files cut into chunks
at newlines or every 64 bytes, each chunk hashed as diffcore-delta hashes it, the bytes of
chunks both share over the larger file's size. The best-scoring pairs are taken first (a
shared file name wins a tie), each source once. Every chunk hashed counts as work."""

from __future__ import annotations

from collections import Counter

from ...limits import current
from .repo import Entries, Repo

#: git's scores are out of this; the default threshold is half of it
MAX_SCORE = 60000
DEFAULT_SCORE = 30000
_HASHBASE = 107927
_MASK = 0xFFFFFFFF
#: the best candidates git keeps per destination
_PER_DST = 4


def _spans(data: bytes) -> Counter[int]:
    """diffcore-delta's chunk hashes of ``data``: hash value -> bytes in such chunks."""
    text = b"\x00" not in data[:8000]
    out: Counter[int] = Counter()
    a1 = a2 = 0
    n = 0
    size = len(data)
    k = 0
    while k < size:
        c = data[k]
        k += 1
        if text and c == 13 and k < size and data[k] == 10:
            continue  # a CR before LF does not count in a text file
        old = a1
        a1 = ((a1 << 7) ^ (a2 >> 25)) & _MASK
        a2 = ((a2 << 7) ^ (old >> 25)) & _MASK
        a1 = (a1 + c) & _MASK
        n += 1
        if n < 64 and c != 10:
            continue
        out[((a1 + a2 * 0x61) & _MASK) % _HASHBASE] += n
        n = 0
        a1 = a2 = 0
    if n:
        out[((a1 + a2 * 0x61) & _MASK) % _HASHBASE] += n
    current().spend(1 + size // 64)
    return out


def similarity(old: bytes, new: bytes, minimum: int) -> int:
    """git's score (out of :data:`MAX_SCORE`) for ``new`` being ``old`` renamed; 0 below
    ``minimum`` or where the sizes alone rule it out."""
    big, small = max(len(old), len(new)), min(len(old), len(new))
    if not big or big * (MAX_SCORE - minimum) < (big - small) * MAX_SCORE:
        return 0
    a, b = _spans(old), _spans(new)
    copied = sum(min(count, b.get(h, 0)) for h, count in a.items())
    return copied * MAX_SCORE // big


def _base(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def find_renames(
    repo: Repo, old: Entries, new: Entries, minimum: int | None = DEFAULT_SCORE
) -> dict[str, tuple[str, int]]:
    """``{new path: (old path, score)}`` for the paths gone from ``old`` that reappear in ``new``
    (``minimum`` None: detection off)."""
    if minimum is None:
        return {}
    gone = sorted(q for q in old if q not in new)
    added = sorted(q for q in new if q not in old)
    if not gone or not added:
        return {}
    found: dict[str, tuple[str, int]] = {}
    used: set[str] = set()
    by_blob: dict[str, list[str]] = {}
    for q in gone:
        by_blob.setdefault(old[q][1], []).append(q)
    for q in added:  # exact renames first: the same blob (one with the same name preferred)
        sources = [s for s in by_blob.get(new[q][1], []) if s not in used]
        if sources:
            src = next((s for s in sources if _base(s) == _base(q)), sources[0])
            found[q] = (src, MAX_SCORE)
            used.add(src)
    sources = [s for s in gone if s not in used and old[s][0].startswith("100")]
    targets = [q for q in added if q not in found and new[q][0].startswith("100")]
    if not sources or not targets:
        return found
    blobs = {s: repo.blob(old[s][1]) for s in sources}
    candidates: list[tuple[int, int, int, int, str, str]] = []
    for t_index, q in enumerate(targets):
        data = repo.blob(new[q][1])
        scored = []
        for s_index, s in enumerate(sources):
            score = similarity(blobs[s], data, minimum)
            if score >= minimum:
                scored.append((score, int(_base(s) == _base(q)), s_index, s))
        scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
        candidates += [
            (-score, -same, t_index, s_index, q, s) for score, same, s_index, s in scored[:_PER_DST]
        ]
    for negative, _, _, _, q, s in sorted(candidates):
        if q not in found and s not in used:
            found[q] = (s, -negative)
            used.add(s)
    return found


def similarity_index(score: int) -> int:
    return score * 100 // MAX_SCORE


def rename_name(a: str, b: str) -> str:
    """``a => b`` as git's stats print it, the common leading and trailing folders outside
    braces: ``src/{old => new}/x.py``."""
    prefix = 0
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        if a[k] == "/":
            prefix = k + 1
        k += 1
    suffix = 0
    i, j = len(a) - 1, len(b) - 1
    adjust = 1 if prefix else 0
    while i >= prefix - adjust and j >= prefix - adjust and i >= 0 and j >= 0 and a[i] == b[j]:
        if a[i] == "/":
            suffix = len(a) - i
        i -= 1
        j -= 1
    a_mid = max(0, len(a) - prefix - suffix)
    b_mid = max(0, len(b) - prefix - suffix)
    middle = f"{a[prefix : prefix + a_mid]} => {b[prefix : prefix + b_mid]}"
    if prefix + suffix:
        return f"{a[:prefix]}{{{middle}}}{a[len(a) - suffix :]}"
    return middle
