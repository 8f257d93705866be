"""Gymnasium registration: on import of the package (lazily), through the entry point, and never
in the way when gymnasium is missing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

pytest.importorskip("gymnasium")

from agentworld_plugins.adapters.gui import registration

ROOT = Path(__file__).resolve().parents[3]


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        cwd=ROOT,
    )


def test_ids_cover_every_domain_and_bundled_web_task() -> None:
    ids = registration.env_ids()
    assert "browsergym/agentworld.open" in ids and "browsergym/agentworld.shop-find-mouse" in ids
    assert [i for i in ids if i.startswith("agentworld/")] == [
        f"agentworld/{d}-v0" for d in ("mcp", "search", "terminal", "swe", "android", "web", "os")
    ]


def test_import_registers_lazily_when_gymnasium_comes_later() -> None:
    result = _python(
        """
        import sys
        import agentworld_plugins
        assert "gymnasium" not in sys.modules, "importing the package must not import gymnasium"
        import gymnasium as gym
        assert "browsergym/agentworld.open" in gym.registry
        assert "agentworld/terminal-v0" in gym.registry
        assert type(gym.__spec__.loader).__name__ != "_Loader", "the import hook leaves no trace"
        env = gym.make("agentworld/terminal-v0", backend="offline")
        print(env.reset(seed=0)[0].strip())
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("#")


def test_import_registers_at_once_when_gymnasium_is_loaded_and_module_prefix_works() -> None:
    result = _python(
        """
        import gymnasium as gym
        env = gym.make("agentworld_plugins:browsergym/agentworld.open", backend="offline")
        obs, info = env.reset(seed=0)
        print(obs["url"])
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "https://www.example.com/"


def test_package_imports_without_gymnasium_and_opt_out() -> None:
    blocked = _python(
        """
        import sys
        sys.modules["gymnasium"] = None  # as if gymnasium were not installed
        import agentworld_plugins
        from agentworld_plugins import World
        print(World(backend="offline").session("web").step("noop()").text.splitlines()[0])
        """
    )
    assert blocked.returncode == 0, blocked.stderr
    assert blocked.stdout.strip() == "URL: https://www.example.com/"
    opted_out = _python(
        """
        import agentworld_plugins, gymnasium as gym
        print("browsergym/agentworld.open" in gym.registry)
        """,
        AGENTWORLD_NO_GYM_REGISTER="1",
    )
    assert opted_out.returncode == 0, opted_out.stderr
    assert opted_out.stdout.strip() == "False"


def test_entry_point_is_declared_and_idempotent() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = config["project"]["entry-points"]["gymnasium.envs"]["__root__"]
    module, _, function = target.partition(":")
    assert module == "agentworld_plugins.adapters.gui.registration" and function == "register_envs"
    import gymnasium as gym

    registration.register_envs()
    before = {k: v for k, v in gym.registry.items() if "agentworld" in k}
    registration.register_envs()  # what gymnasium 0.26-0.29 would call again: no duplicates, no warnings
    assert {k: v for k, v in gym.registry.items() if "agentworld" in k} == before
    assert "agentworld_plugins.adapters.gui" in config["tool"]["setuptools"]["packages"]
    globs = config["tool"]["setuptools"]["package-data"]["agentworld_plugins.adapters.gui"]
    assert "tasks/*/*.yaml" in globs and "tasks/*/*.json" in globs
    assert {"gymnasium>=1.0", "pillow>=10", "numpy>=1.24"} <= set(
        config["project"]["optional-dependencies"]["gui"]
    )


def test_installed_entry_point_loads_as_gymnasium_0_29_would() -> None:
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="gymnasium.envs") if ep.value.startswith("agentworld_plugins")]
    if not found:
        pytest.skip("the installed metadata predates the entry point (pip install -e . again)")
    (entry,) = found
    assert entry.name == "__root__"  # the key gymnasium 0.29 reads as "no namespace of its own"
    entry.load()()
