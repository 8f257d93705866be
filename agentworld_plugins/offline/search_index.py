"""The offline search world's index: text analysis, BM25, and relevance scores that mean something.

BM25 ranks well but its scores have no scale: a page sharing one stray word with the query still
gets a positive score, and the best page of a corpus that holds nothing on the subject still comes
first. :class:`Index` therefore also measures how much of the query a page covers, each query term
weighted by its idf (a term the corpus never uses weighs as much as its rarest one, since that is
usually the subject: "Hamlet" in "who wrote Hamlet"). A page is a hit only when it covers at least
:data:`MIN_COVERAGE` of the query and scores at least :data:`MIN_SCORE`; its score in ``(0, 1]`` grows with coverage and with how often
the matched terms occur (BM25 saturation), so 0.9 reads "all of the query, many times" and 0.5
"most of it, once".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["MIN_COVERAGE", "MIN_SCORE", "Index", "Scored", "terms"]

#: the share of the query's idf mass a page must cover to be a hit at all
MIN_COVERAGE = 0.7
#: the least score of a hit: a page that covers the query only by stray mentions scores under it
MIN_SCORE = 0.52
#: a term the corpus never uses weighs this share of the largest possible idf
UNKNOWN_WEIGHT = 0.8
#: words of questions that say nothing about their subject ("what does X mean")
QUERY_FILLER = frozenset(
    {
        "mean",
        "meaning",
        "means",
        "definition",
        "define",
        "explain",
        "explained",
        "tell",
        "example",
        "examples",
        "way",
        "ways",
        "best",
        "work",
        "works",
        "happen",
        "happens",
        "difference",
        "between",
        "vs",
        "versus",
        "fix",
        "solve",
        "get",
        "guide",
        "tutorial",
        "please",
        "know",
        "want",
        "need",
        "find",
        "information",
        "info",
        "about",
        "many",
        "much",
        "have",
        "has",
        "had",
        "use",
        "using",
        "used",
    }
)

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_FALLBACK_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "why",
        "do",
        "does",
        "did",
        "can",
        "from",
        "your",
        "you",
    ]
)


#: irregular past forms, so that "when did X begin" meets "X began" and "who wrote" meets "write"
_IRREGULAR = {
    "began": "begin",
    "begun": "begin",
    "wrote": "write",
    "written": "write",
    "fell": "fall",
    "fallen": "fall",
    "won": "win",
    "built": "build",
    "found": "find",
    "founded": "found",
    "made": "make",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "sank": "sink",
    "sunk": "sink",
    "drew": "draw",
    "drawn": "draw",
    "ran": "run",
    "rose": "rise",
    "risen": "rise",
    "grew": "grow",
    "grown": "grow",
    "led": "lead",
    "fought": "fight",
    "thought": "think",
    "sold": "sell",
    "died": "die",
    "dies": "die",
    "children": "child",
    "men": "man",
    "women": "woman",
    "people": "person",
}


@lru_cache(maxsize=65536)  # pure, and called for every word of every page
def _stem(word: str) -> str:
    """A light suffix stripper, so that "packages", "packaging" and "package" meet."""
    word = _IRREGULAR.get(word, word)
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, repl in (("ational", "ate"), ("ization", "ize"), ("fulness", "ful"), ("iveness", "ive")):
        if word.endswith(suffix):
            return word[: -len(suffix)] + repl
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    """bm25s's English list and ours (read on first use: importing bm25s takes numpy and scipy)."""
    try:
        from bm25s.stopwords import STOPWORDS_EN

        return frozenset(STOPWORDS_EN) | _FALLBACK_STOPWORDS
    except Exception:
        return _FALLBACK_STOPWORDS


def terms(text: str) -> list[str]:
    """Our own analysis: lower-case words of two or more characters, stopwords out, stemmed."""
    stop = _stopwords()
    return [_stem(w) for w in _TOKEN.findall(text.lower()) if w not in stop]


class _PurePythonBm25:
    """Okapi BM25 (Lucene's idf), for when bm25s is not installed or fails."""

    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(terms(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = (sum(self.lengths) / len(self.docs)) if self.docs else 0.0
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        wanted = [t for t in terms(query) if t in self.idf]
        out = []
        for doc, length in zip(self.docs, self.lengths):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avg) if self.avg else self.k1
            for term in wanted:
                tf = doc.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            out.append(score)
        return out


class _Bm25sIndex:
    """bm25s with its tokenizer (English stopwords) and our stemmer."""

    def __init__(self, texts: list[str]) -> None:
        import bm25s
        from bm25s.tokenization import Tokenizer

        self.tokenizer = Tokenizer(lower=True, stopwords="en", stemmer=_stem)
        ids = self.tokenizer.tokenize(texts, return_as="ids", show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(ids, show_progress=False)
        self.size = len(texts)

    def scores(self, query: str) -> list[float]:
        ids = self.tokenizer.tokenize([query], update_vocab=False, return_as="ids", show_progress=False)
        if not ids or not ids[0]:
            return [0.0] * self.size
        return [float(s) for s in self.retriever.get_scores(ids[0])]


@dataclass(frozen=True)
class Scored:
    """One page's relevance to a query."""

    doc: int
    score: float
    coverage: float
    bm25: float


class Index:
    """BM25 (bm25s when it works, else :class:`_PurePythonBm25`) plus per-term postings for coverage."""

    def __init__(self, texts: list[str], titles: list[str] | None = None) -> None:
        self.size = len(texts)
        self._bm25: Any
        try:
            self._bm25 = _Bm25sIndex(texts)
            self.engine = "bm25s"
        except Exception:
            self._bm25 = _PurePythonBm25(texts)
            self.engine = "bm25"
        self.postings: dict[str, set[int]] = {}
        for doc, text in enumerate(texts):
            for term in set(terms(text)):
                self.postings.setdefault(term, set()).add(doc)
        self.titles = [frozenset(terms(t)) for t in titles] if titles else [frozenset()] * self.size
        n = self.size
        self.max_idf = math.log(1 + (n + 0.5) / 0.5)

    def idf(self, term: str) -> float:
        found = self.postings.get(term)
        if not found:
            return self.max_idf * UNKNOWN_WEIGHT
        return math.log(1 + (self.size - len(found) + 0.5) / (len(found) + 0.5))

    @staticmethod
    def query_words(query: str) -> list[str]:
        """The query's words that say what it is about: stopwords and question filler out (the
        filler stays when nothing else is left)."""
        stop = _stopwords()
        words = [w for w in _TOKEN.findall(query.lower()) if w not in stop]
        return [w for w in words if w not in QUERY_FILLER] or words

    def score(self, query: str) -> list[Scored]:
        """Every page that covers at least :data:`MIN_COVERAGE` of ``query``, best first."""
        words = self.query_words(query)
        wanted = list(dict.fromkeys(_stem(w) for w in words))
        if not wanted or not self.size:
            return []
        weights = {t: self.idf(t) for t in wanted}
        total = sum(weights.values())
        mass: dict[int, float] = {}
        for term in wanted:
            for doc in self.postings.get(term, ()):
                mass[doc] = mass.get(doc, 0.0) + weights[term]
        candidates = [doc for doc, m in mass.items() if m / total >= MIN_COVERAGE - 1e-9]
        if not candidates:
            return []
        bm25 = self._bm25.scores(" ".join(words))
        out = []
        for doc in candidates:
            coverage = min(1.0, mass[doc] / total)
            s = max(0.0, bm25[doc])
            saturation = s / (s + 0.5 * mass[doc]) if s > 0 else 0.0
            titled = sum(weights[t] for t in wanted if t in self.titles[doc]) / total
            score = coverage * (0.5 + 0.3 * saturation + 0.2 * titled)
            if score >= MIN_SCORE:
                out.append(Scored(doc, round(score, 4), coverage, s))
        out.sort(key=lambda x: (-x.score, -x.bm25, x.doc))
        return out
