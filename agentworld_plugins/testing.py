"""pytest plugin (entry point ``pytest11``): fixtures to test agents against a scripted world.

Fixtures:

- ``fake_world_server``: a running :class:`FakeWorldModelServer` (real HTTP on 127.0.0.1);
- ``fake_backend``: a :class:`FakeBackend` with ``enqueue()`` and ``history``;
- ``agentworld``: a :class:`~agentworld_plugins.World` wired to ``fake_backend``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .backends.fake import FakeBackend
from .fake_server import FakeWorldModelServer, Fault, RecordedRequest, default_responder
from .session import World

__all__ = ["FakeBackend", "FakeWorldModelServer", "Fault", "RecordedRequest", "default_responder"]


@pytest.fixture
def fake_world_server() -> Iterator[FakeWorldModelServer]:
    """A fake OpenAI-compatible world-model server, stopped after the test."""
    with FakeWorldModelServer() as server:
        yield server


@pytest.fixture
def fake_backend() -> FakeBackend:
    """A scripted in-process backend."""
    return FakeBackend()


@pytest.fixture
def agentworld(fake_backend: FakeBackend) -> Iterator[World]:
    """A World whose backend is ``fake_backend``."""
    with World(backend=fake_backend) as world:
        yield world
