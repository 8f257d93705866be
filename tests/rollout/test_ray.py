"""``--ray``: episodes played by Ray actors on a local instance give the same file as asyncio."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentworld_plugins.rollout import RolloutSpec, rollout

ray = pytest.importorskip("ray", reason="the rl extra (ray) is not installed")


def test_a_local_ray_run_gives_the_same_episodes_as_asyncio(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    scripted.timings = False
    local = tmp_path / "asyncio.jsonl"
    rollout(tasks_file, local, scripted, group_size=2, concurrency=2)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        distributed = tmp_path / "ray.jsonl"
        summary = rollout(tasks_file, distributed, scripted, group_size=2, concurrency=2, ray=True)
    finally:
        ray.shutdown()
    assert summary.ok == 6
    assert distributed.read_bytes() == local.read_bytes()
