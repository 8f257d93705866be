"""The simulated LangChain search tools: schemas of the real tools, their result shapes, their
errors, search/extract consistency and fictional worlds, on the offline search world."""

from __future__ import annotations

import ast
import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from agentworld_plugins.adapters.langchain import SimulatedTool, simulate_tools
from agentworld_plugins.adapters.search import (
    SEARCH_TOOL_NAMES,
    DuckDuckGoSearchResults,
    TavilySearch,
    TavilySearchInput,
    parse_hits,
    search_tools,
)
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ValidationError

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.domains.search import SEARCH_TOOLS
from agentworld_plugins.errors import UnknownNameError

REFERENCE = json.loads((Path(__file__).parent / "data" / "search_tool_schemas.json").read_text())
SOURDOUGH = "https://kitchenledger.com/recipes/country-sourdough-loaf"
HALVORSEN = "https://halvorsen-instruments.com/about/history"

BIBLE = """# Estria
Estria is a small island republic in the Corvan Sea. Its capital is Vornholm.

# Vornholm Lighthouse
The Vornholm Lighthouse was built in 1872 by the engineer Maren Tolle and is painted cobalt blue.
"""


@pytest.fixture
def tools() -> dict[str, Any]:
    return {t.name: t for t in search_tools(world=World(backend="offline"))}


def _without_argument_descriptions(function: dict[str, Any]) -> dict[str, Any]:
    function = json.loads(json.dumps(function))
    for prop in function["parameters"].get("properties", {}).values():
        prop.pop("description", None)
    return function


@pytest.mark.parametrize("name", [n for n in REFERENCE if not n.startswith("_")])
def test_schemas_match_the_real_tools(tools: dict[str, Any], name: str) -> None:
    expected = REFERENCE[name]
    function = _without_argument_descriptions(convert_to_openai_tool(tools[name])["function"])
    assert function == {
        "name": name,
        "description": expected["description"],
        "parameters": expected["parameters"],
    }
    assert tools[name].response_format == expected["response_format"]
    assert tools[name].return_direct == expected["return_direct"]


def test_native_tools_use_the_search_domains_definitions(tools: dict[str, Any]) -> None:
    for definition in SEARCH_TOOLS:
        function = convert_to_openai_tool(tools[definition["name"]])["function"]
        assert function["description"] == definition["description"]
        assert function["parameters"]["properties"] == definition["inputSchema"]["properties"]


def test_tools_made_together_share_one_session(tools: dict[str, Any]) -> None:
    assert list(tools) == list(SEARCH_TOOL_NAMES)
    assert len({id(t.group) for t in tools.values()}) == 1
    with pytest.raises(UnknownNameError):
        search_tools(["bing_search"])


# -- tavily_search ---------------------------------------------------------------------------------


def test_tavily_result_shape(tools: dict[str, Any]) -> None:
    result = tools["tavily_search"].invoke({"query": "sourdough starter feeding ratio"})
    assert set(result) == {"query", "follow_up_questions", "answer", "images", "results", "response_time"}
    assert result["query"] == "sourdough starter feeding ratio"
    assert result["images"] == [] and result["answer"] is None
    assert isinstance(result["response_time"], float)
    first = result["results"][0]
    assert set(first) == {"url", "title", "content", "score", "raw_content"}
    assert first["url"] == SOURDOUGH and "starter" in first["content"].lower()
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    again = tools["tavily_search"].invoke({"query": "sourdough starter feeding ratio"})
    assert again == result  # reproducible, response_time included


def test_tavily_options_and_filters() -> None:
    world = World(backend="offline")
    (tool,) = search_tools(["tavily_search"], world=world, max_results=2, include_answer=True)
    result = tool.invoke({"query": "python error", "exclude_domains": ["pyref.dev"]})
    assert 1 <= len(result["results"]) <= 2
    assert all("pyref.dev" not in r["url"] for r in result["results"])
    assert isinstance(result["answer"], str) and result["answer"]
    only = tool.invoke({"query": "sourdough starter", "include_domains": ["kitchenledger.com"]})
    assert [r["url"] for r in only["results"]] == [SOURDOUGH]

    (raw,) = search_tools(["tavily_search"], world=world, include_raw_content=True, max_results=1)
    page = raw.invoke({"query": "sourdough starter"})["results"][0]
    assert page["raw_content"].startswith("Country sourdough loaf")


def test_tavily_errors_are_the_real_tools(tools: dict[str, Any]) -> None:
    tavily = tools["tavily_search"]
    empty = tavily.invoke({"query": "  "})
    assert set(empty) == {"error"} and str(empty["error"]) == "Error 400: Query is missing."
    late = tavily.invoke({"query": "sourdough", "max_results": 3})
    assert "can only be set during instantiation" in str(late["error"])
    nothing = tavily.invoke(
        {"args": {"query": "qqzzxv wyxvq"}, "id": "1", "name": "tavily_search", "type": "tool_call"}
    )
    assert isinstance(nothing, ToolMessage) and nothing.status == "error"
    assert nothing.content.startswith("No search results found for 'qqzzxv wyxvq'. Suggestions: ")
    with pytest.raises(ValidationError):
        tavily.invoke({"query": "x", "topic": "sports"})
    with pytest.raises(ValidationError):
        tavily.invoke({"query": "x", "search_depth": "deep"})


# -- the other search APIs -------------------------------------------------------------------------


def test_duckduckgo_shapes(tools: dict[str, Any]) -> None:
    text = tools["duckduckgo_search"].invoke({"query": "sourdough starter"})
    assert isinstance(text, str) and "starter" in text.lower()
    message = tools["duckduckgo_results_json"].invoke(
        {
            "args": {"query": "sourdough starter"},
            "id": "1",
            "name": "duckduckgo_results_json",
            "type": "tool_call",
        }
    )
    assert message.content.startswith("snippet: ") and f"link: {SOURDOUGH}" in message.content
    assert [set(r) for r in message.artifact] == [{"snippet", "title", "link"}] * len(message.artifact)
    assert 1 <= len(message.artifact) <= 4

    as_json = DuckDuckGoSearchResults(output_format="json", num_results=2, group=tools["tavily_search"].group)
    rows = json.loads(as_json.invoke({"query": "coffee ratio"}))
    assert 1 <= len(rows) <= 2 and set(rows[0]) == {"snippet", "title", "link"}
    assert (
        tools["duckduckgo_search"].invoke({"query": "qqzzxv wyxvq"})
        == "No good DuckDuckGo Search Result was found"
    )


def test_brave_shape(tools: dict[str, Any]) -> None:
    rows = json.loads(tools["brave_search"].invoke({"query": "chmod octal permission bits"}))
    assert rows[0]["link"] == "https://shellcraft.dev/articles/chmod-and-file-permissions"
    assert all(set(r) == {"title", "link", "snippet"} for r in rows)


def test_serper_shapes(tools: dict[str, Any]) -> None:
    answer = tools["google_serper"].invoke({"query": "when was Halvorsen Instruments founded"})
    assert "founded in 1931" in answer
    raw = tools["google_serper_results_json"].invoke({"query": "Halvorsen Instruments"})
    results = ast.literal_eval(raw)  # the real tool returns str(dict)
    assert list(results) == ["searchParameters", "knowledgeGraph", "organic", "credits"]
    assert results["searchParameters"] == {
        "q": "Halvorsen Instruments",
        "gl": "us",
        "hl": "en",
        "type": "search",
        "num": 10,
        "engine": "google",
    }
    assert results["knowledgeGraph"]["title"] == "Halvorsen Instruments"
    first = results["organic"][0]
    assert (
        first["link"] == HALVORSEN
        and first["position"] == 1
        and re.match(r"\d{4}-\d{2}-\d{2}", first["date"])
    )
    assert set(first) <= {"title", "link", "snippet", "date", "position"}
    question = ast.literal_eval(
        tools["google_serper_results_json"].invoke({"query": "who founded Halvorsen Instruments?"})
    )
    assert question["answerBox"]["link"] == HALVORSEN


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("duckduckgo_search", "query is mandatory."),
        ("duckduckgo_results_json", "query is mandatory."),
        ("brave_search", "HTTP error 422"),
        (
            "google_serper",
            "400 Client Error: Bad Request for url: https://google.serper.dev/search?q=&gl=us&hl=en&num=10",
        ),
        ("google_serper_results_json", "400 Client Error: Bad Request"),
    ],
)
def test_an_empty_query_gets_the_real_apis_error(tools: dict[str, Any], name: str, error: str) -> None:
    message = tools[name].invoke({"args": {"query": ""}, "id": "1", "name": name, "type": "tool_call"})
    assert message.status == "error" and message.content.startswith(error)
    assert tools[name].group.sessions == {} or tools[name].group.session("search").trajectory.turns == []


# -- the world model's own tools -------------------------------------------------------------------


def test_native_tools(tools: dict[str, Any]) -> None:
    hits = parse_hits(tools["web_search"].invoke({"queries": ["sourdough starter", "chmod octal"]}))
    assert {h.url for h in hits} >= {SOURDOUGH, "https://shellcraft.dev/articles/chmod-and-file-permissions"}
    assert tools["dict_memory"].invoke({"operation": "add", "key": "k", "value": "v"}) == "Added key 'k'."
    assert tools["dict_memory"].invoke({"operation": "retrieve", "key": "k"}) == "v"
    assert (
        tools["dict_memory"].invoke({"operation": "explode"}).startswith("Error calling tool 'dict_memory'")
    )
    assert (
        tools["web_extractor"]
        .invoke({"url": "https://nowhere.example/x"})
        .startswith("Error: Failed to fetch")
    )
    assert tools["web_search"].invoke({}).startswith("Error")


def test_search_then_extract_is_consistent(tools: dict[str, Any]) -> None:
    first = tools["tavily_search"].invoke({"query": "when was Halvorsen Instruments founded"})["results"][0]
    page = tools["web_extractor"].invoke({"url": first["url"]})
    snippet = first["content"].strip(".").strip()
    for sentence in re.split(r"(?<=\.)\s+", snippet)[:3]:
        assert sentence.rstrip(".") in page
    session = tools["web_extractor"].group.session("search")
    assert [t.action["name"] for t in session.trajectory.turns] == ["web_search", "web_extractor"]


def test_a_world_bible_makes_a_fictional_web() -> None:
    tools = {t.name: t for t in search_tools(world=World(backend="offline"), world_bible=BIBLE)}
    result = tools["tavily_search"].invoke({"query": "who built the Vornholm lighthouse"})
    assert "Maren Tolle" in result["results"][0]["content"]
    assert "Vornholm" in tools["google_serper"].invoke({"query": "capital of Estria"})


def test_async_tools(tools: dict[str, Any]) -> None:
    async def go() -> tuple[dict[str, Any], str]:
        found = await tools["tavily_search"].ainvoke({"query": "sourdough starter"})
        page = await tools["web_extractor"].ainvoke({"url": found["results"][0]["url"]})
        return found, page

    found, page = asyncio.run(go())
    assert found["results"][0]["url"] == SOURDOUGH and page.startswith("Country sourdough loaf")


# -- a world model's output, and substitution of real search tools ----------------------------------


def test_a_models_looser_output_is_parsed() -> None:
    observation = (
        'Results for query: "estria"\n'
        "[1] **https://www.estria.gov/about**\n"
        "**Title:** About Estria\n"
        "**Snippet:** Estria is an island republic.\n"
        "Its capital is Vornholm.\n"
        "Date: 2024-05-01\n\n"
        "[2] Estria travel guide\n"
        "URL: https://travel.example/estria\n"
        "Snippet: Ferries leave daily."
    )
    backend = FakeBackend().enqueue(f"<predicted_observation>{observation}</predicted_observation>")
    (tool,) = search_tools(["tavily_search"], world=World(backend=backend))
    results = tool.invoke({"query": "estria", "include_domains": ["estria.gov"]})["results"]
    assert results == [
        {
            "url": "https://www.estria.gov/about",
            "title": "About Estria",
            "content": "Estria is an island republic. Its capital is Vornholm.",
            "score": 0.93,
            "raw_content": None,
        }
    ]
    hits = parse_hits(observation)
    assert [(h.position, h.url, h.title, h.date) for h in hits] == [
        (1, "https://www.estria.gov/about", "About Estria", "2024-05-01"),
        (2, "https://travel.example/estria", "Estria travel guide", None),
    ]
    turn = backend.history[0][0][-1]["content"]
    assert '"name": "web_search"' in turn and '"query": "estria"' in turn


def test_simulate_tools_keeps_a_real_search_tools_interface_and_shape() -> None:
    # a user's own tool named like Tavily's, with its argument schema
    own = StructuredTool.from_function(
        func=lambda **kw: {"results": []},
        name="tavily_search",
        description="My Tavily.",
        args_schema=TavilySearchInput,
    )
    (sim,) = simulate_tools([own], world=World(backend="offline"))
    assert isinstance(sim, SimulatedTool) and sim.search_twin is not None
    assert convert_to_openai_tool(sim) == convert_to_openai_tool(own)
    assert sim.invoke({"query": "sourdough starter"})["results"][0]["url"] == SOURDOUGH
    assert sim.session.domain.name == "search"

    configured = TavilySearch(max_results=1)  # options of the real tool carry over
    (sim,) = simulate_tools([configured], world=World(backend="offline"))
    assert len(sim.invoke({"query": "coffee"})["results"]) == 1

    (plain,) = simulate_tools([own], world=World(backend="offline"), search=False)
    assert plain.search_twin is None and plain.session.domain.name == "mcp"
