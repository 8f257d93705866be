"""No single hostile input grows a server's memory by 300 MB or more.

A child process builds the apps of ``serve``, ``search serve`` and ``openenv serve`` (each behind
its ``HttpGuard``, reached in-process through httpx's ``ASGITransport``) and sends each hostile
input once. Around each input it resets the kernel's peak-RSS mark (``/proc/self/clear_refs``,
``5``) and reads ``VmHWM`` after: the peak the input caused, not just what stayed. Memory, not
time, is measured; nothing here depends on how fast the host is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LIMIT_MB = 300
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads VmRSS/VmHWM from Linux's /proc"
)

CHILD = r"""
import asyncio, json, sys
from pathlib import Path

import httpx

from agentworld_plugins.adapters.search.api import create_search_app
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.rollout.openenv import create_openenv_app
from agentworld_plugins.rollout.tasks import load_tasks
from agentworld_plugins.server import create_app
from agentworld_plugins.session import World
from agentworld_plugins.turns import render_turn

MB = 1024 * 1024


def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise SystemExit(f"no {field} in /proc/self/status")


def reset_peak():
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


loop = asyncio.new_event_loop()


def send(app, method, path, **kwargs):
    async def go():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=None) as c:
            return await c.request(method, path, **kwargs)
    return loop.run_until_complete(go())


world = World(backend="offline")
registry = new_plugin_manager(load_entrypoints=False).registry
prompts = {d: registry.domain(d).system_prompt({}) for d in ("terminal", "web", "swe")}
chat = create_app(world.backend, api_key="k")
search = create_search_app(world, api_key="k")
tasks = load_tasks(Path(sys.argv[1]), world.pm.registry)
openenv = create_openenv_app(world, tasks, token="t")


def turn(domain, action, state=None, fence="json"):
    user = render_turn(1, action, state=state, fence=fence)
    return {"model": "agentworld", "messages": [
        {"role": "system", "content": prompts[domain]}, {"role": "user", "content": user}]}


def keys(text):
    return json.dumps([{"keystrokes": text}])


BIG = 4_000_000 - 4096  # just under the text limit of a parsed body (the --max-body is 8 MiB)
PAGE = "URL: https://a.example/\nTitle: A\n\nRootWebArea 'A', focused\n\t[5] textbox 'Notes', multiline"
K = {"Authorization": "Bearer k"}
T = {"Authorization": "Bearer t"}
inputs = {
    "serve: a 4 MB body nested deep": (chat, "POST", "/v1/chat/completions",
        {"content": b"[" * BIG, "headers": {**K, "Content-Type": "application/json"}}),
    "serve: a 4 MB action": (chat, "POST", "/v1/chat/completions",
        {"json": turn("terminal", keys("echo " + "a" * (BIG - 200))), "headers": K}),
    "serve: a runaway sort": (chat, "POST", "/v1/chat/completions",
        {"json": turn("terminal", keys("seq 3000000 | sort | tail -1\n")), "headers": K}),
    "serve: a step at the memory budget": (chat, "POST", "/v1/chat/completions",
        {"json": turn("terminal", keys("head -c 89000000 /dev/zero | wc -c\n")), "headers": K}),
    "serve: a 2.8 MB fill": (chat, "POST", "/v1/chat/completions",
        {"json": turn("web", "fill('5', " + repr("a.b " * 700_000) + ")", state=PAGE, fence=None),
         "headers": K}),
    "search serve: a 4 MB query": (search, "POST", "/search",
        {"json": {"query": "q " * (BIG // 2 - 100)}, "headers": K}),
    "search serve: a 4 MB body nested deep": (search, "POST", "/search",
        {"content": b'{"query": ' + b"[" * (BIG - 20), "headers": {**K, "Content-Type": "application/json"}}),
    "openenv serve: a 4 MB body nested deep": (openenv, "POST", "/reset",
        {"content": b"[" * BIG, "headers": {**T, "Content-Type": "application/json"}}),
}
results = {}
reset_peak()
for name, (app, method, path, kwargs) in inputs.items():
    before = status("VmRSS")
    exact = reset_peak()
    response = send(app, method, path, **kwargs)
    peak = status("VmHWM") if exact else status("VmRSS")
    results[name] = {"status": response.status_code, "growth_mb": max(0, peak - before) / MB, "peak": exact,
                     "text": response.text[:200]}
episode = send(openenv, "POST", "/reset", json={"task_id": "notes-swe"}, headers=T).json()["observation"]["episode_id"]
send(openenv, "POST", "/step", headers=T, json={"episode_id": episode, "action": {
    "tool_name": "write_file", "arguments": {"file_path": "/app/a.txt", "content": "a" * 1_000_000}}})
before = status("VmRSS")
exact = reset_peak()
response = send(openenv, "POST", "/step", headers=T, json={"episode_id": episode, "action": {
    "tool_name": "replace", "arguments": {"file_path": "/app/a.txt", "old_string": "a",
    "new_string": "b" * 1000, "expected_replacements": 1_000_000}}})
peak = status("VmHWM") if exact else status("VmRSS")
results["openenv serve: a replace building 1 GB"] = {
    "status": response.status_code, "growth_mb": max(0, peak - before) / MB, "peak": exact,
    "text": response.json()["observation"]["text"][:200]}
print(json.dumps(results))
"""


def test_no_single_hostile_input_grows_a_server_by_300_mb() -> None:
    pytest.importorskip("openenv", reason="the rl extra (openenv-core) is not installed")
    tasks = ROOT / "agentworld_plugins" / "rollout" / "data" / "tasks.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tasks)], capture_output=True, text=True, timeout=900, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(results) == 9
    for name, result in results.items():
        assert result["status"] < 500, (name, result)
        assert result["growth_mb"] < LIMIT_MB, (name, result)
    assert "xmalloc: cannot allocate" in results["openenv serve: a replace building 1 GB"]["text"]
    print(json.dumps(results, indent=1))  # the figures, with -s
