"""The scorecard: injected faults by kind and tool, what the agent did next, recovery, loops."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from agentworld_plugins import Session, World
from agentworld_plugins import perturbations as builtin
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import Faults, PromptInjection, scorecard
from agentworld_plugins.perturbations.report import read_jsonl, turns_of, write_jsonl
from agentworld_plugins.plugins import new_plugin_manager


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_name": tool, "arguments": arguments}


def keys(command: str) -> list[dict[str, Any]]:
    return [{"keystrokes": command + "\n", "duration": 0.1}]


def play(session: Session, actions: list[Any]) -> Session:
    for action in actions:
        session.step(action)
    return session


@pytest.fixture
def sessions() -> list[Session]:
    world = World(
        backend=FakeBackend(lambda m: "ok"), plugin_manager=new_plugin_manager(load_entrypoints=False)
    )
    mcp = world.session(
        "mcp",
        session_id="mcp-run",
        perturbations=[
            Faults(kinds="timeout", at=[1, 7]),
            Faults(kinds="rate_limit", at=[4, 9]),
            PromptInjection(at=[3]),
        ],
    )
    play(
        mcp,
        [
            call("write_file", path="a"),  # 1 timeout
            call("write_file", path="a"),  # 2 retried the identical call, recovered in 1
            call("read_file", path="a"),  # 3 injection
            call("delete_file", path="a"),  # 4 rate limit
            call("list_files"),  # 5 changed approach
            call("search", q="x"),  # 6 \
            call("search", q="x"),  # 7  | a loop of 4; 7 times out, 8 retries it
            call("search", q="x"),  # 8  |
            call("search", q="x"),  # 9 / rate limit on the last turn: gave up, never recovered
        ],
    )
    terminal = world.session(
        "terminal", session_id="term-run", perturbations=["faults:kinds=not_found,at=1+3"]
    )
    play(terminal, [keys("cat a.txt"), keys("cat b.txt"), keys("ls /srv"), []])
    return [mcp, terminal]


def test_scorecard_of_scripted_trajectories(sessions: list[Session]) -> None:
    card = scorecard([turns_of(s.trajectory) for s in sessions]).to_dict()
    assert card["sessions"] == 2 and card["turns"] == 13
    assert card["faults_injected"] == 6
    assert card["faults_by_kind"] == {"timeout": 2, "rate_limit": 2, "not_found": 2}
    assert card["faults_by_tool"] == {"search": 2, "cat": 1, "write_file": 1, "delete_file": 1, "ls": 1}
    assert card["reactions"] == {"retried": 2, "adjusted": 1, "changed_approach": 1, "gave_up": 2}
    outcome = {(f["session_id"], f["turn"]): (f["reaction"], f["steps_to_recovery"]) for f in card["faults"]}
    assert outcome == {
        ("mcp-run", 1): ("retried", 1),
        ("mcp-run", 4): ("changed_approach", 1),
        ("mcp-run", 7): ("retried", 1),
        ("mcp-run", 9): ("gave_up", None),
        ("term-run", 1): ("adjusted", 1),
        ("term-run", 3): ("gave_up", 1),  # the agent declared itself done ([]) right after
    }
    assert card["steps_to_recovery"] == {"mean": 1.0, "max": 1, "not_recovered": 1}
    assert [
        (loop["session_id"], loop["first_turn"], loop["last_turn"], loop["repeats"]) for loop in card["loops"]
    ] == [("mcp-run", 6, 9, 4)]
    assert card["other_perturbations"] == {"prompt_injection": 1}


def test_jsonl_round_trip_and_the_report_command(sessions: list[Session], tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    for session in sessions:
        write_jsonl(session.trajectory, path)
    from_file = scorecard(read_jsonl(path)).to_dict()
    in_memory = scorecard([turns_of(s.trajectory) for s in sessions]).to_dict()
    assert from_file == in_memory

    group = click.Group()
    builtin.register_commands(cli=group)
    text = CliRunner().invoke(group, ["report", str(path)]).output
    assert "Faults injected: 6" in text
    assert "What the agent did next: retried 2, adjusted 1, changed_approach 1, gave_up 2" in text
    assert "session mcp-run turns 6-9: search x4" in text
    as_json = json.loads(
        CliRunner().invoke(group, ["report", str(path), "--json", "--loop-threshold", "5"]).output
    )
    assert as_json["loops"] == [] and as_json["faults_injected"] == 6


def test_agentworld_report_runs_as_a_command(sessions: list[Session], tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    write_jsonl(sessions[0].trajectory, path)
    done = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "report", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Faults injected: 4" in done.stdout and "by kind: timeout 2, rate_limit 2" in done.stdout


def test_report_reads_plain_records_without_provenance(sessions: list[Session], tmp_path: Path) -> None:
    path = sessions[0].trajectory.to_jsonl(tmp_path / "plain.jsonl")
    card = scorecard(read_jsonl(path)).to_dict()
    assert card["turns"] == 9 and card["loops"][0]["repeats"] == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    from agentworld_plugins import AgentWorldError

    with pytest.raises(AgentWorldError, match=r"bad\.jsonl:1 is not JSON"):
        read_jsonl(bad)


def _report(*args: str) -> Any:
    from agentworld_plugins.cli import _load_plugin_commands, cli

    _load_plugin_commands()  # as the console script does: `report` is a plugin command
    return CliRunner().invoke(cli, ["report", *args])


def test_report_reads_bench_infer_output_under_infer_perturbations(tmp_path: Path, monkeypatch: Any) -> None:
    from agentworld_plugins.bench.sample import make_sample_dataset
    from agentworld_plugins.cli import cli

    for name in ("AGENTWORLD_PERTURB", "AGENTWORLD_PERTURB_FILE"):
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"
    make_sample_dataset(data, episodes=2)
    output = tmp_path / "perturbed.jsonl"
    args = ["bench", "infer", "--data-dir", str(data), "--output", str(output), "--backend", "offline"]
    done = CliRunner().invoke(cli, [*args, "--no-progress", "--perturb", "faults:kinds=timeout,rate=1"])
    assert done.exit_code == 0, done.output
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    injected = sum(len(line["infer"]["perturbations"]) for line in lines)
    assert injected > 0
    result = _report(str(output), "--json")
    assert result.exit_code == 0, result.output
    card = json.loads(result.output)
    assert card["faults_injected"] == injected and card["faults_by_kind"] == {"timeout": injected}
    assert card["predictions"] == len(lines) and card["not_observed"] == injected
    assert card["loops"] == [] and sum(card["reactions"].values()) == 0  # nothing invented
    assert "" not in card["faults_by_tool"]  # the tool is read from each line's action
    text = _report(str(output)).output
    assert f"Faults injected: {injected}" in text and "not observed" in text


def test_report_refuses_files_it_cannot_read_naming_why(sessions: list[Session], tmp_path: Path) -> None:
    binary = tmp_path / "cassette.db"
    binary.write_bytes(b"SQLite format 3\x00\xff\xfe\x00")
    result = _report(str(binary))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [
        f"Error: {binary} is not a UTF-8 text file (byte 0xff at offset 16), so not JSONL"
    ]
    chat = sessions[0].trajectory.to_jsonl(tmp_path / "chat.jsonl", form="chat")
    refused = _report(str(chat))
    assert refused.exit_code == 1 and "chat.jsonl:1 is a chat-form trajectory" in refused.output
    data = tmp_path / "plain.jsonl"
    data.write_text(json.dumps({"hello": 1}) + "\n", encoding="utf-8")
    assert "plain.jsonl:1 is an object without `turn_idx`" in _report(str(data)).output


def test_a_trajectory_appended_twice_counts_each_turn_once(sessions: list[Session], tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    write_jsonl(sessions[0].trajectory, path)
    write_jsonl(sessions[0].trajectory, path)
    assert scorecard(read_jsonl(path)).to_dict()["turns"] == 9
