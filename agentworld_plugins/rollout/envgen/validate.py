"""Checks on a generated environment, and the near-duplicate filter.

An environment is valid when its tool names are unique and usable by MCP clients (the pattern
OpenAI's and Anthropic's tool calling accept: letters, digits, ``_`` and ``-``, at most 64), every
``inputSchema`` and ``outputSchema`` is a JSON Schema object that compiles, and every task parses
as a :class:`~agentworld_plugins.rollout.Task` whose reward checks name existing tools and
resources.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError
from ..tasks import Task, parse_task, tool_problems

if TYPE_CHECKING:
    from ...plugins import Registry

ENV_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def environment_problems(env: Any) -> list[str]:
    """What is wrong with an environment's name and tools (empty when nothing is)."""
    if not isinstance(env, dict):
        return ["the environment is not a JSON object"]
    problems = []
    name = env.get("name")
    if not isinstance(name, str) or not ENV_NAME.match(name):
        problems.append(f"name {name!r} must be lower-case letters, digits and '-' (at most 64)")
    tools = env.get("tools")
    if not isinstance(tools, list) or not tools:
        return [*problems, "tools must be a non-empty list"]
    problems += tool_problems(tools)
    # a generated tool must say what it takes (a task file may leave it out: any object)
    problems += [
        f"tools[{n}].inputSchema is missing"
        for n, t in enumerate(tools)
        if isinstance(t, dict) and "inputSchema" not in t
    ]
    return problems


def _reward_problems(task: Task, tool_names: set[str]) -> list[str]:
    problems = []
    for n, spec in enumerate(task.reward):
        params = spec.params
        if spec.type == "tool_called" and params.get("tool") not in tool_names:
            problems.append(f"reward[{n}] names tool {params.get('tool')!r}, which the environment lacks")
        if spec.type == "ledger_item":
            resource = str(params.get("resource") or "").lower().rstrip("s")
            if not resource or not any(resource in name.lower() for name in tool_names):
                problems.append(f"reward[{n}] names resource {resource!r}, which no tool handles")
    return problems


def environment_tasks(env: dict[str, Any], registry: Registry) -> tuple[list[Task], list[str]]:
    """The environment's tasks as :class:`Task` (ids ``<env name>-<n>``), and what is wrong."""
    tool_names = {t["name"] for t in env.get("tools", []) if isinstance(t, dict) and "name" in t}
    raw = env.get("tasks")
    if not isinstance(raw, list) or not raw:
        return [], ["tasks must be a non-empty list"]
    tasks, problems = [], []
    for n, entry in enumerate(raw):
        if not isinstance(entry, dict):
            problems.append(f"tasks[{n}] is not an object")
            continue
        value = {
            "id": f"{env.get('name')}-{n}",
            "domain": "mcp",
            "tools": env.get("tools"),
            "world_bible": env.get("world_bible"),
            "initial_state": env.get("initial_state"),
            "seed": n,
            **entry,
        }
        try:
            task = parse_task(value, f"tasks[{n}]", registry)
        except ConfigError as exc:
            problems.append(exc.message)
            continue
        problems += [f"tasks[{n}].{p}" for p in _reward_problems(task, tool_names)]
        tasks.append(task)
    return tasks, problems


def check_environment(env: Any, registry: Registry) -> list[str]:
    """Every problem of a generated environment (empty: it is valid)."""
    problems = environment_problems(env)
    if problems:
        return problems
    return environment_tasks(env, registry)[1]


def _shingles(env: dict[str, Any]) -> set[str]:
    words = []
    for tool in env.get("tools", []):
        words += re.findall(r"[a-z0-9]+", f"{tool.get('name', '')} {tool.get('description', '')}".lower())
    words += re.findall(r"[a-z0-9]+", str(env.get("world_bible", "")).lower())
    return {" ".join(words[i : i + 3]) for i in range(max(1, len(words) - 2))}


def similarity(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Jaccard similarity of the word 3-shingles of two environments' tools and world bibles."""
    sa, sb = _shingles(a), _shingles(b)
    return len(sa & sb) / len(sa | sb) if sa or sb else 1.0


def drop_near_duplicates(
    envs: list[dict[str, Any]], threshold: float = 0.8, on_step: Callable[[], None] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Keep environments in order, dropping any whose name was taken or that is at least
    ``threshold`` similar to one kept; returns (kept, names dropped). ``on_step`` is called once
    per environment compared (a progress bar's tick).

    Exact, without comparing every pair: two shingle sets of Jaccard similarity ``>= t`` have
    sizes within a factor ``t`` of each other and, with the shingles ordered rarest first, share
    one among the first ``|s| - ceil(t * |s|) + 1`` of each (prefix filtering); the remaining
    pairs are compared as bit sets (4,000 environments take seconds, not the minutes of all pairs)."""
    sets = [_shingles(env) for env in envs]
    frequency: dict[str, int] = {}
    for shingles in sets:
        for shingle in shingles:
            frequency[shingle] = frequency.get(shingle, 0) + 1
    rank = {x: n for n, x in enumerate(sorted(frequency, key=lambda x: (frequency[x], x)))}
    kept: list[dict[str, Any]] = []
    kept_bits: list[tuple[int, int]] = []  # (bit set of the shingles' ranks, how many)
    index: dict[int, list[int]] = {}  # a prefix shingle's rank -> the kept environments it begins
    names: set[str] = set()
    dropped: list[str] = []
    for env, mine in zip(envs, sets):
        if on_step is not None:
            on_step()
        ordered = sorted(rank[x] for x in mine)
        size = len(ordered)
        bitmap = bytearray(ordered[-1] // 8 + 1 if ordered else 1)
        for r in ordered:
            bitmap[r >> 3] |= 1 << (r & 7)
        bits = int.from_bytes(bitmap, "little")
        prefix = ordered[: size - math.ceil(threshold * size) + 1]
        candidates = {k for r in prefix for k in index.get(r, ())}
        near = env["name"] in names
        for k in sorted(candidates):
            if near:
                break
            other, other_size = kept_bits[k]
            if min(size, other_size) < threshold * max(size, other_size):
                continue  # too different in size to be that similar
            shared = (bits & other).bit_count()
            near = shared >= threshold * (size + other_size - shared)
        if near:
            dropped.append(env["name"])
            continue
        for r in prefix:
            index.setdefault(r, []).append(len(kept))
        kept.append(env)
        kept_bits.append((bits, size))
        names.add(env["name"])
    return kept, dropped
