"""Every serving command refuses a public bind without a token and never prints credentials."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from agentworld_plugins.testing import clean_env

ENV = clean_env()


def _agentworld(args: list[str], home: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**ENV, "HOME": home, "AGENTWORLD_HOME": os.path.join(home, ".agentworld")},
    )


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--backend", "offline"],
        ["search", "serve", "--backend", "offline"],
        ["mcp", "serve", "--pack", "github-issues", "--http", "--backend", "offline"],
        ["shell", "swerex"],
    ],
    ids=["serve", "search", "mcp", "swerex"],
)
def test_public_bind_without_token_is_refused(tmp_path, command) -> None:
    done = _agentworld([*command, "--host", "0.0.0.0", "--port", "9"], str(tmp_path))
    assert done.returncode != 0
    assert "without a token" in done.stderr and "--allow-remote" in done.stderr
    assert "Traceback" not in done.stderr


def test_startup_line_hides_url_credentials(tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentworld_plugins",
            "serve",
            "--port",
            str(port),
            "--backend",
            "openai",
            "--upstream",
            "http://bob:hunter2@127.0.0.1:9/v1",
            "--model",
            "m",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**ENV, "HOME": str(tmp_path)},
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert "serving openai(" in line and "127.0.0.1:9" in line
    assert "hunter2" not in line and "bob" not in line
