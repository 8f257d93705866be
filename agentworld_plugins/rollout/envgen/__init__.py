"""Synthetic environments (the Claw-style scaling recipe): generate, validate, de-duplicate.

``agentworld envgen --n N --output-dir DIR`` asks a generator for environments (a tool set with
input and output schemas, a world bible, an initial state, tasks with reward checks), keeps the
valid ones, drops near-duplicates and writes:

- ``DIR/environments.jsonl``: one line per generated environment (resumable, like rollouts);
- ``DIR/tasks.jsonl``: the tasks, with their tools inline, for ``agentworld rollout run``;
- ``DIR/packs/<name>.json``: each tool set, for ``agentworld mcp serve --tools``;
- ``DIR/solutions.json``: reference solutions, where the generator gives them (the offline one
  does), for ``rollout run --agent scripted:DIR/solutions.json``.

The generator is a chat model (``--generator-base-url``: the world model or any LLM) or, without
one, the offline template generator (:mod:`.templates`).

>>> summary = generate(20, "envs", OfflineGenerator(seed=7))                                # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...bench.runner import JobResult, Phase, RunOptions, RunSummary, describe_error, is_transient, run_jobs
from ...errors import ConfigError
from ...files import iter_jsonl, write_private
from ..agent import EpisodeInfo, OpenAIPolicy, act_retrying
from ..episode import derive_seed
from ..ray import RayPool
from ..tasks import Task, write_tasks
from .templates import offline_environment
from .validate import check_environment, drop_near_duplicates, environment_tasks

if TYPE_CHECKING:
    from ...plugins import Registry

LABEL = "envgen"

PROMPT = """Invent a new simulated MCP service for training tool-using agents.
Answer with one JSON object and nothing else, shaped like this example:
{example}
Rules: "name" is lower-case words joined by '-'; tool names use letters, digits and '_'; every
inputSchema is a JSON Schema object of type "object"; outputSchema is a JSON Schema; each task's
reward uses checks of these types: {rewards}; "ledger_item" names a resource some tool creates,
"tool_called" names one of your tools. Make it about: {theme}. Do not reuse the example's theme."""

RETRY_PROMPT = """That answer was rejected: {problem}.
Answer again with the whole corrected JSON object and nothing else."""

_MAX_FED_BACK = 20_000  # characters of a rejected answer shown back to the generator

_JSON = re.compile(r"\{.*\}", re.DOTALL)


class OfflineGenerator:
    """Environments from templates and a seed (no model)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def describe(self) -> str:
        return f"offline(seed={self.seed})"

    async def generate(self, index: int, registry: Registry) -> dict[str, Any]:
        return offline_environment(index, self.seed)


class LLMGenerator:
    """Environments from a chat model; answers that do not validate are asked again."""

    def __init__(
        self,
        base_urls: list[str],
        model: str,
        api_key: str | None = None,
        *,
        seed: int = 0,
        max_retries: int = 3,
        retry_backoff: float = 0.5,
    ) -> None:
        self.policy = OpenAIPolicy(
            base_urls, model, api_key, temperature=1.0, max_tokens=8192, role="generator"
        )
        self.seed = seed
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff

    def describe(self) -> str:
        return f"llm({self.policy.describe()})"

    async def prepare(self) -> None:
        """Find out the model when none was given (the first one the server lists)."""
        await self.policy.resolve_model()
        await self.policy.aclose()  # its connections belong to this event loop only

    def messages(self, index: int, registry: Registry) -> list[dict[str, str]]:
        """The request for environment ``index``: its theme (a business, a sector, a town), how
        many tools and what the service must also handle are drawn from a stable hash of the seed
        and the index, so a run of thousands asks for thousands of different services."""
        text = PROMPT.format(
            example=json.dumps(offline_environment(0, self.seed)),
            rewards=", ".join(sorted(registry.rewards)),
            theme=prompt_theme(index, self.seed),
        )
        return [{"role": "user", "content": text}]

    async def generate(self, index: int, registry: Registry) -> dict[str, Any]:
        """Environment ``index``. A rejected answer is not asked for again unchanged (a server
        at a fixed seed would answer the same): the retry shows the model its answer and what
        is wrong with it, under a seed of its own."""
        messages = self.messages(index, registry)
        rejected: list[tuple[str, str]] = []  # (the answer, what is wrong with it)

        def check(reply: dict[str, Any]) -> str | None:
            text = str(reply.get("content") or "")
            problem = _answer_problem(text, registry)
            if problem is not None:
                rejected.append((text, problem))
            return problem

        def revise() -> tuple[list[dict[str, Any]], EpisodeInfo]:
            if not rejected:
                return list(messages), EpisodeInfo("envgen", index, self.seed + index, "mcp")
            answer, problem = rejected[-1]
            seed = derive_seed("envgen-retry", self.seed, index, len(rejected))
            feedback = RETRY_PROMPT.format(problem=problem)
            conversation = [
                *messages,
                {"role": "assistant", "content": answer[:_MAX_FED_BACK]},
                {"role": "user", "content": feedback},
            ]
            return conversation, EpisodeInfo("envgen", index, seed, "mcp")

        outcome = await act_retrying(
            self.policy,
            messages,
            [],
            EpisodeInfo("envgen", index, self.seed + index, "mcp"),
            max_retries=self.max_retries,
            backoff=self.retry_backoff,
            timeout=600,
            check=check,
            revise=revise,
        )
        if not outcome.ok or outcome.value is None:
            raise ValueError(outcome.error or "no environment")
        found = _JSON.search(str(outcome.value.get("content") or ""))
        assert found is not None
        return json.loads(found.group(0))


#: sectors a generated service may belong to
SECTORS = [
    "healthcare", "logistics", "retail", "education", "hospitality", "agriculture", "finance",
    "public transit", "energy", "media", "construction", "manufacturing", "insurance", "tourism",
    "sports", "non-profit", "real estate", "legal services", "telecom", "city government",
    "research", "fashion", "gaming", "aviation",
]  # fmt: skip
#: what the service must also handle, beyond keeping records
TWISTS = [
    "approvals that a manager must sign off", "stock that runs out", "bookings that cannot overlap",
    "records that move through a fixed sequence of states", "per-customer limits",
    "refunds and cancellations", "waiting lists", "recurring schedules", "audit notes on every change",
    "items shared between teams", "deadlines and reminders", "prices that depend on the quantity",
]  # fmt: skip


def prompt_theme(index: int, seed: int = 0) -> str:
    """The theme of request ``index`` of a run seeded ``seed`` (a stable draw)."""
    from .templates import BUSINESSES, TOWNS

    rnd = random.Random(derive_seed("envgen-prompt", seed, index))
    business, kept = rnd.choice(BUSINESSES)
    return (
        f"the {kept} records of a {business} in {rnd.choice(TOWNS)}, in {rnd.choice(SECTORS)}, "
        f"with {rnd.randint(3, 12)} tools and {rnd.choice(TWISTS)}"
    )


def _answer_problem(text: str, registry: Registry) -> str | None:
    """What is wrong with a generator's answer (None: a valid environment)."""
    found = _JSON.search(text)
    if not found:
        return "the generator's answer holds no JSON object"
    try:
        env = json.loads(found.group(0))
    except json.JSONDecodeError as exc:
        return f"the generator's JSON does not parse ({exc.msg})"
    problems = check_environment(env, registry)
    return "; ".join(problems[:3]) if problems else None


class _GeneratorWorker:
    """A generator inside a Ray actor, with the actor's own plugin registry."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator

    async def generate(self, index: int) -> dict[str, Any]:
        from ...plugins import get_plugin_manager

        return await self.generator.generate(index, get_plugin_manager().registry)


@dataclass
class EnvgenSummary:
    run: RunSummary
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    tasks: int = 0

    def line(self) -> str:
        return (
            f"{self.run.line()}; {len(self.kept)} environments kept, {len(self.dropped)} near-duplicates "
            f"dropped, {self.tasks} tasks"
        )


async def agenerate(
    n: int,
    output_dir: str | Path,
    generator: Any = None,
    *,
    concurrency: int = 8,
    threshold: float = 0.8,
    registry: Registry | None = None,
    progress: bool = False,
    ray: str | bool | None = None,
) -> EnvgenSummary:
    """Generate environments ``0..n-1`` into ``output_dir`` (resumable), then write the task file
    and tool packs of the valid, distinct ones. ``ray`` (an address, or True for a local
    instance) runs the generator in Ray actors."""
    if registry is None:
        from ...plugins import get_plugin_manager

        registry = get_plugin_manager().registry
    generator = generator or OfflineGenerator()
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = [{"task": "mcp", "id": f"env-{i:05d}", "index": i} for i in range(n)]
    # every line names the generator as it is for the whole run (its model found out first), so a
    # resumed file is the same as an uninterrupted one
    await getattr(generator, "prepare", _nothing)()
    label = generator.describe()
    pool = RayPool.start(ray, partial(_GeneratorWorker, generator), "generate", concurrency)

    async def work(item: dict[str, Any]) -> JobResult:
        base = {"task": "mcp", "id": item["id"], "index": item["index"], "generator": label}
        try:
            if pool is not None:
                env = await pool.call(item["index"])
            else:
                env = await generator.generate(item["index"], registry)
        except ConfigError:
            raise  # a broken setup stops the run instead of failing every environment
        except Exception as exc:
            return JobResult(
                {**base, LABEL: {"status": "failed", "error": describe_error(exc)}}, False, is_transient(exc)
            )
        problems = check_environment(env, registry)
        if problems:
            return JobResult({**base, LABEL: {"status": "failed", "error": "; ".join(problems[:5])}}, False)
        return JobResult({**base, "environment": env, LABEL: {"status": "ok"}}, True)

    # with Ray, more in flight than the actors run at once (Ray's round trips overlap the work)
    in_flight = pool.capacity if pool is not None else concurrency
    options = RunOptions(concurrency=in_flight, max_retries=0, progress=progress)
    found: dict[str, Any] = {"kept": None, "dropped": []}

    def distinct(tick: Callable[[], None]) -> None:
        """The near-duplicate filter, one bar step per environment (inside the generation's bar)."""
        envs = [
            line["environment"]
            for _, line in iter_jsonl(out / "environments.jsonl")
            if (line.get(LABEL) or {}).get("status") == "ok"
        ]
        found["kept"], found["dropped"] = drop_near_duplicates(envs, threshold, on_step=tick)
        for _ in range(n - len(envs)):  # the failed ones: nothing to compare
            tick()

    then = Phase("near-duplicates", n, distinct)
    try:
        run = await run_jobs(items, work, out / "environments.jsonl", options, label=LABEL, then=then)
    finally:
        if pool is not None:
            pool.close()
    await getattr(getattr(generator, "policy", None), "aclose", _nothing)()
    if found["kept"] is None:  # the run did not complete: the filter runs on what is there
        distinct(lambda: None)
    kept, dropped = found["kept"], found["dropped"]
    tasks: list[Task] = []
    packs = out / "packs"
    packs.mkdir(exist_ok=True)
    for env in kept:
        tasks += environment_tasks(env, registry)[0]
        pack = {"name": env["name"], "description": env.get("description", ""), "tools": env["tools"]}
        write_private(packs / f"{env['name']}.json", json.dumps(pack, indent=2) + "\n")
    write_tasks(out / "tasks.jsonl", tasks)
    solutions = {t.id: t.metadata["solution"] for t in tasks if isinstance(t.metadata.get("solution"), list)}
    if solutions:  # a scripted agent that solves them: rollout run --agent scripted:DIR/solutions.json
        write_private(out / "solutions.json", json.dumps(solutions, indent=1) + "\n")
    return EnvgenSummary(run, [e["name"] for e in kept], dropped, len(tasks))


async def _nothing() -> None:
    return None


def generate(*args: Any, **kwargs: Any) -> EnvgenSummary:
    """The synchronous twin of :func:`agenerate`."""
    return asyncio.run(agenerate(*args, **kwargs))


__all__ = ["EnvgenSummary", "LLMGenerator", "OfflineGenerator", "agenerate", "check_environment", "generate"]
