"""Search APIs that unmodified clients call: Tavily, Serper and Brave, answered by the search world.

Start it with ``agentworld search serve --port 8765`` (add ``--world bible.md`` for a fictional
web), then point the client at it::

    from tavily import TavilyClient
    TavilyClient(api_key="any", api_base_url="http://127.0.0.1:8765").search("who founded Halvorsen?")

    export SERPER_URL=http://127.0.0.1:8765/search          # Qwen-Agent's web_search
    curl -s -X POST $SERPER_URL -H 'X-API-KEY: any' -H 'Content-Type: application/json' -d '{"q": "chmod"}'

Routes: ``POST /search`` (Tavily or Serper, see below), ``POST /extract``, ``POST /crawl`` and
``POST /map`` (Tavily; crawl and map walk the simulated site from its root, following the links
of each page), ``POST /tavily/search``, ``/tavily/extract``, ``/tavily/crawl``, ``/tavily/map``, ``POST /serper/search``, ``POST /news`` and
``POST /serper/news`` (Serper news), ``GET /res/v1/web/search`` (Brave, ``X-Subscription-Token``)
and ``GET /health``.

Tavily and Serper share ``POST /search``. A request is Serper's when it carries ``X-API-KEY``
(Serper's auth header), is a JSON list (a Serper batch) or names its query ``q``; it is Tavily's
when it carries ``Authorization: Bearer`` or Tavily's client headers, or names its query
``query``. Any key is accepted unless the app was built with ``api_key``.

Each session of the search world is one client: the ``X-Session`` (or tavily-python's
``X-Session-Id``) header when sent, else the API key, so that a page found by one request and
extracted by the next reads consistently. Bad input gets the API's own error shape: Tavily's
``{"detail": {"error": ...}}``, Serper's ``{"message", "statusCode"}``, Brave's ``ErrorResponse``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agentworld_plugins.errors import AgentWorldError, BackendUnavailableError
from agentworld_plugins.http_guard import BodyError, HttpGuard, HttpLimits, read_json, secret_matches
from agentworld_plugins.redaction import redact_text

from .._world import SessionGroup
from .dropped import DroppedConnection
from .flows import SearchAPIError, SearchConnectionFault, arun_flow
from .providers import (
    brave_query_problem,
    brave_search_flow,
    serper_search_flow,
    tavily_crawl_flow,
    tavily_extract_flow,
    tavily_search_flow,
    validate_serper,
    validate_tavily_crawl,
    validate_tavily_extract,
    validate_tavily_search,
)

if TYPE_CHECKING:
    from agentworld_plugins.session import World

__all__ = ["SearchSessions", "create_search_app"]


class SearchSessions:
    """Search-world session groups by client key, least recently used dropped past ``limit``."""

    def __init__(self, factory: Callable[[], SessionGroup], limit: int = 1024) -> None:
        self.factory = factory
        self.limit = limit
        self._groups: OrderedDict[str, SessionGroup] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> SessionGroup:
        with self._lock:
            group = self._groups.get(key)
            if group is None:
                group = self._groups[key] = self.factory()
                while len(self._groups) > self.limit:
                    self._groups.popitem(last=False)
            else:
                self._groups.move_to_end(key)
            return group

    def __len__(self) -> int:
        return len(self._groups)

    def keys(self) -> list[str]:
        return list(self._groups)


# -- error shapes ----------------------------------------------------------------------------------


def _tavily_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"detail": {"error": message}}, status)


def _serper_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": message, "statusCode": status}, status)


def _failure(exc: SearchAPIError | AgentWorldError) -> tuple[int, str]:
    """The HTTP status and message Tavily and Serper answer a failed search with."""
    if isinstance(exc, SearchAPIError):
        return exc.status, exc.message
    if isinstance(exc, BackendUnavailableError):
        return 503, f"Service unavailable: {exc.message}"
    return 500, f"Internal error: {exc.message}"


def _brave_body(
    status: int, message: str, code: str = "VALIDATION", errors: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {"status": status, "code": code, "detail": message}
    if errors:
        error["meta"] = {"errors": errors}
    return {"type": "ErrorResponse", "error": error}


def _brave_error(
    status: int, message: str, code: str = "VALIDATION", errors: list[dict[str, Any]] | None = None
) -> JSONResponse:
    return JSONResponse(_brave_body(status, message, code, errors), status)


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    if value[:7].lower() == "bearer ":
        return value[7:].strip() or None
    return None


#: largest body read before its sender is authenticated (Tavily may carry its key in the body)
PREAUTH_BODY_LIMIT = 64 * 1024


def _guard_error(status: int, message: str, path: str) -> dict[str, Any]:
    """The guard's errors in the shape of the API that owns ``path``."""
    if path.startswith("/res/"):
        return _brave_body(status, message, "VALIDATION" if status < 500 else "INTERNAL")
    if path.startswith(("/serper", "/news")):
        return {"message": message, "statusCode": status}
    return {"detail": {"error": message}}


async def _json_body(request: Request, authenticated: bool) -> Any:
    return await read_json(request, None if authenticated else PREAUTH_BODY_LIMIT, empty={})


def create_search_app(
    world: World | None = None,
    *,
    api_key: str | None = None,
    world_bible: str | Path | None = None,
    corpus: Any = None,
    seed: int | None = None,
    perturbations: Iterable[Any] = (),
    max_sessions: int = 1024,
    limits: HttpLimits | None = None,
    **context: Any,
) -> HttpGuard:
    """A Starlette app impersonating the Tavily, Serper and Brave search APIs over ``world``.

    ``world`` defaults to ``World()``; ``api_key`` makes every API demand that key;
    ``world_bible`` (text or file) and ``corpus`` shape the simulated web; ``context`` reaches
    every session. The app runs behind :class:`HttpGuard` (``limits``); its ``.app.state.sessions``
    is the :class:`SearchSessions` store.
    """
    if world is None:
        from agentworld_plugins.session import World

        world = World()
    chosen = world
    perturbations = list(perturbations)

    def new_group() -> SessionGroup:
        return SessionGroup(
            chosen, seed=seed, perturbations=perturbations, world_bible=world_bible, corpus=corpus, **context
        )

    sessions = SearchSessions(new_group, limit=max_sessions)

    def session_key(request: Request, key: str | None) -> str:
        explicit = request.headers.get("x-session") or request.headers.get("x-session-id")
        if explicit:
            return f"session:{explicit}"
        return f"key:{key}" if key else "anonymous"

    async def run(flow: Any, group: SessionGroup) -> Any:
        return await arun_flow(flow, group)

    # -- Tavily ----------------------------------------------------------------------------------

    async def tavily(request: Request, kind: str, body: Any = ...) -> Response:
        bearer = _bearer(request)
        if api_key and bearer is not None and not secret_matches(bearer, api_key):
            return _tavily_error(401, "Unauthorized: missing or invalid API key.")
        if body is ...:  # not read yet (JSON null is a body too)
            try:
                body = await _json_body(request, authenticated=not api_key or bearer is not None)
            except BodyError as exc:
                return _tavily_error(exc.status, exc.message)
        key = bearer or (body.get("api_key") if isinstance(body, dict) else None)
        if not isinstance(key, str):
            key = None
        if api_key and not secret_matches(key, api_key):
            return _tavily_error(401, "Unauthorized: missing or invalid API key.")
        try:
            if kind == "search":
                flow = tavily_search_flow(validate_tavily_search(body))
            elif kind == "extract":
                flow = tavily_extract_flow(validate_tavily_extract(body))
            else:  # crawl and map walk the simulated site from its root
                flow = tavily_crawl_flow(validate_tavily_crawl(body, kind))
            result = await run(flow, sessions.get(session_key(request, key)))
        except SearchConnectionFault as exc:
            return DroppedConnection(exc.kind)
        except (SearchAPIError, AgentWorldError) as exc:
            return _tavily_error(*_failure(exc))
        return JSONResponse(result)

    async def tavily_search(request: Request) -> Response:
        return await tavily(request, "search")

    async def tavily_extract(request: Request) -> Response:
        return await tavily(request, "extract")

    # -- Serper ----------------------------------------------------------------------------------

    async def serper(request: Request, search_type: str, body: Any = None) -> Response:
        key = request.headers.get("x-api-key")
        if api_key and not secret_matches(key, api_key):
            return _serper_error(403, "Unauthorized.")
        if body is None:
            try:
                body = await _json_body(request, authenticated=True)
            except BodyError as exc:
                return _serper_error(exc.status, exc.message)
        query = dict(request.query_params)
        batch = isinstance(body, list)
        items = body if batch else [body]
        group = sessions.get(session_key(request, key))
        answers = []
        try:
            for item in items:
                merged = {**query, **item} if isinstance(item, dict) else item
                answers.append(await run(serper_search_flow(validate_serper(merged, search_type)), group))
        except SearchConnectionFault as exc:
            return DroppedConnection(exc.kind)
        except (SearchAPIError, AgentWorldError) as exc:
            return _serper_error(*_failure(exc))
        return JSONResponse(answers if batch else answers[0])

    async def serper_search(request: Request) -> Response:
        return await serper(request, "search")

    async def serper_news(request: Request) -> Response:
        return await serper(request, "news")

    # -- /search: whose request is it? ---------------------------------------------------------

    async def search(request: Request) -> Response:
        headers = request.headers
        if "x-api-key" in headers:
            return await serper(request, "search")
        if _bearer(request) or "x-tavily-access-mode" in headers or "x-client-source" in headers:
            return await tavily(request, "search")
        try:
            body = await _json_body(request, authenticated=not api_key)
        except BodyError as exc:
            return _tavily_error(exc.status, exc.message)
        if isinstance(body, list):
            return await serper(request, "search", body)
        if isinstance(body, dict) and "query" not in body and ("q" in body or "q" in request.query_params):
            return await serper(request, "search", body)
        return await tavily(request, "search", body)

    # -- Brave -----------------------------------------------------------------------------------

    async def brave(request: Request) -> Response:
        key = request.headers.get("x-subscription-token")
        if api_key and not secret_matches(key, api_key):
            return _brave_error(
                401, "The provided subscription token is invalid.", "SUBSCRIPTION_TOKEN_INVALID"
            )
        params = request.query_params
        q = params.get("q", "")
        if not q.strip():
            return _brave_error(422, "Unable to validate request parameter(s): q is required.")
        problem = brave_query_problem(q)
        if problem is not None:
            return _brave_error(422, "Unable to validate request parameter(s)", errors=[problem])
        count = params.get("count", "20")
        if not (count.isascii() and count.isdigit() and len(count) < 4) or not 1 <= int(count) <= 20:
            return _brave_error(
                422, "Unable to validate request parameter(s): count must be between 1 and 20."
            )
        try:
            results = await run(
                brave_search_flow(q.strip(), int(count)), sessions.get(session_key(request, key))
            )
        except SearchConnectionFault as exc:
            return DroppedConnection(exc.kind)
        except SearchAPIError as exc:
            return _brave_error(exc.status, exc.message, "UPSTREAM")
        except AgentWorldError as exc:
            return _brave_error(500, f"Internal error: {exc.message}", "INTERNAL")
        if params.get("extra_snippets", "").lower() not in ("1", "true"):
            results = [{k: v for k, v in r.items() if k != "extra_snippets"} for r in results]
        return JSONResponse(
            {
                "type": "search",
                "query": {"original": q, "more_results_available": False},
                "web": {"type": "search", "results": [{"type": "search_result", **r} for r in results]},
            }
        )

    async def tavily_crawl(request: Request) -> Response:
        return await tavily(request, "crawl")

    async def tavily_map(request: Request) -> Response:
        return await tavily(request, "map")

    async def health(request: Request) -> Response:
        described = redact_text(chosen.backend.describe())
        return JSONResponse({"status": "ok", "backend": described, "sessions": len(sessions)})

    app = Starlette(
        routes=[
            Route("/search", search, methods=["POST"]),
            Route("/extract", tavily_extract, methods=["POST"]),
            Route("/tavily/search", tavily_search, methods=["POST"]),
            Route("/tavily/extract", tavily_extract, methods=["POST"]),
            Route("/crawl", tavily_crawl, methods=["POST"]),
            Route("/map", tavily_map, methods=["POST"]),
            Route("/tavily/crawl", tavily_crawl, methods=["POST"]),
            Route("/tavily/map", tavily_map, methods=["POST"]),
            Route("/serper/search", serper_search, methods=["POST"]),
            Route("/serper/news", serper_news, methods=["POST"]),
            Route("/news", serper_news, methods=["POST"]),
            Route("/res/v1/web/search", brave, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ]
    )
    app.state.sessions = sessions
    app.state.world = chosen
    return HttpGuard(app, error=_guard_error, limits=limits)
