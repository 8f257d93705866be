"""``agentworld mcp config`` snippets and ``agentworld mcp serve`` argument checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli

MIRROR = ["--mirror", "--", "npx", "-y", "@modelcontextprotocol/server-github"]


def _config(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["mcp", "config", *args])
    assert result.exit_code == 0, result.output
    assert "agentworld: paste into" in result.stderr
    return json.loads(result.stdout)


def test_claude_desktop_snippet_replaces_the_real_server() -> None:
    snippet = _config("--client", "claude", "--name", "github", "--command", "agentworld", "--", *MIRROR)
    assert snippet == {"mcpServers": {"github": {"command": "agentworld", "args": ["mcp", "serve", *MIRROR]}}}


def test_cursor_and_vscode_snippets() -> None:
    args = [
        "--name",
        "fs",
        "--command",
        "/venv/bin/agentworld",
        "--env",
        "AGENTWORLD_BASE_URL=http://gpu:8000/v1",
    ]
    cursor = _config("--client", "cursor", *args, "--", "--pack", "filesystem")
    assert cursor["mcpServers"]["fs"] == {
        "command": "/venv/bin/agentworld",
        "args": ["mcp", "serve", "--pack", "filesystem"],
        "env": {"AGENTWORLD_BASE_URL": "http://gpu:8000/v1"},
    }
    vscode = _config("--client", "vscode", *args, "--", "--pack", "filesystem")
    assert vscode["servers"]["fs"]["type"] == "stdio"
    assert vscode["servers"]["fs"]["args"] == ["mcp", "serve", "--pack", "filesystem"]


def test_http_snippets_point_at_the_url_with_the_token() -> None:
    serve = ["--pack", "sql-database", "--http", "--port", "9100", "--token", "s3cret"]
    cursor = _config("--client", "cursor", "--name", "db", "--", *serve)
    assert cursor == {
        "mcpServers": {
            "db": {"url": "http://127.0.0.1:9100/mcp", "headers": {"Authorization": "Bearer s3cret"}}
        }
    }
    vscode = _config("--client", "vscode", "--name", "db", "--", "--pack", "sql-database", "--http")
    assert vscode == {"servers": {"db": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}}
    claude = CliRunner().invoke(cli, ["mcp", "config", "--name", "db", "--", *serve])
    assert claude.exit_code == 1 and "Claude Desktop's config launches stdio servers" in claude.stderr


def test_default_launcher_is_found_on_path() -> None:
    snippet = _config("--name", "fs", "--", "--pack", "filesystem")
    entry = snippet["mcpServers"]["fs"]
    assert entry["args"][-4:] == ["mcp", "serve", "--pack", "filesystem"]
    assert Path(entry["command"]).name.startswith(("agentworld", "python"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["config", "--name", "x", "--", "--no-such-option"], "the serve arguments are not valid"),
        (["config", "--name", "x", "--env", "NOEQUALS", "--", "--pack", "filesystem"], "is not KEY=VALUE"),
        (["serve", "--pack", "filesystem", "--", "npx", "server"], "needs --mirror"),
        (["serve", "--mirror"], "--mirror needs the real server's command"),
        (["serve", "--pack", "filesystem", "--token", "t"], "add --http"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["mcp", *args])
    assert result.exit_code == 2 and message in result.stderr


def test_serve_without_tools_says_where_they_come_from() -> None:
    result = CliRunner().invoke(cli, ["mcp", "serve"])
    assert result.exit_code == 1
    assert "No tools to serve" in result.stderr and "--pack NAME" in result.stderr


def test_serve_list_and_save_snapshot(tmp_path: Path) -> None:
    snapshot = tmp_path / "packs.json"
    args = [
        "mcp",
        "serve",
        "--pack",
        "github-issues",
        "--pack",
        "sql-database",
        "--save-snapshot",
        str(snapshot),
    ]
    result = CliRunner().invoke(cli, [*args, "--list"])
    assert result.exit_code == 0, result.output
    names = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert names[0] == "list_issues" and "read_query" in names and len(names) == 12
    saved = json.loads(snapshot.read_text())
    assert saved["agentworld_mcp_snapshot"] == 1 and [t["name"] for t in saved["tools"]] == names
    assert saved["server"]["name"] == "github-issues"


def test_config_writes_every_file_path_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentworld_plugins.cli.mcp import absolute_serve_args

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text('{"tools": []}')
    (tmp_path / "snap.json").write_text("{}")
    args = absolute_serve_args(
        ["--tools", "tools.json", "--snapshot=snap.json", "--record", "out/runs.jsonl",
         "--backend", "cassette:run.db,offline", "--mirror", "--", "node", "server.js", "--tools", "x"]
    )  # fmt: skip
    assert args == [
        "--tools", str(tmp_path / "tools.json"), f"--snapshot={tmp_path / 'snap.json'}",
        "--record", str(tmp_path / "out" / "runs.jsonl"), "--backend", f"cassette:{tmp_path / 'run.db'},offline",
        "--mirror", "--", "node", "server.js", "--tools", "x",
    ]  # fmt: skip
    assert absolute_serve_args(["--backend", "offline"]) == ["--backend", "offline"]
    missing = CliRunner().invoke(cli, ["mcp", "config", "--name", "x", "--", "--snapshot", "gone.json"])
    assert missing.exit_code == 1 and "--snapshot gone.json: no such file" in missing.stderr
