"""``agentworld shell``: one command, the stored sessions, their export."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentworld_plugins.cli import cli


def test_shell_command_sessions_export_and_rm(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"AGENTWORLD_HOME": str(tmp_path / "home"), "AGENTWORLD_SESSION": "cli-demo"}
    made = runner.invoke(cli, ["shell", "--hostname", "box", "-c", "echo hi > a; cat a; hostname"], env=env)
    assert made.exit_code == 0, made.output
    assert "hi\nbox\n" in made.output
    failed = runner.invoke(cli, ["shell", "-c", "exit 9"], env=env)
    assert failed.exit_code == 9
    typed = runner.invoke(cli, ["shell", "--editor", "plain"], input="cat a\ncd /tmp\n", env=env)
    assert typed.exit_code == 0 and "hi" in typed.output
    listed = runner.invoke(cli, ["shell", "sessions", "--json"], env=env)
    rows = json.loads(listed.output)
    assert rows[0]["id"] == "cli-demo" and rows[0]["turns"] == 4 and rows[0]["machine"] == "root@box:/app"
    out = tmp_path / "traj.jsonl"
    exported = runner.invoke(cli, ["shell", "export", "cli-demo", "-o", str(out)], env=env)
    assert exported.exit_code == 0, exported.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task"] for r in records] == ["swe", "swe", "terminal", "terminal"]
    assert records[0]["system_str"].startswith("# Software Engineering Sandbox World Model")
    assert "## The Machine" in records[-1]["system_str"]
    chat = runner.invoke(cli, ["shell", "export", "cli-demo", "--form", "chat"], env=env)
    assert json.loads(chat.output.splitlines()[0])["messages"][0]["role"] == "system"
    assert runner.invoke(cli, ["shell", "rm", "cli-demo"], env=env).exit_code == 0
    assert runner.invoke(cli, ["shell", "rm", "cli-demo"], env=env).exit_code == 1
    missing = runner.invoke(cli, ["shell", "export", "nothing"], env=env)
    assert missing.exit_code == 1 and "No shell session named 'nothing'" in missing.output
