"""Task files: the bundled one loads; bad lines fail naming the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentworld_plugins.errors import ConfigError
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


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        ({**GOOD, "max_turns": 0}, "line 2: field 'max_turns'"),
        ({**GOOD, "domain": "chess"}, "field 'domain': unknown domain 'chess'"),
        ({**GOOD, "tool_pack": "nope"}, "field 'tool_pack': unknown tool pack 'nope'"),
        ({**GOOD, "reward": [{"type": "vibes"}]}, "field 'reward.0.type': unknown reward 'vibes'"),
        ({**GOOD, "reward": [{"weight": 1}]}, "field 'reward.0.type'"),
        ({**GOOD, "perturbations": ["gremlins:rate=1"]}, "field 'perturbations.0'"),
        ({**GOOD, "colour": "red"}, "field 'colour'"),
        ({**GOOD, "id": "a#b"}, "field 'id'"),
        (GOOD, "field 'id': 't1' is already used on line 1"),
        ("{not json", "is not JSON"),
    ],
)
def test_bad_lines_name_the_line_and_field(tmp_path: Path, row: object, needle: str) -> None:
    path = _write(tmp_path / "tasks.jsonl", GOOD, row)
    with pytest.raises(Exception) as caught:
        load_tasks(path)
    message = str(getattr(caught.value, "message", caught.value))
    assert needle.replace("line 2: ", "") in message
    assert f"{path}:2" in message


def test_write_tasks_round_trips(tmp_path: Path, tasks_file: Path) -> None:
    tasks = load_tasks(tasks_file)
    again = load_tasks(write_tasks(tmp_path / "t.jsonl", tasks))
    assert again == tasks


def test_an_empty_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="holds no task"):
        load_tasks(_write(tmp_path / "t.jsonl", "  "))


def test_task_defaults() -> None:
    task = Task(id="x", domain="terminal", instruction="go")
    assert task.max_turns == 10 and task.reward == [] and task.world_tools() is None
