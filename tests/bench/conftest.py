"""Fixtures for the bench tests: a synthetic AgentWorldBench, fake servers for the world model and
the judge (real HTTP on 127.0.0.1), and fast run options."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins.bench.judge_template import BUNDLED
from agentworld_plugins.bench.runner import RunOptions
from agentworld_plugins.bench.sample import make_sample_dataset
from agentworld_plugins.fake_server import FakeWorldModelServer


def _part(wrapper: str, placeholder: str) -> re.Pattern[str]:
    """A pattern for one part of the bundled judge message (the value up to the closing fence)."""
    before, after = wrapper.split(placeholder)
    return re.compile(re.escape(before) + "(.*?)" + re.escape(after), re.DOTALL)


_PREDICTED = _part(BUNDLED["predicted_observation"], "{prediction}")
_TRUTH = _part(BUNDLED["ground_truth"], "{reference}")


def evaluation(scores: dict[str, Any], strengths: str = "ok", weaknesses: str = "none") -> str:
    """A judge answer in the trained shape: reasoning, then the tagged JSON block."""
    body = json.dumps({"strengths": strengths, "weaknesses": weaknesses, "scores": scores})
    return f"Comparing the two observations.\n<final_evaluation>\n{body}\n</final_evaluation>"


def judge_responder(body: dict[str, Any]) -> str:
    """A deterministic judge: all 5s when the prediction equals the ground truth, else 2s with a
    factuality of 1."""
    text = body["messages"][-1]["content"]
    predicted = _PREDICTED.search(text)
    truth = _TRUTH.search(text)
    same = bool(predicted and truth and predicted.group(1).strip() == truth.group(1).strip())
    scores = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 5 if same else 2)
    if not same:
        scores["factuality"] = 1
    return evaluation(scores, weaknesses="" if same else "differs from the ground truth")


@pytest.fixture(name="evaluation")
def evaluation_fixture() -> Any:
    """Builds judge answers: ``evaluation(scores, strengths=..., weaknesses=...)``."""
    return evaluation


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """Seven domains, one multi-turn episode each (16 records)."""
    folder = tmp_path / "data"
    make_sample_dataset(folder, episodes=1)
    return folder


@pytest.fixture
def world_server() -> Iterator[FakeWorldModelServer]:
    with FakeWorldModelServer(model="world-under-test") as server:
        yield server


@pytest.fixture
def judge_server() -> Iterator[FakeWorldModelServer]:
    with FakeWorldModelServer(model="fake-judge", responder=judge_responder) as server:
        yield server


@pytest.fixture
def fast() -> RunOptions:
    """Run options with quick retries and no progress bar."""
    return RunOptions(concurrency=8, max_retries=3, retry_backoff=0.001, request_timeout=5.0, progress=False)
