"""``agentworld serve``: any backend behind an OpenAI-compatible chat-completions API.

Code written for the world model's API (a copy of the official evaluation script, a Sim-RL loop)
runs unchanged against the offline world, a cassette, a scenario, or a recording proxy::

    agentworld serve --port 8000                                   # the offline world
    agentworld serve --backend cassette:cap.db,openai --upstream http://gpu:8000/v1
    agentworld serve --perturb 'faults:rate=0.3,kinds=rate_limit+timeout'  # perturbed conversations

The app is a Starlette application; :func:`create_app` builds it for tests and embedding.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .backends.base import Backend, Completion, Sampling
from .current import CONVERSATION_HEADER, conversation_from_header, current_conversation
from .errors import AgentWorldError, BackendError, BackendUnavailableError, ConfigError
from .http_guard import BodyError, HttpGuard, HttpLimits, read_json, secret_matches
from .limits import LimitError
from .notices import say
from .redaction import redact_text

_SAMPLING_FIELDS = ("temperature", "max_tokens", "top_p", "seed", "stop")


def _error(
    status: int, message: str, *, param: str | None = None, kind: str = "invalid_request_error"
) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "param": param, "code": status}}, status)


def _check_messages(messages: Any) -> str | None:
    """Why ``messages`` is not a chat-completions message list, or None."""
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list of {role, content} objects"
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"messages[{i}] must be an object with 'role' and 'content'"
        if message.get("role") not in ("system", "user", "assistant", "developer", "tool"):
            return f"messages[{i}].role must be one of system, user, assistant"
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            texts = [p.get("text", "") for p in content if isinstance(p, dict)]
            if not all(isinstance(t, str) for t in texts):
                return f"messages[{i}].content[].text must be a string"
            message["content"] = "".join(texts)
        elif content is not None and not isinstance(content, str):
            return f"messages[{i}].content must be a string"
    return None


def _sampling(body: dict[str, Any]) -> Sampling:
    fields = {k: body[k] for k in _SAMPLING_FIELDS if body.get(k) is not None}
    if "max_tokens" not in fields and body.get("max_completion_tokens") is not None:
        fields["max_tokens"] = body["max_completion_tokens"]
    if isinstance(fields.get("stop"), str):
        fields["stop"] = [fields["stop"]]
    return Sampling(**fields)


def _completion_body(completion: Completion, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.text}
    if completion.reasoning:
        message["reasoning_content"] = completion.reasoning
    usage = completion.usage or {}
    body: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": completion.finish_reason or "stop"}],
        "usage": {
            "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0),
            "total_tokens": usage.get("total_tokens", 0),
        },
    }
    if "perturbations" in completion.metadata:  # a PerturbingBackend's provenance (--perturb)
        body["perturbations"] = completion.metadata["perturbations"]
    if "guard" in completion.metadata:  # a guarded backend (--guard): what it checked and found
        body["guard"] = completion.metadata["guard"]
    warnings = completion.metadata.get("warnings")
    if isinstance(warnings, list) and warnings:  # what the answer could not honour, said to the client
        body["warnings"] = [str(w) for w in warnings]
    return body


def _conversation_name(request: Request, body: dict[str, Any]) -> str | None:
    """What the client calls the conversation (``X-Agentworld-Conversation``, percent-decoded, or
    ``conversation_id``): a ``--perturb`` server keys its random streams by it, and an ``openai``
    backend behind this server passes it on."""
    header = request.headers.get(CONVERSATION_HEADER)
    name = conversation_from_header(header) if header else body.get("conversation_id")
    return str(name) if name else None


def _stream(body: dict[str, Any]) -> StreamingResponse:
    """The same answer as server-sent events: a role chunk, the content, then [DONE]."""
    choice = body["choices"][0]
    base = {k: body[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def events() -> Any:
        delta: dict[str, Any] = {"role": "assistant", "content": ""}
        yield f"data: {json.dumps(base | {'choices': [{'index': 0, 'delta': delta, 'finish_reason': None}]})}\n\n"
        content = {"content": choice["message"]["content"]}
        if choice["message"].get("reasoning_content"):
            content["reasoning_content"] = choice["message"]["reasoning_content"]
        yield f"data: {json.dumps(base | {'choices': [{'index': 0, 'delta': content, 'finish_reason': None}]})}\n\n"
        end = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
        last = base | {"choices": [end], "usage": body["usage"]}
        for extra in ("perturbations", "warnings"):  # ride on the last chunk, as usage does
            if extra in body:
                last[extra] = body[extra]
        yield f"data: {json.dumps(last)}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


def _error_body(status: int, message: str, path: str) -> dict[str, Any]:
    kind = "not_found_error" if status == 404 else "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": status}}


def create_app(
    backend: Backend,
    *,
    api_key: str | None = None,
    model_name: str = "agentworld",
    limits: HttpLimits | None = None,
) -> HttpGuard:
    """An ASGI app serving ``/v1/chat/completions`` and ``/v1/models`` from ``backend``.

    It runs behind :class:`~agentworld_plugins.http_guard.HttpGuard` (``limits``): errors are
    OpenAI-shaped JSON, bodies are size-, time- and depth-limited. ``.app`` is the Starlette app.
    """

    def authorized(request: Request) -> bool:
        if not api_key:
            return True
        return secret_matches(request.headers.get("authorization"), f"Bearer {api_key}")

    async def models(request: Request) -> Response:
        if not authorized(request):
            return _error(
                401, "Invalid API key: send 'Authorization: Bearer <key>'", kind="authentication_error"
            )
        now = int(time.time())
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": model_name, "object": "model", "created": now, "owned_by": "agentworld"}],
            }
        )

    async def chat(request: Request) -> Response:
        if not authorized(request):
            return _error(
                401, "Invalid API key: send 'Authorization: Bearer <key>'", kind="authentication_error"
            )
        try:
            body = await read_json(request)
        except BodyError as exc:
            return _error(exc.status, exc.message)
        if not isinstance(body, dict):
            return _error(400, "The request body must be a JSON object")
        problem = _check_messages(body.get("messages"))
        if problem:
            return _error(400, problem, param="messages")
        try:
            sampling = _sampling(body)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in err["loc"])
            return _error(400, f"{field}: {err['msg']}", param=field)
        named = current_conversation.set(_conversation_name(request, body))
        try:
            completion = await backend.acomplete(body["messages"], sampling)
        except BackendUnavailableError as exc:
            return _error(503, str(exc), kind="service_unavailable")
        except (RecursionError, LimitError) as exc:  # an action nested past any parser's depth
            detail = str(exc) if isinstance(exc, LimitError) else "nested too deeply to read"
            return _error(400, f"The turn prompt's action is {detail}", param="messages")
        except BackendError as exc:
            return _error(502 if "HTTP" in exc.message else 400, str(exc), kind="world_model_error")
        except AgentWorldError as exc:
            return _error(400, str(exc))
        finally:
            current_conversation.reset(named)
        payload = _completion_body(completion, str(body.get("model") or model_name))
        for warning in payload.get("warnings", []):
            say(warning)  # each distinct warning once on the console
        return _stream(payload) if body.get("stream") else JSONResponse(payload)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "backend": redact_text(backend.describe())})

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
        ]
    )
    return HttpGuard(app, error=_error_body, limits=limits)


# -- the upstream must not be this server ----------------------------------------------------------

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
_ANY = frozenset({"0.0.0.0", "::", ""})


def _local_addresses() -> set[str]:
    """This machine's own addresses, by its host name (no lookup of any other name)."""
    import socket

    names = {socket.gethostname(), socket.getfqdn()}
    found: set[str] = set()
    for name in names:
        try:
            found.update(str(info[4][0]) for info in socket.getaddrinfo(name, None))
        except OSError:
            continue
    return found | {name.lower() for name in names}


def _is_self(host: str, bind: str) -> bool:
    import ipaddress

    host = host.strip("[]").lower()
    bind = bind.strip("[]").lower()
    if host == bind:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    loopback = host in _LOOPBACK_NAMES or (address is not None and address.is_loopback)
    if bind in _ANY:  # listening everywhere: any address of this machine reaches it
        return loopback or host in _ANY or host in _local_addresses()
    try:
        bind_loopback = ipaddress.ip_address(bind).is_loopback
    except ValueError:
        bind_loopback = bind in _LOOPBACK_NAMES
    if bind_loopback and loopback:  # 127.0.0.1, localhost and ::1 all reach a loopback listener
        return True
    return host in _ANY  # 0.0.0.0 as a destination is this machine


def self_upstream(host: str, port: int, upstreams: str | None) -> str | None:
    """The first of ``upstreams`` (comma separated base URLs) that is this server's own address
    (``host``:``port``), or None."""
    from urllib.parse import urlsplit

    for url in (u.strip() for u in (upstreams or "").split(",")):
        if not url:
            continue
        try:
            parts = urlsplit(url if "://" in url else f"http://{url}")
            target = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            continue
        if target == port and _is_self(parts.hostname or "", host):
            return url
    return None


def refuse_self_upstream(host: str, port: int, upstreams: str | None, source: str) -> None:
    """A :class:`ConfigError` when the upstream world model is this server itself: every request
    would call the server again, each waiting on the next, until the client gives up."""
    url = self_upstream(host, port, upstreams)
    if url is not None:
        raise ConfigError(
            f"{source} {url} is this server's own address (http://{host}:{port}/v1): it would "
            "forward every request to itself",
            hint="unset AGENTWORLD_BASE_URL / --upstream to serve the offline world, point it at the "
            "real world model's server, or serve on another --port",
        )
