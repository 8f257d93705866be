"""The offline search world: BM25 relevance, the result format, extraction, memory and corpora."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins.domains.base import OfflineResult
from agentworld_plugins.domains.search import SearchCall, SearchDomain
from agentworld_plugins.offline import search_world
from agentworld_plugins.offline.search_world import _PurePythonBm25, load_corpus, search_step

HIT = re.compile(r"^\[(\d+)\] (\S+)\nTitle: (.+)\nSnippet: (.+?)(?:\nDate: (\d{4}-\d{2}-\d{2}))?$")


def run(
    name: str, arguments: dict[str, Any], context: dict[str, Any] | None = None, state: Any = None
) -> OfflineResult:
    return search_step({} if state is None else state, name, arguments, context or {})


def hits(text: str) -> list[dict[str, Any]]:
    """The hits of one query group, parsed strictly."""
    header, _, rest = text.partition("\n")
    assert header.startswith('Results for query: "'), header
    found = []
    for block in rest.split("\n\n"):
        m = HIT.match(block)
        assert m, block
        found.append({"n": int(m[1]), "url": m[2], "title": m[3], "snippet": m[4], "date": m[5]})
    return found


@pytest.mark.parametrize(
    ("query", "url"),
    [
        (
            "how do I declare dependencies in pyproject.toml",
            "https://pypackaging-notes.org/guides/pyproject-toml-basics",
        ),
        ("429 Too Many Requests Retry-After", "https://webref.dev/http/status-codes"),
        ("vllm tensor parallel prefix caching", "https://inference-notes.dev/vllm/serving-openai-compatible"),
        ("sourdough starter feeding ratio", "https://kitchenledger.com/recipes/country-sourdough-loaf"),
        ("when was Halvorsen Instruments founded", "https://halvorsen-instruments.com/about/history"),
        ("chmod octal permission bits", "https://shellcraft.dev/articles/chmod-and-file-permissions"),
        (
            "Coastal Cup final winner",
            "https://sportsdesk-daily.com/football/2025/northbridge-rovers-win-coastal-cup",
        ),
    ],
)
def test_the_answer_page_ranks_first(query: str, url: str) -> None:
    result = run("web_search", {"query": query})
    assert result.is_error is False
    assert hits(result.text)[0]["url"] == url


def test_result_format_matches_the_world_model() -> None:
    result = run("web_search", {"queries": ["python virtual environment", "comet binoculars"], "top_k": 2})
    groups = result.text.split('\n\nResults for query: "')
    assert len(groups) == 2
    first, second = hits(groups[0]), hits('Results for query: "' + groups[1])
    assert result.text.startswith('Results for query: "python virtual environment"\n[1] https://')
    assert [h["n"] for h in first] == [1, 2] and len(second) <= 2
    assert first[0]["title"].startswith("Virtual environments with venv")
    assert first[0]["date"] == "2024-11-02"
    assert second[0]["url"] == "https://skywatch-notes.org/2025/comet-c2025-k3-viewing"


def test_snippet_is_the_best_matching_passage() -> None:
    top = hits(run("web_search", {"query": "Retry-After header back off"}).text)[0]
    snippet = top["snippet"]
    assert "\n" not in snippet
    assert "Retry-After" in snippet
    assert 25 <= len(snippet.replace("...", " ").split()) <= 42
    assert snippet.startswith("...") or snippet[0].isupper()


def test_default_top_five_and_num() -> None:
    # many pages are about Python, so the default five and an asked-for eight are all filled
    assert len(hits(run("web_search", {"query": "python"}).text)) == 5
    assert len(hits(run("web_search", {"query": "python", "num": 8}).text)) == 8
    # a bag of unrelated topics is about nothing any one page covers: no hits, not five stray ones
    broad = "python linux http json docker git sql coffee tomato marathon bike comet museum"
    assert run("web_search", {"query": broad}).text.startswith("No results found")


def test_no_results_wording() -> None:
    result = run("web_search", {"query": "zyxwvut qqqq"})
    assert result.text == 'No results found for query: "zyxwvut qqqq"'
    assert result.is_error is False


def test_missing_query_is_an_error() -> None:
    result = run("web_search", {})
    assert result.text == "Error: web_search requires 'query' or 'queries'."
    assert result.is_error is True


def test_web_extractor_known_and_unknown_urls() -> None:
    page = run("web_extractor", {"url": "http://www.webref.dev/http/status-codes/"})
    assert page.is_error is False
    lines = page.text.splitlines()
    assert lines[0] == "HTTP status codes: a practical reference"
    assert (
        "- 429 Too Many Requests: rate limit exceeded. Respect the Retry-After header and back off"
        in page.text
    )
    assert "**" not in page.text and "url:" not in page.text

    missing = run("web_extractor", {"url": "https://example.org/nothing-here"})
    assert missing.text == "Error: Failed to fetch https://example.org/nothing-here (HTTP 404 Not Found)"
    assert missing.is_error is True
    assert missing.metadata["offline_unknown_effect"] is True


def test_dict_memory_round_trip() -> None:
    state: dict[str, Any] = {}

    def mem(**arguments: Any) -> OfflineResult:
        return run("dict_memory", arguments, state=state)

    assert mem(operation="retrieve_all").text == "{}"
    assert mem(operation="add", key="city", value="Port Arden").text == "Added key 'city'."
    assert mem(operation="add", key="city", value="x").text == "Error: key 'city' already exists; use update."
    assert mem(operation="add", key="facts", value={"founded": 1931}).text == "Added key 'facts'."
    assert mem(operation="retrieve", key="city").text == "Port Arden"
    assert mem(operation="update", key="city", value="Bergvik").text == "Updated key 'city'."
    assert json.loads(mem(operation="retrieve_all").text) == {"city": "Bergvik", "facts": {"founded": 1931}}
    assert json.loads(mem(operation="retrieve", key="facts").text) == {"founded": 1931}
    assert mem(operation="remove", key="city").text == "Removed key 'city'."
    missing = mem(operation="retrieve", key="city")
    assert missing.text == "Error: key 'city' not found." and missing.is_error is True
    assert mem(operation="update", key="nope", value=1).is_error is True
    assert mem(operation="remove_all").text == "Removed all 1 entries."
    assert mem(operation="retrieve_all").text == "{}"
    assert mem(operation="shuffle").text == "Error: unknown operation 'shuffle'."


def test_user_corpus_folder(tmp_path: Path) -> None:
    (tmp_path / "guides").mkdir()
    (tmp_path / "guides" / "otter-care.md").write_text(
        "# Caring for river otters\n\nRiver otters need clean water, fish twice a day and a dry den.\n",
        encoding="utf-8",
    )
    (tmp_path / "kiln.txt").write_text(
        "url: https://pottery.example/kiln\ntitle: Firing a kiln\ndate: 2023-05-01\n\n"
        "Bisque firing reaches about 1000 degrees; glaze firing goes higher.\n",
        encoding="utf-8",
    )
    context = {"corpus": str(tmp_path)}
    otter = hits(run("web_search", {"query": "otter den fish"}, context).text)
    assert otter[0]["url"] == "https://offline.local/guides/otter-care"
    assert otter[0]["title"] == "Caring for river otters" and otter[0]["date"] is None
    kiln = hits(run("web_search", {"query": "glaze firing kiln"}, context).text)
    assert kiln[0] == {
        "n": 1,
        "url": "https://pottery.example/kiln",
        "title": "Firing a kiln",
        "snippet": "Bisque firing reaches about 1000 degrees; glaze firing goes higher.",
        "date": "2023-05-01",
    }
    # the bundled pages are not part of a user's world
    assert run("web_search", {"query": "sourdough"}, context).text.startswith("No results found")
    page = run("web_extractor", {"url": (tmp_path / "guides" / "otter-care.md").as_uri()}, context)
    assert page.text.splitlines()[0] == "Caring for river otters"


def test_user_corpus_is_rebuilt_when_a_file_changes(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Lighthouse\n\nThe lamp turns every ten seconds.\n", encoding="utf-8")
    corpus, _ = load_corpus({"corpus": str(tmp_path)})
    assert load_corpus({"corpus": str(tmp_path)})[0] is corpus
    note.write_text(
        "# Lighthouse\n\nThe lamp turns every twenty seconds, since the refit.\n", encoding="utf-8"
    )
    assert load_corpus({"corpus": str(tmp_path)})[0] is not corpus


def test_world_bible_text() -> None:
    bible = (
        "# The city of Quellmar\n\nQuellmar sits on a salt lake and trades in glass.\n\n"
        "## The Glass Guild\n\nThe guild elects a Warden every seven years; the current Warden is Oda Fenn.\n\n"
        "## Weather\n\nDust storms arrive each spring from the eastern flats.\n"
    )
    context = {"world_bible": bible}
    found = hits(run("web_search", {"query": "who is the Warden of the guild"}, context).text)
    assert found[0]["url"] == "https://offline.local/the-glass-guild"
    assert found[0]["title"] == "The Glass Guild"
    page = run("web_extractor", {"url": "https://offline.local/weather"}, context)
    assert page.text == "Weather\n\nDust storms arrive each spring from the eastern flats."


def test_world_bible_paragraphs_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "bible.txt"
    path.write_text(
        "The ferry to Isle Maren leaves at dawn.\n\nMaren's only inn is the Crooked Gull, run by Tove Lark.\n",
        encoding="utf-8",
    )
    found = hits(run("web_search", {"query": "inn on Maren"}, {"world_bible": str(path)}).text)
    assert found[0]["title"] == "Maren's only inn is the Crooked Gull, run by Tove Lark"
    assert found[0]["url"] == "https://offline.local/maren-s-only-inn-is-the-crooked-gull-run-by-tove-lark"


def test_pure_python_bm25_agrees_on_the_winner() -> None:
    corpus, _ = load_corpus({})
    texts = [f"{p.title}\n{p.title}\n{p.plain_text()}" for p in corpus.pages]
    fallback = _PurePythonBm25(texts)
    for query, expected in (("sourdough starter", "sourdough"), ("chmod octal", "chmod")):
        scores = fallback.scores(query)
        assert expected in corpus.pages[scores.index(max(scores))].url


def test_the_same_calls_give_the_same_answers() -> None:
    calls = [
        ("web_search", {"queries": ["e-bike battery range", "heat island trees"]}),
        ("web_extractor", {"url": "https://cyclewise.co/guides/choosing-an-e-bike"}),
    ]
    assert [run(n, a).text for n, a in calls] == [run(n, a).text for n, a in calls]


def test_unknown_tool_and_bad_corpus_never_raise(tmp_path: Path) -> None:
    assert run("web_browse", {}).text == "Error: unknown tool 'web_browse'."
    result = run("web_search", {"query": "sourdough"}, {"corpus": str(tmp_path / "missing")})
    assert hits(result.text)[0]["url"].startswith("https://kitchenledger.com/")
    assert result.metadata["offline_warnings"]


def test_domain_offline_step() -> None:
    domain = SearchDomain()
    state: dict[str, Any] = {}
    result = domain.offline_step(
        state, SearchCall(name="web_search", arguments={"query": "BM25 length normalisation"}), {}
    )
    assert hits(result.text)[0]["url"] == "https://searchcraft.dev/ranking/bm25-explained"
    domain.offline_step(
        state, SearchCall(name="dict_memory", arguments={"operation": "add", "key": "k", "value": "v"}), {}
    )
    assert state[search_world.STATE_KEY]["memory"] == {"k": "v"}
