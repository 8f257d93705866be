"""Fixtures for the rollout tests: the bundled task file and agent script, and a scripted spec."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from agentworld_plugins.rollout import RolloutSpec

DATA = files("agentworld_plugins.rollout.data")


@pytest.fixture
def tasks_file() -> Path:
    return Path(str(DATA / "tasks.jsonl"))


@pytest.fixture
def script_file() -> Path:
    return Path(str(DATA / "agent.yaml"))


@pytest.fixture
def scripted(script_file: Path) -> RolloutSpec:
    """The scripted agent on the offline world."""
    return RolloutSpec(agent=f"scripted:{script_file}", world_options={"backend": "offline"})
