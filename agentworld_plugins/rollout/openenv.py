"""OpenEnv: simulated environments served through OpenEnv's own server (``create_app``).

``agentworld openenv serve --domain mcp --tool-pack github-issues`` starts OpenEnv's FastAPI app
(``/reset``, ``/step``, ``/state``, ``/schema``, ``/health`` and WebSocket sessions on ``/ws``,
one simulated session per connection), so OpenEnv clients (``GenericEnvClient``, TRL's OpenEnv
recipes) connect unchanged.

Actions: ``{"tool_name": ..., "arguments": {...}}`` in tool domains (mcp, swe, search),
``{"action": ...}`` (the domain's action: keystrokes, a BrowserGym string, ...) in the others,
and ``{"answer": "..."}`` to finish. The episode ends on an answer or after the task's
``max_turns`` steps; the final observation carries the task's reward and ``reward_breakdown``. ``reset`` takes ``seed``, ``episode_id`` and either ``task`` (a task object) or
``task_id`` (one of the served tasks); without them it cycles through the served tasks.

Over HTTP OpenEnv builds a fresh environment for every request, so ``/reset`` parks its episode
under the ``episode_id`` it answers with (in the observation), and ``/step`` continues that
episode when the request carries ``"episode_id"``; a ``/step`` without one is refused with a 400
naming the fix (pass it, or use the WebSocket client), never played on another task.

>>> with GenericEnvClient(base_url="http://127.0.0.1:8000").sync() as env:          # doctest: +SKIP
...     env.reset(task_id="issue-bug")
...     env.step({"tool_name": "list_issues", "arguments": {"owner": "acme", "repo": "api"}})
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from pydantic import Field

from ..errors import ConfigError
from ..http_guard import HttpGuard, HttpLimits
from .episode import Episode, first_user_message, start_episode, world_step
from .rewards import score_sync
from .tasks import TOOL_DOMAINS, Task, parse_task

if TYPE_CHECKING:
    from ..plugins import Registry
    from ..session import Session, World

try:  # the rl extra: openenv-core
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError:  # pragma: no cover - only without the rl extra
    Environment = None  # type: ignore[assignment,misc]


def _require() -> None:
    if Environment is None:
        raise ConfigError(
            "OpenEnv is not installed", hint='install the rl extra from the checkout: pip install -e ".[rl]"'
        )


if Environment is not None:

    class AgentWorldAction(Action):
        """One agent move: a tool call, a domain action, or the final answer."""

        tool_name: str | None = Field(None, description="Tool to call (mcp, swe, search).")
        arguments: dict[str, Any] = Field(default_factory=dict, description="The tool call's arguments.")
        action: Any = Field(None, description="The domain's action (terminal, web, android, os).")
        answer: str | None = Field(None, description="The final answer; ends the episode.")

    class AgentWorldObservation(Observation):
        """What the agent sees; on reset also the instruction and the tools."""

        text: str = Field("", description="The observation text.")
        is_error: bool = Field(False, description="Whether the environment reports a failure.")
        turn: int = Field(0, description="Steps taken so far.")
        episode_id: str = Field("", description="The episode (pass it with HTTP /step).")
        instruction: str = Field("", description="The task (on reset).")
        tools: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI-form tools (on reset).")
        reward_breakdown: list[dict[str, Any]] = Field(
            default_factory=list, description="Each reward check (at the end)."
        )

    class AgentWorldState(State):
        """The session's state as OpenEnv's ``state`` reports it."""

        domain: str = ""
        task_id: str = ""
        done: bool = False

    class AgentWorldEnvironment(Environment):  # type: ignore[misc,valid-type]
        """One simulated session per instance (so concurrent WebSocket sessions are isolated)."""

        SUPPORTS_CONCURRENT_SESSIONS = True
        world: World | None = None
        tasks: list[Task] = []
        _cycle: Any = None
        _lock = threading.Lock()
        # episodes between stateless HTTP requests, by episode_id (oldest dropped past the cap)
        _parked: OrderedDict[str, tuple[Task, Episode, AgentWorldState]] = OrderedDict()
        max_parked = 1024

        def __init__(self) -> None:
            super().__init__()
            self.session: Session | None = None
            self.task: Task | None = None
            self.episode: Episode | None = None
            self._state = AgentWorldState(episode_id=str(uuid.uuid4()))

        @classmethod
        def _next_task(cls) -> Task:
            with cls._lock:
                if cls._cycle is None:
                    cls._cycle = itertools.cycle(cls.tasks)
                return next(cls._cycle)

        def _pick(self, task: Any, task_id: str | None) -> Task:
            if isinstance(task, dict):
                assert self.world is not None
                return parse_task(task, "reset(task=...)", self.world.pm.registry)
            if task_id is not None:
                for known in self.tasks:
                    if known.id == task_id:
                        return known
                raise ConfigError(
                    f"No served task has id {task_id!r}", hint="reset with one of the served task ids"
                )
            return self._next_task()

        def reset(
            self,
            seed: int | None = None,
            episode_id: str | None = None,
            task: dict[str, Any] | None = None,
            task_id: str | None = None,
            **kwargs: Any,
        ) -> AgentWorldObservation:
            assert self.world is not None
            chosen = self._pick(task, task_id)
            sample = seed if seed is not None else 0
            self.episode = start_episode(chosen, sample, self.world)
            self.session, self.task = self.episode.session, chosen
            seeds = self.episode.seeds
            self._state = AgentWorldState(
                episode_id=episode_id or str(uuid.uuid4()), domain=chosen.domain, task_id=chosen.id
            )
            return AgentWorldObservation(
                text=chosen.initial_state or "",
                episode_id=self._state.episode_id,
                instruction=first_user_message(chosen),
                tools=self.episode.tools,
                metadata={"max_turns": chosen.max_turns, "seeds": seeds},
            )

        def _finish(self, observation: AgentWorldObservation) -> AgentWorldObservation:
            assert self.episode is not None and self.world is not None
            reward, breakdown = score_sync(self.episode, self.world.pm.registry)
            self._state.done = True
            observation.done = True
            observation.reward = reward
            observation.reward_breakdown = breakdown
            return observation

        def _resume(self, episode_id: str | None) -> None:
            """Take over the parked episode ``episode_id`` (a stateless HTTP /step)."""
            if episode_id is None:
                raise ConfigError(
                    "No episode to step: over HTTP each request gets a fresh environment, so /step "
                    "needs the episode_id that /reset answered with",
                    hint='POST /step {"action": {...}, "episode_id": "<from /reset>"}, or use the '
                    "WebSocket client (GenericEnvClient(base_url=...).sync()), which keeps the session",
                )
            with self._lock:
                parked = self._parked.pop(episode_id, None)
            if parked is None:
                raise ConfigError(
                    f"No episode {episode_id!r} to step (never reset here, over, dropped, or being "
                    "stepped by another request)",
                    hint="POST /reset and pass the episode_id it answers with",
                )
            self.task, self.episode, self._state = parked
            self.session = self.episode.session

        def close(self) -> None:
            """Park an unfinished episode for the next HTTP request that names it."""
            if self.episode is not None and self.task is not None and not self._state.done:
                with self._lock:
                    self._parked[self._state.episode_id] = (self.task, self.episode, self._state)
                    self._parked.move_to_end(self._state.episode_id)
                    while len(self._parked) > self.max_parked:
                        self._parked.popitem(last=False)
            super().close()

        def step(
            self,
            action: Any,
            timeout_s: float | None = None,
            episode_id: str | None = None,
            **kwargs: Any,
        ) -> AgentWorldObservation:
            if self.episode is None:
                self._resume(episode_id)
            assert self.session is not None and self.episode is not None
            episode = self.episode
            if self._state.done:
                return AgentWorldObservation(
                    text="The episode is over: reset to start another.",
                    done=True,
                    is_error=True,
                    episode_id=self._state.episode_id,
                )
            if action.answer is not None:
                episode.final_answer, episode.finish = action.answer, "answer"
                return self._finish(
                    AgentWorldObservation(text="", turn=episode.turns, episode_id=self._state.episode_id)
                )
            domain = self.session.domain.name
            if domain in TOOL_DOMAINS:
                key = "name" if domain == "search" else "tool_name"
                raw: Any = {key: action.tool_name, "arguments": action.arguments}
                label = str(action.tool_name)
            else:
                raw, label = action.action, "action"
            episode.turns += 1
            self._state.step_count += 1
            text, is_error = world_step(episode, label, raw)
            result = AgentWorldObservation(
                text=text, is_error=is_error, turn=episode.turns, episode_id=self._state.episode_id
            )
            if episode.turns >= episode.task.max_turns:
                return self._finish(result)
            return result

        @property
        def state(self) -> AgentWorldState:
            return self._state


def environment_factory(
    world: World, tasks: list[Task], name: str = "AgentWorldServed"
) -> type[AgentWorldEnvironment]:
    """A zero-argument environment class for ``create_app``, bound to a world and its tasks."""
    _require()
    if not tasks:
        raise ConfigError(
            "OpenEnv serving needs at least one task", hint="pass --tasks, --tool-pack or --tools"
        )
    return type(
        name,
        (AgentWorldEnvironment,),
        {
            "world": world,
            "tasks": list(tasks),
            "_cycle": None,
            "_lock": threading.Lock(),
            "_parked": OrderedDict(),
        },
    )


def openenv_error(status: int, message: str, path: str) -> dict[str, Any]:
    """An error as OpenEnv's FastAPI server words one: ``{"detail": message}``."""
    return {"detail": message}


def openenv_ws_error(code: str, message: str) -> str:
    """A WebSocket error frame as OpenEnv's server sends one (``WSErrorResponse``)."""
    from openenv.core.env_server.types import WSErrorCode, WSErrorResponse

    return WSErrorResponse(data={"message": message, "code": WSErrorCode(code)}).model_dump_json()


def create_openenv_app(
    world: World,
    tasks: list[Task],
    *,
    max_concurrent_envs: int = 64,
    token: str | None = None,
    limits: HttpLimits | None = None,
) -> HttpGuard:
    """OpenEnv's FastAPI app serving the simulated environment, behind the package's HTTP guard:
    body and header limits, slow clients closed, JSON errors, bodies parsed within the depth and
    number limits, and ``token`` (when given) required on every request and WebSocket handshake."""
    _require()
    from openenv.core.env_server.http_server import create_app

    env = environment_factory(world, tasks)
    app = create_app(
        env,
        AgentWorldAction,
        AgentWorldObservation,
        env_name="agentworld",
        max_concurrent_envs=max_concurrent_envs,
    )
    return HttpGuard(
        app, error=openenv_error, limits=limits, token=token, json_bodies=True, ws_error=openenv_ws_error
    )


def default_task(
    domain: str, tools: list[dict[str, Any]] | None, max_turns: int = 20, registry: Registry | None = None
) -> Task:
    """The open-ended task served when no task file is given (checked like a task file's line
    when ``registry`` is given: a known domain, tools where the domain needs them)."""
    row = {
        "id": f"{domain}-open",
        "domain": domain,
        "instruction": f"Explore the simulated {domain} environment.",
        "tools": tools,
        "max_turns": max_turns,
    }
    return parse_task(row, "the open-ended task (--domain, --tools, --tool-pack)", registry)
