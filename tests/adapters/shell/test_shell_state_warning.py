"""``--state`` (or a machine) for a session that already exists is not silently ignored."""

from __future__ import annotations

from pathlib import Path

from agentworld_plugins.adapters.shell.machine import MachineSpec
from agentworld_plugins.adapters.shell.terminal import VirtualTerminal
from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.cli import cli
from agentworld_plugins.store import SessionStore


def test_cli_warns_and_banner_names_the_stored_machine(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path / "home"), "AGENTWORLD_SESSION": "s1"}
    runner = CliRunner()
    first = runner.invoke(cli, ["shell", "--hostname", "first", "-c", "hostname"], env=env)
    assert first.exit_code == 0 and "first" in first.stdout and "warning" not in first.stderr
    state = tmp_path / "machine.yaml"
    state.write_text("hostname: second\nuser: ada\n")
    again = runner.invoke(cli, ["shell", "--state", str(state), "-c", "hostname"], env=env)
    assert again.exit_code == 0
    assert again.stdout.strip() == "first"  # the stored machine answers
    assert "warning" in again.stderr and "'s1' already exists" in again.stderr and "--new" in again.stderr
    typed = runner.invoke(cli, ["shell", "--state", str(state), "--editor", "plain"], input="", env=env)
    banner = [line for line in typed.stderr.splitlines() if line.startswith("agentworld shell:")]
    assert banner and "root@first" in banner[0] and "second" not in banner[0]
    plain = runner.invoke(cli, ["shell", "-c", "true"], env=env)  # no machine given: nothing to warn about
    assert "warning" not in plain.stderr


def test_observations_carry_the_warning(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "shell.db")
    with World(backend="offline") as world:
        VirtualTerminal(world, session_id="t", machine=MachineSpec(hostname="one"), store=store).run("true")
        same = VirtualTerminal(world, session_id="t", machine=MachineSpec(hostname="one"), store=store)
        assert "warnings" not in same.run("true").observation.metadata
        other = VirtualTerminal(world, session_id="t", machine=MachineSpec(hostname="two"), store=store)
        result = other.run("hostname")
    assert result.stdout.strip() == "one"
    assert "already exists" in result.observation.metadata["warnings"][0]


def test_no_machine_given_means_no_warning(tmp_path: Path) -> None:
    from agentworld_plugins.adapters.shell.service import machine_from_env

    assert machine_from_env({}) is None  # the shim: a session made by `agentworld shell --hostname x`
    assert machine_from_env({"AGENTWORLD_SHELL_HOSTNAME": "x"}) == MachineSpec(hostname="x")
    store = SessionStore(tmp_path / "shell.db")
    with World(backend="offline") as world:
        VirtualTerminal(world, session_id="t", machine=MachineSpec(hostname="made"), store=store).run("true")
        again = VirtualTerminal(world, session_id="t", machine=machine_from_env({}), store=store).run(
            "hostname"
        )
    assert again.stdout.strip() == "made" and "warnings" not in again.observation.metadata
