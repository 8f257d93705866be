"""The LangChain tools: ``BaseTool`` classes named, shaped and answering like the search tools agents use."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from agentworld_plugins.domains.search import SEARCH_TOOLS

from .._world import SessionGroup
from .base import _SearchTool
from .extract_tools import EXTRACT_TOOL_CLASSES
from .flows import Flow, SearchAPIError, search_action
from .hits import parse_hits
from .providers import (
    SERPER_TYPES,
    brave_search_flow,
    serper_answer,
    serper_search_flow,
    tavily_search_flow,
    validate_serper,
    validate_tavily_search,
)


def _hits_flow(query: str, k: int) -> Flow:
    observation = yield search_action(query, k)
    if observation.is_error:
        raise ToolException(observation.text)
    return parse_hits(observation.text)[:k]


class _QueryTool(_SearchTool):
    """A tool whose only argument is ``query`` (its schema comes from ``_run``'s signature unless
    ``args_schema`` names it)."""

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

    # the other arguments (TavilySearchInput's, and any extra) arrive as keywords
    def _run(
        self, query: str, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self.call({"query": query, **kwargs})

    async def _arun(
        self, query: str, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self.acall({"query": query, **kwargs})


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


class DuckDuckGoSearchRun(_QueryTool):
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


class DuckDuckGoSearchResults(_QueryTool):
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


_ALL: tuple[type[_SearchTool], ...] = (
    TavilySearch,
    DuckDuckGoSearchRun,
    DuckDuckGoSearchResults,
    BraveSearch,
    GoogleSerperRun,
    GoogleSerperResults,
    WebSearch,
    WebExtractor,
    DictMemory,
    *EXTRACT_TOOL_CLASSES,
)
_CLASSES: dict[str, type[_SearchTool]] = {cls.model_fields["name"].default: cls for cls in _ALL}
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
