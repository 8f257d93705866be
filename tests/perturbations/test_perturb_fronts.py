"""Targeting means the same on every front: ``tools=curl`` fires on a terminal line, a swe shell
tool call and ``agentworld shell -c`` alike (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.perturbations import Faults, describe_action
from agentworld_plugins.perturbations.commandline import programs
from agentworld_plugins.plugins import new_plugin_manager


@pytest.fixture
def world() -> World:
    return World(
        backend=FakeBackend(lambda messages: "ok"), plugin_manager=new_plugin_manager(load_entrypoints=False)
    )


def test_programs_of_a_line_include_pipes_lists_substitutions_and_bash_c() -> None:
    line = "cd /srv && FOO=1 sudo curl -s http://x | jq .a; echo $(wget -qO- y); bash -c 'git push'"
    assert programs(line) == ["cd", "curl", "jq", "echo", "wget", "bash", "git"]
    assert programs("timeout 5 curl x") == ["curl"]
    assert programs("echo 'unterminated") == ["echo"]  # bashlex refuses it: split by hand


def test_shell_tool_calls_match_the_programs_they_run(world: World) -> None:
    view = describe_action(
        "swe",
        {"tool_name": "run_shell_command", "arguments": {"command": "cd /srv && curl http://api.test/x"}},
    )
    assert view.tool == "run_shell_command" and view.tool_names() == ["run_shell_command", "cd", "curl"]
    session = world.session("swe", seed=1, perturbations=[Faults(kinds="timeout", tools="curl")])
    quiet = session.step({"tool_name": "run_shell_command", "arguments": {"command": "ls"}})
    assert not quiet.metadata.get("perturbations")
    loud = session.step(
        {"tool_name": "run_shell_command", "arguments": {"command": "cd /srv && curl http://api.test/x"}}
    )
    [entry] = loud.metadata["perturbations"]
    assert entry["tool"] == "run_shell_command" and entry["program"] == "curl"
    # the text is curl's own, about the command targeting picked out
    assert "curl: (28)" in loud.text and "Command: cd /srv && curl http://api.test/x" in loud.text


def test_commands_glob_matches_each_simple_command(world: World) -> None:
    session = world.session("terminal", seed=1, perturbations=[Faults(kinds="not_found", commands="curl *")])
    observation = session.step([{"keystrokes": "cd /tmp && curl http://h/x\n", "duration": 1}])
    assert observation.metadata.get("perturbations"), observation.text
    # plain curl (no -f) prints the server's error page and exits 0
    assert "curl: (22)" not in observation.text and "<title>404 Not Found</title>" in observation.text


def test_terminal_matches_every_program_of_the_line(world: World) -> None:
    session = world.session("terminal", seed=1, perturbations=[Faults(kinds="timeout", tools="curl")])
    observation = session.step([{"keystrokes": "cd /tmp && curl http://h/x\n", "duration": 1}])
    assert observation.metadata["perturbations"][0]["kind"] == "timeout"


def test_agentworld_shell_c_honours_tools_targeting(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path / "home"), "AGENTWORLD_SESSION": "curl-demo"}
    runner = CliRunner()
    spec = "faults:kinds=connection_reset,tools=curl"
    ran = runner.invoke(cli, ["shell", "--memory", "--perturb", spec, "-c", "echo fine"], env=env)
    assert ran.exit_code == 0 and "fine" in ran.output
    faulted = runner.invoke(
        cli, ["shell", "--memory", "--perturb", spec, "-c", "curl https://api.test/v1"], env=env
    )
    assert faulted.exit_code == 56, faulted.output
    assert "curl: (56) Recv failure: Connection reset by peer" in faulted.output
