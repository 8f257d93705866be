"""Task files: what an agent is asked to do, in which simulated world, and how it is scored.

One JSON object per line (see ``docs/rollouts.md``)::

    {"id": "label-bug", "domain": "mcp", "tool_pack": "github_issues",
     "instruction": "Open an issue titled 'Crash on start' labelled bug in acme/api.",
     "max_turns": 6, "seed": 1,
     "reward": [{"type": "ledger_item", "resource": "issue", "where": {"labels": "bug"}}]}

>>> tasks = load_tasks("tasks.jsonl")                                   # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ConfigError
from ..files import iter_jsonl, open_private

if TYPE_CHECKING:
    from ..plugins import Registry

#: domains whose agents call tools natively (OpenAI tool calling); the others write action text
TOOL_DOMAINS = ("mcp", "swe", "search")
#: built-in domains whose agents write action text: they offer the agent no tools, and their
#: worlds (the world model's prompt, the offline world) read none
ACTION_DOMAINS = ("terminal", "web", "android", "os")
#: tool domains with no tools of their own: a task must give ``tools`` or ``tool_pack``
#: (search has its default tool set)
NEEDS_TOOLS = ("mcp", "swe")
#: a tool name OpenAI's and Anthropic's tool calling (and MCP clients) accept
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def schema_problem(schema: Any, where: str) -> str | None:
    """What keeps ``schema`` from being a JSON Schema that compiles (None: nothing)."""
    if not isinstance(schema, dict):
        return f"{where} is not a JSON object"
    try:
        problem = _schema_error(json.dumps(schema, sort_keys=True))
    except (TypeError, ValueError):
        return f"{where} is not JSON"
    return f"{where} does not compile: {problem}" if problem else None


@lru_cache(maxsize=4096)
def _schema_error(text: str) -> str | None:
    # checking against the metaschema takes milliseconds, and a file's tasks share their tools
    schema = json.loads(text)
    if isinstance(schema, dict) and "$schema" not in schema:
        # the default metaschema checks each of "properties" and "items" as a schema of its own
        # kind: checked one by one (and cached), tool sets that mix the same fields cost little
        parts = {k: v for k, v in schema.items() if k in ("properties", "items")}
        subschemas = (
            list((parts.get("properties") or {}).values())
            if isinstance(parts.get("properties"), dict)
            else []
        )
        if isinstance(parts.get("items"), dict):
            subschemas.append(parts["items"])
        if subschemas and all(isinstance(sub, dict) for sub in subschemas):
            for sub in subschemas:
                found = _schema_error(json.dumps(sub, sort_keys=True))
                if found:
                    return found
            rest = {k: v for k, v in schema.items() if k not in parts}
            if isinstance(parts.get("properties"), dict):
                rest["properties"] = {}
            return _schema_error(json.dumps(rest, sort_keys=True))
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return exc.message
    return None


def tool_problems(tools: Any) -> list[str]:
    """What is wrong with a list of MCP tool definitions (empty when nothing is): every tool an
    object with a unique, valid name; ``inputSchema`` (when given) an object schema that compiles."""
    if not isinstance(tools, list) or not tools:
        return ["tools must be a non-empty list"]
    problems = []
    seen: set[str] = set()
    for n, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        where = f"tools[{n}]"
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            problems.append(f"{where}.name {name!r} is not a valid tool name (letters, digits, _ and -)")
            continue
        if name in seen:
            problems.append(f"{where}.name {name!r} is used twice")
        seen.add(name)
        schema = tool.get("inputSchema", {"type": "object"})
        problem = schema_problem(schema, f"{where}.inputSchema")
        if problem:
            problems.append(problem)
        elif schema.get("type") != "object":
            problems.append(f"{where}.inputSchema must have type 'object' (MCP tool arguments are an object)")
        if "outputSchema" in tool:
            problem = schema_problem(tool["outputSchema"], f"{where}.outputSchema")
            if problem:
                problems.append(problem)
    return problems


class RewardSpec(BaseModel):
    """One reward check: its ``type`` (a name registered through ``register_rewards``), its weight,
    and the check's own parameters (any other keys)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A reward registered through register_rewards (file_contains, ...).")
    weight: float = Field(1.0, ge=0, description="Share of this check in the episode's reward.")
    name: str | None = Field(None, description="Label in the breakdown (default: the type).")

    @property
    def params(self) -> dict[str, Any]:
        """The check's own parameters (everything but type, weight and name)."""
        return dict(self.model_extra or {})

    @property
    def label(self) -> str:
        return self.name or self.type


class Task(BaseModel):
    """One task: the agent's instruction, the world it acts in, its turn budget and its reward."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="Unique within the file; the GRPO group id.")
    domain: str = Field(description="mcp, search, terminal, swe, android, web or os.")
    instruction: str = Field(min_length=1, description="What the agent is asked to do.")
    tools: list[dict[str, Any]] | None = Field(None, description="MCP tool definitions of the world.")
    tool_pack: str | None = Field(None, description="A registered tool pack, instead of tools.")
    initial_state: str | None = Field(None, description="What the world shows first.")
    files: dict[str, str] | None = Field(None, description="Seed files of the offline machine.")
    cwd: str | None = Field(None, description="Working directory of the offline machine.")
    world_bible: str | None = Field(None, description="Facts the simulated world keeps to.")
    perturbations: list[str] = Field(default_factory=list, description="Perturbation specs.")
    max_turns: int = Field(10, ge=1, le=1000, description="Most agent turns in one episode.")
    seed: int = Field(0, description="Base seed; episode k of the group uses a seed derived from it.")
    reward: list[RewardSpec] = Field(
        default_factory=list,
        description='A list of checks ({"type": "file_contains", "path": ..., "text": ...}), weighted.',
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Anything; kept with the task.")

    @field_validator("id")
    @classmethod
    def _no_hash(cls, value: str) -> str:
        if "#" in value:
            raise ValueError("must not contain '#' (episode ids are '<task id>#<sample>')")
        return value

    def world_tools(self, registry: Registry | None = None) -> list[dict[str, Any]] | None:
        """The task's tool definitions: ``tools``, else the named ``tool_pack``, else None."""
        if self.tools is not None:
            return self.tools
        if self.tool_pack is not None:
            if registry is None:
                from ..plugins import get_plugin_manager

                registry = get_plugin_manager().registry
            return registry.tool_pack(self.tool_pack)
        return None

    def session_context(self, registry: Registry | None = None) -> dict[str, Any]:
        """Keyword arguments for :meth:`World.session` (besides domain, seed and perturbations)."""
        context: dict[str, Any] = {"task": self.instruction}
        tools = self.world_tools(registry)
        if tools is not None:
            context["tools"] = tools
        for key in ("initial_state", "files", "cwd", "world_bible"):
            value = getattr(self, key)
            if value is not None:
                context[key] = value
        return context


def _field_errors(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(line)"
        parts.append(f"field {loc!r}: {err['msg']}")
    return "; ".join(parts)


def _field_hint(exc: ValidationError) -> str:
    """The fix for the first failing field: what it holds (its description), or for an unknown
    field the fields there are; and where the format is documented."""
    error = exc.errors(include_url=False)[0]
    loc = tuple(str(p) for p in error["loc"])
    doc = "the task format: docs/rollouts.md#task-files"
    if error["type"] == "extra_forbidden":
        return f"remove it or fix its name: a task's fields are {', '.join(Task.model_fields)} ({doc})"
    if loc[:1] == ("reward",) and len(loc) >= 3:
        name, field = ".".join(loc[:3]), RewardSpec.model_fields.get(loc[2])
    else:
        name, field = (loc[0] if loc else ""), Task.model_fields.get(loc[0]) if loc else None
    if field is not None and field.description:
        return f"'{name}': {field.description} ({doc})"
    return doc


def check_task(task: Task, registry: Registry, where: str) -> None:
    """Check the names a task uses against what is registered, its tools, reward parameters and
    perturbation options; errors name ``where`` and the field."""
    if task.domain not in registry.domains:
        raise ConfigError(
            f"{where}: field 'domain': unknown domain {task.domain!r}",
            hint=f"use one of {', '.join(sorted(registry.domains))}",
        )
    if task.tool_pack is not None and task.tool_pack not in registry.tool_packs:
        raise ConfigError(
            f"{where}: field 'tool_pack': unknown tool pack {task.tool_pack!r}",
            hint=f"use one of {', '.join(sorted(registry.tool_packs))} or give 'tools'",
        )
    if task.tools is not None and task.tool_pack is not None:
        raise ConfigError(f"{where}: give 'tools' or 'tool_pack', not both", hint="drop one of them")
    if task.tools is None and task.tool_pack is None and task.domain in NEEDS_TOOLS:
        example = "coding-agent" if task.domain == "swe" else "github-issues"
        raise ConfigError(
            f"{where}: field 'tools': tasks in the {task.domain} domain need 'tools' or 'tool_pack' "
            "(the agent acts only through the world's tools)",
            hint=f'add e.g. "tool_pack": "{example}" (one of {", ".join(sorted(registry.tool_packs))})',
        )
    if task.domain in ACTION_DOMAINS and (task.tools is not None or task.tool_pack is not None):
        field = "tools" if task.tools is not None else "tool_pack"
        raise ConfigError(
            f"{where}: field {field!r}: the {task.domain} domain takes no tools: its agent writes "
            "actions as text and its world reads no tool definitions, so they would be ignored",
            hint=f"remove {field!r}, or use a tool domain ({', '.join(TOOL_DOMAINS)}) for a task played through tools",
        )
    if task.tools is not None:
        problems = tool_problems(task.tools)
        if problems:
            raise ConfigError(
                f"{where}: field 'tools': {'; '.join(problems[:3])}",
                hint='each tool is {"name": "get_thing", "description": ..., "inputSchema": {"type": "object", ...}}',
            )
    from .rewards import reward_problem, reward_registry
    from .rewards.builtin import BUILTIN

    known = reward_registry(registry)
    for index, spec in enumerate(task.reward):
        if spec.type not in known:
            raise ConfigError(
                f"{where}: field 'reward.{index}.type': unknown reward {spec.type!r}",
                hint=f"use one of {', '.join(sorted(known))} or register one with register_rewards",
            )
        problem = reward_problem(spec.type, known[spec.type], spec.params)
        if problem is not None:
            field, message, hint = problem
            raise ConfigError(f"{where}: field 'reward.{index}{field}': {message}", hint=hint)
        query = spec.params.get("query")
        if spec.type == "sql" and known["sql"] is BUILTIN["sql"] and isinstance(query, str):
            _check_tables(task, registry, query, f"{where}: field 'reward.{index}.query'")
    from ..perturbations.config import perturbations_from_options

    for index, perturbation in enumerate(task.perturbations):
        name = perturbation.split(":", 1)[0].strip()
        if name not in registry.perturbations:
            raise ConfigError(
                f"{where}: field 'perturbations.{index}': unknown perturbation {name!r}",
                hint=f"use one of {', '.join(sorted(registry.perturbations))}",
            )
        try:  # built once here so a bad option fails before any episode
            perturbations_from_options([perturbation], None, registry, use_env=False)
        except ConfigError as exc:
            raise ConfigError(
                f"{where}: field 'perturbations.{index}': {exc.message}", hint=exc.hint
            ) from None


def _check_tables(task: Task, registry: Registry, query: str, where: str) -> None:
    """An ``sql`` reward's query must name tables the task's world can have (built-in domains)."""
    from .state import unknown_table

    if task.domain not in (*TOOL_DOMAINS, *ACTION_DOMAINS):
        return  # a plugin's domain: its world's state is its own
    problem = unknown_table(registry, task.domain, task.session_context(registry), query)
    if problem is not None:
        raise ConfigError(
            f"{where}: {problem}",
            hint="the sql reward reads the mcp world's state: a table per resource its tools act on "
            "(create_issue: issue, also as issues) and the tables its SQL tools make (docs/rollouts.md#rewards)",
        )


def parse_task(value: Any, where: str, registry: Registry | None = None) -> Task:
    """A validated :class:`Task` from one decoded line; ``where`` (``file:line``) leads any error."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: a task must be a JSON object", hint='e.g. {"id": "t1", "domain": ...}')
    try:
        task = Task.model_validate(value)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_field_errors(exc)}", hint=_field_hint(exc)) from None
    if registry is not None:
        check_task(task, registry, where)
    return task


def load_tasks(path: str | Path, registry: Registry | None = None) -> list[Task]:
    """Read and validate a task JSONL file; ids must be unique. Errors name the line and field."""
    if registry is None:
        from ..plugins import get_plugin_manager

        registry = get_plugin_manager().registry
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for lineno, value in iter_jsonl(path, hint="each line of a task file is one JSON object"):
        where = f"{path}:{lineno}"
        task = parse_task(value, where, registry)
        if task.id in seen:
            raise ConfigError(
                f"{where}: field 'id': {task.id!r} is already used on line {seen[task.id]}",
                hint="give every task its own id",
            )
        seen[task.id] = lineno
        tasks.append(task)
    if not tasks:
        raise ConfigError(f"{path} holds no task", hint="write one JSON task per line")
    return tasks


def write_tasks(path: str | Path, tasks: Iterable[Task]) -> Path:
    """Write tasks as JSONL (the form :func:`load_tasks` reads)."""
    path = Path(path)
    with open_private(path, "w") as fh:
        for task in tasks:
            fh.write(task.model_dump_json(exclude_defaults=True) + "\n")
    return path
