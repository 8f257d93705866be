"""Page tools (#28): langchain-tavily's TavilyExtract, TavilyCrawl and TavilyMap and fetch-like
tools, substituted by ``simulate_tools`` and the middleware, read the pages the search returned;
JSON-schema tools take 1.0 for an integer as jsonschema does."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from agentworld_plugins.adapters.langchain import WorldModelToolMiddleware, simulate_tools
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, tool

from agentworld_plugins import World

langchain_tavily = pytest.importorskip("langchain_tavily", reason="langchain-tavily is in the dev extra")
from test_langchain import script  # noqa: E402  (the scripted chat model of the LangChain tests)


@pytest.fixture
def offline() -> World:
    return World(backend="offline")


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text))


@tool
def fetch(url: str) -> str:
    """Fetch a web page."""
    raise AssertionError("the real fetch must not run")


def test_substituted_extract_reads_every_url_the_search_returned(offline: World) -> None:
    real = [
        langchain_tavily.TavilySearch(max_results=5, tavily_api_key="tvly-x"),
        langchain_tavily.TavilyExtract(tavily_api_key="tvly-x"),
        fetch,
    ]
    search, extract, fetcher = simulate_tools(real, world=offline)
    hits = search.invoke({"query": "python error"})["results"]
    assert len(hits) >= 2
    # scores mean something: in (0, 1], best first
    assert all(0 < h["score"] <= 1 for h in hits) and hits == sorted(hits, key=lambda h: -h["score"])
    pages = extract.invoke({"urls": [h["url"] for h in hits] + ["https://nowhere.example/x"]})
    assert set(pages) >= {"results", "failed_results"}
    assert [p["url"] for p in pages["results"]] == [h["url"] for h in hits]
    assert pages["failed_results"][0]["url"] == "https://nowhere.example/x"
    for hit, page in zip(hits, pages["results"]):
        assert _words(hit["content"])[:60] in _words(page["raw_content"])
    # a fetch-like tool reads the same page as text
    assert _words(fetcher.invoke({"url": hits[0]["url"]})) == _words(pages["results"][0]["raw_content"])
    # nothing readable: langchain-tavily's own message (returned, handle_tool_error=True)
    missing = extract.invoke({"urls": ["https://nowhere.example/x"]})
    assert isinstance(missing, str) and missing.startswith("No extracted results found for")
    # a parameter only the constructor may set is refused as langchain-tavily refuses it
    refused = extract.invoke({"urls": [hits[0]["url"]], "format": "text"})
    assert isinstance(refused["error"], ValueError) and "instantiation" in str(refused["error"])


def test_substituted_crawl_and_map_walk_the_site(offline: World) -> None:
    crawl, mapper = simulate_tools(
        [langchain_tavily.TavilyCrawl(tavily_api_key="x"), langchain_tavily.TavilyMap(tavily_api_key="x")],
        world=offline,
    )
    crawled = crawl.invoke({"url": "https://gitfield.dev", "limit": 4})
    assert crawled["base_url"] == "https://gitfield.dev" and len(crawled["results"]) == 4
    assert all(r["url"].startswith("https://gitfield.dev") and r["raw_content"] for r in crawled["results"])
    mapped = mapper.invoke({"url": "https://pyref.dev", "select_paths": ["/guide/.*"]})
    assert "https://pyref.dev/guide/list-comprehensions" in mapped["results"]
    assert all("/guide/" in u for u in mapped["results"])
    nothing = mapper.invoke({"url": "https://nowhere.example"})
    assert isinstance(nothing, str) and nothing.startswith("No crawl results found for")


def test_middleware_answers_extract_with_the_searched_page(offline: World) -> None:
    search = langchain_tavily.TavilySearch(max_results=1, tavily_api_key="tvly-x")
    extract = langchain_tavily.TavilyExtract(tavily_api_key="tvly-x")
    url = "https://openencyclopedia.org/wiki/Penicillin"
    agent = create_agent(
        script(
            ("tavily_search", {"query": "who discovered penicillin"}), ("tavily_extract", {"urls": [url]})
        ),
        tools=[search, extract],
        middleware=[WorldModelToolMiddleware(world=offline)],
    )
    messages = [
        m for m in agent.invoke({"messages": [("user", "go")]})["messages"] if isinstance(m, ToolMessage)
    ]
    found, read = (json.loads(str(m.content)) for m in messages)
    assert found["results"][0]["url"] == url
    assert read["results"][0]["url"] == url and "Alexander Fleming" in read["results"][0]["raw_content"]
    assert read["failed_results"] == []


def test_json_schema_tools_take_a_whole_float_for_an_integer(offline: World) -> None:
    import jsonschema

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    real = StructuredTool(name="take", description="Take n.", args_schema=schema, func=lambda **kw: "x")
    (sim,) = simulate_tools([real], world=offline)
    for value in (1.0, 1, 1.5, "1"):
        valid = jsonschema.Draft202012Validator(schema).is_valid({"n": value})
        answer: Any = sim.invoke({"n": value})
        refused = isinstance(answer, str) and "Input should be a valid integer" in answer
        assert refused is (not valid), (value, answer)
