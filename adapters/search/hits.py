"""Search-world observations read as hits: the ``[n] URL``, ``Title:``, ``Snippet:``, ``Date:`` blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Hit:
    """One search result as the world printed it."""

    url: str
    title: str = ""
    snippet: str = ""
    date: str | None = None
    position: int = 0

    @property
    def host(self) -> str:
        m = re.match(r"^(?:[a-z][a-z0-9+.-]*://)?([^/?#:]+)", self.url.strip(), flags=re.IGNORECASE)
        host = (m.group(1) if m else self.url).lower()
        return host[4:] if host.startswith("www.") else host


_HIT_START = re.compile(r"^\s*\[(\d+)\]\s*(.*?)\s*$")
_FIELD = re.compile(
    r"^\s*(?:[-*]\s+)?\**\s*(title|snippet|date|url|link|published)\s*\**\s*:\s*\**\s*(.*?)\s*$",
    flags=re.IGNORECASE,
)
_GROUP_HEADER = re.compile(r"^\s*(results for query|no results found)", flags=re.IGNORECASE)


def _clean(text: str) -> str:
    return text.strip().strip("*").strip()


def parse_hits(text: str) -> list[Hit]:
    """The hits of a ``web_search`` observation, numbered from 1 across all query groups.

    Lenient about what a model may write: bold labels, a title after ``[n]``, ``URL:`` lines,
    snippets wrapped over several lines. Blocks without a URL are dropped.
    """
    hits: list[Hit] = []
    current: Hit | None = None
    last: str | None = None
    for line in text.splitlines():
        start = _HIT_START.match(line)
        if start:
            rest = _clean(start.group(2))
            current = Hit(url="")
            hits.append(current)
            if re.match(r"^(https?://|www\.)", rest, flags=re.IGNORECASE):
                current.url = rest.split()[0]
            elif rest:
                current.title = rest
            last = None
            continue
        if _GROUP_HEADER.match(line):
            current, last = None, None
            continue
        if current is None:
            continue
        field = _FIELD.match(line)
        if field:
            key, value = field.group(1).lower(), _clean(field.group(2))
            if key in ("url", "link"):
                current.url = current.url or value
            elif key == "title":
                current.title = value
            elif key == "snippet":
                current.snippet = value
            else:
                current.date = value or None
            last = key
        elif not line.strip():
            last = None
        elif last == "snippet":
            current.snippet = f"{current.snippet} {line.strip()}".strip()
    found = [h for h in hits if h.url]
    for position, hit in enumerate(found, start=1):
        hit.position = position
    return found
