"""``agentworld step`` says what it cannot know and what it ignores, on stderr and in the
observation's metadata, instead of answering as if nothing were missing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli

TOOLS = Path(__file__).resolve().parents[2] / "examples" / "tools" / "tools.json"
WEATHER = '{"tool_name": "get_weather", "arguments": {"city": "Oslo"}}'


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    for name in [k for k in os.environ if k.startswith("AGENTWORLD_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AGENTWORLD_HOME", str(tmp_path))


def _step(*args: str):
    return CliRunner().invoke(cli, ["step", *args, "--backend", "offline"])


def test_an_mcp_tool_call_without_tool_definitions_says_it_cannot_know_the_tool():
    result = _step("mcp", WEATHER, "--json")
    assert result.exit_code == 0, result.output
    observation = json.loads(result.stdout)
    warnings = observation["metadata"]["warnings"]
    assert len(warnings) == 1 and "'get_weather' exists" in warnings[0] and "--tools" in warnings[0]
    assert f"agentworld: warning: {warnings[0]}" in result.stderr
    # with the definitions it is answered as the server with that tool, with no warning
    given = _step("mcp", WEATHER, "--json", "--tools", str(TOOLS))
    assert given.exit_code == 0 and "warnings" not in json.loads(given.stdout)["metadata"]
    # and a tool the definitions lack is the server's own error (exit 2: an error observation)
    missing = _step("mcp", '{"tool_name": "list_issues", "arguments": {}}', "--tools", str(TOOLS))
    assert missing.exit_code == 2 and "Unknown tool: list_issues" in missing.stdout


def test_tools_for_a_domain_that_takes_none_are_said_to_be_ignored():
    result = _step("terminal", '[{"keystrokes": "pwd\\n"}]', "--tools", str(TOOLS), "--json")
    assert result.exit_code == 0, result.output
    (warning,) = json.loads(result.stdout)["metadata"]["warnings"]
    assert warning.startswith("--tools is ignored: the terminal domain takes no tool definitions")
    assert warning in result.stderr


def test_endpoint_options_the_backend_never_reads_are_said_to_be_ignored(monkeypatch):
    args = ["terminal", '[{"keystrokes": "pwd\\n"}]', "--base-url", "http://127.0.0.1:9/v1", "--json"]
    result = _step(*args, "--api-key", "k")
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["metadata"]["warnings"]
    assert [w.split(" is ignored")[0] for w in warnings] == ["--base-url", "--api-key"]
    assert "--backend offline,openai" in warnings[0] and warnings[0] in result.stderr
    # set in the environment, not given here: nothing to say
    monkeypatch.setenv("AGENTWORLD_BASE_URL", "http://127.0.0.1:9/v1")
    quiet = _step("terminal", '[{"keystrokes": "pwd\\n"}]', "--json")
    assert quiet.exit_code == 0 and "warnings" not in json.loads(quiet.stdout)["metadata"]


def test_usage_errors_and_errors_exit_as_documented():
    """Usage errors (click's) exit 2, the package's errors 1 with one line, an error observation 2."""
    assert CliRunner().invoke(cli, ["step"]).exit_code == 2
    assert CliRunner().invoke(cli, ["step", "terminal", "x", "--no-such-option"]).exit_code == 2
    bad = _step("nosuchdomain", "{}")
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: ")
