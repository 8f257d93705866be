"""Task files: the bundled one loads; bad lines (and bad ``rollout run`` arguments) fail before any
episode with one error naming the line and the field, and a hint with the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli
from agentworld_plugins.errors import AgentWorldError, ConfigError
from agentworld_plugins.rollout import Task, load_tasks, write_tasks


def _write(path: Path, *rows: object) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


GOOD = {"id": "t1", "domain": "mcp", "tool_pack": "github-issues", "instruction": "do it"}


def test_the_bundled_task_file_loads(tasks_file: Path) -> None:
    tasks = load_tasks(tasks_file)
    assert [t.domain for t in tasks] == ["mcp", "terminal", "swe"]
    context = tasks[0].session_context()
    assert {t["name"] for t in context["tools"]} >= {"create_issue", "list_issues"}
    assert tasks[0].reward[0].params["resource"] == "issue"


BAD_LINES = [
    ({**GOOD, "max_turns": 0}, "field 'max_turns': Input should be greater than or equal to 1"),
    ({**GOOD, "max_turns": "five"}, "field 'max_turns': Input should be a valid integer"),
    ({k: v for k, v in GOOD.items() if k != "instruction"}, "field 'instruction': Field required"),
    ({**GOOD, "domain": "chess"}, "field 'domain': unknown domain 'chess'"),
    ({**GOOD, "tool_pack": "nope"}, "field 'tool_pack': unknown tool pack 'nope'"),
    ({**GOOD, "reward": [{"type": "vibes"}]}, "field 'reward.0.type': unknown reward 'vibes'"),
    ({**GOOD, "reward": [{"weight": 1}]}, "field 'reward.0.type'"),
    ({**GOOD, "reward": {"type": "no_errors"}}, "field 'reward': Input should be a valid list"),
    ({**GOOD, "reward": [{"type": "file_contains"}]}, "field 'reward.0': file_contains: missing a required argument: 'path'"),
    ({**GOOD, "reward": [{"type": "no_errors", "strict": True}]}, "unexpected keyword argument 'strict'"),
    ({**GOOD, "reward": [{"type": "ledger_item", "resource": "issue", "where": "bug"}]}, "field 'reward.0.where': must be an object"),
    ({**GOOD, "reward": [{"type": "answer_regex", "pattern": "("}]}, "field 'reward.0.pattern': the regular expression '(' does not compile"),
    ({**GOOD, "reward": [{"type": "sql", "query": "SELEC 1"}]}, "field 'reward.0.query': the SQL query does not parse"),
    ({**GOOD, "reward": [{"type": "sql", "query": "SELECT count(*) FROM pulls"}]}, "field 'reward.0.query': no such table: pulls (the world's tables: issue, issue_comment, issue_comments, issues)"),
    ({"id": "t2", "domain": "terminal", "instruction": "x", "reward": [{"type": "sql", "query": "SELECT 1 FROM issue"}]}, "field 'reward.0.query': no such table: issue (the world's tables: none)"),
    ({"id": "t2", "domain": "terminal", "instruction": "x", "tool_pack": "github-issues"}, "field 'tool_pack': the terminal domain takes no tools"),
    ({"id": "t2", "domain": "web", "instruction": "x", "tools": [{"name": "click"}]}, "field 'tools': the web domain takes no tools"),
    ({**GOOD, "perturbations": ["gremlins:rate=1"]}, "field 'perturbations.0': unknown perturbation 'gremlins'"),
    ({**GOOD, "perturbations": ["faults:rate=abc"]}, "field 'perturbations.0': Invalid option for perturbation 'faults'"),
    ({"id": "t2", "domain": "mcp", "instruction": "x"}, "field 'tools': tasks in the mcp domain need 'tools' or 'tool_pack'"),
    ({"id": "t2", "domain": "swe", "instruction": "x"}, "field 'tools': tasks in the swe domain need"),
    ({"id": "t2", "domain": "mcp", "instruction": "x", "tools": [{"nam": "x"}]}, "field 'tools': tools[0].name None is not a valid tool name"),
    ({"id": "t2", "domain": "mcp", "instruction": "x", "tools": [{"name": "a b"}]}, "'a b' is not a valid tool name"),
    ({"id": "t2", "domain": "mcp", "instruction": "x", "tools": [{"name": "a", "inputSchema": {"type": 3}}]}, "tools[0].inputSchema does not compile"),
    ({**GOOD, "colour": "red"}, "field 'colour': Extra inputs are not permitted"),
    ({**GOOD, "id": "a#b"}, "field 'id'"),
    (GOOD, "field 'id': 't1' is already used on line 1"),
    ([GOOD], "a task must be a JSON object"),
    ('{"id": "t2", bad json', "is not JSON"),
]  # fmt: skip


@pytest.mark.parametrize(("row", "needle"), BAD_LINES)
def test_bad_lines_name_the_line_and_field(tmp_path: Path, row: object, needle: str) -> None:
    path = _write(tmp_path / "tasks.jsonl", GOOD, {**GOOD, "id": "t0"}, row)
    with pytest.raises(AgentWorldError) as caught:  # ConfigError, or the JSONL reader's own
        load_tasks(path)
    assert f"{path}:3" in caught.value.message and needle in caught.value.message
    assert caught.value.hint  # every one says how to fix it


@pytest.mark.parametrize(("row", "needle"), BAD_LINES[::3])
def test_the_cli_says_it_in_one_line_and_exits_1(tmp_path: Path, row: object, needle: str) -> None:
    path = _write(tmp_path / "tasks.jsonl", GOOD, {**GOOD, "id": "t0"}, row)
    args = ["rollout", "run", "--tasks", str(path), "--agent", "scripted:bundled", "--backend", "offline"]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "e.jsonl")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert lines[0].startswith(f"Error: {path}:3") and needle in lines[0], result.output
    assert len(lines) == 2 and lines[1].startswith("Hint: ")
    assert not (tmp_path / "e.jsonl").exists()  # nothing was played


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--tasks", "missing.jsonl"], "Cannot read missing.jsonl: No such file or directory"),
        (["--tasks", "bundled", "-n", "-1"], "group size -1 must be at least 1"),
        (["--tasks", "bundled", "-c", "0"], "concurrency 0 must be at least 1"),
        (["--tasks", "bundled", "--max-retries", "-1"], "Invalid value for '--max-retries'"),
        (["--tasks", "bundled", "--request-timeout", "0"], "Invalid value for '--request-timeout'"),
        (["--tasks", "bundled", "--agent", "robot"], "Unknown agent 'robot'"),
        (["--tasks", "bundled", "--agent", "scripted:nope.yaml"], "Cannot read agent script nope.yaml"),
        (["--tasks", "bundled", "--agent", "openai"], "The agent has no base URL"),
    ],
)
def test_bad_arguments_are_one_clear_error(tmp_path: Path, args: list[str], needle: str) -> None:
    base = [
        "rollout",
        "run",
        "--agent",
        "scripted:bundled",
        "--backend",
        "offline",
        "-o",
        str(tmp_path / "e.jsonl"),
    ]
    result = CliRunner().invoke(cli, [*base, *args])
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit)
    assert needle in result.output and "Traceback" not in result.output


def test_a_script_missing_a_task_stops_the_run_before_any_episode(tmp_path: Path) -> None:
    script = tmp_path / "agent.json"
    script.write_text(json.dumps({"issue-bug": [{"answer": "done"}]}))
    args = ["rollout", "run", "--tasks", "bundled", "--agent", f"scripted:{script}", "--backend", "offline"]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "e.jsonl")])
    assert result.exit_code == 1
    assert "has no script for task 'greeting-file', 'notes-swe' (2 of 3)" in result.output
    assert not (tmp_path / "e.jsonl").exists()


def test_write_tasks_round_trips(tmp_path: Path, tasks_file: Path) -> None:
    tasks = load_tasks(tasks_file)
    again = load_tasks(write_tasks(tmp_path / "t.jsonl", tasks))
    assert again == tasks


def test_an_empty_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="holds no task"):
        load_tasks(_write(tmp_path / "t.jsonl", "  "))


@pytest.mark.parametrize(
    "row",
    [
        {**GOOD, "reward": [{"type": "sql", "query": "SELECT count(*) FROM issues WHERE milestone IS NULL"}]},
        {**GOOD, "reward": [{"type": "sql", "query": "SELECT count(*) FROM issue_comment"}]},
        # the agent's SQL tools make whatever tables it likes
        {**GOOD, "tool_pack": "sql-database", "reward": [{"type": "sql", "query": "SELECT 1 FROM users"}]},
        # search plays its tools natively: custom ones are offered to the agent
        {"id": "t2", "domain": "search", "instruction": "x", "tools": [{"name": "web_search"}]},
        {"id": "t2", "domain": "terminal", "instruction": "x"},
    ],
)
def test_lines_that_load(tmp_path: Path, row: dict) -> None:
    assert load_tasks(_write(tmp_path / "tasks.jsonl", row))[0].id == row["id"]


def test_task_defaults() -> None:
    task = Task(id="x", domain="terminal", instruction="go")
    assert task.max_turns == 10 and task.reward == [] and task.world_tools() is None


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["envgen", "--n", "0", "-o", "{tmp}/e"], "--n 0 must be at least 1"),
        (["envgen", "--n", "2", "-o", "{tmp}/e", "--threshold", "2"], "Invalid value for '--threshold'"),
        (["envgen", "--n", "2", "-o", "{tmp}/e", "--max-retries", "-1"], "Invalid value for '--max-retries'"),
        (["envgen", "--n", "2", "-o", "{tmp}/e", "-c", "0"], "Invalid value for '--concurrency'"),
        (["rollout", "stats", "{tmp}/missing.jsonl"], "does not exist"),
        (["rollout", "stats", "{bundled}"], "is not an episode line"),
        (["rollout", "stats", "{bundled}", "--threshold", "5"], "Invalid value for '--threshold'"),
    ],
)
def test_envgen_and_stats_refuse_bad_arguments(
    tmp_path: Path, tasks_file: Path, args: list[str], needle: str
) -> None:
    args = [a.format(tmp=tmp_path, bundled=tasks_file) for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit), result.output
    assert needle in result.output and "Traceback" not in result.output
    assert not (tmp_path / "e").exists()
