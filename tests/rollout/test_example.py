"""``examples/simrl/run.py`` runs offline with one command and writes scored episodes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "simrl" / "run.py"


def test_the_example_runs_offline(tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--output", str(out), "--group-size", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 6 and all("reward" in line for line in lines)
    assert "issue-bug" in done.stdout and "pass@2 1.00" in done.stdout
    assert out.with_suffix(".png").exists()
