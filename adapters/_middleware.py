"""``WorldModelToolMiddleware``: the world model answers chosen tools of a ``create_agent`` agent.

Import it from :mod:`agentworld_plugins.adapters.langchain`; this module needs ``langchain``.

It is the drop-in for LangChain's ``LLMToolEmulator``, with what that one lacks: a prompt in the
world model's trained format for the tool's domain, the session's history (state carries across
calls: an item created by one tool is seen by another), determinism (seed; cassette and offline
backends replay exactly), perturbation plugins, and a recorded trajectory.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.types import Command
from typing_extensions import NotRequired

from agentworld_plugins.files import open_private
from agentworld_plugins.redaction import redact_record
from agentworld_plugins.session import Trajectory, World

from ._world import SessionGroup
from .simulated_tools import SimulatedTool, is_search_tool, simulate_tool, tool_definition

__all__ = ["RUN_KEY", "WorldModelToolMiddleware"]

#: the private agent-state key naming the simulated run (one session group per run)
RUN_KEY = "agentworld_run"


class WorldModelState(AgentState[Any]):
    """The agent state plus the id of the simulated run (never part of the agent's input/output)."""

    agentworld_run: NotRequired[Annotated[str, PrivateStateAttr]]


def _thread_id(config: Any) -> str | None:
    if not isinstance(config, dict):
        return None
    value = (config.get("configurable") or {}).get("thread_id")
    return None if value is None else str(value)


def _state_value(state: Any, key: str) -> Any:
    if isinstance(state, dict):
        return state.get(key)
    return getattr(state, key, None)


class WorldModelToolMiddleware(AgentMiddleware[WorldModelState, Any]):
    """Answers the named tools (all when ``tools`` is None) from a simulated world; the others run.

    One session group per agent run: per ``thread_id`` when the run has one (so a conversation
    keeps its world across invocations), else per invocation. ``domain`` is the world of ordinary
    tools (``"mcp"``); search tools go to the search world. ``trajectory_path`` appends each run's
    new turns as AgentWorldBench JSONL records when the run ends. Other keyword arguments
    (``world_bible``, ``corpus``, ``task``) become the sessions' context.
    """

    state_schema = WorldModelState

    def __init__(
        self,
        *,
        tools: Iterable[str | BaseTool] | None = None,
        world: World | None = None,
        domain: str = "mcp",
        seed: int | None = None,
        perturbations: Iterable[Any] = (),
        search: bool = True,
        trajectory_path: str | Path | None = None,
        max_runs: int = 256,
        **context: Any,
    ) -> None:
        super().__init__()
        self.emulate_all = tools is None
        self.tool_names: set[str] = set()
        self._known: dict[str, BaseTool] = {}
        for tool in tools or ():
            if isinstance(tool, str):
                self.tool_names.add(tool)
            else:
                self.tool_names.add(tool.name)
                self._known[tool.name] = tool
        self._world = world
        self.domain = domain
        self.seed = seed
        self.perturbations = list(perturbations)
        self.search = search
        self.context = context
        self.trajectory_path = Path(trajectory_path) if trajectory_path else None
        self.max_runs = max_runs
        self._groups: OrderedDict[str, SessionGroup] = OrderedDict()
        self._twins: dict[tuple[str, str], SimulatedTool] = {}
        self._written: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    # -- which world answers ---------------------------------------------------------------------

    @property
    def world(self) -> World:
        if self._world is None:
            with self._lock:
                if self._world is None:
                    self._world = World()
        return self._world

    def emulates(self, name: str) -> bool:
        """Whether calls of tool ``name`` are answered by the world."""
        return self.emulate_all or name in self.tool_names

    @property
    def groups(self) -> dict[str, SessionGroup]:
        """The session groups by run key (``thread:<id>`` or ``run:<id>``), oldest first."""
        return dict(self._groups)

    def trajectories(self) -> list[Trajectory]:
        """The trajectories of every session of every run kept."""
        return [s.trajectory for g in self.groups.values() for s in g.sessions.values()]

    def _run_key(self, state: Any, config: Any) -> str:
        thread = _thread_id(config)
        if thread is not None:
            return f"thread:{thread}"
        run = _state_value(state, RUN_KEY)
        return f"run:{run}" if run else f"instance:{id(self)}"

    def _group(self, key: str, tools: Iterable[BaseTool]) -> SessionGroup:
        world = self.world  # before the lock: creating the default world takes it too
        with self._lock:
            group = self._groups.get(key)
            if group is not None:
                self._groups.move_to_end(key)
            else:
                group = SessionGroup(world, seed=self.seed, perturbations=self.perturbations, **self.context)
                self._groups[key] = group
                while len(self._groups) > self.max_runs:
                    old, _ = self._groups.popitem(last=False)
                    self._twins = {k: v for k, v in self._twins.items() if k[0] != old}
                    self._written = {k: v for k, v in self._written.items() if k[0] != old}
        plain = [t for t in tools if self.emulates(t.name) and not is_search_tool(t, self.search)]
        group.add_tools(self.domain, [tool_definition(t) for t in plain])
        return group

    def twin(self, request: Any) -> SimulatedTool:
        """The simulated stand-in of ``request.tool`` for the request's run."""
        config = getattr(request.runtime, "config", None)
        key = self._run_key(request.state, config)
        name = request.tool.name
        twin = self._twins.get((key, name))
        if twin is not None:
            return twin
        known = list(getattr(request.runtime, "tools", None) or []) + list(self._known.values())
        if all(t.name != name for t in known):
            known.append(request.tool)
        group = self._group(key, known)
        twin = simulate_tool(request.tool, group, self.domain, search=self.search)
        with self._lock:
            return self._twins.setdefault((key, name), twin)

    # -- agent hooks -----------------------------------------------------------------------------

    def _start(self, state: Any) -> dict[str, Any] | None:
        if _state_value(state, RUN_KEY):
            return None
        return {RUN_KEY: uuid.uuid4().hex[:12]}

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._start(state)

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._start(state)

    def wrap_tool_call(
        self, request: Any, handler: Callable[[Any], ToolMessage | Command[Any]]
    ) -> ToolMessage | Command[Any]:
        if request.tool is None or not self.emulates(request.tool_call["name"]):
            return handler(request)
        return handler(request.override(tool=self.twin(request)))

    async def awrap_tool_call(
        self, request: Any, handler: Callable[[Any], Awaitable[ToolMessage | Command[Any]]]
    ) -> ToolMessage | Command[Any]:
        if request.tool is None or not self.emulates(request.tool_call["name"]):
            return await handler(request)
        return await handler(request.override(tool=self.twin(request)))

    def _finish(self, state: Any) -> None:
        if self.trajectory_path is None:
            return
        from langgraph.config import get_config

        try:
            config = get_config()
        except RuntimeError:
            config = None
        key = self._run_key(state, config)
        group = self._groups.get(key)
        if group is None:
            return
        with self._lock:
            self.trajectory_path.parent.mkdir(parents=True, exist_ok=True)
            with open_private(self.trajectory_path, "a") as fh:
                for domain, session in group.sessions.items():
                    records = session.trajectory.records()
                    done = self._written.get((key, domain), 0)
                    for record in records[done:]:
                        line = redact_record({**record, "run": key})
                        fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
                    self._written[(key, domain)] = len(records)

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self._finish(state)
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self._finish(state)
        return None
