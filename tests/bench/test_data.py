"""Loading AgentWorldBench files: domains, task names, bad records, limits."""

from __future__ import annotations

import json

import pytest

from agentworld_plugins.bench.data import (
    DOMAINS,
    domain_of,
    ground_truth,
    load_dataset,
    record_key,
    record_problem,
)
from agentworld_plugins.bench.sample import sample_records
from agentworld_plugins.errors import ConfigError


def test_sample_dataset_covers_all_domains_with_multi_turn_records(data_dir):
    dataset = load_dataset(data_dir)
    assert dataset.problems == []
    assert dataset.domains == list(DOMAINS)
    for domain in DOMAINS:
        records = [r for r in dataset.records if domain_of(r["task"]) == domain]
        assert len(records) >= 2 and {r["turn_idx"] for r in records} == set(range(1, len(records) + 1))
        assert all(r["total_turns"] == len(records) for r in records)


@pytest.mark.parametrize(
    ("task", "domain"),
    [("terminal", "terminal"), ("AgentWorldBench/terminal", "terminal"), ("x/y/mcp", "mcp")],
)
def test_domain_of_task_names(task, domain):
    assert domain_of(task) == domain


def test_key_and_ground_truth():
    record = sample_records("swe")[1]
    assert record_key(record) == ("swe", "swe-0000", 2)
    assert ground_truth(record) == record["response"][1]


def test_bad_records_are_left_out_with_a_reason(tmp_path):
    good = sample_records("terminal")
    lines = [json.dumps(r) for r in good]
    missing = dict(good[0], id="no-response")
    del missing["response"]
    out_of_range = dict(good[0], id="far", turn_idx=9)
    lines[1:1] = ["{not json", json.dumps(missing), json.dumps(out_of_range), "[1, 2]", json.dumps(good[0])]
    (tmp_path / "terminal_test.jsonl").write_text("\n".join(lines) + "\n")
    dataset = load_dataset(tmp_path)
    assert [r["id"] for r in dataset.records] == [good[0]["id"]] * len(good)
    assert len(dataset.records) == len(good)
    problems = "\n".join(dataset.problems)
    assert "terminal_test.jsonl:2: not JSON" in problems
    assert "missing field(s) response" in problems
    assert "turn_idx 9 is out of range" in problems
    assert "not an object" in problems
    assert "repeats an earlier record" in problems


def test_task_missing_is_taken_from_the_file_name(tmp_path):
    record = sample_records("os")[0]
    del record["task"]
    (tmp_path / "os_test.jsonl").write_text(json.dumps(record) + "\n")
    dataset = load_dataset(tmp_path)
    assert dataset.records[0]["task"] == "os"


def test_domains_and_limit(data_dir):
    dataset = load_dataset(data_dir, domains=["AgentWorldBench/mcp", "web"], limit=1)
    assert [(domain_of(r["task"]), r["turn_idx"]) for r in dataset.records] == [("mcp", 1), ("web", 1)]
    single = load_dataset(data_dir / "swe_test.jsonl")
    assert {domain_of(r["task"]) for r in single.records} == {"swe"}


def test_missing_data_is_a_clear_error(tmp_path, data_dir):
    with pytest.raises(ConfigError, match="No AgentWorldBench data"):
        load_dataset(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"No <domain>_test\.jsonl files"):
        load_dataset(tmp_path / "empty")
    with pytest.raises(ConfigError, match="No data file for domain"):
        load_dataset(data_dir, domains=["chess"])


def test_record_problem_accepts_good_records():
    for domain in DOMAINS:
        for record in sample_records(domain):
            assert record_problem(record) is None
    assert "must be a JSON object" in record_problem([1])
