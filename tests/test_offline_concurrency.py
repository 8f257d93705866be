"""One slow offline step never stalls the others: ``agentworld serve`` (real HTTP on 127.0.0.1),
async sessions of one world, and the shim's helper daemon (a real Unix socket) answer other
sessions and ``/health`` while a step runs until its budget. Ordering is asserted, not timings:
the slow step is still running when the others have answered."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from typing import Any

from agentworld_plugins import World
from agentworld_plugins.config import load_settings
from agentworld_plugins.http_guard import serving
from agentworld_plugins.server import create_app

#: long enough that the other requests (a few ms each, seconds on a loaded machine) finish first
SLOW_SECONDS = 5.0
LOOP = "while :; do :; done\n"


def _terminal_messages(world: World, keys: str) -> list[dict[str, str]]:
    session = world.session("terminal")
    action = session.domain.validate_action([{"keystrokes": keys}])
    prompt = session.domain.render_turn(1, action, session.domain.state_for_turn(1, session.context))
    return [{"role": "system", "content": session.system_prompt}, {"role": "user", "content": prompt}]


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def _finished_in_background(fn: Any) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def go() -> None:
        box["result"] = fn()

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread, box


def test_serve_answers_health_and_other_conversations_during_a_slow_step(monkeypatch: Any) -> None:
    monkeypatch.setenv("AGENTWORLD_OFFLINE_STEP_SECONDS", str(SLOW_SECONDS))
    world = World(backend="offline")
    with serving(create_app(world.backend)) as base:
        slow_thread, slow = _finished_in_background(
            lambda: _post(base + "/v1/chat/completions", {"messages": _terminal_messages(world, LOOP)})
        )
        time.sleep(0.5)  # let the slow step start (not asserted)
        with urllib.request.urlopen(base + "/health", timeout=60) as response:
            assert json.loads(response.read())["status"] == "ok"
        other = _post(base + "/v1/chat/completions", {"messages": _terminal_messages(world, "echo other\n")})
        assert "other\nroot@agentworld:/app#" in other["choices"][0]["message"]["content"]
        assert slow_thread.is_alive() and "result" not in slow, str(slow)[
            -300:
        ]  # the slow step had not finished yet
        slow_thread.join(120)
        assert "CPU time limit exceeded" in slow["result"]["choices"][0]["message"]["content"]


def test_async_sessions_of_one_world_step_concurrently() -> None:
    world = World(backend="offline", settings=load_settings(offline_step_seconds=SLOW_SECONDS))
    slow, fast = world.session("terminal"), world.session("terminal")
    order: list[str] = []

    async def step(session: Any, keys: str, name: str) -> str:
        observation = await session.astep([{"keystrokes": keys}])
        order.append(name)
        return str(observation.text)

    async def main() -> tuple[str, str]:
        slow_task = asyncio.create_task(step(slow, LOOP, "slow"))
        await asyncio.sleep(0.3)
        fast_text = await step(fast, "echo fast\n", "fast")
        return await slow_task, fast_text

    slow_text, fast_text = asyncio.run(main())
    assert order == ["fast", "slow"]
    assert "fast\nroot@agentworld:/app#" in fast_text and "CPU time limit exceeded" in slow_text


def test_the_shim_daemon_answers_another_session_during_a_slow_step(tmp_path: Any) -> None:
    from agentworld_plugins.adapters.shell.daemon import ShellDaemon, request, stop

    home = str(tmp_path / "home")
    daemon = ShellDaemon(home, idle=60)
    serving = threading.Thread(target=daemon.serve, daemon=True)
    serving.start()
    env = {"AGENTWORLD_HOME": home, "AGENTWORLD_OFFLINE_STEP_SECONDS": str(SLOW_SECONDS)}
    try:
        while request(home, {"op": "ping", "env": env}) is None:
            time.sleep(0.05)
        slow_thread, slow = _finished_in_background(
            lambda: request(
                home, {"op": "run", "command": LOOP, "env": {**env, "AGENTWORLD_SESSION": "slow"}}, 120
            )
        )
        time.sleep(0.3)
        fast = request(
            home, {"op": "run", "command": "echo hi", "env": {**env, "AGENTWORLD_SESSION": "fast"}}, 120
        )
        assert fast is not None and fast["stdout"] == "hi\n" and fast["exit_code"] == 0
        assert slow_thread.is_alive() and "result" not in slow
        slow_thread.join(120)
        assert slow["result"]["exit_code"] == 152
    finally:
        stop(home)
        serving.join(30)
