"""One episode of a simulated environment: the core that every environment front shares.

An :class:`Episode` owns a :class:`~agentworld_plugins.Session`, the current observation text
and the task. :meth:`Episode.act` validates an action (an invalid one never reaches the world and
never raises: the outcome carries the error), sends it to the world, and checks that the answer
is a usable screen; an unusable answer keeps the previous screen and flags it. Actions that only
talk to the user or end the task (``send_msg_to_user``, ``answer``, ``DONE``, ...) change no
screen and are answered locally.

>>> episode = Episode("web", backend="offline")                       # doctest: +SKIP
>>> episode.start(load_task("web/shop-find-mouse"))                    # doctest: +SKIP
>>> episode.act("click('24')").text.splitlines()[0]                    # doctest: +SKIP
'URL: https://shop.example.com/'
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agentworld_plugins.domains.formats.android import DEFAULT_ANDROID_SCREEN, parse_android_screen
from agentworld_plugins.domains.formats.os import parse_os_table
from agentworld_plugins.domains.formats.web import parse_web_page
from agentworld_plugins.errors import ActionValidationError, ConfigError, ContextBudgetError

from .task import DOMAINS, InitialState, Task, initial_state, load_task

if TYPE_CHECKING:
    from agentworld_plugins.backends import Backend
    from agentworld_plugins.session import Observation, Session, World

__all__ = ["Episode", "StepOutcome", "usable_screen"]

#: metadata that differs between two runs of the same steps (kept out of gymnasium infos)
_VOLATILE_METADATA = frozenset({"latency_s", "session_id"})


def usable_screen(domain: str, text: str) -> bool:
    """Whether ``text`` reads as a screen of ``domain`` (a page tree, an element list, a table).

    Domains without a structured screen (terminal, mcp, search, swe) accept any text.
    """
    if domain == "web":
        nodes = parse_web_page(text)["nodes"]
        return any(node["bid"] is not None or node["name"] is not None for node in nodes)
    if domain == "android":
        return bool(parse_android_screen(text))
    if domain == "os":
        table = parse_os_table(text)
        return len(table["columns"]) >= 2 and bool(table["rows"])
    return True


def clean_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of an observation's metadata without the values that vary between runs."""
    return {key: copy.deepcopy(value) for key, value in metadata.items() if key not in _VOLATILE_METADATA}


@dataclass
class StepOutcome:
    """What one action did to the episode."""

    #: the current observation text (the previous one when the action was refused or the
    #: world's answer was unusable)
    text: str
    #: the world's observation, or None when the world was not asked
    observation: Observation | None = None
    #: why the action was refused before reaching the world (None when it was valid)
    action_error: str | None = None
    #: why the world's answer was not used (the previous screen was kept)
    observation_error: str | None = None
    #: whether the world reports that the action failed
    world_error: bool = False
    #: the agent's answer to the user carried by this action, if any
    answer: str | None = None
    #: the agent declared the task done or impossible (DONE/FAIL, status, report_infeasible, [])
    ended: bool = False
    infeasible: bool = False
    #: the task's success criteria hold now
    success: bool = False
    #: the action was answered without asking the world (it changes no screen)
    local: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        """The outcome as plain data for an environment's ``info`` (fresh objects every call)."""
        data: dict[str, Any] = {
            "is_error": bool(self.action_error or self.world_error),
            "action_error": self.action_error,
            "observation_error": self.observation_error,
            "local": self.local,
            "success": self.success,
            "metadata": clean_metadata(self.metadata),
        }
        if self.observation is not None and self.observation.metadata.get("parse_warnings"):
            data["parse_warnings"] = list(self.observation.metadata["parse_warnings"])
        return data


def _local_kind(domain: str, action: BaseModel) -> tuple[bool, str | None, bool, bool]:
    """(answered locally?, answer text, ended by the agent?, infeasible?) for a valid action."""
    if domain == "web":
        calls = action.calls()  # type: ignore[attr-defined]
        chat = [(name, args) for name, args in calls if name in ("send_msg_to_user", "report_infeasible")]
        answer = next((args["text"] for name, args in reversed(chat) if name == "send_msg_to_user"), None)
        infeasible = any(name == "report_infeasible" for name, _ in chat)
        return len(chat) == len(calls), answer, infeasible, infeasible
    if domain == "android":
        kind = getattr(action, "action_type", None)
        if kind == "answer":
            return True, getattr(action, "text", None), False, False
        if kind == "status":
            infeasible = getattr(action, "goal_status", None) == "infeasible"
            return True, None, True, infeasible
        return False, None, False, False
    if domain == "os":
        code = getattr(action, "root", None)
        if code in ("DONE", "FAIL"):
            return True, None, True, code == "FAIL"
        return False, None, False, False
    if domain == "terminal":
        return (not action.model_dump(), None, not action.model_dump(), False)
    return False, None, False, False


class Episode:
    """One environment instance of ``domain`` on a world (see the module docs).

    ``world`` is a :class:`~agentworld_plugins.World`; without one, a world is made from
    ``backend`` (``"offline"``, ``"scenario:path.yaml"``, a :class:`Backend`, ...) or from the
    ``AGENTWORLD_*`` settings. ``session_options`` go to every :meth:`World.session` call
    (perturbations, sampling, world_bible, ...).
    """

    def __init__(
        self,
        domain: str,
        *,
        world: World | None = None,
        backend: str | Backend | None = None,
        session_options: dict[str, Any] | None = None,
    ) -> None:
        if domain not in DOMAINS:
            raise ConfigError(f"Unknown domain {domain!r}", hint=f"use one of {', '.join(DOMAINS)}")
        self.domain = domain
        self._world = world
        self._backend = backend
        self.session_options = dict(session_options or {})
        self.session: Session | None = None
        self.task: Task = Task(domain=domain)  # type: ignore[arg-type]
        self.text: str = ""
        self.start: InitialState | None = None
        self.steps = 0
        self.answer: str | None = None
        self.ended = False
        self.infeasible = False

    @property
    def world(self) -> World:
        """The world, made on first use."""
        if self._world is None:
            from agentworld_plugins.session import World

            self._world = World() if self._backend is None else World(backend=self._backend)
        return self._world

    def begin(
        self, task: Task | str | dict[str, Any] | None = None, *, seed: int | None = None
    ) -> InitialState:
        """Start a fresh episode of ``task`` (default: the current task): a new session and its
        first screen (see :func:`~agentworld_plugins.adapters.gui.task.initial_state`)."""
        if task is not None:
            self.task = load_task(task, self.domain)
        context = {**self.task.session_context(), **self.session_options}
        preset = context.pop("seed", None)
        seed = preset if seed is None else seed
        start = initial_state(
            self.world, self.domain, self.task, seed=seed, valid=lambda t: usable_screen(self.domain, t)
        )
        if start.text is not None and self.domain in ("web", "android", "os", "terminal"):
            context["initial_state"] = start.text
        if self.domain == "android" and start.text == DEFAULT_ANDROID_SCREEN:
            screens = dict(context.get("screens") or {})
            if not any(str(name).casefold() == "home" for name in screens):
                screens["home"] = start.text  # the default start is the launcher's home screen
            context["screens"] = screens
        from agentworld_plugins.adapters._world import world_bible_section

        suffix = world_bible_section(context)
        if self.world.name is None:
            self.session = self.world.make_session(self.domain, seed=seed, system_suffix=suffix, **context)
        else:  # a named world (AGENTWORLD_WORLD): the episode kept there, fresh at every reset
            from agentworld_plugins.worlds import fresh_world

            shared = fresh_world(self.world, self.world.name)
            self.session = shared.front(self.domain, self.domain, seed=seed, system_suffix=suffix, **context)
            self.session.attached = shared
        self.start = start
        self.text = start.text if start.text is not None else self.task.instruction
        self.steps = 0
        self.answer = None
        self.ended = False
        self.infeasible = False
        return start

    def validate(self, action: Any) -> BaseModel:
        """The validated action; raises :class:`ActionValidationError`."""
        if self.session is None:
            raise ConfigError("The episode has not started", hint="call begin() (the env's reset()) first")
        return self.session.domain.validate_action(action)

    def refuse(self, message: str) -> StepOutcome:
        """Count a step whose action was refused before validation (by the front's own checks)."""
        self.steps += 1
        return StepOutcome(text=self.text, action_error=message, success=self._success())

    def act(self, action: Any) -> StepOutcome:
        """Apply one action (see the module docs); never raises for a bad action."""
        if self.session is None:
            raise ConfigError("The episode has not started", hint="call begin() (the env's reset()) first")
        self.steps += 1
        try:
            validated = self.validate(action)
        except ActionValidationError as exc:
            return StepOutcome(text=self.text, action_error=str(exc), success=self._success())
        local, answer, ended, infeasible = _local_kind(self.domain, validated)
        if answer is not None:
            self.answer = answer
        self.ended = self.ended or ended
        self.infeasible = self.infeasible or infeasible
        if local:
            return StepOutcome(
                text=self.text,
                answer=answer,
                ended=ended,
                infeasible=infeasible,
                local=True,
                success=self._success(),
            )
        try:
            observation = self.session.step(validated)
        except ContextBudgetError as exc:
            # an action too long for the world model's context is the agent's error, not a crash
            message = f"the action is too long for the world model's context ({exc.message})"
            return StepOutcome(text=self.text, action_error=message, success=self._success())
        outcome = StepOutcome(
            text=observation.text,
            observation=observation,
            world_error=observation.is_error,
            answer=answer,
            ended=ended,
            infeasible=infeasible,
            metadata=dict(observation.metadata),
        )
        if usable_screen(self.domain, observation.text):
            self.text = observation.text
        else:
            outcome.observation_error = (
                f"the world model's answer is not a {self.domain} screen; the previous screen was kept"
            )
            outcome.text = self.text
            self._keep_previous(observation)
        outcome.success = self._success()
        return outcome

    def _keep_previous(self, observation: Observation) -> None:
        """Record the previous screen as the turn's observation, so later turns stay coherent."""
        assert self.session is not None
        turns = self.session.trajectory.turns
        if not turns:
            return
        metadata = {**observation.metadata, "observation_error": True, "unusable_text": observation.text}
        turns[-1].observation = observation.model_copy(update={"text": self.text, "metadata": metadata})

    def _success(self) -> bool:
        return self.task.criteria.met(self.text, self.answer)
