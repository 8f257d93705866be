"""Shared parts of the conformance suite: every test here runs a third party's own calling code,
unchanged, against our look-alikes. All of them carry the ``conformance`` marker."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance_support import cache_entry

from agentworld_plugins import World

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.conformance)


@pytest.fixture(autouse=True)
def _offline_default_world(monkeypatch: pytest.MonkeyPatch) -> None:
    """``World()`` made without arguments (the README's way) is the offline world here."""
    for key in list(os.environ):
        if key.startswith("AGENTWORLD_"):
            monkeypatch.delenv(key)


@pytest.fixture
def world() -> Iterator[World]:
    with World(backend="offline") as w:
        yield w


INSPECTOR_VERSION = "2.12.0"


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """The Inspector installed into the conformance cache (once per version)."""
    npm = shutil.which("npm")
    if not shutil.which("node") or not npm:
        pytest.skip("node/npm are not installed: the MCP Inspector CLI is a Node program")
    with cache_entry(f"inspector-{INSPECTOR_VERSION}") as home:
        exe = home / "node_modules" / ".bin" / "mcp-inspector"
        if not exe.exists():
            done = subprocess.run(
                [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--fetch-timeout=60000",
                    "--fetch-retries=1",
                    f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
                ],
                cwd=home,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0 or not exe.exists():
                pytest.skip(
                    f"npm could not install @modelcontextprotocol/inspector: {done.stderr.strip()[-300:]}"
                )
    return [str(exe), "--cli"]
