"""Every option and argument of every command says what it is for; errors are one clean line."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import _load_plugin_commands, cli
from agentworld_plugins.plugins import get_plugin_manager


def _commands(
    group: click.Command, path: tuple[str, ...] = ("agentworld",)
) -> Iterator[tuple[str, click.Command]]:
    yield " ".join(path), group
    if isinstance(group, click.Group):
        for name, command in sorted(group.commands.items()):
            yield from _commands(command, (*path, name))


def _all_commands() -> list[tuple[str, click.Command]]:
    _load_plugin_commands()
    return list(_commands(cli))


def test_every_option_has_help_and_every_argument_is_described() -> None:
    missing = []
    for name, command in _all_commands():
        for param in command.params:
            if isinstance(param, click.Option):
                if not param.hidden and not (param.help or "").strip():
                    missing.append(f"{name} {param.opts[0]}")
            elif isinstance(param, click.Argument):
                described = param.human_readable_name.upper() in (command.help or "")
                if not described:
                    missing.append(f"{name} {param.human_readable_name} (say what it is in the docstring)")
    assert not missing, "options/arguments without help:\n" + "\n".join(missing)


def test_backend_help_lists_every_backend_and_the_chain_and_mode_syntax() -> None:
    backends = set(get_plugin_manager().registry.backends)
    assert {"offline", "openai", "cassette", "scenario", "transformers"} <= backends
    found = 0
    for name, command in _all_commands():
        for param in command.params:
            if isinstance(param, click.Option) and "--backend" in param.opts:
                found += 1
                text = param.help or ""
                for backend in backends:
                    assert backend in text, f"{name} --backend help does not name {backend!r}"
                assert "?mode=" in text and "," in text and "chain" in text, f"{name} --backend help"
    assert found >= 5


def _busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.fixture
def busy_port() -> Iterator[int]:
    yield from _busy_port()


@pytest.mark.parametrize(
    "args",
    [
        ["serve"],
        ["search", "serve"],
        ["mcp", "serve", "--pack", "filesystem", "--http"],
        ["shell", "--memory", "swerex"],
        ["openenv", "serve", "--domain", "mcp", "--tool-pack", "github-issues"],
    ],
    ids=["serve", "search-serve", "mcp-serve-http", "shell-swerex", "openenv-serve"],
)
def test_port_in_use_is_one_error_before_any_banner(args: list[str], busy_port: int, tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path), "AGENTWORLD_BASE_URL": "", "AGENTWORLD_BACKEND": "offline"}
    result = CliRunner().invoke(cli, [*args, "--port", str(busy_port)], env=env)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[0] == f"Error: Port {busy_port} on 127.0.0.1 is in use"
    assert result.stderr.splitlines()[1].startswith("Hint: ")
    assert "serving" not in result.output and "Traceback" not in result.output


def test_missing_at_file_is_one_error(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path), "AGENTWORLD_BACKEND": "offline"}
    missing = tmp_path / "nope.txt"
    result = CliRunner().invoke(
        cli, ["step", "terminal", '[{"keystrokes": "ls\\n"}]', "--state", f"@{missing}"], env=env
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith(f"Error: Cannot read --state @{missing}")
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    "args",
    [["step"], ["step", "terminal", "[]", "--bogus"], ["step", "terminal", "[]", "--seed", "abc"]],
    ids=["missing-argument", "unknown-option", "wrong-type"],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    """What click checks (arguments, option names, value types) is a usage error: usage, exit 2."""
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "Usage:" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["step", "chess", "[]"], ["step", "terminal", "[]", "--perturb", "nonsense"]],
    ids=["unknown-domain", "bad-perturb-spec"],
)
def test_values_we_check_are_errors_that_exit_1(args: list[str], tmp_path: Path) -> None:
    """A value of the right type that names nothing we have is our error: one line, a hint, exit 1."""
    env = {"AGENTWORLD_HOME": str(tmp_path), "AGENTWORLD_BACKEND": "offline", "AGENTWORLD_BASE_URL": ""}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 1 and result.stderr.startswith("Error: ") and "Usage:" not in result.stderr


def test_cassette_ls_lists_agentworld_home_and_a_missing_path_has_a_hint(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path / "home")}
    listed = CliRunner().invoke(cli, ["cassette", "ls"], env=env)
    assert listed.exit_code == 0 and str(tmp_path / "home" / "cassettes") in listed.output
    missing = CliRunner().invoke(cli, ["cassette", "ls", str(tmp_path / "nope")], env=env)
    assert missing.exit_code == 1
    assert missing.stderr.splitlines()[1].startswith("Hint: `agentworld cassette ls` lists")


def test_mcp_config_warns_when_world_settings_would_not_reach_the_server(monkeypatch) -> None:
    for key in [k for k in os.environ if k.startswith("AGENTWORLD_")]:
        monkeypatch.delenv(key)
    args = ["mcp", "config", "--client", "claude", "--name", "gh", "--", "--pack", "github-issues"]
    warned = CliRunner().invoke(cli, args, env={"AGENTWORLD_BASE_URL": "http://localhost:8000/v1"})
    assert warned.exit_code == 0 and "AGENTWORLD_BASE_URL set here will not reach" in warned.stderr
    given = [
        "mcp",
        "config",
        "--client",
        "claude",
        "--name",
        "gh",
        "--env",
        "AGENTWORLD_BASE_URL=http://x/v1",
    ]
    passed = CliRunner().invoke(
        cli, [*given, "--", "--pack", "github-issues"], env={"AGENTWORLD_BASE_URL": "http://x/v1"}
    )
    assert passed.exit_code == 0 and "warning" not in passed.stderr
