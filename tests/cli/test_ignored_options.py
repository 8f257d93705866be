"""An option the chosen backend never reads is said on stderr by every command that takes it, not
ignored without a word: `--backend offline --base-url URL` on step, mcp serve, serve and bench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentworld_plugins import http_guard
from agentworld_plugins.bench.sample import make_sample_dataset
from agentworld_plugins.cli import cli

URL = "http://127.0.0.1:9/v1"
WARNING = "--backend offline does not use it (only the openai backend does"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"AGENTWORLD_HOME": str(tmp_path / "home"), "AGENTWORLD_BASE_URL": "", "AGENTWORLD_BACKEND": ""}


def _said(result: Any, flag: str) -> bool:
    return f"agentworld: warning: {flag} is ignored: {WARNING}" in result.stderr


def test_step(env: dict[str, str]) -> None:
    args = [
        "step",
        "terminal",
        '[{"keystrokes": "pwd\\n"}]',
        "--backend",
        "offline",
        "--base-url",
        URL,
        "--json",
    ]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0 and _said(result, "--base-url")
    assert any("--base-url is ignored" in w for w in json.loads(result.stdout)["metadata"]["warnings"])


def test_mcp_serve(env: dict[str, str], tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "ping", "inputSchema": {"type": "object"}}]))
    args = ["mcp", "serve", "--tools", str(tools), "--list", "--backend", "offline", "--model", "m"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert _said(result, "--model")


def test_serve(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_guard, "run", lambda app, **kwargs: None)
    result = CliRunner().invoke(cli, ["serve", "--backend", "offline", "--upstream", URL], env=env)
    assert result.exit_code == 0, result.output
    assert _said(result, "--upstream")


def test_bench_infer(env: dict[str, str], tmp_path: Path) -> None:
    make_sample_dataset(tmp_path / "data", episodes=1)
    args = ["bench", "infer", "--data-dir", str(tmp_path / "data"), "--output", str(tmp_path / "p.jsonl")]
    args += ["--backend", "offline", "--base-url", URL, "--limit", "1", "--no-progress"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert _said(result, "--base-url")


def test_an_option_the_backend_reads_is_not_warned(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_guard, "run", lambda app, **kwargs: None)
    result = CliRunner().invoke(cli, ["serve", "--backend", "offline,openai", "--upstream", URL], env=env)
    assert result.exit_code == 0, result.output
    assert "is ignored" not in result.stderr
