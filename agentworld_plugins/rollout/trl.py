"""TRL: an environment class for ``GRPOTrainer(environment_factory=...)`` from any simulated tool set.

TRL treats an environment class's public methods as the agent's tools (it reads their schemas
with ``transformers.utils.get_json_schema``: typed signature, Google-style docstring), calls
``reset(**row)`` before each rollout and, when present, ``get_reward()`` after it. The class built
here has one method per tool (each call is one world step), ``reset`` starting a fresh simulated
session, and ``get_reward`` scoring the final state with the task's reward checks.

>>> from trl import GRPOTrainer                                             # doctest: +SKIP
>>> Env = environment_class(tool_pack="github-issues", task=my_task)       # doctest: +SKIP
>>> GRPOTrainer(model=..., train_dataset=..., environment_factory=Env)     # doctest: +SKIP

A dataset row may carry a ``task`` column (a task JSON object or string, see docs/rollouts.md):
``reset`` then plays that task (its context and rewards) instead of the class's default one.
"""

from __future__ import annotations

import inspect
import json
import keyword
import threading
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigError
from .episode import Episode, start_episode, world_step
from .rewards import score_sync
from .tasks import Task, parse_task

if TYPE_CHECKING:
    from ..session import World

_SIMPLE = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def python_type(schema: Any) -> Any:
    """The type hint ``get_json_schema`` turns back into (about) this JSON Schema."""
    if not isinstance(schema, dict):
        return Any
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, float, bool)) for v in enum):
        return Literal[tuple(enum)]  # type: ignore[valid-type]
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "array":
        return list[python_type(schema.get("items"))]  # type: ignore[misc]
    return _SIMPLE.get(kind, Any) if isinstance(kind, str) else Any


def _one_line(text: Any) -> str:
    # the docstring parser splits on "Args:"/"Returns:" and on "name:" lines: keep descriptions flat
    flat = " ".join(str(text or "").split())
    return flat.replace("Args:", "Args -").replace("Returns:", "Returns -")


def tool_method(tool: dict[str, Any]) -> Any:
    """A method for one MCP tool: its signature and docstring follow the tool's ``inputSchema``;
    calling it is one world step whose observation text it returns."""
    name = tool["name"]
    schema = tool.get("inputSchema") or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in props]
    bad = [p for p in props if not p.isidentifier() or keyword.iskeyword(p)]
    if not name.isidentifier() or bad:
        raise ConfigError(
            f"Tool {name!r} cannot be a Python method (names {bad or [name]} are not identifiers)",
            hint="rename the tool or its arguments to letters, digits and '_'",
        )
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    ordered = required + [p for p in props if p not in required]
    for prop in ordered:
        hint = python_type(props[prop])
        if prop in required:
            params.append(inspect.Parameter(prop, inspect.Parameter.KEYWORD_ONLY, annotation=hint))
        else:
            hint = hint | None if hint is not Any else Any
            params.append(
                inspect.Parameter(prop, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=hint)
            )
        annotations[prop] = hint
    annotations["return"] = str

    def method(self: Any, **arguments: Any) -> str:
        given = {k: v for k, v in arguments.items() if v is not None or k in required}
        return self._step(name, given)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    lines = [_one_line(tool.get("description")) or f"Call the {name} tool.", "", "Args:"]
    for prop in ordered:
        lines.append(f"    {prop}: {_one_line(props[prop].get('description')) or f'The {prop}.'}")
    lines += ["", "Returns:", "    What the tool answered (an error text when it failed)."]
    method.__doc__ = "\n".join(lines)
    return method


class SimulatedEnvironment:
    """Base of the generated classes: one simulated session per rollout."""

    domain = "mcp"
    tools: list[dict[str, Any]] = []
    task: Task | None = None
    world: World | None = None
    _world_lock = threading.Lock()

    def __init__(self) -> None:
        self.episode: Episode | None = None
        self.reward: float | None = None
        self.reward_breakdown: list[dict[str, Any]] = []
        self._resets = 0

    @classmethod
    def _world(cls) -> World:
        with cls._world_lock:
            if cls.world is None:
                from ..session import World

                cls.world = World()
        return cls.world

    def _task(self, row: dict[str, Any]) -> Task:
        given = row.get("task")
        if isinstance(given, str) and given.strip().startswith("{"):
            given = json.loads(given)
        if isinstance(given, dict):
            return parse_task(given, "reset(task=...)", self._world().pm.registry)
        if self.task is not None:
            return self.task
        return Task(id="trl", domain=self.domain, instruction=str(row.get("prompt") or "-"), tools=self.tools)

    def reset(self, **row: Any) -> str | None:
        """Start a fresh simulated session for the next rollout; returns the world's initial
        state (appended to the prompt by TRL), if the task has one."""
        task = self._task(row)
        self.episode = start_episode(task, self._resets, self._world())
        self._resets += 1
        self.reward, self.reward_breakdown = None, []
        return task.initial_state

    def _step(self, name: str, arguments: dict[str, Any]) -> str:
        if self.episode is None:
            self.reset()
        assert self.episode is not None
        key = "name" if self.episode.task.domain == "search" else "tool_name"
        self.episode.turns += 1
        return world_step(self.episode, name, {key: name, "arguments": arguments})[0]

    def get_reward(self) -> float:
        """The task's reward checks on the world's final state (answer checks see no answer:
        TRL keeps the final completion to itself)."""
        if self.episode is None:
            return 0.0
        self.reward, self.reward_breakdown = score_sync(self.episode, self._world().pm.registry)
        return float(self.reward)


def environment_class(
    tools: list[dict[str, Any]] | None = None,
    *,
    tool_pack: str | None = None,
    task: Task | dict[str, Any] | None = None,
    domain: str = "mcp",
    world: World | None = None,
    name: str = "AgentWorldEnvironment",
) -> type[SimulatedEnvironment]:
    """A class for ``GRPOTrainer(environment_factory=...)``: one method per tool of ``tools``
    (or ``tool_pack``, or the task's tools). ``world`` defaults to ``World()`` (settings, else the
    offline world)."""
    if isinstance(task, dict):
        task = parse_task(task, "environment_class(task=...)")
    if tools is None and task is not None:
        tools = task.world_tools()
    if tools is None and tool_pack is not None:
        from ..plugins import get_plugin_manager

        tools = (world.pm if world is not None else get_plugin_manager()).registry.tool_pack(tool_pack)
    if not tools:
        raise ConfigError(
            "The environment class has no tools", hint="pass tools=, tool_pack= or a task with tools"
        )
    methods = {tool["name"]: tool_method(tool) for tool in tools}
    clash = sorted(set(methods) & {"reset", "get_reward", "step"})
    if clash:
        raise ConfigError(
            f"Tools {clash} clash with the environment's own methods", hint="rename those tools"
        )
    domain = task.domain if task is not None else domain
    attributes: dict[str, Any] = {
        **methods,
        "tools": list(tools),
        "domain": domain,
        "task": task,
        "world": world,
        "_world_lock": threading.Lock(),
        "__doc__": f"A simulated {domain} environment with {len(methods)} tools (agentworld).",
    }
    return type(name, (SimulatedEnvironment,), attributes)
