"""Shared fixtures of the perturbation tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentworld_plugins.bench.sample import make_sample_dataset


@pytest.fixture
def alike_episodes(tmp_path: Path) -> Callable[[str, int], Path]:
    """A factory of benchmark data dirs holding ``count`` copies of one ``domain`` record under ids
    ``<domain>-0000``, ...: episodes with the same system prompt and the same turns."""

    def make(domain: str, count: int) -> Path:
        data = tmp_path / "data"
        make_sample_dataset(data, episodes=1)
        source = data / f"{domain}_test.jsonl"
        record = json.loads(source.read_text().splitlines()[0])
        for path in data.glob("*_test.jsonl"):
            path.unlink()
        source.write_text(
            "".join(json.dumps({**record, "id": f"{domain}-{n:04d}"}) + "\n" for n in range(count))
        )
        return data

    return make
