"""The bench Python API draws no progress bar into a stderr that is not a terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentworld_plugins import bench
from agentworld_plugins.bench.sample import make_sample_dataset


def test_infer_records_draws_nothing_into_a_captured_stderr(tmp_path: Path, capfd) -> None:
    make_sample_dataset(tmp_path / "data", domains=("terminal",))
    data = bench.load_dataset(tmp_path / "data", domains=["terminal"], limit=2)
    world = bench.world_backend(backend="offline")
    summary = asyncio.run(bench.infer_records(data.records, world, tmp_path / "predictions.jsonl"))
    assert summary.ok >= 1
    err = capfd.readouterr().err
    assert "━" not in err and "ETA" not in err, f"a progress bar was drawn into a non-terminal stderr:\n{err}"
