"""The published arithmetic, checked against values computed by hand."""

from __future__ import annotations

import pytest

from agentworld_plugins.bench.score import normalise, record_total, score_records


def _line(domain, id_, scores, status="ok", infer_status="ok"):
    return {
        "task": f"AgentWorldBench/{domain}",
        "id": id_,
        "turn_idx": 1,
        "infer": {"status": infer_status, "model": "wm"},
        "judge": {"status": status, "scores": scores, "model": "judge"} if status else None,
    }


def test_record_total_is_the_mean_of_positive_scores():
    assert record_total({"format": 5, "factuality": 4, "consistency": 3, "realism": 2, "quality": 1}) == 3
    # 0 and missing dimensions do not count: (3 + 4 + 5 + 2) / 4
    assert record_total({"format": 3, "factuality": 4, "consistency": 0, "realism": 5, "quality": 2}) == 3.5
    assert record_total({"format": 4}) == 4
    assert record_total({"format": 0, "quality": None}) is None
    assert record_total({"format": True, "quality": "5"}) is None
    assert record_total(None) is None


def test_normalisation():
    assert normalise(1) == 0
    assert normalise(5) == 100
    assert normalise(3) == 50
    assert normalise(4.25) == 81.25
    assert normalise(None) is None


def test_domains_overall_and_failures_by_hand():
    lines = [
        # terminal: totals 5 and 3.5 (0 left out) -> raw 4.25 -> 81.25
        _line("terminal", "a", {"format": 5, "factuality": 5, "consistency": 5, "realism": 5, "quality": 5}),
        _line("terminal", "b", {"format": 3, "factuality": 4, "consistency": 0, "realism": 5, "quality": 2}),
        # failures: counted, not zeroed
        _line("terminal", "c", None, status="failed"),
        _line("terminal", "d", None, status="failed", infer_status="failed"),
        # mcp: total 1 -> 0
        _line("mcp", "e", {"format": 1, "factuality": 1, "consistency": 1, "realism": 1, "quality": 1}),
    ]
    board = score_records(lines)
    terminal, mcp = board.domains["terminal"], board.domains["mcp"]
    assert list(board.domains) == ["mcp", "terminal"]  # published order
    assert (terminal.count, terminal.valid, terminal.failed) == (4, 2, 2)
    assert terminal.raw_total == pytest.approx(4.25)
    assert terminal.total == pytest.approx(81.25)
    # per dimension: consistency has only record a's 5 (b's 0 is not positive)
    assert terminal.raw["consistency"] == 5
    assert terminal.dimension("consistency") == 100
    assert terminal.raw["format"] == 4 and terminal.dimension("format") == 75
    assert terminal.raw["quality"] == 3.5 and terminal.dimension("quality") == pytest.approx(62.5)
    assert mcp.total == 0
    # overall is the mean over all valid records (5 + 3.5 + 1) / 3, not the mean of domain figures
    assert board.overall.raw_total == pytest.approx(9.5 / 3)
    assert board.overall.total == pytest.approx((9.5 / 3 - 1) / 4 * 100)
    assert board.overall.total != pytest.approx((81.25 + 0) / 2)
    assert (board.overall.count, board.overall.valid) == (5, 3)
    assert board.failures == {"inference failed": 1, "judge failed": 1}
    assert board.models == {"infer": ["wm"], "judge": ["judge"]}


def test_failure_reasons():
    lines = [
        {**_line("web", "x", None, status="failed"), "judge": {"status": "failed", "error": "no scores"}},
        {
            **_line("web", "y", None, infer_status="failed"),
            "judge": {"status": "failed", "error": "inference failed"},
        },
        {"task": "web", "id": "z", "turn_idx": 1, "prediction": "p"},
        {"task": "web", "id": "w", "turn_idx": 1, "scores": {"format": 4}},  # other tools' files
    ]
    board = score_records(lines)
    assert board.failures == {"inference failed": 1, "judge failed": 1, "not judged": 1}
    assert board.overall.valid == 1 and board.overall.raw_total == 4


def test_empty_board():
    board = score_records([])
    assert board.overall.total is None and board.domains == {}
