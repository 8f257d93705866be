"""The core CLI commands: domains, plugins, prompt, step, and the one-line error contract."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_domains_lists_all_seven(runner):
    result = runner.invoke(cli, ["domains", "--json"])
    assert result.exit_code == 0
    names = {row["name"] for row in json.loads(result.output)}
    assert names == {"mcp", "search", "terminal", "swe", "android", "web", "os"}


def test_plugins_by_hook(runner):
    result = runner.invoke(cli, ["plugins", "--all", "--hook", "register_domains"])
    rows = json.loads(result.output)
    assert {r["name"] for r in rows} >= {
        "agentworld_plugins.domains.terminal",
        "agentworld_plugins.domains.web",
    }
    assert all("register_domains" in r["hooks"] for r in rows)


def test_prompt_fills_tool_definitions(runner, tmp_path):
    tools = tmp_path / "tools.yaml"
    tools.write_text("- name: open_ticket\n  description: Open a ticket\n  inputSchema: {type: object}\n")
    result = runner.invoke(cli, ["prompt", "mcp", "--tools", str(tools)])
    assert result.exit_code == 0
    assert '"open_ticket"' in result.output and "{tool_definitions}" not in result.output
    judge = runner.invoke(cli, ["prompt", "terminal", "--judge"])
    assert "<final_evaluation>" in judge.output


def test_prompts_dir_overrides_templates(runner, tmp_path):
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "system_prompt.txt").write_text("OFFICIAL {tool_definitions} END")
    result = runner.invoke(cli, ["prompt", "mcp", "--prompts-dir", str(tmp_path)])
    assert result.output.startswith("OFFICIAL (no tool definitions were given) END")
    missing = runner.invoke(cli, ["prompt", "web", "--prompts-dir", str(tmp_path)])
    assert missing.exit_code == 1 and "No system_prompt.txt for domain 'web'" in missing.output


def test_step_json_against_fake_server(runner, fake_world_server):
    fake_world_server.enqueue(
        {
            "content": "<predicted_observation>[1] https://a.example</predicted_observation>",
            "reasoning_content": "r",
        }
    )
    action = json.dumps({"name": "web_search", "arguments": {"query": "a"}})
    result = runner.invoke(
        cli, ["step", "search", action, "--base-url", fake_world_server.url, "--json", "--seed", "5"]
    )
    assert result.exit_code == 0, result.output
    obs = json.loads(result.output)
    assert obs["text"] == "[1] https://a.example" and obs["reasoning"] == "r" and obs["is_error"] is False
    body = fake_world_server.chat_requests[-1].body
    assert body["seed"] == 5 and body["model"] == "fake-world-model"


def test_step_bad_action_is_one_clear_error(runner):
    result = runner.invoke(cli, ["step", "android", '{"action_type": "click"}', "--backend", "offline"])
    assert result.exit_code == 1
    assert "validation error for android action" in result.output
    assert "Traceback" not in result.output


def test_unreachable_world_model_is_one_line_with_the_fix(runner):
    url = _closed_port_url()
    env = {"AGENTWORLD_MAX_RETRIES": "0"}
    result = runner.invoke(
        cli, ["step", "mcp", '{"tool_name": "x"}', "--base-url", url, "--model", "m"], env=env
    )
    assert result.exit_code == 1
    assert f"Cannot reach the world model at {url}" in result.output
    assert "vllm serve" in result.output and "Traceback" not in result.output


def test_console_script_and_raise_errors(tmp_path):
    url = _closed_port_url()
    args = [
        sys.executable,
        "-m",
        "agentworld_plugins",
        "step",
        "mcp",
        '{"tool_name": "x"}',
        "--base-url",
        url,
        "--model",
        "m",
    ]
    env = {"PATH": "/usr/bin:/bin", "AGENTWORLD_MAX_RETRIES": "0", "HOME": str(tmp_path)}
    quiet = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert quiet.returncode == 1 and "Traceback" not in quiet.stderr
    loud = subprocess.run(
        args, capture_output=True, text=True, env={**env, "AGENTWORLD_RAISE_ERRORS": "1"}, timeout=60
    )
    assert loud.returncode == 1 and "Traceback" in loud.stderr and "BackendUnavailableError" in loud.stderr
