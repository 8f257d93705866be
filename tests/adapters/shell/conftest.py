"""Fixtures of the fake-shell tests: an offline world, and shims on PATH with one helper process
shared by the whole test run (its start-up is the slow part)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell.shim import install

from agentworld_plugins import World
from agentworld_plugins.testing import clean_env


@pytest.fixture
def world() -> Iterator[World]:
    with World(backend="offline") as w:
        yield w


@pytest.fixture(scope="session")
def shim_setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """``bin`` (the shims), ``home`` (AGENTWORLD_HOME) and the environment that puts them to use."""
    from agentworld_plugins.adapters.shell.daemon import stop

    root = tmp_path_factory.mktemp("shim")
    bin_dir, home = root / "bin", root / "home"
    install(str(bin_dir))
    env = clean_env(
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        AGENTWORLD_HOME=str(home),
        AGENTWORLD_SHIM_IDLE="120",
        PYTHONUNBUFFERED="1",
    )
    yield {"bin": str(bin_dir), "home": str(home), "env": env}  # type: ignore[dict-item]
    stop(str(home))


@pytest.fixture
def shim_env(shim_setup: dict[str, object], request: pytest.FixtureRequest) -> dict[str, str]:
    """The shim environment with a session of this test's own."""
    env = dict(shim_setup["env"])  # type: ignore[call-overload]
    env["AGENTWORLD_SESSION"] = request.node.name.replace("[", "-").replace("]", "")[:60]
    return env


@pytest.fixture(scope="session")
def agentworld_exe() -> list[str]:
    """How to start the CLI in a subprocess."""
    exe = Path(sys.executable).with_name("agentworld")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "agentworld_plugins"]
