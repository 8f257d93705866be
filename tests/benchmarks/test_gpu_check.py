"""``benchmarks/gpu_check.py`` stays runnable: its CPU dry run passes every check it can make
there, and without CUDA it says so and exits 2. (Run by hand on a GPU; nothing here is timed.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the transformers extra (torch) is not installed")
pytest.importorskip("transformers", reason="the transformers extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_cpu_dry_run_passes_its_checks() -> None:
    done = _run("--device", "cpu", "--max-tokens", "8", "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    checks = {name: value for name, value in summary.items() if isinstance(value, dict)}
    assert set(checks) == {"device", "seeded_sampling", "seeds_differ"}  # the CUDA ones need a GPU
    assert all(value["ok"] for value in checks.values()), checks
    assert checks["device"]["detail"].endswith("device=cpu)")
    assert summary["tokens_per_s"] > 0 and summary["torch"] == torch.__version__
    assert [line.split()[0] for line in lines[:-1]] == ["PASS", "PASS", "PASS", "INFO"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: the script runs its GPU checks")
def test_without_cuda_it_says_so_and_exits_2() -> None:
    done = _run("--max-tokens", "8", "--runs", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "gpu_check: no CUDA device" in done.stderr and "--device cpu" in done.stderr
    assert done.stdout == ""
