"""The page tools: langchain-tavily's ``tavily_extract``, ``tavily_crawl`` and ``tavily_map``, and
``fetch``-like tools, answered from the same search session as the search tools.

A URL that a search returned is read from the same page the hit's snippet came from, so the two
agree. The Tavily tools return what langchain-tavily returns (the API's response dict), raise its
ToolException when nothing could be read, and return ``{"error": ValueError(...)}`` for a
parameter that may only be set when the tool is made.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.tools import ToolException
from pydantic import BaseModel, ConfigDict, Field

from .base import _SearchTool
from .flows import Flow, SearchAPIError, extract_action
from .providers import tavily_crawl_flow, tavily_extract_flow, validate_tavily_crawl, validate_tavily_extract

__all__ = [
    "EXTRACT_TOOL_CLASSES",
    "FETCH_TOOL_NAMES",
    "FetchPage",
    "TavilyCrawl",
    "TavilyExtract",
    "TavilyMap",
    "is_fetch_like",
]


def _init_only(tool: str, kwargs: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any] | None:
    for name in names:
        if name in kwargs:
            return {
                "error": ValueError(
                    f"The parameter '{name}' can only be set during instantiation, not during "
                    f"invocation. Please set it when creating the {tool} instance."
                )
            }
    return None


class _TavilyPageTool(_SearchTool):
    """A Tavily page tool: the call's arguments, the tool's own settings winning, as one API body."""

    tavily_api_key: Any = Field(default=None, exclude=True, description="Accepted and ignored.")
    api_base_url: Any = Field(default=None, exclude=True, description="Accepted and ignored.")

    def _body(self, arguments: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
        body = dict(arguments)
        for key in keys:
            own = getattr(self, key, None)
            if own:
                body[key] = own
        return {k: v for k, v in body.items() if v is not None}

    def _run(self, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any) -> Any:
        return self.call(kwargs)

    async def _arun(self, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any) -> Any:
        return await self.acall(kwargs)


class TavilyExtractInput(BaseModel):
    """The arguments of ``tavily_extract`` (langchain-tavily): same names, types and defaults."""

    model_config = ConfigDict(extra="allow")

    urls: list[str] = Field(description="list of urls to extract")
    extract_depth: Literal["basic", "advanced"] | None = Field(
        default="basic", description="'basic' for the main text, 'advanced' for tables and embedded content."
    )
    include_images: bool | None = Field(default=False, description="Also return the pages' images.")
    query: str | None = Field(default=None, description="A query to focus the extraction on.")


class TavilyExtract(_TavilyPageTool):
    """``tavily_extract``: ``{results[{url, raw_content, images}], failed_results[{url, error}],
    response_time}`` for the URLs, each read through ``web_extractor`` in the search session."""

    name: str = "tavily_extract"
    description: str = (
        "Extracts comprehensive content from web pages based on provided URLs. "
        "This tool retrieves raw text of a web page, with an option to include images. "
        "It supports two extraction depths: 'basic' for standard text extraction and "
        "'advanced' for a more comprehensive extraction with higher success rate. "
        "Ideal for use cases such as content curation, data ingestion for NLP models, "
        "and automated information retrieval, this endpoint seamlessly integrates into "
        "your content processing pipeline. Input should be a list of one or more URLs."
    )
    args_schema: type[BaseModel] = TavilyExtractInput

    extract_depth: Literal["basic", "advanced"] | None = None
    include_images: bool | None = None
    format: str | None = None
    include_favicon: bool | None = None
    include_usage: bool | None = None
    query: str | None = None
    chunks_per_source: int | None = None

    option_fields: ClassVar[tuple[str, ...]] = (
        "extract_depth",
        "include_images",
        "format",
        "include_favicon",
        "include_usage",
        "query",
        "chunks_per_source",
    )

    def flow(self, arguments: dict[str, Any]) -> Flow:
        refused = _init_only("TavilyExtract", arguments, ("include_usage", "include_favicon", "format"))
        if refused:
            return refused
        urls = arguments.get("urls")
        body = self._body(arguments, self.option_fields)
        try:
            response = yield from tavily_extract_flow(validate_tavily_extract(body))
        except SearchAPIError as exc:
            return {"error": ValueError(f"Error {exc.status}: {exc.message}")}
        results, failed = response["results"], response["failed_results"]
        if not results or len(failed) == len(urls or ()):
            depth = arguments.get("extract_depth")
            suggestions = (
                ["Try a more detailed extraction using 'advanced' extract_depth"] if depth == "basic" else []
            )
            raise ToolException(
                f"No extracted results found for '{urls}'. Suggestions: {', '.join(suggestions)}. "
                "Try modifying your extract parameters with one of these approaches."
            )
        return response


_CATEGORIES = Literal[
    "Careers", "Blogs", "Documentation", "About", "Pricing", "Community", "Developers", "Contact", "Media"
]


class TavilyMapInput(BaseModel):
    """The arguments of ``tavily_map`` (langchain-tavily)."""

    model_config = ConfigDict(extra="allow")

    url: str = Field(description="The root URL to begin the mapping.")
    max_depth: int | None = Field(default=1, description="How many link hops from the root URL to follow.")
    max_breadth: int | None = Field(default=20, description="Max number of links to follow per page.")
    limit: int | None = Field(default=50, description="Total number of links to process before stopping.")
    instructions: str | None = Field(default=None, description="Natural language instructions.")
    select_paths: list[str] | None = Field(default=None, description="Regexes of the paths to keep.")
    select_domains: list[str] | None = Field(default=None, description="Regexes of the domains to keep.")
    exclude_paths: list[str] | None = Field(default=None, description="Regexes of the paths to leave out.")
    exclude_domains: list[str] | None = Field(
        default=None, description="Regexes of the domains to leave out."
    )
    allow_external: bool | None = Field(default=False, description="Follow links to other sites.")
    categories: list[_CATEGORIES] | None = Field(default=None, description="Site sections to focus on.")


class TavilyCrawlInput(TavilyMapInput):
    """The arguments of ``tavily_crawl`` (langchain-tavily): the map's, plus what a page returns."""

    url: str = Field(description="The root URL to begin the crawl.")
    include_images: bool | None = Field(default=False, description="Include images in the crawl results.")
    extract_depth: Literal["basic", "advanced"] | None = Field(
        default="basic", description="'advanced' retrieves tables and embedded content too."
    )


_WALK_FIELDS = (
    "max_depth",
    "max_breadth",
    "limit",
    "instructions",
    "select_paths",
    "select_domains",
    "exclude_paths",
    "exclude_domains",
    "allow_external",
    "categories",
)


def _walk_suggestions(arguments: dict[str, Any], instructions_hint: str) -> list[str]:
    out = [instructions_hint] if arguments.get("instructions") else []
    for key in ("select_paths", "select_domains", "exclude_paths", "exclude_domains", "categories"):
        if arguments.get(key):
            out.append(f"Remove {key} argument")
    return out


class TavilyMap(_TavilyPageTool):
    """``tavily_map``: ``{base_url, results: [url, ...], response_time}``, the pages reached from
    ``url`` by following each page's links (breadth-first, ``max_depth`` hops)."""

    name: str = "tavily_map"
    description: str = (
        '"A powerful web mapping tool that creates a structured map of website URLs, allowing \n'
        "        you to discover and analyze site structure, content organization, and navigation paths. \n"
        "        Perfect for site audits, content discovery, and understanding website architecture.\n"
        "        "
    )
    args_schema: type[BaseModel] = TavilyMapInput

    max_depth: int | None = None
    max_breadth: int | None = None
    limit: int | None = None
    instructions: str | None = None
    select_paths: list[str] | None = None
    select_domains: list[str] | None = None
    exclude_paths: list[str] | None = None
    exclude_domains: list[str] | None = None
    allow_external: bool | None = None
    categories: list[str] | None = None
    include_usage: bool | None = None

    option_fields: ClassVar[tuple[str, ...]] = (*_WALK_FIELDS, "include_usage")
    walk_kind: ClassVar[str] = "map"
    forbidden: ClassVar[tuple[str, ...]] = ("include_usage",)
    instructions_hint: ClassVar[str] = "Try a more consice instructions"

    def flow(self, arguments: dict[str, Any]) -> Flow:
        cls = "TavilyMap" if self.walk_kind == "map" else "TavilyCrawl"
        refused = _init_only(cls, arguments, self.forbidden)
        if refused:
            return refused
        body = self._body(arguments, self.option_fields)
        try:
            response = yield from tavily_crawl_flow(validate_tavily_crawl(body, self.walk_kind))
        except SearchAPIError as exc:
            return {"error": ValueError(f"Error {exc.status}: {exc.message}")}
        if not response["results"]:
            suggestions = _walk_suggestions(arguments, self.instructions_hint)
            raise ToolException(
                f"No crawl results found for '{arguments.get('url')}'. "
                f"Suggestions: {', '.join(suggestions)}. "
                "Try modifying your crawl parameters with one of these approaches."
            )
        return response


class TavilyCrawl(TavilyMap):
    """``tavily_crawl``: ``{base_url, results[{url, raw_content}], response_time}``, each page
    reached from ``url`` with its text."""

    name: str = "tavily_crawl"
    description: str = (
        "A powerful web crawler that initiates a structured web crawl starting from a specified \n"
        "        base URL. The crawler uses a BFS Depth: refering to the number of link hops from the "
        "root URL. \n"
        "        A page directly linked from the root is at BFS depth 1, regardless of its URL structure.\n"
        "        You can control how deep and wide it goes, and guide it to focus on specific sections "
        "of the site.\n"
        "        "
    )
    args_schema: type[BaseModel] = TavilyCrawlInput

    include_images: bool | None = None
    extract_depth: Literal["basic", "advanced"] | None = None
    format: str | None = None
    include_favicon: bool | None = None
    chunks_per_source: int | None = None

    option_fields: ClassVar[tuple[str, ...]] = (
        *_WALK_FIELDS,
        "include_images",
        "extract_depth",
        "format",
        "include_favicon",
        "include_usage",
    )
    walk_kind: ClassVar[str] = "crawl"
    forbidden: ClassVar[tuple[str, ...]] = ("include_usage", "include_favicon", "format")
    instructions_hint: ClassVar[str] = "Try more consice instructions"


#: names of ``fetch``-like tools: given a ``url`` argument, they return the page's text
FETCH_TOOL_NAMES = (
    "fetch",
    "fetch_url",
    "fetch_page",
    "fetch_webpage",
    "web_fetch",
    "read_url",
    "read_webpage",
    "get_webpage",
    "scrape_webpage",
    "browse_url",
)
_URL_ARGS = ("url", "urls", "link", "href", "uri")


def is_fetch_like(name: str, properties: Any) -> bool:
    """Whether a tool called ``name`` with these argument ``properties`` fetches pages by URL."""
    return (
        name in FETCH_TOOL_NAMES and isinstance(properties, dict) and any(k in properties for k in _URL_ARGS)
    )


class FetchInput(BaseModel):
    url: str = Field(description="The URL of the page to fetch.")


class FetchPage(_SearchTool):
    """A ``fetch``-like tool: the page at ``url`` as text (a ``urls`` list gets Tavily's extract
    form, ``{results, failed_results}``); an unknown page is the tool's error."""

    name: str = "fetch"
    description: str = "Fetches a URL from the internet and returns its contents as text."
    args_schema: type[BaseModel] = FetchInput

    def flow(self, arguments: dict[str, Any]) -> Flow:
        many = arguments.get("urls")
        if isinstance(many, list):
            return (yield from tavily_extract_flow(validate_tavily_extract({"urls": many})))
        url = next((arguments[k] for k in _URL_ARGS if isinstance(arguments.get(k), str)), None)
        if not url or not url.strip():
            raise ToolException("Error: a URL is required.")
        page = yield extract_action(url.strip())
        if page.is_error:
            raise ToolException(page.text)
        return page.text

    def _run(self, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any) -> Any:
        return self.call(kwargs)

    async def _arun(self, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any) -> Any:
        return await self.acall(kwargs)


#: the classes :mod:`.tools` adds to the simulated search tools
EXTRACT_TOOL_CLASSES: tuple[type[_SearchTool], ...] = (TavilyExtract, TavilyCrawl, TavilyMap)
