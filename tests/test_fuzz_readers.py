"""Fuzzing the entry points that read what users hand in (hypothesis, 300 examples each in CI).

``messages_for_record`` and every JSONL reader of bench and rollout may raise only the documented
errors (``AgentWorldError`` subclasses), whatever the record or the line: deep nesting, huge
numbers, wrong types, torn lines, bytes that are not UTF-8. Derandomized with fixed settings, so
every run draws the same examples; ``HYPOTHESIS_PROFILE=explore`` draws fresh ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins.bench.data import load_dataset, load_results, read_jsonl, record_problem
from agentworld_plugins.bench.runner import ResultsFile
from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.files import iter_jsonl
from agentworld_plugins.rollout.stats import episode_stats
from agentworld_plugins.rollout.tasks import load_tasks
from agentworld_plugins.testing import clean_env
from agentworld_plugins.turns import messages_for_record

EXPLORE = os.environ.get("HYPOTHESIS_PROFILE") == "explore"
fuzz = settings(
    max_examples=5000 if EXPLORE else 120,  # the suite's share; `explore` digs deeper
    deadline=None,
    derandomize=not EXPLORE,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- values ----------------------------------------------------------------------------------------


def _huge(digits: int) -> int:
    """An int of ``digits`` digits (negative: a negative int), over Python's str() limit."""
    return -(10**-digits) if digits < 0 else 10**digits


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.builds(_huge, st.sampled_from([5_000, -4_400]))
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
shallow = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _nest(value: Any, depth: int, as_dict: bool) -> Any:
    for _ in range(depth):
        value = {"k": value} if as_dict else [value]
    return value


deep = st.builds(_nest, shallow, st.sampled_from([70, 1_000, 5_000]), st.booleans())
values = shallow | deep
prompts = st.lists(st.text(max_size=30) | values, max_size=4) | values
RECORD_FIELDS = {
    "id": st.text(max_size=10) | values,
    "task": st.sampled_from(["AgentWorldBench/terminal", "AgentWorldBench/mcp", "x"]) | values,
    "system_str": st.text(max_size=40) | values,
    "prompt": prompts,
    "response": prompts,
    "current_prompt": st.text(max_size=40) | values,
    "turn_idx": st.integers(min_value=-2, max_value=6) | st.sampled_from(["1", " 2", "9" * 30]) | values,
    "total_turns": st.integers(min_value=0, max_value=6) | values,
}
records = st.fixed_dictionaries({}, optional=RECORD_FIELDS) | st.dictionaries(st.text(max_size=8), values)


@fuzz
@given(record=records)
def test_fuzz_messages_for_record_raises_only_documented_errors(record: dict[str, Any]) -> None:
    try:
        messages = messages_for_record(record)
    except AgentWorldError as exc:
        assert len(str(exc)) < 5_000
    else:
        assert all(isinstance(m["content"], str) for m in messages)


# -- JSONL lines -----------------------------------------------------------------------------------

TRAPS = [
    b"[" * 100_000,
    b"{" * 50_000,
    b'{"a": ' + b"9" * 5_000 + b"}",
    b'{"a": 1e999}',
    b'{"a": NaN}',
    b'"\\ud800"',
    b"\xff\xfe\x00",
    b'{"id": "x"',
    b"null",
    b"[1, 2]",
    b'{"turn_idx": 1e400}',
]


def _line(value: Any) -> bytes:
    try:
        return json.dumps(value).encode()
    except (ValueError, RecursionError):
        return b"[" * 2_000 + b"]" * 2_000


lines = st.one_of(
    st.builds(_line, records),
    st.builds(_line, values),
    st.binary(max_size=30),
    st.sampled_from(TRAPS),
)


def _episode(value: Any) -> Any:
    if isinstance(value, dict):
        value = {"group_id": "g", "rollout": {"status": "ok"}, **value}
    return value


episode_lines = lines | st.builds(
    _line,
    st.builds(
        _episode,
        st.fixed_dictionaries(
            {}, optional={"reward": values, "num_turns": values, "rollout": values, "task_id": values}
        ),
    ),
)
task_lines = lines | st.builds(
    _line,
    st.fixed_dictionaries(
        {"id": st.text(max_size=5) | values, "domain": st.sampled_from(["terminal", "mcp", "x"]) | values},
        optional={
            "instruction": st.text(max_size=10) | values,
            "tools": values,
            "tool_pack": st.just("github-issues") | values,
            "max_turns": values,
            "reward": values,
            "seed": values,
        },
    ),
)


def _each(read: Callable[[Path], Any], data: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "terminal_test.jsonl"
        path.write_bytes(b"\n".join(data) + b"\n")
        try:
            read(path)
        except AgentWorldError as exc:
            assert str(exc).strip() and len(str(exc)) < 10_000


def _results(path: Path) -> None:
    ResultsFile(path, lambda line: True).prepare()
    load_results(path)


def _dataset(path: Path) -> None:
    dataset = load_dataset(path)
    for record in dataset.records:
        record_problem(record)
        messages_for_record(record)


READERS: dict[str, tuple[Callable[[Path], Any], Any]] = {
    "files.iter_jsonl": (lambda p: list(iter_jsonl(p)), lines),
    "bench.read_jsonl": (lambda p: list(read_jsonl(p)), lines),
    "bench.load_dataset": (_dataset, lines),
    "bench.results": (_results, lines),
    "rollout.load_tasks": (load_tasks, task_lines),
    "rollout.episode_stats": (lambda p: episode_stats(p, ks=(1, 2)), episode_lines),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_fuzz_jsonl_readers_raise_only_documented_errors(reader: str) -> None:
    read, strategy = READERS[reader]

    @fuzz
    @given(data=st.lists(strategy, min_size=1, max_size=3))
    def check(data: list[bytes]) -> None:
        _each(read, data)

    check()


# -- the CLI on a hostile line ---------------------------------------------------------------------

HOSTILE = [
    b"[" * 100_000,
    b'{"id": "a", "turn_idx": ' + b"9" * 5_000 + b"}",
    b'{"id": "\\ud800"}',
    b"\xff\xfe",
]


@pytest.mark.parametrize("line", HOSTILE, ids=["deep", "huge-number", "surrogate", "not-utf8"])
@pytest.mark.parametrize("command", ["bench infer", "rollout run"])
def test_cli_prints_one_clean_error_for_a_hostile_line(tmp_path: Path, command: str, line: bytes) -> None:
    data = tmp_path / "terminal_test.jsonl"
    data.write_bytes(line + b"\n")
    if command == "bench infer":
        args = ["bench", "infer", "--data-dir", str(data), "--output", str(tmp_path / "p.jsonl")]
    else:
        args = [
            "rollout",
            "run",
            "--tasks",
            str(data),
            "--agent",
            "scripted:bundled",
            "-o",
            str(tmp_path / "e"),
        ]
    done = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", *args, "--backend", "offline"],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(HOME=str(tmp_path)),
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    errors = [text for text in done.stderr.splitlines() if text.startswith("Error:")]
    assert len(errors) == 1 and len(errors[0]) < 500, done.stderr
