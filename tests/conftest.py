"""Fixtures for the tests that register plugins: a fresh manager per test, and a ``register`` that
undoes itself (STYLE.md: a fresh PluginManager per hook test, test plugins unregistered after)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from agentworld_plugins.plugins import PluginManager, new_plugin_manager


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
