"""Shared parts of the conformance suite: every test here runs a third party's own calling code,
unchanged, against our look-alikes. All of them carry the ``conformance`` marker."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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
