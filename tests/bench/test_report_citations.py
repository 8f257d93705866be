"""What a report cites exists: a reader can follow every file it names."""

from __future__ import annotations

import re
from pathlib import Path

from agentworld_plugins.bench.report import markdown_report
from agentworld_plugins.bench.score import score_records

ROOT = Path(__file__).resolve().parents[2]


def test_report_cites_only_files_the_repository_has():
    scores = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), 4)
    board = score_records(
        [{"task": "mcp", "id": "1", "turn_idx": 1, "judge": {"status": "ok", "scores": scores}}]
    )
    text = markdown_report([board], reference=True)
    assert "Published overall figures" in text
    cited = set(re.findall(r"[\w./-]+\.md\b", text))
    assert cited, "the published figures should say where they are listed"
    missing = sorted(c for c in cited if not (ROOT / c).is_file())
    assert not missing, f"the report cites files the repository does not have: {missing}"
