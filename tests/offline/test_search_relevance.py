"""Offline search relevance on factual and programming queries (#28).

The 20 queries below were written before the scorer was tuned or the corpus pages written; the
expected words say what an on-topic top hit is about (any one in its URL or title will do).
"""

from __future__ import annotations

from agentworld_plugins.offline.search_world import load_corpus

HELD_OUT: list[tuple[str, tuple[str, ...]]] = [
    ("who wrote Pride and Prejudice", ("austen", "pride")),
    ("what is the capital of Australia", ("australia", "canberra")),
    ("what does HTTP 404 mean", ("http-status", "status code")),
    ("when did the Berlin Wall fall", ("berlin",)),
    ("how does photosynthesis work", ("photosynthesis",)),
    ("speed of light in vacuum", ("speed-of-light", "speed of light")),
    ("python ModuleNotFoundError no module named", ("modulenotfound", "importerror")),
    ("git undo last commit", ("undo", "reset")),
    ("tallest mountain in the world", ("everest",)),
    ("who painted the Mona Lisa", ("mona", "leonardo")),
    ("TypeError 'NoneType' object is not subscriptable", ("nonetype", "typeerror")),
    ("how to kill a process in linux", ("process", "kill")),
    ("what causes the seasons on Earth", ("season",)),
    ("longest river in Africa", ("nile",)),
    ("python list comprehension syntax", ("comprehension",)),
    ("difference between TCP and UDP", ("tcp",)),
    ("who discovered penicillin", ("penicillin", "fleming")),
    ("HTTP 429 too many requests", ("http-status", "status code", "rate-limit")),
    ("when did World War I begin", ("world-war-i", "first world war", "world war i")),
    ("chmod 755 meaning", ("chmod", "permission")),
]

#: queries about things the bundled corpus does not hold: no page may come back for them
NOT_HELD = [
    "beef wellington recipe with puff pastry",
    "who won the eurovision song contest in 2023",
    "migration route of the arctic tern",
    "how to tune a ukulele",
    "rust borrow checker error E0597 borrowed value does not live long enough",
    "price of a used Toyota Corolla",
    "lyrics of bohemian rhapsody",
    "who wrote Hamlet's sequel fan fiction on reddit",
]


def _top(query: str) -> tuple[str, str] | None:
    corpus, _ = load_corpus({})
    hits = corpus.search(query)
    return (hits[0][0].url.lower(), hits[0][0].title.lower()) if hits else None


def test_held_out_factual_queries_get_on_topic_top_hits() -> None:
    on_topic, misses = 0, []
    for query, wanted in HELD_OUT:
        top = _top(query)
        if top and any(w in top[0] or w in top[1] for w in wanted):
            on_topic += 1
        else:
            misses.append((query, top))
    assert on_topic >= 16, misses


def test_http_404_ranks_the_status_page_first() -> None:
    top = _top("what does HTTP 404 mean")
    assert top is not None and top[0] == "https://webref.dev/http/status-codes"


def test_nothing_unrelated_above_the_threshold() -> None:
    corpus, _ = load_corpus({})
    for query in NOT_HELD:
        assert corpus.search(query) == [], (query, [(p.url, s) for p, s in corpus.search(query)])


BIBLE = """# Estria
Vornholm is the capital of Estria, a kingdom on the Amber Coast.

# France in this world
In this world the capital of France is Lyon; Paris was abandoned after the flood of 1910.
"""


def test_answers_agree_with_the_world_bible() -> None:
    corpus, _ = load_corpus({"world_bible": BIBLE})
    top = corpus.search("what is the capital of France")
    assert top and "Lyon" in top[0][0].body  # the bible's fact, not the bundled France page
    assert all("openencyclopedia.org" not in page.url for page, _ in top)
    assert corpus.search("capital of Estria")[0][0].title == "Estria"
    # what the bible does not cover is not answered from pages that could contradict it
    assert corpus.search("who discovered penicillin") == []


def test_tavily_answer_comes_from_the_bible() -> None:
    from agentworld_plugins.adapters.search import search_tools

    from agentworld_plugins import World

    (tool,) = search_tools(
        ["tavily_search"], world=World(backend="offline"), world_bible=BIBLE, include_answer=True
    )
    found = tool.invoke({"query": "capital of France"})
    assert "Lyon" in found["answer"] and found["results"][0]["score"] > 0.5
