"""The runnable example in examples/perturbations works offline and is reproducible."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "perturbations" / "retrying_agent.py"


def test_retrying_agent_example_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), str(tmp_path / "run.jsonl")])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "(reproducible: True)" in out
    assert "Faults injected: " in out and "prompt_injection 1" in out
    assert (tmp_path / "run.jsonl").read_text(encoding="utf-8").count('"perturbations"') >= 1
