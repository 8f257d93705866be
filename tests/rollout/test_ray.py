"""``--ray``: episodes played, environments generated and bench records inferred and judged by Ray
actors on a local instance give the same files as asyncio."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli
from agentworld_plugins.rollout import RolloutSpec, rollout
from agentworld_plugins.rollout.envgen import OfflineGenerator, generate
from agentworld_plugins.rollout.ray import RayPool, check_reachable, init_ray

ray = pytest.importorskip("ray", reason="the rl extra (ray) is not installed")


def test_a_local_ray_run_gives_the_same_files_as_asyncio(
    tmp_path: Path, tasks_file: Path, scripted: RolloutSpec
) -> None:
    scripted.timings = False
    local = tmp_path / "asyncio.jsonl"
    rollout(tasks_file, local, scripted, group_size=2, concurrency=2)
    generate(3, tmp_path / "envs-asyncio", OfflineGenerator(5), concurrency=2)
    bench = Path(__file__).resolve().parents[2] / "examples" / "bench"

    def bench_run(out: Path, *more: str) -> str:
        args = [
            "bench",
            "run",
            "--data-dir",
            str(bench / "data"),
            "--output-dir",
            str(out),
            "--backend",
            "offline",
        ]
        args += ["--judge-backend", f"scenario:{bench / 'judge.yaml'}", "--no-progress", "--concurrency", "4"]
        result = CliRunner().invoke(cli, [*args, *more])
        assert result.exit_code == 0, result.output
        return result.output

    bench_run(tmp_path / "bench-asyncio")
    init_ray(num_cpus=2, include_dashboard=False)
    try:
        pools = _pools_batch_keep_and_run_at_this_priority()
        gcs = ray.get_runtime_context().gcs_address
        check_reachable(gcs)  # a real GCS answers the probe
        refused = _driver_with_a_wrong_token(gcs, tmp_path)
        distributed = tmp_path / "ray.jsonl"
        summary = rollout(tasks_file, distributed, scripted, group_size=2, concurrency=2, ray=True)
        envs = generate(3, tmp_path / "envs-ray", OfflineGenerator(5), concurrency=2, ray=True)
        said = bench_run(tmp_path / "bench-ray", "--ray")
    finally:
        ray.shutdown()
    # Ray 2.60's clusters ask for a token: a driver with the wrong one gets one line naming the fix
    assert refused.returncode == 1, refused.stderr[-2000:]
    assert "refused this driver's token (InvalidAuthToken" in refused.stderr
    assert "RAY_AUTH_TOKEN" in refused.stderr and "Traceback" not in refused.stderr
    assert pools["results"] == [0, 2, 4, "ValueError('seven')", 8, 10]
    assert pools["kept"] and pools["niceness"] == os.nice(0)
    assert summary.ok == 6
    assert distributed.read_bytes() == local.read_bytes()
    assert envs.run.ok == 3
    for name in ("environments.jsonl", "tasks.jsonl", "solutions.json"):
        assert (tmp_path / "envs-ray" / name).read_bytes() == (tmp_path / "envs-asyncio" / name).read_bytes()
    assert "world model: ray(offline" in said and "judge: ray(scenario" in said
    for name in ("predictions.jsonl", "judgements.jsonl"):
        assert (tmp_path / "bench-ray" / name).read_bytes() == (
            tmp_path / "bench-asyncio" / name
        ).read_bytes()


class Doubler:
    """What a pool's actors hold in the test: doubles, fails on 3, tells its process's niceness."""

    async def call(self, x: int) -> int:
        if x == 3:
            raise ValueError("seven")
        return 2 * x

    async def niceness(self) -> int:
        return os.nice(0)


def _pools_batch_keep_and_run_at_this_priority() -> dict[str, Any]:
    """Calls made together go to the actors in one batch and come back each to its caller (a
    failure to its own); a pool is kept for the same work; a local instance started by the
    library runs its actors at the driver's priority (Ray's default is niceness 15)."""
    import asyncio

    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors cannot import tests/
    pool = RayPool.start(True, Doubler, "call", 4)
    assert pool is not None

    async def together() -> list[Any]:
        done = await asyncio.gather(*(pool.call(x) for x in range(6)), return_exceptions=True)
        return [repr(d) if isinstance(d, Exception) else d for d in done]

    results = asyncio.run(together())
    again = RayPool.start(True, Doubler, "call", 4)
    kept = again is pool and again.actors == pool.actors
    pool.close()  # a kept pool keeps its actors
    assert pool.actors
    probe = RayPool.start(True, Doubler, "niceness", 1)
    assert probe is not None
    niceness = asyncio.run(probe.call())
    return {"results": results, "kept": kept, "niceness": niceness}


def _driver_with_a_wrong_token(gcs: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``rollout run --ray GCS`` in a process of its own whose token is not the cluster's."""
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 32}
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    args += ["--ray", gcs, "-o", str(tmp_path / "refused.jsonl")]
    return subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_an_address_where_nothing_listens_fails_at_once(tmp_path: Path) -> None:
    """``--ray HOST:PORT`` with no cluster there: one error naming the address (ray.init alone
    would retry for minutes)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{sock.getsockname()[1]}"  # closed again when the block ends
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    result = CliRunner().invoke(cli, [*args, "--ray", address, "-o", str(tmp_path / "e.jsonl")])
    assert not ray.is_initialized()
    assert result.exit_code == 1
    assert (
        f"Cannot reach the Ray cluster at {address}" in result.output and "ray start --head" in result.output
    )
