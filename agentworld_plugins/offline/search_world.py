"""The offline search world: web_search, web_extractor and dict_memory without a model.

Pages come from a local corpus: the bundled one (``agentworld_plugins/data/corpus``), a folder
of ``.md``/``.txt`` files given as ``context["corpus"]``, or a ``context["world_bible"]`` text
split into sections. web_search ranks them with BM25 (bm25s, or a pure-Python BM25 when bm25s
is missing) and prints hits the way the search world model does; web_extractor returns a page's
text; dict_memory keeps its notebook in the session state.

>>> state: dict = {}
>>> print(search_step(state, "web_search", {"query": "sourdough starter"}, {}).text.splitlines()[1])
[1] https://kitchenledger.com/recipes/country-sourdough-loaf
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..domains.base import OfflineResult
from ..domains.search import memory_entries
from ..files import text_or_file
from .search_index import Index, _PurePythonBm25, terms

__all__ = ["STATE_KEY", "Corpus", "Page", "_PurePythonBm25", "load_corpus", "search_step"]

#: the key of this world's notebook inside a session's ``state``
STATE_KEY = "search_world"

DEFAULT_TOP_K = 5
SNIPPET_WORDS = 40
EXTRACT_LIMIT = 6000
#: hits scoring under this share of the best hit's score are left out
RELATIVE_FLOOR = 0.75
_MEMORY_OPS = ("add", "update", "retrieve", "retrieve_all", "remove", "remove_all")

# -- pages ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One document of the offline web."""

    url: str
    title: str
    body: str
    date: str | None = None
    aliases: tuple[str, ...] = ()

    def plain_text(self) -> str:
        """The body as plain text: headings, paragraphs and list items in reading order."""
        return _plain(self.body)


_HEADER_LINE = re.compile(r"^([A-Za-z][A-Za-z_-]*)\s*:\s*(.*)$")
_HEADER_KEYS = {"url", "title", "date", "source", "published"}


def _split_header(text: str) -> tuple[dict[str, str], str]:
    """The ``key: value`` header (or ``---`` front matter) of a page, and the rest."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            meta = _header_pairs(lines[1:end])
            return meta, "\n".join(lines[end + 1 :]).strip("\n")
    if not lines or not (m := _HEADER_LINE.match(lines[0])) or m.group(1).lower() not in _HEADER_KEYS:
        return {}, text
    end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    head = lines[:end]
    if not all(_HEADER_LINE.match(line) for line in head):
        return {}, text
    return _header_pairs(head), "\n".join(lines[end + 1 :]).strip("\n")


def _header_pairs(lines: Iterable[str]) -> dict[str, str]:
    meta = {}
    for line in lines:
        m = _HEADER_LINE.match(line)
        if m:
            meta[m.group(1).lower()] = m.group(2).strip().strip("\"'")
    return meta


def _first_heading(body: str) -> str | None:
    m = re.search(r"^#{1,6}\s+(.+?)\s*#*\s*$", body, flags=re.MULTILINE)
    return m.group(1).strip() if m else None


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:60].strip("-") or "page"


def _page(text: str, name: str, default_url: str, aliases: tuple[str, ...] = ()) -> Page:
    meta, body = _split_header(text)
    title = meta.get("title") or _first_heading(body) or name
    url = meta.get("url") or meta.get("source") or default_url
    date = meta.get("date") or meta.get("published") or None
    return Page(url=url, title=title, body=body.strip(), date=date, aliases=aliases)


def _inline(line: str) -> str:
    line = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"(\*\*|__)(.+?)\1", r"\2", line)
    line = re.sub(r"(?<!\w)[*_](?!\s)(.+?)(?<!\s)[*_](?!\w)", r"\1", line)
    return line.replace("`", "")


def _plain(markdown: str) -> str:
    """Markdown as plain text: markup gone, hard-wrapped paragraphs and list items joined."""
    out: list[str] = []
    joinable = False  # whether the last line may take a wrapped continuation
    fence = False
    for raw in markdown.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            joinable = False
            continue
        if fence:
            out.append(line)
            continue
        if not line.strip():
            out.append("")
            joinable = False
            continue
        heading = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*$", line)
        if heading:
            out.append(_inline(heading.group(1)))
            joinable = False
            continue
        item = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+", line)
        text = _inline(line.strip())
        if item:
            out.append(re.sub(r"^[*+]\s+", "- ", text))
            joinable = True
        elif joinable and out:
            out[-1] += " " + text
        else:
            out.append(text)
            joinable = True
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _flat_words(page: Page) -> list[str]:
    """The body as one stream of words for snippets; headings end with a full stop."""
    words: list[str] = []
    fence = False
    for raw in page.body.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:  # code reads badly on one line; the index and web_extractor keep it
            continue
        heading = re.match(r"^#{1,6}\s+(.*)$", line)
        item = re.match(r"^(?:[-*+]|\d+[.)])\s+", line)
        text = _plain(heading.group(1) if heading else line)
        text = re.sub(r"^-\s+", "", text)
        if heading and text.strip() == page.title.strip():
            continue
        if (heading or item) and text and text[-1] not in ".:;!?,":
            text += "." if heading else ";"
        words += text.split()
    return words


@dataclass
class Corpus:
    """Pages and their BM25 index (built on the first search: a fetch by URL never needs it)."""

    pages: list[Page]
    source: str = "bundled"
    #: the cache key the corpus was built under
    key: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._built: Index | None = None
        self._building = threading.Lock()
        self._by_url: dict[str, Page] = {}
        for page in self.pages:
            for url in (page.url, *page.aliases):
                self._by_url.setdefault(_url_key(url), page)

    @property
    def _index(self) -> Index | None:
        if self._built is None and self.pages:
            with self._building:  # a cached corpus is shared by the server's threads
                if self._built is None:
                    texts = [f"{p.title}\n{p.title}\n{p.plain_text()}" for p in self.pages]
                    self._built = Index(texts, [p.title for p in self.pages])
        return self._built

    @property
    def engine(self) -> str:
        """``bm25s``, or ``bm25`` where bm25s is missing or fails ("" for no pages)."""
        return self._index.engine if self._index else ""

    def search(self, query: str, top_k: int = DEFAULT_TOP_K) -> list[tuple[Page, float]]:
        """The best ``top_k`` pages for ``query`` with their relevance in ``(0, 1]``, best first.

        Only pages that cover most of the query count (see :mod:`.search_index`): a corpus that
        holds nothing on the subject answers with no pages rather than its nearest one.
        """
        if self._index is None or top_k <= 0:
            return []
        scored = self._index.score(query)
        if not scored:
            return []
        floor = scored[0].score * RELATIVE_FLOOR
        return [(self.pages[s.doc], s.score) for s in scored[:top_k] if s.score >= floor]

    def page(self, url: str) -> Page | None:
        return self._by_url.get(_url_key(url))

    def under(self, url: str) -> list[Page]:
        """The pages whose URL lies under ``url`` (a site root or a folder of it), in corpus order."""
        prefix = _url_key(url)
        if "://" not in prefix:
            return []
        return [
            p for p in self.pages if _url_key(p.url) == prefix or _url_key(p.url).startswith(prefix + "/")
        ]


def _url_key(url: str) -> str:
    url = url.strip().split("#", 1)[0]
    m = re.match(r"^(https?)://([^/?]+)(.*)$", url, flags=re.IGNORECASE)
    if not m:
        return url.rstrip("/")
    host = m.group(2).lower()
    host = host[4:] if host.startswith("www.") else host
    rest = m.group(3).rstrip("/") if m.group(3) not in ("", "/") else ""
    return f"http://{host}{rest}"


# -- corpus loading --------------------------------------------------------------------------------

_CACHE: dict[Any, Corpus] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 16


def _cached(key: Any, build: Any) -> Corpus:
    with _CACHE_LOCK:
        corpus = _CACHE.get(key)
    if corpus is None:
        corpus = build()
        corpus.key = key
        with _CACHE_LOCK:
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = corpus
    return corpus


#: a bundled file holding many pages, each with its own header, separated by ``+++`` lines
PAGES_SUFFIX = ".pages.md"
_PAGE_BREAK = re.compile(r"^\+\+\+\s*$", flags=re.MULTILINE)


def _pages_file(text: str, name: str) -> list[Page]:
    """The pages of a ``.pages.md`` file; each must name its own URL."""
    pages = []
    for n, block in enumerate(_PAGE_BREAK.split(text), start=1):
        if not block.strip():
            continue
        page = _page(block.strip("\n"), f"{name} page {n}", "")
        if not page.url:
            raise ValueError(f"{name}: page {n} has no 'url:' line")
        pages.append(page)
    return pages


def _bundled() -> Corpus:
    def build() -> Corpus:
        folder = files("agentworld_plugins.data").joinpath("corpus")
        pages = []
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(PAGES_SUFFIX) and entry.is_file():
                pages += _pages_file(entry.read_text(encoding="utf-8"), entry.name)
            elif entry.name.endswith((".md", ".txt")) and entry.is_file():
                stem = entry.name.rsplit(".", 1)[0]
                text = entry.read_text(encoding="utf-8")
                pages.append(_page(text, stem.replace("-", " "), f"https://offline.local/{_slug(stem)}"))
        return Corpus(pages, source="bundled")

    return _cached(("bundled",), build)


def _folder(path: Path) -> Corpus:
    found = sorted(
        p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in (".md", ".txt", ".markdown")
    )
    stamp = tuple((str(p.relative_to(path)), p.stat().st_mtime_ns, p.stat().st_size) for p in found)

    def build() -> Corpus:
        pages = []
        for p in found:
            relative = p.relative_to(path).with_suffix("")
            default = f"https://offline.local/{'/'.join(_slug(part) for part in relative.parts)}"
            text = p.read_text(encoding="utf-8", errors="replace")
            pages.append(
                _page(text, p.stem.replace("-", " ").replace("_", " "), default, (p.resolve().as_uri(),))
            )
        return Corpus(pages, source=str(path))

    return _cached(("dir", str(path.resolve()), stamp), build)


def _bible_sections(text: str) -> list[tuple[str, str]]:
    """``(title, body)`` sections of a world bible: by Markdown heading, else by paragraph."""
    text = text.strip()
    if re.search(r"^#{1,6}\s+\S", text, flags=re.MULTILINE):
        sections: list[tuple[str, str]] = []
        title, lines = "", list[str]()
        for line in text.splitlines():
            m = re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)
            if m:
                if title or "\n".join(lines).strip():
                    sections.append((title, "\n".join(lines).strip()))
                title, lines = m.group(1), []
            else:
                lines.append(line)
        sections.append((title, "\n".join(lines).strip()))
        return [(t or _title_from(b), b) for t, b in sections if b or t]
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return [(_title_from(p), p) for p in paragraphs]


def _title_from(text: str) -> str:
    first = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    words = first.split()
    title = " ".join(words[:12]).rstrip(".:;,")
    return title + ("..." if len(words) > 12 else "") if title else "Untitled"


def _bible(text: str) -> Corpus:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()

    def build() -> Corpus:
        pages, used = [], Counter[str]()
        for title, body in _bible_sections(text):
            slug = _slug(title)
            used[slug] += 1
            if used[slug] > 1:
                slug = f"{slug}-{used[slug]}"
            pages.append(Page(url=f"https://offline.local/{slug}", title=title, body=body or title))
        return Corpus(pages, source="world_bible")

    return _cached(("bible", digest), build)


def _listed(entries: list[Any]) -> Corpus:
    key = hashlib.sha256(json.dumps(entries, sort_keys=True, default=str).encode()).hexdigest()

    def build() -> Corpus:
        pages = []
        for i, entry in enumerate(entries):
            if isinstance(entry, Page):
                pages.append(entry)
            elif isinstance(entry, dict):
                body = str(entry.get("text") or entry.get("content") or entry.get("body") or "")
                title = str(entry.get("title") or _first_heading(body) or _title_from(body))
                url = str(entry.get("url") or f"https://offline.local/{_slug(title)}-{i + 1}")
                date = entry.get("date")
                pages.append(Page(url=url, title=title, body=body, date=str(date) if date else None))
            elif isinstance(entry, str):
                pages.append(_page(entry, _title_from(entry), f"https://offline.local/doc-{i + 1}"))
        return Corpus(pages, source="list")

    return _cached(("list", key), build)


def _read_bible(value: Any) -> str:
    return text_or_file(value if isinstance(value, Path) else str(value), "world bible")


def load_corpus(context: dict[str, Any]) -> tuple[Corpus, list[str]]:
    """The session's corpus (built once, then cached) and any warnings about the context."""
    warnings: list[str] = []
    parts: list[Corpus] = []
    given = context.get("corpus")
    if isinstance(given, (str, Path)) and str(given).strip():
        path = Path(given).expanduser()
        if path.is_dir():
            parts.append(_folder(path))
        elif path.is_file():
            parts.append(_bible(path.read_text(encoding="utf-8", errors="replace")))
        else:
            warnings.append(f"corpus folder not found: {given}; using the bundled corpus")
    elif isinstance(given, (list, tuple)) and given:
        parts.append(_listed(list(given)))
    bible = context.get("world_bible")
    if bible:
        try:
            parts.append(_bible(_read_bible(bible)))
        except OSError as exc:
            warnings.append(f"world bible unreadable: {exc}")
    if not parts:
        return _bundled(), warnings
    if len(parts) == 1:
        return parts[0], warnings
    pages = [p for part in parts for p in part.pages]
    key = ("union", *(part.key for part in parts))
    return _cached(key, lambda: Corpus(pages, source="+".join(p.source for p in parts))), warnings


# -- snippets and rendering ----------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _analysed(page: Page) -> tuple[list[str], list[frozenset[str]]]:
    stream = _flat_words(page)
    return stream, [frozenset(terms(w)) for w in stream]


def snippet(page: Page, query: str, words: int = SNIPPET_WORDS) -> str:
    """The ~``words``-word passage of ``page`` that best matches ``query``, on one line."""
    stream, stems = _analysed(page)
    if not stream:
        return page.title
    wanted = set(terms(query))
    hits = [s & wanted for s in stems]
    best, best_score = 0, -1.0
    for start in range(max(1, len(stream) - words + 1)):
        window = hits[start : start + words]
        distinct = set().union(*window) if window else set()
        score = len(distinct) + 0.1 * sum(1 for h in window if h)
        if score > best_score:
            best, best_score = start, score
    if best_score <= 0:
        best = 0
    # start at a sentence boundary when one is close before the best window
    for back in range(0, min(best, 12) + 1):
        i = best - back
        if i == 0 or stream[i - 1].endswith((".", "!", "?", ":")):
            best = i
            break
    end = min(len(stream), best + words)
    text = " ".join(stream[best:end])
    if best > 0:
        text = "..." + text
    if end < len(stream):
        text = text.rstrip(",;:") + "..."
    return text


def render_hits(query: str, hits: list[tuple[Page, float]]) -> str:
    if not hits:
        return f'No results found for query: "{query}"'
    blocks = []
    for n, (page, _score) in enumerate(hits, start=1):
        lines = [f"[{n}] {page.url}", f"Title: {page.title}", f"Snippet: {snippet(page, query)}"]
        if page.date:
            lines.append(f"Date: {page.date}")
        blocks.append("\n".join(lines))
    return f'Results for query: "{query}"\n' + "\n\n".join(blocks)


def extract(page: Page, limit: int = EXTRACT_LIMIT) -> str:
    """The page as web_extractor returns it: title first, then the text, cut at ``limit``."""
    body = page.plain_text()
    lines = body.splitlines()
    if lines and lines[0].strip() == page.title.strip():
        body = "\n".join(lines[1:]).strip()
    text = f"{page.title}\n\n{body}".strip()
    if len(text) > limit:
        cut = text.rfind("\n\n", 0, limit)
        cut = cut if cut > limit // 2 else text.rfind(" ", 0, limit)
        text = text[: cut if cut > 0 else limit].rstrip() + "\n\n[Content truncated]"
    return text


# -- the step -------------------------------------------------------------------------------------


def _top_k(args: dict[str, Any]) -> int:
    for key in ("top_k", "num", "num_results", "max_results", "k"):
        value = args.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().isdigit()):
            return max(1, min(int(value), 50))
    return DEFAULT_TOP_K


def _web_search(args: dict[str, Any], context: dict[str, Any]) -> OfflineResult:
    raw = args.get("queries", args.get("query"))
    queries = [raw] if isinstance(raw, str) else raw
    if (
        not isinstance(queries, list)
        or not queries
        or not all(isinstance(q, str) and q.strip() for q in queries)
    ):
        return OfflineResult("Error: web_search requires 'query' or 'queries'.", is_error=True)
    corpus, warnings = load_corpus(context)
    k = _top_k(args)
    found = [(q.strip(), corpus.search(q.strip(), k)) for q in queries]
    groups = [render_hits(q, hits) for q, hits in found]
    metadata: dict[str, Any] = {
        "offline_corpus": corpus.source,
        "offline_engine": corpus.engine,
        # each hit's relevance in (0, 1], per query, for the APIs that report scores (Tavily)
        "offline_scores": [[[page.url, score] for page, score in hits] for _, hits in found],
    }
    if warnings:
        metadata["offline_warnings"] = warnings
    return OfflineResult("\n\n".join(groups), is_error=False, metadata=metadata)


def _web_extractor(args: dict[str, Any], context: dict[str, Any]) -> OfflineResult:
    url = args.get("url")
    if not isinstance(url, str) or not url.strip():
        return OfflineResult("Error: web_extractor requires 'url'.", is_error=True)
    corpus, _ = load_corpus(context)
    page = corpus.page(url)
    metadata: dict[str, Any] = {"offline_corpus": corpus.source}
    if page is None:
        inside = corpus.under(url)
        if not inside:
            return OfflineResult(
                f"Error: Failed to fetch {url.strip()} (HTTP 404 Not Found)",
                is_error=True,
                metadata={"offline_unknown_effect": True},
            )
        # a site root or folder the corpus has pages under: its index, linking to them
        metadata["offline_links"] = [p.url for p in inside]
        return OfflineResult(_index_page(url.strip(), inside), is_error=False, metadata=metadata)
    # the page links to the other pages of its site, which is what a crawl follows
    site = re.match(r"^[a-z]+://[^/?#]+", page.url, flags=re.IGNORECASE)
    metadata["offline_links"] = [p.url for p in corpus.under(site.group(0)) if p is not page] if site else []
    return OfflineResult(extract(page), is_error=False, metadata=metadata)


def _index_page(url: str, pages: list[Page]) -> str:
    host = re.sub(r"^[a-z]+://(www\.)?", "", url, flags=re.IGNORECASE).rstrip("/")
    lines = [host, "", f"{len(pages)} page{'s' if len(pages) != 1 else ''} on this site:", ""]
    lines += [f"- {p.title}: {p.url}" for p in pages]
    return "\n".join(lines)


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _memory_entries(op: str, entries: dict[str, Any], memory: dict[str, Any]) -> OfflineResult:
    """An add or update of several keys at once (the official ``dict`` form): all or nothing."""
    names = ", ".join(f"'{key}'" for key in entries)
    if op == "add":
        taken = [key for key in entries if key in memory]
        if taken:
            return OfflineResult(f"Error: key '{taken[0]}' already exists; use update.", is_error=True)
    else:
        missing = [key for key in entries if key not in memory]
        if missing:
            return OfflineResult(f"Error: key '{missing[0]}' not found.", is_error=True)
    memory.update(entries)
    word = "Added" if op == "add" else "Updated"
    return OfflineResult(f"{word} key{'s' if len(entries) > 1 else ''} {names}.", is_error=False)


def _dict_memory(args: dict[str, Any], world: dict[str, Any]) -> OfflineResult:
    memory: dict[str, Any] = world.setdefault("memory", {})
    op = args.get("operation", args.get("action"))
    if op not in _MEMORY_OPS:
        return OfflineResult(f"Error: unknown operation '{op}'.", is_error=True)
    if op == "retrieve_all":
        return OfflineResult(json.dumps(memory, ensure_ascii=False, indent=2), is_error=False)
    if op == "remove_all":
        count = len(memory)
        memory.clear()
        return OfflineResult(f"Removed all {count} entries.", is_error=False)
    entries = memory_entries(args) if op in ("add", "update") else None
    if entries is not None:
        return _memory_entries(op, entries, memory)
    key = args.get("key")
    if not isinstance(key, str):
        return OfflineResult(f"Error: dict_memory {op} requires 'key'.", is_error=True)
    if op in ("add", "update") and "value" not in args:
        return OfflineResult(f"Error: dict_memory {op} requires 'value'.", is_error=True)
    if op == "add":
        if key in memory:
            return OfflineResult(f"Error: key '{key}' already exists; use update.", is_error=True)
        memory[key] = args["value"]
        return OfflineResult(f"Added key '{key}'.", is_error=False)
    if key not in memory:
        return OfflineResult(f"Error: key '{key}' not found.", is_error=True)
    if op == "update":
        memory[key] = args["value"]
        return OfflineResult(f"Updated key '{key}'.", is_error=False)
    if op == "retrieve":
        return OfflineResult(_show(memory[key]), is_error=False)
    del memory[key]
    return OfflineResult(f"Removed key '{key}'.", is_error=False)


def search_step(
    state: dict[str, Any], name: str, arguments: dict[str, Any] | None, context: dict[str, Any]
) -> OfflineResult:
    """Answer one search-tool call; never raises."""
    args = arguments if isinstance(arguments, dict) else {}
    context = context or {}
    try:
        world = state.setdefault(STATE_KEY, {})
        if "memory" not in world and isinstance(context.get("memory"), dict):
            world["memory"] = json.loads(json.dumps(context["memory"]))
        if name == "web_search":
            return _web_search(args, context)
        if name == "web_extractor":
            return _web_extractor(args, context)
        if name == "dict_memory":
            return _dict_memory(args, world)
        return OfflineResult(f"Error: unknown tool '{name}'.", is_error=True)
    except Exception as exc:  # the world must answer something
        return OfflineResult(
            f"Error: {name} failed ({type(exc).__name__}: {exc})",
            is_error=True,
            metadata={"offline_internal_error": True},
        )
