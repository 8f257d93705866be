"""A 1,000-example fuzz of the request paths of ``serve``, ``search serve`` and ``openenv serve``.

Each app runs in-process behind its ``HttpGuard`` (the guard is ASGI middleware, so what it checks
is checked here too), reached through httpx's ``ASGITransport``: no sockets, no clock. ``serve``
gets chat requests whose turn prompts carry actions of every domain, shaped or hostile, under each
domain's real system prompt, so requests go all the way through domain detection, the offline
step and the answer. Every answer must be below 500 with a JSON body (or an event stream), and no
exception may escape an app (``ASGITransport`` would raise it into the test). Derandomized: the
same examples every run; ``HYPOTHESIS_PROFILE=explore`` draws fresh ones.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentworld_plugins.adapters.search.api import create_search_app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins.http_guard import HttpLimits
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World
from agentworld_plugins.turns import render_turn

EXAMPLES = 5000 if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else 400
fuzz = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("HYPOTHESIS_PROFILE") != "explore",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
LIMITS = HttpLimits(max_body=256 * 1024)
DOMAINS = ("terminal", "web", "android", "os", "mcp", "search", "swe")

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
words = st.text(alphabet="abcxyz ./-_$(){}[]'\"\\|;&<>*?~\n\t019é%", max_size=20)
HOSTILE_ACTIONS = [
    "[" * 5000 + "]" * 5000,
    '{"tool_name": "x", "arguments": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}",
    '{"a": ' + "9" * 5000 + "}",
    '{"a": NaN}',
    '"\\ud800"',
    "fill('5', '" + "x" * 100_000 + "')",
    "click(" * 2000 + ")" * 2000,
    '[{"keystrokes": "' + "a" * 50_000 + '"}]',
    '[{"keystrokes": "seq 100000000 | sort\\n"}]',
    '{"action_type": "input_text", "text": "' + "\u202e" * 1000 + '", "index": 99999999999}',
    "```\n```\n```",
    "",
]
shaped_actions = st.one_of(
    st.lists(st.fixed_dictionaries({"keystrokes": words}, optional={"duration": scalars}), max_size=2).map(
        json.dumps
    ),
    st.builds(lambda v, b: f"fill({b!r}, {v!r})", words, st.sampled_from(["5", "6", "x"])),
    st.builds(lambda b: f"click({b!r})", st.sampled_from(["5", "6", "7", "", "99"])),
    st.builds(
        lambda name, args: json.dumps({"tool_name": name, "arguments": args}),
        st.sampled_from(["read_query", "list_tables", "search", "read_file", "x"]),
        st.dictionaries(st.sampled_from(["query", "path", "q", "max_results"]), json_values, max_size=2),
    ),
    st.fixed_dictionaries(
        {"action_type": st.sampled_from(["click", "input_text", "scroll", "open_app", "x"])},
        optional={"index": scalars, "text": words, "direction": words},
    ).map(json.dumps),
)
actions = st.one_of(shaped_actions, json_values.map(json.dumps), words, st.sampled_from(HOSTILE_ACTIONS))


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


def _request(
    loop: asyncio.AbstractEventLoop, app: Any, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)  # raise_app_exceptions: an escaped exception fails
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, path, **kwargs)

    return loop.run_until_complete(go())


def _check(response: httpx.Response, sent: Any) -> Any:
    shown = (response.status_code, response.text[:300], str(sent)[:300])
    assert response.status_code < 500, shown
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return None
    assert "json" in response.headers.get("content-type", ""), shown
    return response.json()


# -- agentworld serve ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def system_prompts() -> dict[str, str]:
    """Each domain's real system prompt, as a session sends it."""
    registry = new_plugin_manager(load_entrypoints=False).registry
    return {domain: registry.domain(domain).system_prompt({}) for domain in DOMAINS}


@pytest.fixture(scope="module")
def chat_app() -> Iterator[Any]:
    with World(backend="offline") as world:
        yield create_app(world.backend, api_key="k", limits=LIMITS)


@fuzz
@given(
    domain=st.sampled_from((*DOMAINS, None)),
    turn=st.integers(min_value=1, max_value=3),
    state=st.none() | words | st.sampled_from(["user@box:~$ ", "URL: https://a.example/\nTitle: A\n"]),
    action=actions,
    fence=st.sampled_from(["json", None, "python"]),
    extra=st.fixed_dictionaries(
        {},
        optional={
            "stream": st.booleans(),
            "temperature": scalars,
            "max_tokens": scalars,
            "stop": words | st.lists(words, max_size=2),
            "model": words,
            "user": words,
        },
    ),
    key=st.sampled_from(["Bearer k", "Bearer k", "Bearer k", "Bearer nope", ""]),
)
def test_fuzz_serve_request_path(
    loop: asyncio.AbstractEventLoop,
    chat_app: Any,
    system_prompts: dict[str, str],
    domain: str | None,
    turn: int,
    state: str | None,
    action: str,
    fence: str | None,
    extra: dict[str, Any],
    key: str,
) -> None:
    system = system_prompts[domain] if domain else "You simulate something."
    user = render_turn(turn, action, state=state, fence=fence)
    body = {
        "model": "agentworld",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
    body.update(extra)
    headers = {"Authorization": key} if key else {}
    answer = _check(
        _request(loop, chat_app, "POST", "/v1/chat/completions", json=body, headers=headers), user
    )
    if isinstance(answer, dict) and "choices" in answer:
        assert isinstance(answer["choices"][0]["message"]["content"], str)


# -- agentworld search serve -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def search_app() -> Iterator[Any]:
    with World(backend="offline") as world:
        yield create_search_app(world, api_key="k", limits=LIMITS)


@fuzz
@given(
    path=st.sampled_from(["/search", "/extract", "/serper/search", "/news", "/res/v1/web/search"]),
    body=st.fixed_dictionaries(
        {},
        optional={
            "query": words | st.sampled_from(HOSTILE_ACTIONS),
            "q": words | st.sampled_from(HOSTILE_ACTIONS),
            "urls": words | st.lists(words, max_size=3),
            "max_results": scalars,
            "num": scalars,
            "include_answer": scalars,
            "search_depth": words,
        },
    )
    | json_values,
    auth=st.sampled_from(
        [{"Authorization": "Bearer k"}, {"X-API-KEY": "k"}, {"X-Subscription-Token": "k"}, {}]
    ),
)
def test_fuzz_search_serve_request_path(
    loop: asyncio.AbstractEventLoop, search_app: Any, path: str, body: Any, auth: dict[str, str]
) -> None:
    if path.startswith("/res/"):
        # a query string over httpx's URL limit never leaves the client: cut values short
        params = (
            {k: str(v)[:2000] for k, v in body.items()} if isinstance(body, dict) else {"q": str(body)[:2000]}
        )
        response = _request(loop, search_app, "GET", path, params=params, headers=auth)
    else:
        response = _request(loop, search_app, "POST", path, json=body, headers=auth)
    _check(response, body)


# -- agentworld openenv serve ----------------------------------------------------------------------

TASKS = Path(__file__).resolve().parents[1] / "agentworld_plugins" / "rollout" / "data" / "tasks.jsonl"


@pytest.fixture(scope="module")
def openenv_app() -> Iterator[Any]:
    pytest.importorskip("openenv", reason="the rl extra (openenv-core) is not installed")
    from agentworld_plugins.rollout.openenv import create_openenv_app
    from agentworld_plugins.rollout.tasks import load_tasks

    with World(backend="offline") as world:
        yield create_openenv_app(world, load_tasks(TASKS, world.pm.registry), token="t0k", limits=LIMITS)


@fuzz
@given(
    path=st.sampled_from(["/reset", "/step", "/step", "/state", "/schema"]),
    body=st.fixed_dictionaries(
        {},
        optional={
            "task_id": st.sampled_from(["issue-bug", "nope"]) | words,
            "seed": scalars,
            "action": st.fixed_dictionaries({}, optional={"action": actions | json_values, "answer": scalars})
            | json_values,
        },
    )
    | json_values,
)
def test_fuzz_openenv_serve_request_path(
    loop: asyncio.AbstractEventLoop, openenv_app: Any, path: str, body: Any
) -> None:
    headers = {"Authorization": "Bearer t0k"}
    method = "GET" if path in ("/state", "/schema") else "POST"
    response = _request(
        loop, openenv_app, method, path, json=body if method == "POST" else None, headers=headers
    )
    _check(response, body)
