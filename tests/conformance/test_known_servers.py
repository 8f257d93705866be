"""The offline world against the real reference MCP servers it mirrors: the same call sequences
to the real server (pinned, installed on demand into the conformance cache) and to
``agentworld mcp serve --snapshot`` of its mirrored tools; texts, ``structuredContent`` and error
flags must be equal. The figure per server is printed (``-s``) and kept >= 95 %."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conformance_support import isolating_server, one_session, throwaway_python
from conformance_support import mirror_snapshot as _mirror
from conformance_support import npm_server as _npm_server
from conformance_support import offline_server as _offline_server
from mcp import Client, StdioServerParameters

MEMORY_VERSION = "2026.8.31"  # @modelcontextprotocol/server-memory, serverInfo 0.6.3


@pytest.fixture(scope="module")
def memory_server() -> list[str]:
    return _npm_server("@modelcontextprotocol/server-memory", MEMORY_VERSION, "mcp-server-memory")


NAMES = ["Ada", "Babbage", "Engine", "Notes"]
TYPES = ["person", "machine", "document"]
FACTS = ["born 1815", "wrote notes", "Analytical", "steam powered", "Ünïcode ✓"]


def _call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    names = rng.sample(NAMES, rng.randint(1, 2))
    relation = {
        "from": rng.choice(NAMES),
        "to": rng.choice(NAMES),
        "relationType": rng.choice(["knows", "built"]),
    }
    choices: list[tuple[str, dict[str, Any]]] = [
        (
            "create_entities",
            {
                "entities": [
                    {"name": n, "entityType": rng.choice(TYPES), "observations": rng.sample(FACTS, 2)}
                    for n in names
                ]
            },
        ),
        ("create_relations", {"relations": [relation]}),
        ("add_observations", {"observations": [{"entityName": names[0], "contents": rng.sample(FACTS, 2)}]}),
        (
            "delete_observations",
            {"deletions": [{"entityName": names[0], "observations": rng.sample(FACTS, 1)}]},
        ),
        ("delete_relations", {"relations": [relation]}),
        ("delete_entities", {"entityNames": names[:1]}),
        ("read_graph", {}),
        ("search_nodes", {"query": rng.choice(["ada", "MACHINE", "18", "note", "✓", "zzz"])}),
        ("open_nodes", {"names": names}),
    ]
    weights = [4, 3, 3, 1, 1, 1, 2, 2, 2]
    return rng.choices(choices, weights)[0]


SEQUENCES = [[_call(random.Random(seed * 100 + k)) for k in range(10)] for seed in range(12)]


async def _answers(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    async with Client(params) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text if result.content else None  # type: ignore[union-attr]
            out.append((bool(result.is_error), text, result.structured_content))
    return out


def test_memory_server_sequences_answer_as_the_real_one(memory_server: list[str], tmp_path: Path) -> None:
    snapshot = tmp_path / "memory.json"
    _mirror(snapshot, memory_server, tmp_path)
    same = 0
    differences = []
    with isolating_server(snapshot, tmp_path / "home") as url:
        for index, calls in enumerate(SEQUENCES):
            real = StdioServerParameters(
                command=memory_server[0],
                args=memory_server[1:],
                env={"PATH": os.environ["PATH"], "MEMORY_FILE_PATH": str(tmp_path / f"real-{index}.jsonl")},
            )
            ours = url if index else _offline_server(snapshot, tmp_path / "home")  # a world per connection
            want, got = anyio.run(_answers, real, calls), anyio.run(_answers, ours, calls)
            if want == got:
                same += 1
            else:
                differences.append((index, next((c, w, g) for c, w, g in zip(calls, want, got) if w != g)))
    print(f"server-memory: {same}/{len(SEQUENCES)} call sequences identical")
    assert same / len(SEQUENCES) >= 0.95, differences[:3]


def test_memory_graph_survives_a_restart_in_a_named_world(memory_server: list[str], tmp_path: Path) -> None:
    """The real server keeps its graph in a file; the mirror keeps it in the named world."""
    snapshot = tmp_path / "memory.json"
    _mirror(snapshot, memory_server, tmp_path)
    ours = _offline_server(snapshot, tmp_path / "home", "--world", "kg")
    create = (
        "create_entities",
        {"entities": [{"name": "Ada", "entityType": "person", "observations": ["kept"]}]},
    )
    anyio.run(_answers, ours, [create])
    (graph,) = anyio.run(_answers, ours, [("read_graph", {})])
    assert graph[2] == {
        "entities": [{"name": "Ada", "entityType": "person", "observations": ["kept"]}],
        "relations": [],
    }


# -- mcp-server-time (PyPI) -----------------------------------------------------------------------

TIME_VERSION = "2026.10.19"
#: zones without daylight saving time, so a conversion on the frozen clock's day and on the real
#: server's today agree but for the date itself
STEADY = [
    "UTC",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Africa/Nairobi",
    "America/Phoenix",
    "Asia/Shanghai",
]
#: what differs by the day the comparison runs (the real server reads the host's clock): the date,
#: the weekday, and for get_current_time the time of day
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_WEEKDAY = re.compile(r"(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day")
_CLOCK = re.compile(r"T\d{2}:\d{2}:\d{2}")


def _normalised(answers: list[Any], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    for (name, _), (is_error, text, structured) in zip(calls, answers):
        blob = json.dumps([text, structured])
        blob = _WEEKDAY.sub("DAY", _DAY.sub("DATE", blob))
        if name == "get_current_time":
            blob = _CLOCK.sub("TNOW", blob)
        out.append((is_error, blob))
    return out


def _time_calls(seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = []
    for _ in range(6):
        kind = rng.random()
        if kind < 0.3:
            calls.append(
                ("get_current_time", {"timezone": rng.choice([*STEADY, "Mars/Olympus", "asia/tokyo", ""])})
            )
        else:
            time = rng.choice(["00:00", "09:30", "23:59", "12:45", "7:05", "25:00", "noon"])
            calls.append(
                (
                    "convert_time",
                    {
                        "source_timezone": rng.choice([*STEADY, "Nowhere/City"]),
                        "time": time,
                        "target_timezone": rng.choice(STEADY),
                    },
                )
            )
    return calls


def test_time_server_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    python = throwaway_python(f"mcp-server-time-{TIME_VERSION}", [f"mcp-server-time=={TIME_VERSION}"])
    real_cmd = [python, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    snapshot = tmp_path / "time.json"
    _mirror(snapshot, real_cmd, tmp_path)
    real = StdioServerParameters(command=real_cmd[0], args=real_cmd[1:], env={"PATH": os.environ["PATH"]})
    ours = _offline_server(snapshot, tmp_path / "home")
    sequences = [_time_calls(seed) for seed in range(12)]
    same, differences = 0, []
    wants, gots = one_session(_answers, real, sequences), one_session(_answers, ours, sequences)  # stateless
    for calls, want_raw, got_raw in zip(sequences, wants, gots):
        want, got = _normalised(want_raw, calls), _normalised(got_raw, calls)
        if want == got:
            same += 1
        else:
            differences.append(next((c, w, g) for c, w, g in zip(calls, want, got) if w != g))
    print(f"mcp-server-time: {same}/{len(sequences)} call sequences identical (dates and clock times aside)")
    assert same / len(sequences) >= 0.95, differences[:3]


# -- @modelcontextprotocol/server-filesystem (npm) ---------------------------------------------------

FILESYSTEM_VERSION = "2026.8.31"
#: what differs by when the files were made: get_file_info's created/modified/accessed lines
_STAMP = re.compile(r"(created|modified|accessed): [^\n\"]*")


def _fs_calls(root: str, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    names = ["a.txt", "b.md", "sub/c.log", "sub/deep/d.txt", "new/e.txt", ".hidden"]
    globs = ["*.txt", "**/*.txt", "**/*.log", "sub/**", "*", "**/.*", "*.{md,txt}", "[ab]*", "c.log"]

    def path() -> str:
        return rng.choice(
            [f"{root}/{rng.choice(names)}", rng.choice(names), "/etc/passwd", f"{root}/missing/x"]
        )

    calls: list[tuple[str, dict[str, Any]]] = [("list_allowed_directories", {})]
    for _ in range(9):
        kind = rng.randrange(11)
        if kind == 0:
            calls.append(
                ("write_file", {"path": path(), "content": rng.choice(["one\n", "two\nlines\n", ""])})
            )
        elif kind == 1:
            calls.append(("read_text_file", {"path": path()}))
        elif kind == 2:
            calls.append(
                ("create_directory", {"path": f"{root}/{rng.choice(['new', 'sub/x', 'deep/er/st'])}"})
            )
        elif kind == 3:
            calls.append(("list_directory", {"path": rng.choice([root, f"{root}/sub", f"{root}/nope"])}))
        elif kind == 4:
            calls.append(("search_files", {"path": root, "pattern": rng.choice(globs)}))
        elif kind == 5:
            calls.append(("move_file", {"source": path(), "destination": f"{root}/{rng.choice(names)}"}))
        elif kind == 6:
            calls.append(
                ("directory_tree", {"path": root, "excludePatterns": rng.sample(["deep", "*.log", "new"], 1)})
            )
        elif kind == 7:
            calls.append(("read_multiple_files", {"paths": [path(), path()]}))
        elif kind == 8:
            edit = {"oldText": "one", "newText": rng.choice(["ONE", "uno\n"])}
            calls.append(("edit_file", {"path": path(), "edits": [edit], "dryRun": rng.random() < 0.3}))
        elif kind == 9:
            calls.append(("list_directory_with_sizes", {"path": root}))
        else:
            calls.append(("get_file_info", {"path": path()}))
    return calls


def _tree(root: Path) -> None:
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("one\n")
    (root / "sub" / "c.log").write_text("log line\n")
    (root / "sub" / "deep" / "d.txt").write_text("deep one\n")


def _contents(root: Path) -> dict[str, str | None]:
    return {str(p.relative_to(root)): p.read_text() if p.is_file() else None for p in root.rglob("*")}


def test_filesystem_server_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    """Every sequence starts from the same tree at the same path, made afresh for each side: the
    real server writes it, the fake copies it into its world and never writes it back."""
    real_cmd = _npm_server(
        "@modelcontextprotocol/server-filesystem", FILESYSTEM_VERSION, "mcp-server-filesystem"
    )
    root = (tmp_path / "root").resolve()
    _tree(root)
    snapshot = tmp_path / "fs.json"
    _mirror(snapshot, [*real_cmd, str(root)], tmp_path)
    real = StdioServerParameters(
        command=real_cmd[0], args=[*real_cmd[1:], str(root)], env={"PATH": os.environ["PATH"]}
    )
    tree = _contents(root)
    same, differences, count = 0, [], 14
    with isolating_server(snapshot, tmp_path / "home") as url:  # a world per connection
        for index in range(count):
            calls = _fs_calls(str(root), index)
            answers = []
            for server in (url if index else _offline_server(snapshot, tmp_path / "home"), real):
                shutil.rmtree(root)
                _tree(root)
                answers.append(
                    [_STAMP.sub(r"\1: WHEN", json.dumps(a)) for a in anyio.run(_answers, server, calls)]
                )
                if server is not real:  # the fake's writes stay in its world
                    assert _contents(root) == tree
            got_n, want_n = answers
            if want_n == got_n:
                same += 1
            else:
                differences.append(next((c, w, g) for c, w, g in zip(calls, want_n, got_n) if w != g))
    print(f"server-filesystem: {same}/{count} call sequences identical (file timestamps aside)")
    assert same / count >= 0.95, differences[:3]


# -- @modelcontextprotocol/server-sequential-thinking (npm) -----------------------------------------

THINKING_VERSION = "2026.8.31"


def _thoughts(seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls = []
    for n in range(1, 8):
        arguments: dict[str, Any] = {
            "thought": rng.choice(["Split the problem.", "Check the edge case ✓", "Revise step 2."]),
            "thoughtNumber": n,
            "totalThoughts": rng.choice([3, 5, 10]),
            "nextThoughtNeeded": n < 7,
        }
        if rng.random() < 0.3:
            arguments.update(branchFromThought=max(1, n - 1), branchId=rng.choice(["alt", "b2"]))
        if rng.random() < 0.2:
            arguments.update(isRevision=True, revisesThought=max(1, n - 1))
        calls.append(("sequentialthinking", arguments))
    return calls


def test_sequential_thinking_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    real_cmd = _npm_server(
        "@modelcontextprotocol/server-sequential-thinking", THINKING_VERSION, "mcp-server-sequential-thinking"
    )
    snapshot = tmp_path / "thinking.json"
    _mirror(snapshot, real_cmd, tmp_path)
    real = StdioServerParameters(
        command=real_cmd[0],
        args=real_cmd[1:],
        env={"PATH": os.environ["PATH"], "DISABLE_THOUGHT_LOGGING": "true"},
    )
    sequences = [_thoughts(seed) for seed in range(10)]
    with isolating_server(snapshot, tmp_path / "home") as url:  # the first over stdio, then a world
        ours = [_offline_server(snapshot, tmp_path / "home"), *[url] * (len(sequences) - 1)]  # per connection
        same = sum(
            anyio.run(_answers, real, calls) == anyio.run(_answers, server, calls)
            for calls, server in zip(sequences, ours)
        )
    print(f"server-sequential-thinking: {same}/{len(sequences)} call sequences identical")
    assert same / len(sequences) >= 0.95


# -- mcp record, then mcp serve --replay ---------------------------------------------------------------


def test_a_recording_is_served_back_exactly_then_the_world_goes_on(
    memory_server: list[str], tmp_path: Path
) -> None:
    """A real client through `mcp record` in front of the real server, then the same client
    against `mcp serve --replay`: the recorded answers, 10/10; a new call after them sees the
    state the replayed calls left (the engine applied them)."""
    calls = SEQUENCES[3]
    env = {"PATH": os.environ["PATH"], "AGENTWORLD_HOME": str(tmp_path / "home")}
    recording = tmp_path / "calls.jsonl"
    recorder = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentworld_plugins", "mcp", "record", "--output", str(recording), "--", *memory_server],
        env={**env, "MEMORY_FILE_PATH": str(tmp_path / "real.jsonl")},
    )
    real = anyio.run(_answers, recorder, calls)
    snapshot = tmp_path / "memory.json"
    _mirror(snapshot, memory_server, tmp_path)
    replayed = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline", "--snapshot", str(snapshot),
              "--replay", str(recording)],
        env=env,
    )  # fmt: skip
    answers = anyio.run(_answers, replayed, [*calls, ("read_graph", {})])
    assert sum(a == b for a, b in zip(answers, real)) == len(calls) == 10
    real_graph = anyio.run(
        _answers,
        StdioServerParameters(
            command=memory_server[0],
            args=memory_server[1:],
            env={**env, "MEMORY_FILE_PATH": str(tmp_path / "real.jsonl")},
        ),
        [("read_graph", {})],
    )
    assert answers[-1] == real_graph[0]  # not recorded: the world, where the replayed calls happened


# -- the surface beyond tools ----------------------------------------------------------------------


async def _surface(params: StdioServerParameters) -> tuple[Any, ...]:
    async with Client(params) as client:
        capabilities = client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
        listed = (await client.list_resources()).model_dump(by_alias=True, mode="json", exclude_none=True)
        await client.call_tool(
            "create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}
        )
        read = await client.read_resource("memory://knowledge-graph")
        return (
            client.protocol_version,
            capabilities,
            listed,
            read.model_dump(by_alias=True, mode="json", exclude_none=True),
        )


def test_a_mirror_declares_and_serves_what_the_real_server_does(
    memory_server: list[str], tmp_path: Path
) -> None:
    """The protocol era, capabilities (listChanged, resource subscriptions), the resource list and
    resources/read of the knowledge graph after a write: equal to the real server's."""
    snapshot = tmp_path / "memory.json"
    _mirror(snapshot, memory_server, tmp_path)
    real = StdioServerParameters(
        command=memory_server[0],
        args=memory_server[1:],
        env={"PATH": os.environ["PATH"], "MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")},
    )
    ours = _offline_server(snapshot, tmp_path / "home")
    assert anyio.run(_surface, ours) == anyio.run(_surface, real)


# -- mcp-server-sqlite (PyPI) ------------------------------------------------------------------------

SQLITE_VERSION = "2025.4.25"


def _sql_calls(seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_table", {"query": "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL)"})
    ]
    for _ in range(9):
        kind = rng.randrange(9)
        if kind < 3:
            name, price = rng.choice(["pen", "ink", "pad", "O'Neil"]), rng.choice([1, 2.5, None])
            quoted = name.replace("'", "''")
            value = "NULL" if price is None else price
            calls.append(
                ("write_query", {"query": f"INSERT INTO items (name, price) VALUES ('{quoted}', {value})"})
            )
        elif kind == 3:
            calls.append(("read_query", {"query": rng.choice([
                "SELECT * FROM items ORDER BY id", "SELECT count(*) AS n, sum(price) FROM items",
                "SELECT name FROM items WHERE price > 1", "SELECT * FROM nope", "DELETE FROM items"])}))  # fmt: skip
        elif kind == 4:
            calls.append(("write_query", {"query": rng.choice([
                "UPDATE items SET price = price * 2", "DELETE FROM items WHERE name = 'pen'",
                "SELECT 1", "INSERT INTO items VALUES (1, 'dup', 1)", "DROP TABLE nope"])}))  # fmt: skip
        elif kind == 5:
            calls.append(("describe_table", {"table_name": rng.choice(["items", "nope"])}))
        elif kind == 6:
            calls.append(("list_tables", {}))
        elif kind == 7:
            calls.append(("append_insight", {"insight": rng.choice(["Pens sell best.", "Ink is cheap ✓"])}))
        else:
            calls.append(("create_table", {"query": rng.choice(["CREATE TABLE t2 (a)", "DROP TABLE items"])}))
    return calls


async def _sql_answers(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    async with Client(params) as client:  # the memo read in the same connection: the real server
        for name, arguments in calls:  # keeps insights in its process only
            result = await client.call_tool(name, arguments)
            text = result.content[0].text if result.content else None  # type: ignore[union-attr]
            out.append((bool(result.is_error), text, result.structured_content))
        memo = await client.read_resource("memo://insights")
    return [*out, memo.model_dump(by_alias=True, mode="json", exclude_none=True)["contents"]]


def test_sqlite_server_sequences_answer_as_the_real_one(tmp_path: Path) -> None:
    python = throwaway_python(
        f"mcp-server-sqlite-{SQLITE_VERSION}", [f"mcp-server-sqlite=={SQLITE_VERSION}", "mcp>=1.24,<2"]
    )  # it predates mcp 2
    first = [str(Path(python).parent / "mcp-server-sqlite"), "--db-path", str(tmp_path / "mirror.db")]
    snapshot = tmp_path / "sqlite.json"
    _mirror(snapshot, first, tmp_path)
    same, differences, count = 0, [], 10
    with isolating_server(snapshot, tmp_path / "home") as url:
        for index in range(count):
            calls = _sql_calls(index)
            real = StdioServerParameters(
                command=first[0], args=["--db-path", str(tmp_path / f"real-{index}.db")],
                env={"PATH": os.environ["PATH"]},
            )  # fmt: skip
            # ours: the first in a named world over stdio, then a world per connection over HTTP
            ours = url if index else _offline_server(snapshot, tmp_path / "home", "--world", "sql")
            want, got = anyio.run(_sql_answers, real, calls), anyio.run(_sql_answers, ours, calls)
            if want == got:
                same += 1
            else:
                differences.append(next((c, w, g) for c, w, g in zip([*calls, "memo"], want, got) if w != g))
    print(f"mcp-server-sqlite: {same}/{count} call sequences identical")
    assert same / count >= 0.95, differences[:3]
