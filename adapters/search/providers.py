"""The search APIs simulated: Tavily, Serper, Brave and DuckDuckGo requests validated and
answered as flows."""

from __future__ import annotations

import re
from typing import Any

from .flows import (
    Flow,
    SearchAPIError,
    extract_action,
    filter_hits,
    first_sentences,
    raise_for_error,
    score_of,
    search_action,
    simulated_response_time,
)
from .hits import Hit, parse_hits

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
        return " ".join(first_sentences(h.snippet, 2) for h in hits[:2] if h.snippet) or None
    return first_sentences(hits[0].snippet, 2) or None


def tavily_search_flow(params: dict[str, Any]) -> Flow:
    """Tavily's search response from the search world (``params`` from validate_tavily_search)."""
    k = params["max_results"]
    filtered = bool(
        params["include_domains"] or params["exclude_domains"] or params["start_date"] or params["end_date"]
    )
    observation = yield search_action(params["query"], max(k * 3, 10) if filtered else max(k, 1))
    raise_for_error(observation)
    hits = filter_hits(
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
            "score": score_of(index, observation, hit.url),
            "raw_content": None,
        }
        if params["include_raw_content"]:
            page = yield extract_action(hit.url)
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
        "response_time": simulated_response_time(params["query"]),
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
        page = yield extract_action(url)
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
        "response_time": simulated_response_time(" ".join(params["urls"])),
    }
    if params["include_usage"]:
        per = 2 if params["extract_depth"] == "advanced" else 1
        response["usage"] = {"credits": per * max(1, (len(results) + 4) // 5)}
    return response


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
        "description": first_sentences(top.snippet, 2),
        "descriptionSource": top.host,
        "descriptionLink": top.url,
        "attributes": {},
    }


def _answer_box(q: str, hits: list[Hit]) -> dict[str, Any] | None:
    """A featured snippet for question-like queries, taken from the top hit."""
    if not hits or not (_QUESTION.match(q) or q.endswith("?")):
        return None
    top = hits[0]
    box: dict[str, Any] = {"title": top.title, "link": top.url, "snippet": first_sentences(top.snippet, 3)}
    if top.date:
        box["date"] = top.date
    return box


def serper_search_flow(params: dict[str, Any]) -> Flow:
    """Serper's response: ``searchParameters``, ``knowledgeGraph``/``answerBox`` when they fit,
    ``organic`` (or ``news``) and ``credits``."""
    num, page = params["num"], params["page"]
    observation = yield search_action(params["q"], num * page)
    raise_for_error(observation)
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


#: Brave's documented limits on ``q``
BRAVE_MAX_CHARS = 400
BRAVE_MAX_WORDS = 50


def brave_query_problem(query: str) -> dict[str, Any] | None:
    """The validation error Brave answers (422) for a ``q`` past its limits, else None."""
    if len(query) > BRAVE_MAX_CHARS:
        return {
            "type": "string_too_long",
            "loc": ["query", "q"],
            "msg": f"String should have at most {BRAVE_MAX_CHARS} characters",
            "input": query[:200],
            "ctx": {"max_length": BRAVE_MAX_CHARS},
        }
    words = len(query.split())
    if words > BRAVE_MAX_WORDS:
        return {
            "type": "too_many_words",
            "loc": ["query", "q"],
            "msg": f"Query should have at most {BRAVE_MAX_WORDS} words, got {words}",
            "input": query[:200],
            "ctx": {"max_words": BRAVE_MAX_WORDS},
        }
    return None


def brave_search_flow(query: str, count: int = 10) -> Flow:
    """Brave's ``web.results`` (``title``, ``url``, ``description``) for one query."""
    if brave_query_problem(query) is not None:
        raise SearchAPIError("Unable to validate request parameter(s)", status=422)
    observation = yield search_action(query, count)
    raise_for_error(observation)
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


# -- Tavily crawl and map ----------------------------------------------------------------------

_LINK = re.compile(r"https?://[^\s)\]>\"'`,]+")


def _patterns(body: dict[str, Any], key: str) -> list[re.Pattern[str]]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise SearchAPIError(f"Invalid {key}: must be a list of regex strings.")
    try:
        return [re.compile(p) for p in value]
    except re.error as exc:
        raise SearchAPIError(f"Invalid {key}: {exc}.") from None


def validate_tavily_crawl(body: Any, kind: str = "crawl") -> dict[str, Any]:
    """The parameters of a Tavily ``POST /crawl`` (or ``/map``) body."""
    if not isinstance(body, dict):
        raise SearchAPIError("Invalid request body: expected a JSON object.")
    url = body.get("url")
    if not isinstance(url, str) or not url.strip():
        raise SearchAPIError("No URL provided. Please provide a URL to start from.")
    url = url.strip()
    if not re.match(r"^https?://", url, flags=re.IGNORECASE):
        url = "https://" + url
    params: dict[str, Any] = {
        "kind": kind,
        "url": url,
        "max_depth": _bounded_int(body, "max_depth", 1, 1, 5),
        "max_breadth": _bounded_int(body, "max_breadth", 20, 1, 500),
        "limit": _bounded_int(body, "limit", 50, 1, 1000),
        "instructions": body.get("instructions"),
        "select_paths": _patterns(body, "select_paths"),
        "select_domains": _patterns(body, "select_domains"),
        "exclude_paths": _patterns(body, "exclude_paths"),
        "exclude_domains": _patterns(body, "exclude_domains"),
        "allow_external": _flag(body, "allow_external") if body.get("allow_external") is not None else True,
        "include_images": _flag(body, "include_images"),
        "include_favicon": _flag(body, "include_favicon"),
        "include_usage": _flag(body, "include_usage"),
        "extract_depth": _choice(body, "extract_depth", ("basic", "advanced"), "basic"),
        "format": _choice(body, "format", ("markdown", "text"), "markdown"),
    }
    return params


def _path_and_host(url: str) -> tuple[str, str]:
    m = re.match(r"^[a-z]+://([^/?#]+)([^?#]*)", url, flags=re.IGNORECASE)
    return (m.group(2) or "/", m.group(1).lower()) if m else ("/", "")


def _kept(url: str, params: dict[str, Any]) -> bool:
    path, host = _path_and_host(url)
    if params["select_paths"] and not any(p.search(path) for p in params["select_paths"]):
        return False
    if params["select_domains"] and not any(p.search(host) for p in params["select_domains"]):
        return False
    if any(p.search(path) for p in params["exclude_paths"]):
        return False
    return not any(p.search(host) for p in params["exclude_domains"])


def _walk(params: dict[str, Any]) -> Flow:
    """Breadth-first from ``url``: each page through ``web_extractor`` in the session, following
    its links (the offline world names them; a model's page text is scanned for URLs) to
    ``max_depth`` hops, ``max_breadth`` links a page, ``limit`` pages in all. Returns the
    ``(url, page text)`` of each page reached that the select/exclude rules keep."""
    root = params["url"]
    root_host = _path_and_host(root)[1]
    queue, seen = [(root, 0)], {root.rstrip("/")}
    reached: list[tuple[str, str]] = []
    visits = 0
    while queue and len(reached) < params["limit"] and visits < params["limit"] * 4:
        url, depth = queue.pop(0)
        visits += 1
        page = yield extract_action(url)
        if page.is_error:
            continue
        if _kept(url, params):
            reached.append((url, page.text))
        if depth >= params["max_depth"]:
            continue
        links = page.metadata.get("offline_links")
        if not isinstance(links, list):
            links = _LINK.findall(page.text)
        for link in [str(x) for x in links][: params["max_breadth"]]:
            key = link.rstrip("/")
            if key in seen or (not params["allow_external"] and _path_and_host(link)[1] != root_host):
                continue
            seen.add(key)
            queue.append((link, depth + 1))
    return reached


def tavily_crawl_flow(params: dict[str, Any]) -> Flow:
    """Tavily's crawl response (``base_url``, ``results[{url, raw_content, images}]``) or, for
    ``kind="map"``, its map response (``base_url``, ``results`` as URLs)."""
    reached = yield from _walk(params)
    response: dict[str, Any] = {"base_url": params["url"]}
    if params["kind"] == "map":
        response["results"] = [url for url, _ in reached]
    else:
        results = []
        for url, text in reached:
            result: dict[str, Any] = {"url": url, "raw_content": text}
            if params["include_images"]:
                result["images"] = []
            if params["include_favicon"]:
                result["favicon"] = f"https://{Hit(url).host}/favicon.ico"
            results.append(result)
        response["results"] = results
    response["response_time"] = simulated_response_time(f"{params['kind']} {params['url']}")
    if params["include_usage"]:
        per = 2 if params["extract_depth"] == "advanced" else 1
        pages = len(reached)
        response["usage"] = {"credits": max(1, (pages + 9) // 10) * (1 if params["kind"] == "map" else per)}
    return response
