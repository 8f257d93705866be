"""Scripted episodes that measure the guard: how many contradictions an agent sees with and
without it, its false alarms on a consistent model, and its cost per step.

Each episode is a list of ``(action, checkable)``: a checkable step is one whose answer earlier
steps of the episode fix (a read after a write, a listing after a removal, a SELECT after an
INSERT, an issue fetched after it was created). ``benchmarks/bench_guard.py`` runs them against
the ``drift`` fake model (or a real world model) and writes the figures to BENCHMARKS.md.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..backends.base import Backend

Step = tuple[Any, bool]


def _text(rng: random.Random, lines: int) -> str:
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "lambda"]
    return "".join(" ".join(rng.choice(words) for _ in range(4)) + "\n" for _ in range(lines))


def mcp_files(rng: random.Random, n: int) -> list[Step]:
    a, b, c = f"/app/notes{n}.txt", f"/app/todo{n}.txt", f"/app/done{n}.txt"
    first, second = _text(rng, 3), _text(rng, 2)
    old = first.split("\n")[0]
    call = lambda name, **args: {"tool_name": name, "arguments": args}  # noqa: E731
    return [
        (call("write_file", path=a, content=first), False),
        (call("read_text_file", path=a), True),
        (call("write_file", path=b, content=second), False),
        (call("list_directory", path="/app"), True),
        (call("edit_file", path=a, edits=[{"oldText": old, "newText": old.upper()}]), False),
        (call("read_text_file", path=a), True),
        (call("move_file", source=b, destination=c), False),
        (call("list_directory", path="/app"), True),
        (call("read_text_file", path=c), True),
    ]


def mcp_sql(rng: random.Random, n: int) -> list[Step]:
    table = f"items{n}"
    names = rng.sample(["pen", "cup", "box", "map", "key", "hat", "jar", "fan"], 4)
    call = lambda name, query: {"tool_name": name, "arguments": {"query": query}}  # noqa: E731
    values = ", ".join(f"('{x}', {rng.randint(1, 90)})" for x in names)
    return [
        (
            call("create_table", f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER)"),
            False,
        ),
        (call("write_query", f"INSERT INTO {table} (name, qty) VALUES {values}"), False),
        (call("read_query", f"SELECT * FROM {table}"), True),
        (call("write_query", f"DELETE FROM {table} WHERE name = '{names[1]}'"), False),
        (call("read_query", f"SELECT name, qty FROM {table} ORDER BY id"), True),
        (call("write_query", f"UPDATE {table} SET qty = qty + 1 WHERE name = '{names[0]}'"), False),
        (call("read_query", f"SELECT * FROM {table} WHERE qty > 0"), True),
    ]


def _created_number(answers: list[str]) -> int:
    """The number the first create answer gave the new issue."""
    import json

    data = json.loads(answers[0])
    return int(data.get("number", data.get("id", 1)))


def mcp_issues(rng: random.Random, n: int) -> list[Step]:
    repo = {"owner": "acme", "repo": f"app{n}"}
    call = lambda name, **args: {"tool_name": name, "arguments": {**repo, **args}}  # noqa: E731
    issue = lambda name, **args: lambda answers: call(name, issue_number=_created_number(answers), **args)  # noqa: E731
    return [
        (
            call("create_issue", title=f"Crash on start {rng.randint(1, 99)}", body=_text(rng, 1).strip()),
            False,
        ),
        (call("create_issue", title=f"Typo in docs {rng.randint(1, 99)}", body=_text(rng, 1).strip()), False),
        (issue("get_issue"), True),
        (call("list_issues"), True),
        (issue("update_issue", state="closed"), False),
        (issue("get_issue"), True),
        (call("list_issues", state="all"), True),
    ]


def terminal(rng: random.Random, n: int) -> list[Step]:
    keys = lambda text: [{"keystrokes": text + "\n", "duration": 0.1}]  # noqa: E731
    word = rng.choice(["hello", "world", "agent", "model"])
    return [
        (keys(f"echo {word} {n} > a{n}.txt"), False),
        (keys(f"cat a{n}.txt"), True),
        (keys(f"printf 'one\\ntwo\\nthree\\n' > b{n}.txt"), False),
        (keys("ls"), True),
        (keys(f"rm a{n}.txt"), False),
        (keys("ls"), True),
        (keys(f"cat b{n}.txt"), True),
        (keys(f"wc -l b{n}.txt"), True),
    ]


def swe(rng: random.Random, n: int) -> list[Step]:
    path = f"/app/src/mod{n}.py"
    body = f"def f():\n    return {rng.randint(1, 99)}\n\n\ndef g():\n    return 'g'\n"
    call = lambda name, **args: {"tool_name": name, "arguments": args}  # noqa: E731
    return [
        (call("write_file", file_path=path, content=body), False),
        (call("read_file", absolute_path=path), True),
        (call("run_shell_command", command=f"cat {path}"), True),
        (call("edit", file_path=path, old_string="return 'g'", new_string="return 'G'"), False),
        (call("read_file", absolute_path=path), True),
        (call("run_shell_command", command="ls /app/src"), True),
    ]


EPISODES = {
    "mcp-files": ("mcp", "filesystem", mcp_files),
    "mcp-sql": ("mcp", "sql-database", mcp_sql),
    "mcp-issues": ("mcp", "github-issues", mcp_issues),
    "terminal": ("terminal", None, terminal),
    "swe": ("swe", None, swe),
}


@dataclass
class Tally:
    steps: int = 0
    checkable: int = 0
    corrupted: int = 0
    #: checkable steps whose final observation differs from the consistent answer
    visible: int = 0
    #: steps where the guard reported a contradiction
    flagged: int = 0
    #: flagged steps whose answer had not been corrupted (false alarms)
    false_alarms: int = 0
    seconds: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        for name in ("steps", "checkable", "corrupted", "visible", "flagged", "false_alarms", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.by_kind.items():
            self.by_kind[key] = self.by_kind.get(key, 0) + value


def run(
    *,
    rate: float,
    guard: str | None,
    episodes: int = 10,
    seed: int = 0,
    latency: float = 0.0,
    backend: str | None = None,
    kinds: tuple[str, ...] = tuple(EPISODES),
) -> dict[str, Tally]:
    """Run ``episodes`` episodes of each kind with the drift model at ``rate`` (or ``backend``, a
    real world model), guarded by policy ``guard`` (None: no guard); a :class:`Tally` per kind."""
    from ..session import World
    from .drift import DriftBackend

    results: dict[str, Tally] = {}
    for kind in kinds:
        domain, pack, script = EPISODES[kind]
        tally = Tally()
        rng = random.Random(f"{seed}:{kind}")
        if backend is None:
            offline = World(backend="offline").backend
            drift: DriftBackend | None = DriftBackend(_Slow(offline, latency), rate, f"{seed}:{kind}")
            inner: Any = drift
        else:
            drift = None
            inner = World(backend=backend).backend
        world = World(backend=_guarded(inner, guard))
        tools = world.pm.registry.tool_pack(pack) if pack else None
        truth = World(backend="offline")  # the consistent answers, stepped beside the episode
        for n in range(episodes):
            session = world.make_session(domain, tools=tools) if tools else world.make_session(domain)
            oracle = truth.make_session(domain, tools=tools) if tools else truth.make_session(domain)
            answers: list[str] = []
            for planned, checkable in script(rng, n):
                action = planned(answers) if callable(planned) else planned  # it may read earlier answers
                expected = oracle.step(action).text if drift is not None else None
                if drift is not None:
                    drift.armed = checkable
                    drift.calls = []
                started = time.perf_counter()
                observation = session.step(action)
                tally.seconds += time.perf_counter() - started
                answers.append(observation.text)
                tally.steps += 1
                event = observation.metadata.get("guard") or {}
                corrupted = drift is not None and bool(drift.calls) and drift.calls[0] is not None
                if event.get("contradictions"):
                    tally.flagged += 1
                    tally.false_alarms += int(drift is not None and not corrupted)
                if not checkable:
                    continue
                tally.checkable += 1
                tally.corrupted += corrupted
                if drift is not None and corrupted:
                    name = str(drift.calls[0])
                    tally.by_kind[name] = tally.by_kind.get(name, 0) + 1
                if expected is not None and observation.text.rstrip() != expected.rstrip():
                    tally.visible += 1
        results[kind] = tally
    return results


def _guarded(inner: Any, policy: str | None) -> Any:
    if policy is None:
        return inner
    from ..plugins import get_plugin_manager
    from .core import GuardedBackend

    registry = get_plugin_manager().registry
    checkers = {d: factory() for d, factory in registry.guards.items()}
    return GuardedBackend(inner, checkers, None if policy == "default" else policy)


class _Slow(Backend):
    """A backend that takes ``latency`` seconds more per answer (a world model's time)."""

    def __init__(self, inner: Any, latency: float) -> None:
        self.inner = inner
        self.latency = latency
        self.context_budget = inner.context_budget
        self.backends = [inner]

    def complete(self, messages: Any, sampling: Any) -> Any:
        if self.latency:
            time.sleep(self.latency)
        return self.inner.complete(messages, sampling)

    async def acomplete(self, messages: Any, sampling: Any) -> Any:
        import asyncio

        if self.latency:
            await asyncio.sleep(self.latency)
        return await self.inner.acomplete(messages, sampling)

    def describe(self) -> str:
        return self.inner.describe()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.inner.close()
