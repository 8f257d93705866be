"""A secret planted everywhere a user or an agent can put one is in no file a run writes.

Planted: an upstream API key with no recognisable form (``--upstream-api-key``, quoted back by
the upstream's 401), a ``password`` tool argument, a ``glpat-`` token argument, keystrokes that
type a password, and the serving token. The fronts run for real (``agentworld serve`` recording a
cassette, ``rollout run``, ``bench infer`` as subprocesses; ``Trajectory.to_jsonl``), with HOME
and AGENTWORLD_HOME inside the test's folder; then every file under it is read byte by byte.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.redaction import forget_secrets
from agentworld_plugins.session import World
from agentworld_plugins.testing import clean_env, cli_process

UPSTREAM_KEY = "Qz7pL2vX9kWr4mTnB8cD"  # no sk-/hf_ prefix: only its configured value identifies it
PASSWORD = "hunter2-Xy8vQ3Lm"
GITLAB = "glpat-" + "a1B2c3D4e5F6g7H8i9J0"
SERVE_TOKEN = "serve-Tok3n-9f8e7d6c"
SECRETS = (UPSTREAM_KEY, PASSWORD, GITLAB, SERVE_TOKEN)
TYPED = f"export DB_PASSWORD={PASSWORD}\nmysql -u root --password='{PASSWORD}' -e 'select 1'\n"
ANSWER_WITH_SECRETS = (  # the world model echoes what it saw: recorded redacted, replayed alike
    f'<predicted_observation>logged in {{"user": "ann", "password": "{PASSWORD}"}}\n'
    f"export GITLAB_TOKEN={GITLAB} (key {UPSTREAM_KEY})</predicted_observation>"
)
TOOL_CALL = {"tool_name": "login", "arguments": {"user": "ann", "password": PASSWORD, "token": GITLAB}}


def _env(home: Path) -> dict[str, str]:
    return clean_env(HOME=str(home), AGENTWORLD_HOME=str(home / ".agentworld"))


def _post(url: str, body: dict, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def _grep_every_file(root: Path) -> list[Path]:
    files = [p for p in root.rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret!r} in {path}"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, f"{path} is {oct(path.stat().st_mode)}"
    return files


@pytest.fixture(autouse=True)
def _fresh_secrets() -> None:
    forget_secrets()


def test_serve_with_a_cassette_keeps_no_secret(tmp_path: Path) -> None:
    os.umask(0o022)
    upstream = FakeWorldModelServer()
    upstream.enqueue(
        FakeWorldModelServer.error(401, f"Incorrect API key provided: {UPSTREAM_KEY}. Find yours online."),
        ANSWER_WITH_SECRETS,
    )
    cassette = tmp_path / "run.db"
    with upstream:
        args = (
            *("serve", "--backend", f"cassette:{cassette}?mode=all,openai", "--upstream", upstream.url),
            *("--model", "m", "--upstream-api-key", UPSTREAM_KEY, "--api-key", SERVE_TOKEN),
        )
        with cli_process(*args, env=_env(tmp_path), ready_path="/health") as base:
            chat = {
                "model": "agentworld",
                "messages": [
                    {"role": "system", "content": "You simulate an MCP server."},
                    {"role": "user", "content": f"Call: {json.dumps(TOOL_CALL)}\nTyped: {TYPED}"},
                ],
            }
            status, body = _post(base + "/v1/chat/completions", chat, SERVE_TOKEN)
            assert status == 502 and b"Incorrect API key provided" in body
            assert UPSTREAM_KEY.encode() not in body and b"***REDACTED***" in body
            status, body = _post(base + "/v1/chat/completions", chat, SERVE_TOKEN)
            assert status == 200 and b"logged in" in body
            live = json.loads(body)["choices"][0]["message"]["content"]
        assert upstream.chat_requests[0].headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert live.count("***REDACTED***") == 3 and not any(secret in live for secret in SECRETS)
    replay = (
        "serve",
        "--backend",
        f"cassette:{cassette}?mode=none",
        "--model",
        "m",
        "--api-key",
        SERVE_TOKEN,
    )
    with cli_process(*replay, env=_env(tmp_path), ready_path="/health") as base:
        status, body = _post(base + "/v1/chat/completions", chat, SERVE_TOKEN)
        assert status == 400 and b"repeat 1" in body  # the live 401 was not recorded
        status, body = _post(base + "/v1/chat/completions", chat, SERVE_TOKEN)  # repeat 2: recorded
        assert status == 200, body
        assert json.loads(body)["choices"][0]["message"]["content"] == live  # replay == live
    written = _grep_every_file(tmp_path)
    assert cassette in written


def test_trajectories_redact_prompt_and_action_fields(tmp_path: Path) -> None:
    with World(backend="offline", api_key=UPSTREAM_KEY, base_url="http://127.0.0.1:9/v1") as world:
        world.backend  # noqa: B018 (builds the backend, which learns the configured key)
    with World(backend="offline") as world:
        mcp = world.session("mcp", tools=[{"name": "login", "description": "Log in.", "input_schema": {}}])
        mcp.step(TOOL_CALL)
        mcp.step({"tool_name": "login", "arguments": {"api_key": UPSTREAM_KEY}})
        terminal = world.session("terminal")
        terminal.step([{"keystrokes": TYPED}])
        for session in (mcp, terminal):
            session.trajectory.to_jsonl(tmp_path / "records.jsonl", append=True)
            session.trajectory.to_jsonl(tmp_path / "chat.jsonl", form="chat", append=True)
    assert len(_grep_every_file(tmp_path)) == 2
    assert "***REDACTED***" in (tmp_path / "records.jsonl").read_text()


def _run_cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(home),
        cwd=home,
    )


def test_rollout_and_bench_outputs_keep_no_secret(tmp_path: Path) -> None:
    inputs, run = tmp_path / "in", tmp_path / "run"  # what the user hands in; what the run writes
    inputs.mkdir()
    run.mkdir()
    tasks = inputs / "tasks.jsonl"
    task = {
        "id": "typed",
        "domain": "terminal",
        "instruction": "Check the database.",
        "max_turns": 2,
    }
    tasks.write_text(json.dumps(task) + "\n")
    agent = inputs / "agent.json"
    agent.write_text(json.dumps({"*": [{"action": [{"keystrokes": TYPED}]}, {"answer": "done"}]}))
    episodes = run / "episodes.jsonl"
    rollout = ["rollout", "run", "--tasks", str(tasks), "--agent", f"scripted:{agent}", "-o", str(episodes)]
    done = _run_cli([*rollout, "--backend", "offline"], run)
    assert done.returncode == 0, done.stderr
    assert episodes.stat().st_size > 0

    data = inputs / "bench"
    data.mkdir()
    record = next(iter(sample_records("terminal", 1)))
    record["system_str"] += f"\nThe operator typed:\n{TYPED}"
    record["response"] = [r + f"\n{TYPED}" for r in record["response"]]
    (data / "terminal_test.jsonl").write_text(json.dumps(record) + "\n")
    predictions = run / "predictions.jsonl"
    done = _run_cli(
        ["bench", "infer", "--data-dir", str(data), "--output", str(predictions), "--backend", "offline"],
        run,
    )
    assert done.returncode == 0, done.stderr
    assert predictions.stat().st_size > 0
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr
    written = _grep_every_file(run)
    assert {episodes, predictions} <= set(written)
    assert "DB_PASSWORD=***REDACTED***" in episodes.read_text()
