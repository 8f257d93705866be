"""The impersonated search APIs: tavily-python and plain HTTP against a real server on 127.0.0.1,
Serper's and Brave's documented keys, errors in each API's own shape, sessions, and the CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from agentworld_plugins.adapters.search.api import create_search_app
from click.testing import CliRunner
from starlette.testclient import TestClient

from agentworld_plugins import Observation, World, hookimpl
from agentworld_plugins.cli import cli
from agentworld_plugins.http_guard import serving

tavily = pytest.importorskip("tavily")

SOURDOUGH = "https://kitchenledger.com/recipes/country-sourdough-loaf"
HALVORSEN = "https://halvorsen-instruments.com/about/history"
BIBLE = "# Vornholm Lighthouse\nThe Vornholm Lighthouse was built in 1872 by the engineer Maren Tolle.\n"


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The app behind uvicorn in a thread, as ``agentworld search serve`` runs it."""
    with serving(create_search_app(World(backend="offline"), api_key="sk-test")) as base:
        yield base


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_search_app(World(backend="offline")))


# -- Tavily ----------------------------------------------------------------------------------------


def test_tavily_python_client_searches_and_extracts(served: str) -> None:
    client = tavily.TavilyClient(api_key="sk-test", api_base_url=served)
    found = client.search("sourdough starter feeding ratio", max_results=3, include_answer=True)
    assert {"query", "results", "answer", "images", "response_time"} <= set(found)
    assert found["results"][0]["url"] == SOURDOUGH
    assert set(found["results"][0]) == {"url", "title", "content", "score", "raw_content"}
    assert len(found["results"]) <= 3 and found["answer"]
    extracted = client.extract([SOURDOUGH, "https://nowhere.example/page"])
    assert [r["url"] for r in extracted["results"]] == [SOURDOUGH]
    assert extracted["results"][0]["raw_content"].startswith("Country sourdough loaf")
    assert extracted["failed_results"][0]["url"] == "https://nowhere.example/page"


def test_tavily_python_client_gets_the_apis_errors(served: str) -> None:
    client = tavily.TavilyClient(api_key="sk-test", api_base_url=served)
    with pytest.raises(tavily.BadRequestError, match="Query is missing"):
        client.search("")
    with pytest.raises(tavily.BadRequestError, match="Invalid topic 'sports'"):
        client.search("sourdough", topic="sports")
    with pytest.raises(tavily.BadRequestError, match="Invalid search_depth"):
        client.search("sourdough", search_depth="deep")
    with pytest.raises(tavily.BadRequestError, match="max_results"):
        client.search("sourdough", max_results=50)
    with pytest.raises(tavily.BadRequestError, match="No URLs provided"):
        client.extract([])
    with pytest.raises(tavily.InvalidAPIKeyError):
        tavily.TavilyClient(api_key="wrong", api_base_url=served).search("sourdough")


def test_tavily_error_body_and_bad_json(client: TestClient) -> None:
    answer = client.post(
        "/search", json={"query": "x", "time_range": "decade"}, headers={"Authorization": "Bearer k"}
    )
    assert answer.status_code == 400
    assert answer.json() == {
        "detail": {
            "error": "Invalid time_range 'decade'. Must be one of: 'day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'."
        }
    }
    broken = client.post("/search", content=b"{not json", headers={"Authorization": "Bearer k"})
    assert broken.status_code == 400 and "detail" in broken.json()
    dates = client.post("/tavily/search", json={"query": "x", "start_date": "May 1"})
    assert dates.status_code == 400 and "YYYY-MM-DD" in dates.json()["detail"]["error"]


def test_search_then_extract_in_one_session(client: TestClient) -> None:
    headers = {"Authorization": "Bearer k1"}
    found = client.post(
        "/search", json={"query": "when was Halvorsen Instruments founded"}, headers=headers
    ).json()
    url = found["results"][0]["url"]
    page = client.post("/extract", json={"urls": url}, headers=headers).json()["results"][0]["raw_content"]
    assert "founded in 1931" in found["results"][0]["content"] and "founded in 1931" in page
    sessions = client.app.state.sessions
    assert sessions.keys() == ["key:k1"]
    (session,) = sessions.get("key:k1").sessions.values()
    assert [t.action["name"] for t in session.trajectory.turns] == ["web_search", "web_extractor"]


def test_one_session_per_key_or_x_session_header(client: TestClient) -> None:
    client.post("/search", json={"query": "coffee"}, headers={"Authorization": "Bearer a"})
    client.post("/search", json={"query": "coffee"}, headers={"Authorization": "Bearer b"})
    client.post("/search", json={"query": "coffee"}, headers={"Authorization": "Bearer a", "X-Session": "s1"})
    client.post("/search", json={"q": "coffee"}, headers={"X-API-KEY": "c", "X-Session": "s1"})
    assert sorted(client.app.state.sessions.keys()) == ["key:a", "key:b", "session:s1"]
    (shared,) = client.app.state.sessions.get("session:s1").sessions.values()
    assert len(shared.trajectory.turns) == 2


# -- Serper ----------------------------------------------------------------------------------------

SERPER_KEYS = {
    "searchParameters",
    "knowledgeGraph",
    "answerBox",
    "organic",
    "peopleAlsoAsk",
    "relatedSearches",
    "credits",
}


def test_serper_like_qwen_agent(served: str) -> None:
    """Qwen-Agent POSTs {q} as JSON to $SERPER_URL with X-API-KEY and reads ``organic``."""
    answer = requests.post(
        f"{served}/search",
        json={"q": "chmod octal permission bits"},
        headers={"X-API-KEY": "sk-test"},
        timeout=10,
    )
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) <= SERPER_KEYS and {"searchParameters", "organic", "credits"} <= set(body)
    first = body["organic"][0]
    assert first["link"] == "https://shellcraft.dev/articles/chmod-and-file-permissions"
    assert (
        {"title", "link", "snippet", "position"}
        <= set(first)
        <= {"title", "link", "snippet", "date", "position"}
    )
    assert [o["position"] for o in body["organic"]] == list(range(1, len(body["organic"]) + 1))
    refused = requests.post(f"{served}/search", json={"q": "x"}, headers={"X-API-KEY": "wrong"}, timeout=10)
    assert refused.status_code == 403 and refused.json() == {"message": "Unauthorized.", "statusCode": 403}


def test_serper_like_langchains_wrapper(client: TestClient) -> None:
    """LangChain's GoogleSerperAPIWrapper sends the parameters in the query string."""
    answer = client.post(
        "/search",
        params={"q": "who founded Halvorsen Instruments?", "gl": "no", "num": "3"},
        headers={"X-API-KEY": "k"},
    )
    body = answer.json()
    assert body["searchParameters"] == {
        "q": "who founded Halvorsen Instruments?",
        "gl": "no",
        "hl": "en",
        "type": "search",
        "num": 3,
        "engine": "google",
    }
    assert body["answerBox"]["link"] == HALVORSEN and body["answerBox"]["snippet"]
    assert len(body["organic"]) <= 3
    entity = client.post("/serper/search", json={"q": "Halvorsen Instruments"}).json()
    assert entity["knowledgeGraph"]["title"] == "Halvorsen Instruments"
    assert entity["knowledgeGraph"]["descriptionLink"] == HALVORSEN


def test_serper_batches_news_and_errors(client: TestClient) -> None:
    batch = client.post(
        "/search", json=[{"q": "sourdough"}, {"q": "chmod"}], headers={"X-API-KEY": "k"}
    ).json()
    assert [b["searchParameters"]["q"] for b in batch] == ["sourdough", "chmod"]
    news = client.post("/news", json={"q": "Coastal Cup final"}, headers={"X-API-KEY": "k"}).json()
    assert news["searchParameters"]["type"] == "news" and {"title", "link", "source"} <= set(news["news"][0])
    missing = client.post("/search", json={"q": ""}, headers={"X-API-KEY": "k"})
    assert missing.status_code == 400 and missing.json() == {
        "message": "Missing query parameter",
        "statusCode": 400,
    }
    bad_num = client.post("/search", json={"q": "x", "num": 0}, headers={"X-API-KEY": "k"})
    assert bad_num.status_code == 400 and bad_num.json()["statusCode"] == 400


def test_search_path_tells_the_apis_apart(client: TestClient) -> None:
    assert "organic" in client.post("/search", json={"q": "coffee"}).json()
    assert "results" in client.post("/search", json={"query": "coffee"}).json()
    assert (
        "results"
        in client.post(
            "/search", json={"q": "x", "query": "coffee"}, headers={"Authorization": "Bearer t"}
        ).json()
    )


# -- Brave and the rest ----------------------------------------------------------------------------


def test_brave_web_search(client: TestClient) -> None:
    answer = client.get(
        "/res/v1/web/search",
        params={"q": "chmod octal permission bits", "count": "5"},
        headers={"X-Subscription-Token": "t"},
    )
    web = answer.json()["web"]["results"]
    assert web[0]["url"] == "https://shellcraft.dev/articles/chmod-and-file-permissions"
    assert {"title", "url", "description"} <= set(web[0])
    empty = client.get("/res/v1/web/search", params={"q": ""})
    assert empty.status_code == 422 and empty.json()["type"] == "ErrorResponse"


def test_world_bible_and_health() -> None:
    app = create_search_app(World(backend="offline"), world_bible=BIBLE)
    client = TestClient(app)
    found = client.post("/search", json={"query": "who built the Vornholm lighthouse"}).json()
    assert "Maren Tolle" in found["results"][0]["content"]
    assert client.get("/health").json() == {"status": "ok", "backend": "offline", "sessions": 1}


def test_world_faults_become_http_errors() -> None:
    class RateLimited:
        @hookimpl
        def before_step(self, session: Any, action: Any) -> Observation:
            return Observation(text="Error: 429 Too Many Requests", is_error=True)

    client = TestClient(create_search_app(World(backend="offline"), perturbations=[RateLimited()]))
    answer = client.post("/search", json={"query": "coffee"}, headers={"Authorization": "Bearer k"})
    assert answer.status_code == 429 and answer.json() == {
        "detail": {"error": "Error: 429 Too Many Requests"}
    }
    answer = client.post("/search", json={"q": "coffee"}, headers={"X-API-KEY": "k"})
    assert answer.status_code == 429 and answer.json()["statusCode"] == 429


# -- the command line ------------------------------------------------------------------------------


def test_cli_query_and_serve_help(tmp_path: Path) -> None:
    runner = CliRunner()
    bible = tmp_path / "bible.md"
    bible.write_text(BIBLE, encoding="utf-8")
    result = runner.invoke(
        cli,
        [
            "search",
            "query",
            "who built the Vornholm lighthouse",
            "--world-bible",
            str(bible),
            "--backend",
            "offline",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Maren Tolle" in result.output and '"results"' in result.output
    helped = runner.invoke(cli, ["search", "serve", "--help"])
    assert helped.exit_code == 0
    for option in ("--host", "--port", "--world-bible", "--world", "--corpus", "--require-key", "--backend"):
        assert option in helped.output
    missing = runner.invoke(
        cli, ["search", "query", "x", "--world-bible", str(tmp_path / "none.md"), "--backend", "offline"]
    )
    assert missing.exit_code == 1 and "Cannot read the world bible" in missing.output
    # before worlds had names, --world took the bible: a file given there is still read as one
    old = runner.invoke(cli, ["search", "query", "who built the Vornholm lighthouse", "--world", str(bible)])
    assert old.exit_code == 0 and "Maren Tolle" in old.output and "read as --world-bible" in old.output
