"""Flows: the search-domain calls a search API makes, driven on a session group, and what they share."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Generator, Iterable
from typing import Any

from agentworld_plugins.errors import ActionValidationError
from agentworld_plugins.session import Observation

from .._world import SessionGroup
from .hits import Hit

SEARCH_DOMAIN = "search"
#: what the search world returns per query when not told otherwise
WORLD_TOP_K = 5

#: a flow yields search-domain actions, receives their observations, and returns the result
Flow = Generator[dict[str, Any], Observation, Any]


class SearchAPIError(Exception):
    """A request the impersonated search API refuses: ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class SearchConnectionFault(SearchAPIError):
    """An injected fault that is no HTTP answer at all: ``timeout`` (the server never answers) or
    ``connection_reset`` (the connection drops). The HTTP front makes it happen on the socket, so a
    client sees what it sees from a real timeout or reset."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message, status=504 if kind == "timeout" else 502)
        self.kind = kind


def raise_for_error(observation: Observation) -> None:
    """Raise what an error observation is to the search API: a connection fault, or an HTTP error
    with the status its text names."""
    if not observation.is_error:
        return
    for entry in observation.metadata.get("perturbations") or []:
        if (
            isinstance(entry, dict)
            and entry.get("replaced")
            and entry.get("kind") in ("timeout", "connection_reset")
        ):
            raise SearchConnectionFault(str(entry["kind"]), observation.text)
    raise SearchAPIError(observation.text, status=error_status(observation.text))


def search_action(query: str, k: int = WORLD_TOP_K) -> dict[str, Any]:
    arguments: dict[str, Any] = {"query": query}
    if k != WORLD_TOP_K:
        arguments["top_k"] = k
    return {"name": "web_search", "arguments": arguments}


def extract_action(url: str) -> dict[str, Any]:
    return {"name": "web_extractor", "arguments": {"url": url}}


def _refused(exc: ActionValidationError) -> Observation:
    text = "; ".join(str(err["msg"]).removeprefix("Value error, ") for err in exc.errors) or exc.message
    return Observation(text=f"Error: {text}", is_error=True, metadata={"invalid_action": True})


def run_flow(flow: Flow, group: SessionGroup) -> Any:
    """Drive a flow with ``group``'s search session; return what the flow returns."""
    try:
        action = next(flow)
        while True:
            try:
                observation = group.step(SEARCH_DOMAIN, action)
            except ActionValidationError as exc:
                observation = _refused(exc)
            action = flow.send(observation)
    except StopIteration as stop:
        return stop.value


async def arun_flow(flow: Flow, group: SessionGroup) -> Any:
    """The async twin of :func:`run_flow`."""
    try:
        action = next(flow)
        while True:
            try:
                observation = await group.astep(SEARCH_DOMAIN, action)
            except ActionValidationError as exc:
                observation = _refused(exc)
            action = flow.send(observation)
    except StopIteration as stop:
        return stop.value


def error_status(text: str) -> int:
    """The HTTP status an error observation names (``429 Too Many Requests``), else 500."""
    m = re.search(r"\b([45]\d\d)\b", text)
    return int(m.group(1)) if m else 500


def _stable_fraction(*parts: Any) -> float:
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def simulated_response_time(query: str) -> float:
    """A believable, reproducible response time (the simulated API has no real one to report)."""
    return round(0.4 + 1.2 * _stable_fraction("response_time", query), 2)


def score_of(index: int, observation: Observation | None = None, url: str | None = None) -> float:
    """A hit's relevance: the offline world's own score when it gave one (``offline_scores``),
    else a believable one falling with the rank (a world model prints no scores)."""
    if observation is not None and url is not None:
        for group in observation.metadata.get("offline_scores") or ():
            for hit_url, score in group:
                if hit_url == url and isinstance(score, (int, float)):
                    return round(float(score), 7)
    return round(max(0.01, 0.93 - 0.085 * index), 7)


def _date_key(text: str | None) -> str | None:
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", text or "")
    return "-".join(m.groups()) if m else None


def _domain_match(host: str, domains: Iterable[str]) -> bool:
    for domain in domains:
        d = re.sub(r"^(?:https?://)?(?:www\.)?", "", domain.strip().lower()).split("/")[0]
        if d and (host == d or host.endswith("." + d)):
            return True
    return False


def filter_hits(
    hits: list[Hit],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    start: str | None = None,
    end: str | None = None,
) -> list[Hit]:
    kept = []
    for hit in hits:
        if include and not _domain_match(hit.host, include):
            continue
        if exclude and _domain_match(hit.host, exclude):
            continue
        day = _date_key(hit.date)
        if day and ((start and day < start) or (end and day > end)):
            continue
        kept.append(hit)
    return kept


def first_sentences(text: str, count: int) -> str:
    text = re.sub(r"^\.\.\.\s*|\s*\.\.\.$", "", text.strip())
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(parts[:count]).strip()
