"""The README's main job (`agentworld demo`) and `agentworld serve` on the offline world."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import openai
import pytest

from agentworld_plugins.session import Trajectory
from agentworld_plugins.testing import clean_env, cli_process, serve_process

ENV = clean_env()


def test_demo_runs_every_domain_offline(tmp_path):
    record = tmp_path / "demo.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "demo", "--record", str(record)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**ENV, "HOME": str(tmp_path), "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stderr
    assert "using the embedded offline world" in done.stderr
    for domain in ("terminal", "swe", "mcp", "search", "web", "android", "os"):
        assert f" {domain} " in done.stdout
    trajectories = {t.domain: t for t in Trajectory.from_jsonl(record)}
    assert set(trajectories) == {"terminal", "swe", "mcp", "search", "web", "android", "os"}
    terminal = trajectories["terminal"].turns
    assert "bash: frobnicate: command not found" in terminal[-1].observation.text
    assert "exit=127" in terminal[-1].observation.text
    mcp = trajectories["mcp"].turns
    assert mcp[-1].observation.is_error and "not found" in mcp[-1].observation.text
    swe = trajectories["swe"].turns
    assert "a + b" in swe[-1].observation.text


def test_demo_rejects_unknown_domain(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "demo", "--domain", "chess"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**ENV, "HOME": str(tmp_path)},
    )
    assert done.returncode == 1
    assert "No demo for domain 'chess'" in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def offline_server(tmp_path):
    with serve_process("--backend", "offline", "--api-key", "k", env={**ENV, "HOME": str(tmp_path)}) as url:
        yield url


def test_a_server_that_does_not_start_is_named_with_its_error(tmp_path):
    """``cli_process`` (which ``serve_process`` builds on) serves any command; one that exits
    before it answers is a RuntimeError with the command and its stderr, not a hang."""
    args = ("openenv", "serve", "--domain", "chess", "--backend", "offline")
    with (
        pytest.raises(
            RuntimeError, match=r"agentworld openenv serve did not start: .*unknown domain 'chess'"
        ),
        cli_process(*args, env={**ENV, "HOME": str(tmp_path)}),
    ):
        pass


def _turn(n: int, keystrokes: str) -> str:
    action = json.dumps([{"keystrokes": keystrokes, "duration": 0.1}])
    return f"### Turn {n}\n**Action:**\n```json\n{action}\n```"


def test_serve_offline_answers_openai_client_in_trained_format(offline_server):
    from agentworld_plugins.plugins import get_plugin_manager

    system = get_plugin_manager().registry.domain("terminal").system_prompt({})
    client = openai.OpenAI(base_url=offline_server + "/v1", api_key="k")
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": _turn(1, "echo hi > /tmp/x\n")},
    ]
    first = client.chat.completions.create(model="agentworld", messages=messages)
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": _turn(2, "cat /tmp/x\n")},
    ]
    second = client.chat.completions.create(model="agentworld", messages=messages)
    content = second.choices[0].message.content
    assert content.startswith("<predicted_observation>") and "hi" in content.split("cat /tmp/x", 1)[1]


def test_serve_offline_raw_http_and_errors(offline_server):
    body = {"messages": [{"role": "user", "content": _turn(1, "pwd\n")}]}
    request = urllib.request.Request(
        offline_server + "/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer k", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    assert answer["object"] == "chat.completion"
    assert "/app" in answer["choices"][0]["message"]["content"]
    bad = urllib.request.Request(
        offline_server + "/v1/chat/completions",
        data=b'{"messages": [{"role": "user", "content": "no turn"}]}',
        headers={"Authorization": "Bearer k"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(bad, timeout=10)
    assert info.value.code == 400
    assert "cannot tell which domain" in json.loads(info.value.read())["error"]["message"]


def test_readme_commands_are_the_ci_commands():
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text()
    assert 'pip install -e ".[dev]" && pytest' in readme and 'pip install -e ".[dev]" && pytest' in ci
    assert "pip install -e . && agentworld demo" in readme
