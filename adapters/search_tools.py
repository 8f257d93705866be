"""Search tools with the names, arguments and result shapes that agents already use, simulated.

Each tool here is a LangChain ``BaseTool`` named like the tool it stands in for. It sends a
``web_search`` / ``web_extractor`` call to the search world (the offline BM25 world, a cassette,
or the world model) and converts the observation (``[n] URL``, ``Title:``, ``Snippet:``,
``Date:`` lines) to the shape the real tool returns:

================================  ===================================================  ====================
tool name                         stands in for                                        returns
================================  ===================================================  ====================
``tavily_search``                 ``langchain_tavily.TavilySearch``                    Tavily response dict
``duckduckgo_search``             ``langchain_community...DuckDuckGoSearchRun``        snippets, one string
``duckduckgo_results_json``       ``langchain_community...DuckDuckGoSearchResults``    string/json/list + artifact
``brave_search``                  ``langchain_community...BraveSearch``                JSON list string
``google_serper``                 ``langchain_community...GoogleSerperRun``            answer string
``google_serper_results_json``    ``langchain_community...GoogleSerperResults``        ``str()`` of the Serper dict
``web_search``, ``web_extractor``,  the world model's own tools                        the observation text
``dict_memory``
================================  ===================================================  ====================

Swap the import and keep the rest of the agent::

    # from langchain_tavily import TavilySearch
    from agentworld_plugins.adapters.search_tools import TavilySearch
    tool = TavilySearch(max_results=3)

Tools made together by :func:`search_tools` share one search session, so a URL found by one is
extracted consistently by another. ``world_bible`` (text or a file) makes the web fictional:
results agree with its facts.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from agentworld_plugins.domains.search import SEARCH_TOOLS
from agentworld_plugins.errors import ActionValidationError
from agentworld_plugins.session import Observation

from ._world import SessionGroup

__all__ = [
    "SEARCH_TOOL_NAMES",
    "BraveSearch",
    "DictMemory",
    "DuckDuckGoSearchResults",
    "DuckDuckGoSearchRun",
    "GoogleSerperResults",
    "GoogleSerperRun",
    "Hit",
    "SearchAPIError",
    "TavilySearch",
    "WebExtractor",
    "WebSearch",
    "arun_flow",
    "parse_hits",
    "run_flow",
    "search_tool_class",
    "search_tools",
    "serper_search_flow",
    "tavily_extract_flow",
    "tavily_search_flow",
    "validate_serper",
    "validate_tavily_extract",
    "validate_tavily_search",
]

SEARCH_DOMAIN = "search"
#: what the search world returns per query when not told otherwise
WORLD_TOP_K = 5

#: a flow yields search-domain actions, receives their observations, and returns the result
Flow = Generator[dict[str, Any], Observation, Any]

# -- observations to hits ----------------------------------------------------------------------


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


# -- flows and their drivers -------------------------------------------------------------------


class SearchAPIError(Exception):
    """A request the impersonated search API refuses: ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _search_action(query: str, k: int = WORLD_TOP_K) -> dict[str, Any]:
    arguments: dict[str, Any] = {"query": query}
    if k != WORLD_TOP_K:
        arguments["top_k"] = k
    return {"name": "web_search", "arguments": arguments}


def _extract_action(url: str) -> dict[str, Any]:
    return {"name": "web_extractor", "arguments": {"url": url}}


def _refused(exc: ActionValidationError) -> Observation:
    text = "; ".join(str(err["msg"]).removeprefix("Value error, ") for err in exc.errors) or exc.message
    return Observation(text=f"Error: {text}", is_error=True, metadata={"invalid_action": True})


def run_flow(flow: Flow, group: SessionGroup) -> Any:
    """Drive a flow with ``group``'s search session; return what the flow returns."""
    try:
        action = next(flow)
        while True:
            try:
                observation = group.step(SEARCH_DOMAIN, action)
            except ActionValidationError as exc:
                observation = _refused(exc)
            action = flow.send(observation)
    except StopIteration as stop:
        return stop.value


async def arun_flow(flow: Flow, group: SessionGroup) -> Any:
    """The async twin of :func:`run_flow`."""
    try:
        action = next(flow)
        while True:
            try:
                observation = await group.astep(SEARCH_DOMAIN, action)
            except ActionValidationError as exc:
                observation = _refused(exc)
            action = flow.send(observation)
    except StopIteration as stop:
        return stop.value


def _error_status(text: str) -> int:
    """The HTTP status an error observation names (``429 Too Many Requests``), else 500."""
    m = re.search(r"\b([45]\d\d)\b", text)
    return int(m.group(1)) if m else 500


def _stable_fraction(*parts: Any) -> float:
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def _response_time(query: str) -> float:
    """A believable, reproducible response time (the simulated API has no real one to report)."""
    return round(0.4 + 1.2 * _stable_fraction("response_time", query), 2)


def _score(index: int) -> float:
    return round(max(0.01, 0.93 - 0.085 * index), 7)


def _date_key(text: str | None) -> str | None:
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", text or "")
    return "-".join(m.groups()) if m else None


def _domain_match(host: str, domains: Iterable[str]) -> bool:
    for domain in domains:
        d = re.sub(r"^(?:https?://)?(?:www\.)?", "", domain.strip().lower()).split("/")[0]
        if d and (host == d or host.endswith("." + d)):
            return True
    return False


def _filter_hits(
    hits: list[Hit],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    start: str | None = None,
    end: str | None = None,
) -> list[Hit]:
    kept = []
    for hit in hits:
        if include and not _domain_match(hit.host, include):
            continue
        if exclude and _domain_match(hit.host, exclude):
            continue
        day = _date_key(hit.date)
        if day and ((start and day < start) or (end and day > end)):
            continue
        kept.append(hit)
    return kept


def _sentences(text: str, count: int) -> str:
    text = re.sub(r"^\.\.\.\s*|\s*\.\.\.$", "", text.strip())
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(parts[:count]).strip()


# -- Tavily --------------------------------------------------------------------------------------

TAVILY_DEPTHS = ("basic", "advanced", "fast", "ultra-fast")
TAVILY_TOPICS = ("general", "news", "finance")
TAVILY_TIME_RANGES = ("day", "week", "month", "year", "d", "w", "m", "y")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _choice(body: dict[str, Any], key: str, allowed: tuple[Any, ...], default: Any) -> Any:
    value = body.get(key)
    if value is None:
        return default
    if value not in allowed:
        listing = ", ".join(repr(a) for a in allowed)
        raise SearchAPIError(f"Invalid {key} {value!r}. Must be one of: {listing}.")
    return value


def _flag(body: dict[str, Any], key: str, extra: tuple[str, ...] = ()) -> Any:
    value = body.get(key)
    if value is None:
        return False
    if isinstance(value, bool) or value in extra:
        return value
    shown = " or ".join(("a boolean", *(repr(e) for e in extra)))
    raise SearchAPIError(f"Invalid {key} {value!r}. Must be {shown}.")


def _domains(body: dict[str, Any], key: str) -> list[str]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise SearchAPIError(f"Invalid {key}: must be a list of domain strings.")
    return value


def _bounded_int(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SearchAPIError(f"Invalid {key} {value!r}. Must be an integer between {low} and {high}.")
    return value


def validate_tavily_search(body: Any) -> dict[str, Any]:
    """The parameters of a Tavily ``POST /search`` body, checked as the API checks them."""
    if not isinstance(body, dict):
        raise SearchAPIError("Invalid request body: expected a JSON object.")
    query = body.get("query")
    if query is None or (isinstance(query, str) and not query.strip()):
        raise SearchAPIError("Query is missing.")
    if not isinstance(query, str):
        raise SearchAPIError("Invalid query: must be a string.")
    if len(query) > 400:
        raise SearchAPIError("Query is too long. Max query length is 400 characters.")
    params: dict[str, Any] = {
        "query": query.strip(),
        "search_depth": _choice(body, "search_depth", TAVILY_DEPTHS, "basic"),
        "topic": _choice(body, "topic", TAVILY_TOPICS, "general"),
        "time_range": _choice(body, "time_range", TAVILY_TIME_RANGES, None),
        "max_results": _bounded_int(body, "max_results", 5, 0, 20),
        "include_domains": _domains(body, "include_domains"),
        "exclude_domains": _domains(body, "exclude_domains"),
        "include_answer": _flag(body, "include_answer", ("basic", "advanced")),
        "include_raw_content": _flag(body, "include_raw_content", ("markdown", "text")),
        "include_images": _flag(body, "include_images"),
        "include_image_descriptions": _flag(body, "include_image_descriptions"),
        "include_favicon": _flag(body, "include_favicon"),
        "include_usage": _flag(body, "include_usage"),
        "auto_parameters": _flag(body, "auto_parameters"),
    }
    for key in ("start_date", "end_date"):
        value = body.get(key)
        if value is not None and (not isinstance(value, str) or not _DATE.match(value)):
            raise SearchAPIError(f"Invalid {key} {value!r}. Must be in the format YYYY-MM-DD.")
        params[key] = value
    if params["start_date"] and params["end_date"] and params["start_date"] > params["end_date"]:
        raise SearchAPIError("Invalid date range: start_date must be before end_date.")
    return params


def _answer(hits: list[Hit], mode: Any) -> str | None:
    if not mode or not hits:
        return None
    if mode == "advanced":
        return " ".join(_sentences(h.snippet, 2) for h in hits[:2] if h.snippet) or None
    return _sentences(hits[0].snippet, 2) or None


def tavily_search_flow(params: dict[str, Any]) -> Flow:
    """Tavily's search response from the search world (``params`` from validate_tavily_search)."""
    k = params["max_results"]
    filtered = bool(
        params["include_domains"] or params["exclude_domains"] or params["start_date"] or params["end_date"]
    )
    observation = yield _search_action(params["query"], max(k * 3, 10) if filtered else max(k, 1))
    if observation.is_error:
        raise SearchAPIError(observation.text, status=_error_status(observation.text))
    hits = _filter_hits(
        parse_hits(observation.text),
        params["include_domains"],
        params["exclude_domains"],
        params["start_date"],
        params["end_date"],
    )[:k]
    results: list[dict[str, Any]] = []
    for index, hit in enumerate(hits):
        result: dict[str, Any] = {
            "url": hit.url,
            "title": hit.title,
            "content": hit.snippet,
            "score": _score(index),
            "raw_content": None,
        }
        if params["include_raw_content"]:
            page = yield _extract_action(hit.url)
            result["raw_content"] = None if page.is_error else page.text
        if params["include_favicon"]:
            result["favicon"] = f"https://{hit.host}/favicon.ico"
        if params["topic"] == "news" and hit.date:
            result["published_date"] = hit.date
        results.append(result)
    response: dict[str, Any] = {
        "query": params["query"],
        "follow_up_questions": None,
        "answer": _answer(hits, params["include_answer"]),
        "images": [],
        "results": results,
        "response_time": _response_time(params["query"]),
    }
    if params["auto_parameters"]:
        response["auto_parameters"] = {"topic": params["topic"], "search_depth": params["search_depth"]}
    if params["include_usage"]:
        response["usage"] = {"credits": 2 if params["search_depth"] == "advanced" else 1}
    return response


def validate_tavily_extract(body: Any) -> dict[str, Any]:
    """The parameters of a Tavily ``POST /extract`` body."""
    if not isinstance(body, dict):
        raise SearchAPIError("Invalid request body: expected a JSON object.")
    urls = body.get("urls")
    if isinstance(urls, str):
        urls = [urls]
    if not urls:
        raise SearchAPIError("No URLs provided. Please provide at least one URL.")
    if not isinstance(urls, list) or not all(isinstance(u, str) and u.strip() for u in urls):
        raise SearchAPIError("Invalid urls: must be a URL string or a list of URL strings.")
    if len(urls) > 20:
        raise SearchAPIError("Too many URLs. Max 20 URLs per request.")
    return {
        "urls": [u.strip() for u in urls],
        "extract_depth": _choice(body, "extract_depth", ("basic", "advanced"), "basic"),
        "format": _choice(body, "format", ("markdown", "text"), "markdown"),
        "include_images": _flag(body, "include_images"),
        "include_favicon": _flag(body, "include_favicon"),
        "include_usage": _flag(body, "include_usage"),
    }


def tavily_extract_flow(params: dict[str, Any]) -> Flow:
    """Tavily's extract response: each URL through ``web_extractor`` in the same session."""
    results: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for url in params["urls"]:
        page = yield _extract_action(url)
        if page.is_error:
            failed.append({"url": url, "error": page.text})
            continue
        result: dict[str, Any] = {"url": url, "raw_content": page.text, "images": []}
        if params["include_favicon"]:
            result["favicon"] = f"https://{Hit(url).host}/favicon.ico"
        results.append(result)
    response: dict[str, Any] = {
        "results": results,
        "failed_results": failed,
        "response_time": _response_time(" ".join(params["urls"])),
    }
    if params["include_usage"]:
        per = 2 if params["extract_depth"] == "advanced" else 1
        response["usage"] = {"credits": per * max(1, (len(results) + 4) // 5)}
    return response


# -- Serper --------------------------------------------------------------------------------------

SERPER_TYPES = ("search", "news")
_QUESTION = re.compile(
    r"^(who|what|when|where|which|why|how|is|are|was|were|does|do|did|can|should)\b", re.IGNORECASE
)


def validate_serper(body: Any, search_type: str = "search") -> dict[str, Any]:
    """The parameters of one Serper query (JSON body and/or query-string parameters)."""
    if not isinstance(body, dict):
        raise SearchAPIError("Invalid request body: expected a JSON object or a list of them.")
    q = body.get("q")
    if q is None or (isinstance(q, str) and not q.strip()):
        raise SearchAPIError("Missing query parameter")
    if not isinstance(q, str):
        raise SearchAPIError("Invalid q parameter: must be a string")
    if search_type not in SERPER_TYPES:
        raise SearchAPIError(f"Unsupported search type {search_type!r}", status=404)
    return {
        "q": q.strip(),
        "type": search_type,
        "num": _bounded_int(body, "num", 10, 1, 100),
        "page": _bounded_int(body, "page", 1, 1, 100),
        "gl": str(body.get("gl") or "us"),
        "hl": str(body.get("hl") or "en"),
        "tbs": body.get("tbs"),
        "location": body.get("location"),
        "autocorrect": body.get("autocorrect"),
    }


def _entity(title: str) -> str:
    return re.split("\\s+[-|\u2013\u2014:]\\s+|:\\s+", title, maxsplit=1)[0].strip() or title


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1}


def _knowledge_graph(q: str, hits: list[Hit]) -> dict[str, Any] | None:
    """An entity panel when the query names the top hit's subject (``Halvorsen Instruments``)."""
    if not hits or _QUESTION.match(q) or q.endswith("?") or len(q.split()) > 5:
        return None
    top = hits[0]
    wanted = _words(q)
    if not wanted or not wanted <= _words(top.title):
        return None
    named = re.search(re.escape(q.strip()), top.title, flags=re.IGNORECASE)
    return {
        "title": named.group(0) if named else _entity(top.title),
        "description": _sentences(top.snippet, 2),
        "descriptionSource": top.host,
        "descriptionLink": top.url,
        "attributes": {},
    }


def _answer_box(q: str, hits: list[Hit]) -> dict[str, Any] | None:
    """A featured snippet for question-like queries, taken from the top hit."""
    if not hits or not (_QUESTION.match(q) or q.endswith("?")):
        return None
    top = hits[0]
    box: dict[str, Any] = {"title": top.title, "link": top.url, "snippet": _sentences(top.snippet, 3)}
    if top.date:
        box["date"] = top.date
    return box


def serper_search_flow(params: dict[str, Any]) -> Flow:
    """Serper's response: ``searchParameters``, ``knowledgeGraph``/``answerBox`` when they fit,
    ``organic`` (or ``news``) and ``credits``."""
    num, page = params["num"], params["page"]
    observation = yield _search_action(params["q"], num * page)
    if observation.is_error:
        raise SearchAPIError(observation.text, status=_error_status(observation.text))
    hits = parse_hits(observation.text)[(page - 1) * num : page * num]
    search_parameters: dict[str, Any] = {
        "q": params["q"],
        "gl": params["gl"],
        "hl": params["hl"],
        "type": params["type"],
        "num": num,
    }
    if page > 1:
        search_parameters["page"] = page
    if params.get("tbs"):
        search_parameters["tbs"] = params["tbs"]
    if params.get("location"):
        search_parameters["location"] = params["location"]
    search_parameters["engine"] = "google"
    response: dict[str, Any] = {"searchParameters": search_parameters}
    if params["type"] == "news":
        response["news"] = [
            {
                "title": h.title,
                "link": h.url,
                "snippet": h.snippet,
                **({"date": h.date} if h.date else {}),
                "source": h.host,
                "position": h.position - (page - 1) * num,
            }
            for h in hits
        ]
    else:
        graph = _knowledge_graph(params["q"], hits) if page == 1 else None
        if graph:
            response["knowledgeGraph"] = graph
        box = _answer_box(params["q"], hits) if page == 1 else None
        if box:
            response["answerBox"] = box
        response["organic"] = [
            {
                "title": h.title,
                "link": h.url,
                "snippet": h.snippet,
                **({"date": h.date} if h.date else {}),
                "position": h.position - (page - 1) * num,
            }
            for h in hits
        ]
    response["credits"] = 1
    return response


def serper_answer(results: dict[str, Any], k: int = 10, result_key: str = "organic") -> str:
    """The one-string answer LangChain's ``google_serper`` makes of a Serper response."""
    box = results.get("answerBox")
    if box:
        if box.get("answer"):
            return str(box["answer"])
        if box.get("snippet"):
            return str(box["snippet"]).replace("\n", " ")
        if box.get("snippetHighlighted"):
            return " ".join(box["snippetHighlighted"])
    parts: list[str] = []
    graph = results.get("knowledgeGraph")
    if graph:
        title = graph.get("title")
        if graph.get("type"):
            parts.append(f"{title}: {graph['type']}.")
        if graph.get("description"):
            parts.append(graph["description"])
        parts.extend(f"{title} {key}: {value}." for key, value in (graph.get("attributes") or {}).items())
    for item in results.get(result_key, [])[:k]:
        if "snippet" in item:
            parts.append(item["snippet"])
        parts.extend(f"{key}: {value}." for key, value in (item.get("attributes") or {}).items())
    return " ".join(parts) if parts else "No good Google Search Result was found"


# -- Brave and DuckDuckGo ------------------------------------------------------------------------


def brave_search_flow(query: str, count: int = 10) -> Flow:
    """Brave's ``web.results`` (``title``, ``url``, ``description``) for one query."""
    observation = yield _search_action(query, count)
    if observation.is_error:
        raise SearchAPIError(observation.text, status=_error_status(observation.text))
    hits = parse_hits(observation.text)[:count]
    return [
        {
            "title": h.title,
            "url": h.url,
            "description": h.snippet,
            **({"page_age": h.date} if h.date else {}),
            "extra_snippets": [],
        }
        for h in hits
    ]


def _hits_flow(query: str, k: int) -> Flow:
    observation = yield _search_action(query, k)
    if observation.is_error:
        raise ToolException(observation.text)
    return parse_hits(observation.text)[:k]


# -- the LangChain tools -------------------------------------------------------------------------


class _SearchTool(BaseTool):
    """A search tool bound to a :class:`SessionGroup` (built from ``world``/``session`` when absent)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    handle_tool_error: bool | str | Callable[[ToolException], str] | None = True
    group: Any = Field(default=None, exclude=True, description="The shared SessionGroup.")
    world: Any = Field(default=None, exclude=True, description="The World (default: World()).")
    session: Any = Field(default=None, exclude=True, description="A search Session to use.")
    world_bible: Any = Field(default=None, exclude=True, description="Facts results must agree with.")
    corpus: Any = Field(default=None, exclude=True, description="Offline corpus folder or pages.")

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if self.group is None:
            self.group = SessionGroup(
                self.world, session=self.session, world_bible=self.world_bible, corpus=self.corpus
            )

    #: fields of the real tool that configure it, copied by :meth:`options_from`
    option_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def options_from(cls, tool: Any) -> dict[str, Any]:
        """The configuration of a real tool of this kind, as keyword arguments for ``cls``."""
        return {f: getattr(tool, f) for f in cls.option_fields if getattr(tool, f, None) is not None}

    def flow(self, arguments: dict[str, Any]) -> Flow:
        """The tool's work for one call as a flow of search actions."""
        raise NotImplementedError

    def call(self, arguments: dict[str, Any]) -> Any:
        return run_flow(self.flow(arguments), self.group)

    async def acall(self, arguments: dict[str, Any]) -> Any:
        return await arun_flow(self.flow(arguments), self.group)


class _QueryTool(_SearchTool):
    """A tool whose only argument is ``query`` (its schema comes from ``_run``'s signature)."""

    def _run(self, query: str, run_manager: CallbackManagerForToolRun | None = None) -> Any:
        return self.call({"query": query})

    async def _arun(self, query: str, run_manager: AsyncCallbackManagerForToolRun | None = None) -> Any:
        return await self.acall({"query": query})


class TavilySearchInput(BaseModel):
    """The arguments of ``tavily_search`` (langchain-tavily), same names, types and defaults."""

    model_config = ConfigDict(extra="allow")

    query: str = Field(description="Search query to look up")
    include_domains: list[str] | None = Field(
        default=[], description="Only return results from these domains (e.g. ['nasa.gov'])."
    )
    exclude_domains: list[str] | None = Field(
        default=[], description="Leave out results from these domains (e.g. ['twitter.com'])."
    )
    search_depth: Literal["basic", "advanced", "fast", "ultra-fast"] | None = Field(
        default="basic",
        description="'basic' for quick answers, 'advanced' for in-depth research, 'fast' or "
        "'ultra-fast' when latency matters most.",
    )
    include_images: bool | None = Field(
        default=False, description="Also return images related to the query (only when visuals help)."
    )
    time_range: Literal["day", "week", "month", "year"] | None = Field(
        default=None, description="Only content published within this period; set it only when asked."
    )
    topic: Literal["general", "news", "finance"] | None = Field(
        default="general",
        description="'general' for most queries, 'news' for politics, sports and major current events, "
        "'finance' for markets and economic data.",
    )
    start_date: str | None = Field(
        default=None, description="Only content published on or after this date (YYYY-MM-DD)."
    )
    end_date: str | None = Field(
        default=None, description="Only content published on or before this date (YYYY-MM-DD)."
    )


_TAVILY_INIT_ONLY = (
    "include_usage",
    "auto_parameters",
    "max_results",
    "include_answer",
    "include_raw_content",
    "include_image_descriptions",
    "include_favicon",
    "country",
    "exact_match",
)


def _tavily_suggestions(args: dict[str, Any]) -> list[str]:
    out = []
    if args.get("time_range"):
        out.append("Remove time_range argument")
    if args.get("include_domains"):
        out.append("Remove include_domains argument")
    if args.get("exclude_domains"):
        out.append("Remove exclude_domains argument")
    if args.get("search_depth") == "basic":
        out.append("Try a more detailed search using 'advanced' search_depth")
    if args.get("topic") != "general":
        out.append("Try a general search using 'general' topic")
    return out


class TavilySearch(_SearchTool):
    """``tavily_search``: the Tavily response dict (``query``, ``results[{url, title, content,
    score, raw_content}]``, ``answer``, ``images``, ``response_time``...).

    Like langchain-tavily: an empty result raises a ToolException with suggestions (returned as
    the message, ``handle_tool_error=True``), an API refusal returns ``{"error": ValueError(...)}``.
    ``time_range`` is accepted but not applied: a relative window would make runs unrepeatable.
    """

    name: str = "tavily_search"
    description: str = (
        "A search engine optimized for comprehensive, accurate, and trusted results. "
        "Useful for when you need to answer questions about current events. "
        "It not only retrieves URLs and snippets, but offers advanced search depths, "
        "domain management, time range filters, and image search, this tool delivers "
        "real-time, accurate, and citation-backed results."
        "Input should be a search query."
    )
    args_schema: type[BaseModel] = TavilySearchInput

    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    search_depth: Literal["basic", "advanced", "fast", "ultra-fast"] | None = None
    include_images: bool | None = None
    time_range: Literal["day", "week", "month", "year"] | None = None
    max_results: int | None = None
    topic: Literal["general", "news", "finance"] | None = None
    include_answer: bool | Literal["basic", "advanced"] | None = None
    include_raw_content: bool | Literal["markdown", "text"] | None = None
    include_image_descriptions: bool | None = None
    country: str | None = None
    include_favicon: bool | None = None
    include_usage: bool | None = None
    exact_match: bool | None = None
    auto_parameters: bool | None = None
    tavily_api_key: Any = Field(default=None, exclude=True, description="Accepted and ignored.")
    api_base_url: Any = Field(default=None, exclude=True, description="Accepted and ignored.")

    option_fields = (
        "include_domains",
        "exclude_domains",
        "search_depth",
        "include_images",
        "time_range",
        "max_results",
        "topic",
        "include_answer",
        "include_raw_content",
        "include_image_descriptions",
        "country",
        "include_favicon",
        "include_usage",
        "exact_match",
        "auto_parameters",
    )

    def flow(self, arguments: dict[str, Any]) -> Flow:
        args = dict(arguments)
        query = args.pop("query", None)
        for key in _TAVILY_INIT_ONLY:
            if key in args:
                return {
                    "error": ValueError(
                        f"The parameter '{key}' can only be set during instantiation, not during "
                        "invocation. Please set it when creating the TavilySearch instance."
                    )
                }
        body: dict[str, Any] = {"query": query}
        for key in (
            "include_domains",
            "exclude_domains",
            "search_depth",
            "include_images",
            "time_range",
            "topic",
        ):
            body[key] = getattr(self, key) or args.get(key)
        for key in ("start_date", "end_date"):
            body[key] = args.get(key)
        for key in _TAVILY_INIT_ONLY:
            body[key] = getattr(self, key)
        try:
            params = validate_tavily_search({k: v for k, v in body.items() if v is not None})
            response = yield from tavily_search_flow(params)
        except SearchAPIError as exc:
            return {"error": ValueError(f"Error {exc.status}: {exc.message}")}
        if not response["results"]:
            suggestions = _tavily_suggestions({**body, "topic": body.get("topic") or "general"})
            raise ToolException(
                f"No search results found for '{query}'. Suggestions: {', '.join(suggestions)}. "
                "Try modifying your search parameters with one of these approaches."
            )
        return response

    def _run(
        self,
        query: str,
        include_domains: list[str] | None = None,
        exclude_domains: list[str] | None = None,
        search_depth: str | None = None,
        include_images: bool | None = None,
        time_range: str | None = None,
        topic: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        run_manager: CallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        args = {k: v for k, v in locals().items() if k not in ("self", "run_manager", "kwargs")}
        return self.call({**args, **kwargs})

    async def _arun(
        self,
        query: str,
        include_domains: list[str] | None = None,
        exclude_domains: list[str] | None = None,
        search_depth: str | None = None,
        include_images: bool | None = None,
        time_range: str | None = None,
        topic: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        args = {k: v for k, v in locals().items() if k not in ("self", "run_manager", "kwargs")}
        return await self.acall({**args, **kwargs})


class DDGInput(BaseModel):
    """Input for the DuckDuckGo search tool."""

    query: str = Field(description="search query to look up")


_DDG_DESCRIPTION = (
    "Useful for when you need to answer questions about current events. Input should be a search query."
)


def _ddg_hits(query: str, k: int) -> Flow:
    if not query.strip():
        raise ToolException("query is mandatory.")
    return (yield from _hits_flow(query, k))


class DuckDuckGoSearchRun(_SearchTool):
    """``duckduckgo_search``: the snippets of the hits joined by spaces."""

    name: str = "duckduckgo_search"
    description: str = "A wrapper around DuckDuckGo Search. " + _DDG_DESCRIPTION
    args_schema: type[BaseModel] = DDGInput
    max_results: int = 5
    api_wrapper: Any = Field(default=None, exclude=True, description="Read for max_results, if given.")

    option_fields = ("api_wrapper",)

    def flow(self, arguments: dict[str, Any]) -> Flow:
        k = getattr(self.api_wrapper, "max_results", None) or self.max_results
        hits = yield from _ddg_hits(str(arguments.get("query") or ""), k)
        if not hits:
            return "No good DuckDuckGo Search Result was found"
        return " ".join(h.snippet for h in hits)

    def _run(self, query: str, run_manager: CallbackManagerForToolRun | None = None) -> str:
        return self.call({"query": query})

    async def _arun(self, query: str, run_manager: AsyncCallbackManagerForToolRun | None = None) -> str:
        return await self.acall({"query": query})


class DuckDuckGoSearchResults(_SearchTool):
    """``duckduckgo_results_json``: ``(content, artifact)``; the artifact is the list of
    ``{snippet, title, link}`` dicts, the content that list as ``output_format`` says: ``string``
    (``snippet: ..., title: ..., link: ...`` joined by ``results_separator``, the default),
    ``json`` (a JSON list) or ``list``."""

    name: str = "duckduckgo_results_json"
    description: str = "A wrapper around Duck Duck Go Search. " + _DDG_DESCRIPTION
    args_schema: type[BaseModel] = DDGInput
    max_results: int = Field(alias="num_results", default=4)
    backend: str = "text"
    keys_to_include: list[str] | None = None
    results_separator: str = ", "
    output_format: Literal["string", "json", "list"] = "string"
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"

    option_fields = ("max_results", "backend", "keys_to_include", "results_separator", "output_format")

    def flow(self, arguments: dict[str, Any]) -> Flow:
        hits = yield from _ddg_hits(str(arguments.get("query") or ""), self.max_results)
        raw: list[dict[str, Any]] = []
        for h in hits:
            if self.backend == "news":
                raw.append(
                    {
                        "snippet": h.snippet,
                        "title": h.title,
                        "link": h.url,
                        "date": h.date or "",
                        "source": h.host,
                    }
                )
            else:
                raw.append({"snippet": h.snippet, "title": h.title, "link": h.url})
        results = [
            {k: v for k, v in d.items() if not self.keys_to_include or k in self.keys_to_include} for d in raw
        ]
        if self.output_format == "list":
            return results, raw
        if self.output_format == "json":
            return json.dumps(results), raw
        if self.output_format == "string":
            rows = [", ".join(f"{k}: {v}" for k, v in d.items()) for d in results]
            return self.results_separator.join(rows), raw
        raise ValueError(
            f"Invalid output_format: {self.output_format}. Needs to be one of 'string', 'json', 'list'."
        )

    def _run(self, query: str, run_manager: CallbackManagerForToolRun | None = None) -> Any:
        return self.call({"query": query})

    async def _arun(self, query: str, run_manager: AsyncCallbackManagerForToolRun | None = None) -> Any:
        return await self.acall({"query": query})


class BraveSearch(_QueryTool):
    """``brave_search``: a JSON list string of ``{title, link, snippet}``; ``search_kwargs``
    ``count`` sets how many (default 10)."""

    name: str = "brave_search"
    description: str = (
        "a search engine. useful for when you need to answer questions about current events."
        " input should be a search query."
    )
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    search_wrapper: Any = Field(default=None, exclude=True, description="Read for search_kwargs, if given.")

    option_fields = ("search_kwargs", "search_wrapper")

    @classmethod
    def from_api_key(
        cls, api_key: str, search_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> BraveSearch:
        """Like the real tool's; the key is ignored."""
        return cls(search_kwargs=search_kwargs or {}, **kwargs)

    @classmethod
    def from_search_kwargs(cls, search_kwargs: dict[str, Any], **kwargs: Any) -> BraveSearch:
        return cls(search_kwargs=search_kwargs, **kwargs)

    def flow(self, arguments: dict[str, Any]) -> Flow:
        query = str(arguments.get("query") or "")
        options = {**(getattr(self.search_wrapper, "search_kwargs", None) or {}), **self.search_kwargs}
        if not query.strip():
            raise ToolException("HTTP error 422")
        try:
            results = yield from brave_search_flow(query, int(options.get("count") or 10))
        except SearchAPIError as exc:
            raise ToolException(f"HTTP error {exc.status}") from None
        return json.dumps(
            [
                {
                    "title": r["title"],
                    "link": r["url"],
                    "snippet": " ".join(filter(None, [r["description"], *r["extra_snippets"]])),
                }
                for r in results
            ]
        )


_SERPER_DESCRIPTION = (
    "A low-cost Google Search API."
    "Useful for when you need to answer questions about current events."
    "Input should be a search query."
)


class _SerperTool(_QueryTool):
    k: int = 10
    gl: str = "us"
    hl: str = "en"
    type: Literal["news", "search", "places", "images"] = "search"
    tbs: str | None = None
    api_wrapper: Any = Field(default=None, exclude=True, description="Read for k, gl, hl, type, tbs.")
    serper_api_key: Any = Field(default=None, exclude=True, description="Accepted and ignored.")

    option_fields = ("api_wrapper",)

    def _setting(self, key: str) -> Any:
        value = getattr(self.api_wrapper, key, None)
        return getattr(self, key) if value is None else value

    def _results(self, query: str) -> Flow:
        search_type = self._setting("type")
        params = {"q": query, "gl": self._setting("gl"), "hl": self._setting("hl"), "num": self._setting("k")}
        if self._setting("tbs"):
            params["tbs"] = self._setting("tbs")
        if not query.strip():
            shown = "&".join(f"{k}={v}" for k, v in params.items())
            raise ToolException(
                f"400 Client Error: Bad Request for url: https://google.serper.dev/{search_type}?{shown}"
            )
        if search_type not in SERPER_TYPES:  # places, images: nothing the search world can show
            return {"searchParameters": {**params, "type": search_type, "engine": "google"}, search_type: []}
        try:
            return (yield from serper_search_flow(validate_serper(params, search_type)))
        except SearchAPIError as exc:
            raise ToolException(f"{exc.status} Server Error: {exc.message}") from None


class GoogleSerperRun(_SerperTool):
    """``google_serper``: the answer box, knowledge graph and organic snippets as one string."""

    name: str = "google_serper"
    description: str = _SERPER_DESCRIPTION

    def flow(self, arguments: dict[str, Any]) -> Flow:
        results = yield from self._results(str(arguments.get("query") or ""))
        key = {"news": "news", "places": "places", "images": "images"}.get(self._setting("type"), "organic")
        return serper_answer(results, self._setting("k"), key)


class GoogleSerperResults(_SerperTool):
    """``google_serper_results_json``: ``str()`` of the Serper response dict, as the real tool."""

    name: str = "google_serper_results_json"
    description: str = _SERPER_DESCRIPTION + " Output is a JSON object of the query results"

    def flow(self, arguments: dict[str, Any]) -> Flow:
        results = yield from self._results(str(arguments.get("query") or ""))
        return str(results)


def _native(name: str) -> dict[str, Any]:
    return next(t for t in SEARCH_TOOLS if t["name"] == name)


class _NativeTool(_SearchTool):
    """One of the world model's own tools: the observation text is the result."""

    def flow(self, arguments: dict[str, Any]) -> Flow:
        from agentworld_plugins.tool_arguments import check_arguments

        schema = self.args_schema if isinstance(self.args_schema, dict) else None
        problem = check_arguments(self.name, arguments, schema) if schema else None
        if problem:
            raise ToolException(problem)
        observation = yield {"name": self.name, "arguments": arguments}
        if observation.is_error:
            raise ToolException(observation.text)
        return observation.text

    def _run(self, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any) -> str:
        return self.call(kwargs)

    async def _arun(self, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any) -> str:
        return await self.acall(kwargs)


class WebSearch(_NativeTool):
    """``web_search {"queries": [...]}`` or ``{"query": ...}``: numbered hits per query."""

    name: str = "web_search"
    description: str = _native("web_search")["description"]
    args_schema: dict[str, Any] = Field(default_factory=lambda: dict(_native("web_search")["inputSchema"]))


class WebExtractor(_NativeTool):
    """``web_extractor {"url", "goal"?}``: the page's main content."""

    name: str = "web_extractor"
    description: str = _native("web_extractor")["description"]
    args_schema: dict[str, Any] = Field(default_factory=lambda: dict(_native("web_extractor")["inputSchema"]))


class DictMemory(_NativeTool):
    """``dict_memory {"operation", "key"?, "value"?}``: a notebook kept by the session."""

    name: str = "dict_memory"
    description: str = _native("dict_memory")["description"]
    args_schema: dict[str, Any] = Field(default_factory=lambda: dict(_native("dict_memory")["inputSchema"]))


_CLASSES: dict[str, type[_SearchTool]] = {
    cls.model_fields["name"].default: cls
    for cls in (
        TavilySearch,
        DuckDuckGoSearchRun,
        DuckDuckGoSearchResults,
        BraveSearch,
        GoogleSerperRun,
        GoogleSerperResults,
        WebSearch,
        WebExtractor,
        DictMemory,
    )
}
#: the tool names this module simulates, in the order :func:`search_tools` returns them
SEARCH_TOOL_NAMES: tuple[str, ...] = tuple(_CLASSES)


def search_tool_class(name: str) -> type[_SearchTool] | None:
    """The simulated class for a search tool name (None for other names)."""
    return _CLASSES.get(name)


def search_tools(
    names: Iterable[str] | None = None,
    *,
    world: Any = None,
    session: Any = None,
    group: SessionGroup | None = None,
    world_bible: str | Path | None = None,
    corpus: Any = None,
    seed: int | None = None,
    perturbations: Iterable[Any] = (),
    **options: Any,
) -> list[BaseTool]:
    """Simulated search tools sharing one search session (default: all of them).

    ``options`` are handed to every tool that has such a field (``max_results=3``).
    """
    chosen = list(names) if names is not None else list(SEARCH_TOOL_NAMES)
    unknown = [n for n in chosen if n not in _CLASSES]
    if unknown:
        from agentworld_plugins.errors import UnknownNameError

        raise UnknownNameError("search tool", unknown[0], SEARCH_TOOL_NAMES)
    if group is None:
        group = SessionGroup(
            world,
            session=session,
            seed=seed,
            perturbations=perturbations,
            world_bible=world_bible,
            corpus=corpus,
        )
    tools: list[BaseTool] = []
    for name in chosen:
        cls = _CLASSES[name]
        accepted = {k: v for k, v in options.items() if k in cls.model_fields}
        tools.append(cls(group=group, **accepted))
    return tools
