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
    from agentworld_plugins.adapters.search import TavilySearch
    tool = TavilySearch(max_results=3)

Tools made together by :func:`search_tools` share one search session, so a URL found by one is
extracted consistently by another. ``world_bible`` (text or a file) makes the web fictional:
results agree with its facts.

The package: :mod:`.hits` reads observations as hits, :mod:`.flows` drives the search-domain
calls, :mod:`.providers` validates and answers the Tavily, Serper, Brave and DuckDuckGo
requests, :mod:`.tools` holds the LangChain tools and :mod:`.api` the HTTP API (which does not
import LangChain). The tool classes load LangChain on first use of their names here.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .flows import SearchAPIError, arun_flow, run_flow
from .hits import Hit, parse_hits
from .providers import (
    serper_search_flow,
    tavily_extract_flow,
    tavily_search_flow,
    validate_serper,
    validate_tavily_extract,
    validate_tavily_search,
)

#: the names :mod:`.tools` defines; importing them here loads LangChain, so it waits for their use
_TOOLS_NAMES = (
    "SEARCH_TOOL_NAMES",
    "BraveSearch",
    "DictMemory",
    "DuckDuckGoSearchResults",
    "DuckDuckGoSearchRun",
    "GoogleSerperResults",
    "GoogleSerperRun",
    "TavilySearch",
    "WebExtractor",
    "WebSearch",
    "search_tool_class",
    "search_tools",
)

__all__ = [
    "Hit",
    "SearchAPIError",
    "arun_flow",
    "parse_hits",
    "run_flow",
    "serper_search_flow",
    "tavily_extract_flow",
    "tavily_search_flow",
    "validate_serper",
    "validate_tavily_extract",
    "validate_tavily_search",
    *_TOOLS_NAMES,
]


def __getattr__(name: str) -> Any:
    """The tool classes and any other public name the package's modules define, on first use."""
    if not name.startswith("_"):
        modules = ("flows", "providers", "tools") if name not in _TOOLS_NAMES else ("tools",)
        for module_name in modules:
            module = import_module(f"{__name__}.{module_name}")
            if hasattr(module, name):
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
