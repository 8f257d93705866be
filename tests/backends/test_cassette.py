"""The cassette backend: record, replay, keys, modes, many threads and processes, and the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentworld_plugins.backends import replay_plugin
from agentworld_plugins.backends.base import Completion, Sampling
from agentworld_plugins.backends.cassette import (
    MODE_ENV,
    REDACTED,
    CassetteBackend,
    delete_entries,
    list_entries,
    parse_cassette_spec,
    request_key,
)
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli.cassette import cassette as cassette_cli
from agentworld_plugins.config import Settings
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.turns import render_turn

SAMPLING = Sampling(temperature=0.0, max_tokens=256, seed=7)


def turn_messages(number: int, action: str = '{"tool_name": "list_issues"}') -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You simulate an MCP server."}]
    for n in range(1, number):
        messages.append({"role": "user", "content": render_turn(n, f'{{"step": {n}}}')})
        messages.append({"role": "assistant", "content": f"observation {n}"})
    messages.append({"role": "user", "content": render_turn(number, action)})
    return messages


@pytest.fixture(autouse=True)
def _no_mode_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODE_ENV, raising=False)


def test_record_then_replay_without_calling_the_backend(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    recorded = FakeBackend().enqueue(
        Completion("obs 1", reasoning="thought 1", usage={"prompt_tokens": 10, "completion_tokens": 3}),
        Completion("obs 2", finish_reason="length", model="world-35b"),
    )
    recorder = CassetteBackend(path, recorded, mode="once")
    first = [recorder.complete(turn_messages(n), SAMPLING) for n in (1, 2)]
    recorder.close()
    assert [c.metadata["cassette"] for c in first] == ["recorded", "recorded"]

    inner = FakeBackend()
    replayer = CassetteBackend(path, inner, mode="once")  # not empty any more: replays only
    again = [replayer.complete(turn_messages(n), SAMPLING) for n in (1, 2)]
    assert inner.history == []
    assert len(recorded.history) == 2
    for before, after in zip(first, again):
        assert (after.text, after.reasoning, after.usage, after.finish_reason, after.model) == (
            before.text,
            before.reasoning,
            before.usage,
            before.finish_reason,
            before.model,
        )
        assert after.metadata == {"cassette": "hit"}
    replayer.close()


def test_key_ignores_dict_key_order_in_messages_and_sampling() -> None:
    forward = [{"role": "user", "content": "### Turn 1", "name": "agent"}]
    backward = [{"name": "agent", "content": "### Turn 1", "role": "user"}]
    s1 = Sampling(temperature=0.5, extra_body={"top_k": 20, "chat_template_kwargs": {"a": 1, "b": 2}})
    s2 = {"extra_body": {"chat_template_kwargs": {"b": 2, "a": 1}, "top_k": 20}, "temperature": 0.5}
    assert request_key("m", forward, s1) == request_key("m", backward, s2)
    assert request_key("m", forward, s1) != request_key("other", forward, s1)
    assert request_key("m", forward, s1) != request_key("m", forward, Sampling(temperature=0.4))


def test_reordered_request_replays(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    with_keys = [{"role": "user", "content": render_turn(1, "ls")}]
    CassetteBackend(path, FakeBackend().enqueue("screen"), mode="new_episodes").complete(with_keys, SAMPLING)
    reordered = [{"content": render_turn(1, "ls"), "role": "user"}]
    sampling = Sampling(seed=7, max_tokens=256, temperature=0.0)
    assert CassetteBackend(path, None, mode="none").complete(reordered, sampling).text == "screen"


def test_none_mode_miss_names_the_turn_and_how_to_record(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    CassetteBackend(path, FakeBackend(), mode="new_episodes").complete(turn_messages(1), SAMPLING)
    replayer = CassetteBackend(path, FakeBackend(), mode="none")
    with pytest.raises(BackendError) as info:
        replayer.complete(turn_messages(3), SAMPLING)
    text = str(info.value)
    assert "### Turn 3" in text
    assert "mode=new_episodes" in text and "mode=once" in text
    assert str(path) in text


def test_none_mode_on_a_missing_file_fails_without_creating_it(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    with pytest.raises(BackendError, match="missing or empty"):
        CassetteBackend(path, None, mode="none")
    assert not path.exists()


def test_identical_requests_replay_in_recorded_order(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    messages = turn_messages(1)
    recorder = CassetteBackend(path, FakeBackend().enqueue("A", "B"), mode="once")
    assert [recorder.complete(messages, SAMPLING).text for _ in range(2)] == ["A", "B"]

    replayer = CassetteBackend(path, None, mode="none")
    assert [replayer.complete(messages, SAMPLING).text for _ in range(2)] == ["A", "B"]
    with pytest.raises(BackendError, match="only 2 recorded answer"):
        replayer.complete(messages, SAMPLING)

    inner = FakeBackend().enqueue("C")
    extender = CassetteBackend(path, inner, mode="new_episodes")
    texts = [extender.complete(messages, SAMPLING) for _ in range(3)]
    assert [c.text for c in texts] == ["A", "B", "C"]
    assert [c.metadata["cassette"] for c in texts] == ["hit", "hit", "recorded"]
    assert len(inner.history) == 1
    assert [e["seq"] for e in list_entries(path)] == [1, 2, 3]


def test_once_records_only_into_a_new_or_empty_cassette(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    CassetteBackend(path, FakeBackend().enqueue("first"), mode="once").complete(turn_messages(1), SAMPLING)
    inner = FakeBackend()
    later = CassetteBackend(path, inner, mode="once")
    with pytest.raises(BackendError, match="mode once"):
        later.complete(turn_messages(2), SAMPLING)
    assert inner.history == []
    delete_entries(path)  # emptied: records again
    again = CassetteBackend(path, FakeBackend().enqueue("second"), mode="once")
    assert again.complete(turn_messages(2), SAMPLING).metadata["cassette"] == "recorded"


def test_all_mode_always_asks_and_rerecords(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    CassetteBackend(path, FakeBackend().enqueue("old"), mode="once").complete(turn_messages(1), SAMPLING)
    inner = FakeBackend().enqueue("new")
    assert CassetteBackend(path, inner, mode="all").complete(turn_messages(1), SAMPLING).text == "new"
    assert len(inner.history) == 1
    assert CassetteBackend(path, None, mode="none").complete(turn_messages(1), SAMPLING).text == "new"
    assert len(list_entries(path)) == 1


def test_mode_from_spec_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_cassette_spec("runs/a.db?mode=none") == ("runs/a.db", {"mode": "none"})
    assert parse_cassette_spec("a.db") == ("a.db", {})
    with pytest.raises(ConfigError, match="Unknown cassette option"):
        parse_cassette_spec("a.db?mod=none")
    monkeypatch.setenv(MODE_ENV, "new_episodes")
    assert CassetteBackend(tmp_path / "a.db", FakeBackend()).mode == "new_episodes"
    assert CassetteBackend(tmp_path / "a.db", FakeBackend(), mode="all").mode == "all"
    with pytest.raises(ConfigError, match="Unknown cassette mode"):
        CassetteBackend(tmp_path / "a.db", FakeBackend(), mode="sometimes")


def test_registered_factory_parses_the_spec(tmp_path: Path) -> None:
    pm = new_plugin_manager(load_entrypoints=False)
    if not pm.is_registered(replay_plugin):
        pm.register(replay_plugin)
    path = tmp_path / "run.db"
    CassetteBackend(path, FakeBackend().enqueue("hello"), model="world").complete(turn_messages(1), SAMPLING)
    settings = Settings(home=tmp_path / "home", model="world")
    backend = pm.registry.backend_factory("cassette")(settings, f"{path}?mode=none")
    assert isinstance(backend, CassetteBackend)
    assert (backend.mode, backend.inner, backend.model) == ("none", None, "world")
    assert backend.complete(turn_messages(1), SAMPLING).text == "hello"
    factory: Any = pm.registry.backend_factory("cassette")
    default = factory(settings, "?mode=new_episodes", inner=FakeBackend())
    assert isinstance(default, CassetteBackend)
    assert default.path == tmp_path / "home" / "cassettes" / "default.db"
    with pytest.raises(BackendError, match="no backend to record from"):
        factory(settings, str(tmp_path / "new.db"))


def test_secrets_are_not_stored_and_the_key_still_matches(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    secret = "sk-proj-" + "a1B2c3D4" * 4
    messages = [
        {
            "role": "system",
            "content": f"Use the key {secret} and send Authorization: Bearer abcdefghijkl12345",
        },
        {"role": "user", "content": render_turn(1, '{"tool_name": "pay"}')},
    ]
    sampling = Sampling(extra_body={"api_key": "hunter2-secret", "top_k": 20})
    CassetteBackend(path, FakeBackend().enqueue("paid"), mode="once").complete(messages, sampling)
    raw = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("run.db-*"))
    assert secret.encode() not in raw and b"abcdefghijkl12345" not in raw and b"hunter2-secret" not in raw
    entry = list_entries(path)[0]
    assert REDACTED in entry["request"]["messages"][0]["content"]
    assert entry["request"]["sampling"]["extra_body"] == {"api_key": REDACTED, "top_k": 20}
    assert entry["meta"]["redacted"] == 3
    assert CassetteBackend(path, None, mode="none").complete(messages, sampling).text == "paid"


def test_a_secret_in_the_answer_is_recorded_redacted_and_live_equals_replay(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    password, token = "hunter2-Xy8vQ3Lm", "glpat-" + "a1B2c3D4e5F6g7H8i9J0"
    answer = f'{{"user": "ann", "password": "{password}"}}\nexport GITLAB_TOKEN={token}\nok'
    inner = FakeBackend().enqueue(Completion(text=answer, reasoning=f"the token is {token}"))
    live = CassetteBackend(path, inner, mode="once").complete(turn_messages(1), SAMPLING)
    raw = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("run.db-*"))
    assert password.encode() not in raw and token.encode() not in raw
    assert password not in live.text and token not in live.text and token not in (live.reasoning or "")
    assert live.text.count(REDACTED) == 2 and live.text.endswith("\nok")
    replayed = CassetteBackend(path, None, mode="none").complete(turn_messages(1), SAMPLING)
    assert (replayed.text, replayed.reasoning) == (live.text, live.reasoning)
    assert list_entries(path)[0]["meta"]["response_redacted"] == 3


async def test_async_record_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    recorder = CassetteBackend(path, FakeBackend().enqueue("async obs"), mode="once")
    recorded = await recorder.acomplete(turn_messages(1), SAMPLING)
    assert recorded.metadata["cassette"] == "recorded"
    replayer = CassetteBackend(path, None, mode="none")
    results = await asyncio.gather(replayer.acomplete(turn_messages(1), SAMPLING))
    assert results[0].text == "async obs" and results[0].metadata == {"cassette": "hit"}
    with pytest.raises(BackendError, match="### Turn 2"):
        await replayer.acomplete(turn_messages(2), SAMPLING)


_CHILD_REPLAY = """
import sys
from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.cassette import CassetteBackend
from agentworld_plugins.turns import render_turn
messages = [{"role": "user", "content": render_turn(1, '{"tool_name": "whoami"}')}]
backend = CassetteBackend(sys.argv[1], None, mode="none")
sys.stdout.write(backend.complete(messages, Sampling(temperature=0.0, max_tokens=64)).text)
"""


def test_replay_in_another_process(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    messages = [{"role": "user", "content": render_turn(1, '{"tool_name": "whoami"}')}]
    recorded = CassetteBackend(path, FakeBackend().enqueue("alice — ünïcode ✓"), mode="once").complete(
        messages, Sampling(temperature=0.0, max_tokens=64)
    )
    child = subprocess.run(
        [sys.executable, "-c", _CHILD_REPLAY, str(path)],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert child.returncode == 0, child.stderr.decode()
    assert child.stdout.decode("utf-8") == recorded.text


_CHILD_WRITER = """
import sys
from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.cassette import CassetteBackend
from agentworld_plugins.backends.fake import FakeBackend
path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
backend = CassetteBackend(path, FakeBackend(lambda m: "answer " + m[-1]["content"]), mode="new_episodes")
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    backend.complete([{"role": "user", "content": f"{tag}-{i}"}], Sampling())
print("done", flush=True)
"""


def test_concurrent_threads_and_processes_write_safely(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    per_writer = 25
    backend = CassetteBackend(path, FakeBackend(lambda m: "answer " + m[-1]["content"]), mode="new_episodes")
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD_WRITER, str(path), f"proc{n}", str(per_writer)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        barrier = threading.Barrier(8 + 1)
        errors: list[BaseException] = []

        def write(tag: str) -> None:
            barrier.wait()
            try:
                for i in range(per_writer):
                    answer = backend.complete([{"role": "user", "content": f"{tag}-{i}"}], Sampling())
                    assert answer.text == f"answer {tag}-{i}"
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(f"thread{n}",)) for n in range(8)]
        for thread in threads:
            thread.start()
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        barrier.wait()
        for thread in threads:
            thread.join(timeout=120)
        for child in children:
            out, err = child.communicate(timeout=120)
            assert child.returncode == 0, err
            assert "done" in out
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    assert errors == []
    backend.close()

    entries = list_entries(path)
    tags = [f"thread{n}" for n in range(8)] + [f"proc{n}" for n in range(2)]
    expected = {f"{tag}-{i}" for tag in tags for i in range(per_writer)}
    stored = {e["request"]["messages"][-1]["content"] for e in entries}
    assert stored == expected and len(entries) == len(expected)
    assert all(e["response"]["text"] == "answer " + e["request"]["messages"][-1]["content"] for e in entries)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize(
    "content",
    [b"this is a text file, not a database\n" * 10, b"SQLite format 3\x00" + b"\xff" * 4000],
    ids=["text", "damaged"],
)
def test_corrupt_file_gives_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.db"
    path.write_bytes(content)
    with pytest.raises(BackendError, match=r"is not a cassette \(SQLite\) file") as info:
        CassetteBackend(path, FakeBackend(), mode="new_episodes")
    assert "delete it or record anew" in str(info.value)
    with pytest.raises(BackendError, match="is not a cassette"):
        list_entries(path)


def test_another_sqlite_database_is_not_a_cassette(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER)")
    conn.close()
    with pytest.raises(BackendError, match="other tables"):
        CassetteBackend(path, FakeBackend(), mode="new_episodes")


def _recorded(tmp_path: Path) -> Path:
    path = tmp_path / "cli.db"
    backend = CassetteBackend(path, FakeBackend().enqueue("first answer", "second answer"), mode="once")
    backend.complete(turn_messages(1), SAMPLING)
    backend.complete(turn_messages(2), SAMPLING)
    backend.close()
    return path


def test_cli_ls_lists_cassettes_and_entries(tmp_path: Path) -> None:
    path = _recorded(tmp_path)
    (tmp_path / "notes.txt").write_text("not a cassette")
    runner = CliRunner()
    folder = runner.invoke(cassette_cli, ["ls", str(tmp_path)])
    assert folder.exit_code == 0, folder.output
    assert "cli.db  2 entries" in folder.output and "notes.txt" not in folder.output
    entries = runner.invoke(cassette_cli, ["ls", str(path)])
    assert entries.exit_code == 0, entries.output
    assert "### Turn 1" in entries.output and "second answer" in entries.output
    assert "2 entries in" in entries.output


def test_cli_ls_defaults_to_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTWORLD_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(cassette_cli, ["ls"])
    assert result.exit_code == 0, result.output
    assert "No cassettes yet in" in result.output and "home" in result.output


def test_cli_show_text_and_json(tmp_path: Path) -> None:
    path = _recorded(tmp_path)
    runner = CliRunner()
    shown = runner.invoke(cassette_cli, ["show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "first answer" in shown.output and "second answer" in shown.output
    limited = runner.invoke(cassette_cli, ["show", str(path), "--limit", "1", "--json"])
    assert limited.exit_code == 0, limited.output
    rows = json.loads(limited.output)
    assert len(rows) == 1 and rows[0]["response"]["text"] == "first answer"
    assert rows[0]["turn"] == "### Turn 1" and len(rows[0]["key"]) == 64


def test_cli_rm_by_key_and_all(tmp_path: Path) -> None:
    path = _recorded(tmp_path)
    runner = CliRunner()
    key = list_entries(path)[0]["key"]
    neither = runner.invoke(cassette_cli, ["rm", str(path)])
    assert neither.exit_code != 0 and "exactly one" in neither.output
    one = runner.invoke(cassette_cli, ["rm", str(path), "--key", key[:10]])
    assert one.exit_code == 0, one.output
    assert "Deleted 1 entry" in one.output
    assert [e["key"] for e in list_entries(path)] != [key] and len(list_entries(path)) == 1
    missing = runner.invoke(cassette_cli, ["rm", str(path), "--key", key[:10]])
    assert missing.exit_code == 1 and "No entry with key" in missing.output
    everything = runner.invoke(cassette_cli, ["rm", str(path), "--all"])
    assert everything.exit_code == 0 and "Deleted 1 entry" in everything.output
    assert list_entries(path) == []
    absent = runner.invoke(cassette_cli, ["show", str(tmp_path / "nope.db")])
    assert absent.exit_code == 1 and "No cassette at" in absent.output


def test_close_closes_the_inner_backend(tmp_path: Path) -> None:
    closed: list[bool] = []

    class Closing(FakeBackend):
        def close(self) -> None:
            closed.append(True)

    backend = CassetteBackend(tmp_path / "a.db", Closing(), mode="new_episodes")
    backend.close()
    assert closed == [True]
    with pytest.raises(BackendError, match="closed"):
        backend.complete(turn_messages(1), SAMPLING)
