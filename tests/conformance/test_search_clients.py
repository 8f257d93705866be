"""Search clients, unchanged, against ``agentworld search serve`` on 127.0.0.1: tavily-python,
langchain-tavily, and langchain-community's Brave wrapper (base URL), Serper and DuckDuckGo
(whose endpoints cannot be configured: their parsers read our responses, and our stand-in tools
carry the same name and argument schema)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
import requests
from agentworld_plugins.adapters import search
from agentworld_plugins.adapters.search.api import create_search_app
from conformance_support import served
from langchain_core.utils.function_calling import convert_to_openai_tool

from agentworld_plugins import World

tavily = pytest.importorskip("tavily", reason="tavily-python is in the dev extra")
pytestmark = pytest.mark.filterwarnings("ignore:.*langchain-community.*:DeprecationWarning")


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with World(backend="offline") as world, served(create_search_app(world)) as url:
        yield url


def test_tavily_python(base: str) -> None:
    client = tavily.TavilyClient(api_key="tvly-any", api_base_url=base)
    found = client.search("sourdough starter feeding", max_results=3, include_answer=True)
    assert {"query", "results", "answer", "response_time"} <= set(found)
    assert 0 < len(found["results"]) <= 3
    assert {"title", "url", "content", "score"} <= set(found["results"][0])
    url = found["results"][0]["url"]
    extracted = client.extract([url])
    assert extracted["results"][0]["url"] == url and extracted["results"][0]["raw_content"]
    # every URL the search returned reads back, consistent with its hit; an unknown one fails
    hits = client.search("python error", max_results=5)["results"]
    read = client.extract([h["url"] for h in hits] + ["https://nowhere.example/page"])
    assert [r["url"] for r in read["results"]] == [h["url"] for h in hits]
    assert [f["url"] for f in read["failed_results"]] == ["https://nowhere.example/page"]
    for hit, page in zip(hits, read["results"]):  # the snippet is a passage of the page
        words = " ".join(re.findall(r"\w+", hit["content"])[:8])
        assert words in " ".join(re.findall(r"\w+", page["raw_content"])), (hit, page)
    # crawl and map walk the site from its root, following each page's links
    crawled = client.crawl("https://kitchenledger.com", max_depth=1)
    assert crawled["base_url"] == "https://kitchenledger.com"
    urls = [r["url"] for r in crawled["results"]]
    assert "https://kitchenledger.com/recipes/country-sourdough-loaf" in urls
    assert all(r["raw_content"] for r in crawled["results"])
    mapped = client.map("https://pyref.dev", select_paths=["/errors/.*"])
    assert mapped["results"] and all("/errors/" in u for u in mapped["results"])
    assert "https://pyref.dev/errors/keyerror" in mapped["results"]
    with pytest.raises(tavily.BadRequestError, match="max_depth"):
        client.crawl("https://pyref.dev", max_depth=9)


def test_langchain_tavily(base: str) -> None:
    from langchain_tavily import TavilyExtract, TavilySearch

    search = TavilySearch(max_results=2, tavily_api_key="tvly-any", api_base_url=base)
    found = search.invoke({"query": "lighthouse history"})
    assert isinstance(found, dict) and len(found["results"]) <= 2 and found["results"]
    extract = TavilyExtract(tavily_api_key="tvly-any", api_base_url=base)
    page = extract.invoke({"urls": [found["results"][0]["url"]]})
    assert page["results"][0]["raw_content"]
    from langchain_tavily import TavilyCrawl, TavilyMap

    crawl = TavilyCrawl(tavily_api_key="tvly-any", api_base_url=base)
    assert crawl.invoke({"url": "https://gitfield.dev", "limit": 3})["results"]
    mapped = TavilyMap(tavily_api_key="tvly-any", api_base_url=base).invoke({"url": "https://gitfield.dev"})
    assert "https://gitfield.dev/guides/stash" in mapped["results"]


def test_brave_refuses_long_queries_as_brave_does(base: str) -> None:
    url = f"{base}/res/v1/web/search"
    for q in ("x" * 401, " ".join(["word"] * 51)):
        response = requests.get(url, params={"q": q}, headers={"X-Subscription-Token": "any"}, timeout=60)
        assert response.status_code == 422
        body = response.json()
        assert body["type"] == "ErrorResponse" and body["error"]["code"] == "VALIDATION"
        assert body["error"]["meta"]["errors"][0]["loc"] == ["query", "q"]
    ok = requests.get(url, params={"q": "x" * 400}, headers={"X-Subscription-Token": "any"}, timeout=60)
    assert ok.status_code == 200


def test_langchain_community_brave(base: str) -> None:
    from langchain_community.tools import BraveSearch
    from langchain_community.utilities.brave_search import BraveSearchWrapper

    tool = BraveSearch(search_wrapper=BraveSearchWrapper(api_key="any", base_url=f"{base}/res/v1/web/search"))
    hits = json.loads(tool.invoke({"query": "sourdough"}))
    assert hits and {"title", "link", "snippet"} <= set(hits[0])
    assert hits[0]["link"].startswith("http")


def test_langchain_community_serper_parses_our_answer(base: str) -> None:
    """GoogleSerperAPIWrapper posts to a fixed https://google.serper.dev URL: its request is sent
    here as it builds it (parameters in the query string, X-API-KEY), and its own parser reads it."""
    from langchain_community.tools.google_serper import GoogleSerperResults, GoogleSerperRun
    from langchain_community.utilities.google_serper import GoogleSerperAPIWrapper

    wrapper = GoogleSerperAPIWrapper(serper_api_key="any", k=3)
    response = requests.post(
        f"{base}/search",
        headers={"X-API-KEY": "any", "Content-Type": "application/json"},
        params={"q": "sourdough", "gl": wrapper.gl, "hl": wrapper.hl, "num": wrapper.k},
        timeout=60,
    )
    response.raise_for_status()
    answer = wrapper._parse_results(response.json())
    assert answer and answer != "No good Google Search Result was found"
    # the stand-ins an agent swaps in look exactly like the real tools to the model
    for real, ours in (
        (GoogleSerperRun(api_wrapper=wrapper), search.GoogleSerperRun()),
        (GoogleSerperResults(api_wrapper=wrapper), search.GoogleSerperResults()),
    ):
        assert convert_to_openai_tool(ours) == convert_to_openai_tool(real)


def test_langchain_community_duckduckgo_stand_ins_match() -> None:
    """DuckDuckGo has no endpoint to point anywhere: the stand-in tools replace it, same schema."""
    from langchain_community.tools import DuckDuckGoSearchResults, DuckDuckGoSearchRun
    from langchain_community.utilities.duckduckgo_search import DuckDuckGoSearchAPIWrapper

    wrapper = DuckDuckGoSearchAPIWrapper.model_construct()  # its validator wants the ddgs package
    for real, ours in (
        (DuckDuckGoSearchRun(api_wrapper=wrapper), search.DuckDuckGoSearchRun()),
        (DuckDuckGoSearchResults(api_wrapper=wrapper), search.DuckDuckGoSearchResults()),
    ):
        assert convert_to_openai_tool(ours) == convert_to_openai_tool(real)
    assert search.DuckDuckGoSearchRun().invoke({"query": "sourdough"}).strip()
