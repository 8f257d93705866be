"""World, Session, Observation, Turn and Trajectory: the core every adapter calls.

>>> world = World(base_url="http://localhost:8000/v1")                      # doctest: +SKIP
>>> term = world.session("terminal", initial_state="root@box:/app#")       # doctest: +SKIP
>>> term.step([{"keystrokes": "ls -la\\n", "duration": 0.5}]).text          # doctest: +SKIP
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from .backends import Backend, BackendRequest, Completion, Sampling, make_backend
from .config import Settings, load_settings
from .current import current_conversation, current_session
from .domains.base import Domain
from .errors import AgentWorldError, ConfigError, ContextBudgetError
from .files import open_private
from .observation import Observation, Turn
from .plugins import PluginManager, edits_messages, get_plugin_manager
from .redaction import redact_record
from .turns import build_messages, extract_action, system_of, turn_number

if TYPE_CHECKING:
    from .worlds import SharedWorld

__all__ = ["Observation", "Session", "Trajectory", "Turn", "World"]


@dataclass
class Trajectory:
    """The ordered turns of one session, exportable as AgentWorldBench records or chat JSONL."""

    session_id: str
    domain: str
    system_prompt: str
    turns: list[Turn] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        """One AgentWorldBench record per turn (``turn_idx`` counted from 1)."""
        prompts = [t.prompt for t in self.turns]
        responses = [t.observation.text for t in self.turns]
        return [
            {
                "task": self.domain,
                "id": self.session_id,
                "prompt": prompts,
                "response": responses,
                "current_prompt": turn.prompt,
                "system_str": self.system_prompt,
                "turn_idx": turn.number,
                "total_turns": len(self.turns),
                "action": turn.action,
                "is_error": turn.observation.is_error,
                "perturbations": turn.observation.metadata.get("perturbations", []),
                # what the consistency guard found (a guarded backend), where it ran
                **(
                    {"guard": turn.observation.metadata["guard"]}
                    if "guard" in turn.observation.metadata
                    else {}
                ),
                # an MCP result's structuredContent, where the turn has one (``mcp serve --replay``)
                **(
                    {"structured_content": turn.observation.metadata["structured_content"]}
                    if turn.observation.metadata.get("structured_content") is not None
                    else {}
                ),
            }
            for turn in self.turns
        ]

    def chat_messages(self) -> list[dict[str, str]]:
        """The whole conversation in OpenAI chat form (for training)."""
        history = [(t.prompt, t.observation.text) for t in self.turns]
        messages = build_messages(self.system_prompt, history, "")
        return messages[:-1]

    def to_jsonl(
        self,
        path: str | Path,
        *,
        form: Literal["records", "chat"] = "records",
        append: bool = False,
        redact: bool | None = None,
    ) -> Path:
        """Write the trajectory; ``records`` gives one line per turn, ``chat`` one line in all.

        Secrets are redacted as in cassettes unless ``redact`` is False (None: the
        ``AGENTWORLD_REDACT`` setting); a file this creates is readable by its owner only.
        """
        path = Path(path)
        if form == "records":
            lines = self.records()
        elif form == "chat":
            lines = [{"id": self.session_id, "task": self.domain, "messages": self.chat_messages()}]
        else:
            raise AgentWorldError(f"Unknown trajectory form {form!r}", hint="use 'records' or 'chat'")
        with open_private(path, "a" if append else "w") as fh:
            for line in lines:
                fh.write(json.dumps(redact_record(line, redact), ensure_ascii=False) + "\n")
        return path

    @classmethod
    def from_jsonl(cls, path: str | Path) -> list[Trajectory]:
        """Read trajectories written by :meth:`to_jsonl` (either form), in file order."""
        from .files import iter_jsonl

        found: dict[str, Trajectory] = {}
        for _, row in iter_jsonl(path):
            if "messages" in row:
                found[row["id"]] = cls._from_chat(row)
            else:
                cls._add_record(found, row)
        return list(found.values())

    @classmethod
    def _from_chat(cls, row: dict[str, Any]) -> Trajectory:
        messages = row["messages"]
        traj = cls(str(row["id"]), str(row.get("task", "")), messages[0]["content"])
        pairs = zip(messages[1::2], messages[2::2])
        for number, (user, assistant) in enumerate(pairs, 1):
            traj.turns.append(Turn(number, None, user["content"], Observation(text=assistant["content"])))
        return traj

    @classmethod
    def _add_record(cls, found: dict[str, Trajectory], row: dict[str, Any]) -> None:
        key = str(row["id"])
        traj = found.get(key)
        if traj is None:
            traj = found[key] = cls(key, str(row.get("task", "")), str(row.get("system_str", "")))
        number = int(row["turn_idx"])
        while len(traj.turns) < number:
            traj.turns.append(Turn(len(traj.turns) + 1, None, "", Observation(text="")))
        turn = traj.turns[number - 1]
        turn.prompt = row["prompt"][number - 1]
        structured = row.get("structured_content")
        turn.observation = Observation(
            text=row["response"][number - 1],
            is_error=bool(row.get("is_error")),
            metadata={} if structured is None else {"structured_content": structured},
        )
        turn.action = row.get("action")


def _tokens(text: str) -> int:
    """One message's share of :func:`~agentworld_plugins.turns.estimate_tokens`."""
    return len(text) // 4 + 4


def _short_circuited(observation: Observation) -> Observation:
    """Mark an observation that a ``before_step`` plugin gave instead of the backend: the action
    never reached the world, so worlds that replay actions (the offline backend) skip it."""
    return observation.model_copy(update={"metadata": {**observation.metadata, "short_circuit": True}})


class _History:
    """The request messages of a trajectory's turns, kept as the trajectory grows, so a step costs
    the same at turn 300 as at turn 3 (each message is built once; a request is one list of the
    kept messages). The messages are shared between requests: ``transform_messages`` returns a
    new list and never edits one in place (as the hook's contract says).

    It follows the trajectory's list: one that was replaced, shortened or whose last turn changed
    (a rejected turn taken back and another put in its place) is read again from the start."""

    __slots__ = ("_last", "_system", "_turns", "costs", "messages", "total")

    def __init__(self) -> None:
        self._turns: list[Turn] | None = None
        self._last: Turn | None = None
        self._system: dict[str, Any] | None = None
        self.messages: list[dict[str, Any]] = []
        self.costs: list[int] = []
        self.total = 0

    def sync(self, turns: list[Turn]) -> _History:
        known = len(self.costs)
        if turns is not self._turns or known > len(turns) or (known and turns[known - 1] is not self._last):
            self._turns, known = turns, 0
            self.messages, self.costs, self.total = [], [], 0
        for turn in turns[known:]:
            text = turn.observation.text
            self.messages.append({"role": "user", "content": turn.prompt})
            self.messages.append({"role": "assistant", "content": text})
            cost = _tokens(turn.prompt) + _tokens(text)
            self.costs.append(cost)
            self.total += cost
        self._last = turns[-1] if turns else None
        return self

    def request(self, system_prompt: str, current_prompt: str) -> list[dict[str, Any]]:
        system = self._system
        if system is None or system["content"] is not system_prompt:
            system = self._system = {"role": "system", "content": system_prompt}
        return [system, *self.messages, {"role": "user", "content": current_prompt}]


class Session:
    """One simulated environment instance. Create it with :meth:`World.session`."""

    def __init__(
        self,
        world: World,
        domain: Domain,
        *,
        context: dict[str, Any],
        plugin_manager: PluginManager,
        seed: int | None,
        session_id: str,
        sampling: Sampling,
        max_context_tokens: int,
        base_prompt: str | None = None,
        system_suffix: str | Callable[[str], str] | None = None,
    ) -> None:
        self.world = world
        self.domain = domain
        self.context = context
        self.pm = plugin_manager
        self.seed = seed
        self.id = session_id
        self.sampling = sampling
        self.max_context_tokens = max_context_tokens
        self.state: dict[str, Any] = {}  # free for plugins and the offline world
        #: the named world this session is a front of (:class:`~.worlds.SharedWorld`), or None
        self.attached: SharedWorld | None = None
        base = (
            domain.system_prompt(context, world.settings.prompts_dir) if base_prompt is None else base_prompt
        )
        self.system_prompt: str = self.pm.chain("prepare_system_prompt", "prompt", base, session=self)
        if callable(system_suffix):
            system_suffix = system_suffix(self.system_prompt)
        if system_suffix:  # a front's own section (the machine, the world bible), after the plugins
            self.system_prompt += system_suffix
        self.trajectory = Trajectory(session_id, domain.name, self.system_prompt)
        self._history = _History()
        #: the last turn prompt rendered from a validated action, with that action: a backend
        #: whose request still ends with that very string reads the action from here
        self.rendered: tuple[str, BaseModel] | None = None

    @classmethod
    def from_messages(
        cls,
        world: World,
        domain: Domain,
        messages: Sequence[dict[str, Any]],
        *,
        plugin_manager: PluginManager | None = None,
        context: dict[str, Any] | None = None,
        seed: int | None = None,
        session_id: str | None = None,
        sampling: Sampling | None = None,
    ) -> Session:
        """A session rebuilt from a chat conversation in the trained turn format.

        The system prompt is the conversation's first system message, run through
        ``prepare_system_prompt`` like a new session's. Each user turn prompt answered by an
        assistant message becomes a turn of the trajectory: its action parsed from **Action:**
        (``None`` when it does not parse), its observation parsed from the answer. A trailing user
        message (the current turn) is not a turn. Turns follow the ``### Turn N`` headers: turns a
        client left out (to fit its context) come back as empty turns with no action.
        """
        session = cls(
            world,
            domain,
            context=dict(context or {}),
            plugin_manager=plugin_manager or world.pm,
            seed=seed,
            session_id=session_id or uuid.uuid4().hex[:12],
            sampling=sampling or domain.sampling_for(None),
            max_context_tokens=world.settings.max_context_tokens,
            base_prompt=system_of(list(messages)),
        )
        talk = [m for m in messages if m.get("role") in ("user", "assistant")]
        turns = session.trajectory.turns
        for index, message in enumerate(talk):
            prompt = str(message.get("content") or "")
            if message.get("role") != "user":
                continue
            number = turn_number(prompt)
            while number is not None and len(turns) + 1 < number:
                turns.append(Turn(len(turns) + 1, None, "", Observation(text="")))
            answer = talk[index + 1] if index + 1 < len(talk) else None
            if answer is None or answer.get("role") != "assistant":
                continue
            parsed = domain.parse_output(str(answer.get("content") or ""))
            found = extract_action(prompt)
            action: dict[str, Any] | None = None
            is_error = False
            if found is not None:
                try:
                    validated = domain.validate_action(found[1])
                except AgentWorldError:
                    validated = None
                if validated is not None:
                    action = validated.model_dump(mode="json", exclude_none=True)
                    is_error = domain.is_error(parsed.text, validated)
            observation = Observation(text=parsed.text, reasoning=parsed.reasoning, is_error=is_error)
            turns.append(Turn(len(turns) + 1, action, prompt, observation))
        return session

    @property
    def turn_number(self) -> int:
        """The number the next turn will get (counted from 1)."""
        return len(self.trajectory.turns) + 1

    @property
    def backend(self) -> Backend:
        return self.world.backend

    def messages(self, current_prompt: str) -> tuple[list[dict[str, Any]], list[int]]:
        """The request messages for a new turn prompt, fitted into the context budget.

        When the history would overflow, whole turns are dropped oldest first, keeping turn 1
        (it sets up the environment); the dropped turn numbers are returned. Dropping breaks the
        server's prefix cache from that point, so it happens only when it must.
        """
        history = self._history.sync(self.trajectory.turns)
        budget = self.max_context_tokens - self.sampling.max_tokens
        fixed = _tokens(self.system_prompt) + _tokens(current_prompt)
        costs = history.costs
        total = fixed + history.total
        if total <= budget:
            return history.request(self.system_prompt, current_prompt), []
        dropped: list[int] = []
        for index in [*range(1, len(costs)), 0][: len(costs)]:  # oldest after the first, then the first
            total -= costs[index]
            dropped.append(index + 1)
            if total <= budget:
                break
        if total > budget:
            raise ContextBudgetError(
                f"Turn {self.turn_number} of session {self.id} needs about {fixed} tokens with no history, "
                f"over the budget of {budget} (max_context_tokens minus max_tokens)",
                hint="raise max_context_tokens or lower the sampling max_tokens",
            )
        gone = set(dropped)
        kept = [
            (t.prompt, t.observation.text) for n, t in enumerate(self.trajectory.turns, 1) if n not in gone
        ]
        return build_messages(self.system_prompt, kept, current_prompt), sorted(dropped)

    def _prepare(
        self,
        validated: BaseModel,
        prompt: str | None,
        messages: list[dict[str, Any]] | None,
        backend: Backend | None,
        is_async: bool,
    ) -> tuple[Observation | None, str | None, BackendRequest | None, list[int]]:
        """``before_step``, then the backend request: (short-circuit observation or None, turn
        prompt, request or None, dropped turn numbers). ``messages`` None renders them from the
        trajectory."""
        short = self.pm.hook.before_step(session=self, action=validated)
        if short is not None:
            return _short_circuited(short), prompt, None, []
        dropped: list[int] = []
        self.rendered = None
        if messages is None:
            number = self.turn_number
            prompt = self.domain.render_turn(
                number, validated, self.domain.state_for_turn(number, self.context)
            )
            self.rendered = (prompt, validated)
            if getattr(backend or self.backend, "context_budget", True):
                messages, dropped = self.messages(prompt)
            else:  # no model reads them (the offline world): no token budget to fit
                messages = self._history.sync(self.trajectory.turns).request(self.system_prompt, prompt)
        if edits_messages(self.pm):  # the history's messages are shared with later requests
            messages = [dict(message) for message in messages]
        messages = self.pm.chain("transform_messages", "messages", messages, session=self)
        return (
            None,
            prompt,
            BackendRequest(messages, self.sampling, backend or self.backend, is_async),
            dropped,
        )

    def _observation(
        self,
        completion: Completion,
        validated: BaseModel,
        started: float,
        dropped: list[int],
        backend: Backend | None = None,
    ) -> Observation:
        parsed = self.domain.parse_output(completion.text, completion.reasoning)
        metadata: dict[str, Any] = {
            "turn": self.turn_number,
            "session_id": self.id,
            "backend": (backend or self.backend).describe(),
            "latency_s": round(time.perf_counter() - started, 6),
            **completion.metadata,
        }
        if parsed.warnings:
            metadata["parse_warnings"] = parsed.warnings
        if completion.usage:
            metadata["usage"] = completion.usage
        if completion.finish_reason:
            metadata["finish_reason"] = completion.finish_reason
        if dropped:
            metadata["context_dropped_turns"] = dropped
        # a backend that knows (offline world, scenario) says so; otherwise the domain judges the text
        is_error = completion.metadata.get("is_error", completion.metadata.get("scenario_is_error"))
        if not isinstance(is_error, bool):
            is_error = self.domain.is_error(parsed.text, validated)
        return Observation(
            text=parsed.text,
            raw=completion.text,
            reasoning=parsed.reasoning,
            is_error=is_error,
            metadata=metadata,
        )

    def _finish(self, validated: BaseModel, prompt: str | None, observation: Observation) -> Observation:
        observation = self.pm.chain(
            "after_observation", "observation", observation, session=self, action=validated
        )
        if prompt is None:
            prompt = self.domain.render_turn(
                self.turn_number, validated, self.domain.state_for_turn(self.turn_number, self.context)
            )
        action = validated.model_dump(mode="json", exclude_none=True)
        self.trajectory.turns.append(Turn(self.turn_number, action, prompt, observation))
        return observation

    @property
    def conversation(self) -> str:
        """The name of this session's conversation, ``domain/session-id`` (as ``bench infer`` names
        a record ``domain/episode-id``): what a remote world keys its random streams by."""
        return f"{self.domain.name}/{self.id}"

    @contextmanager
    def _answering(self) -> Iterator[None]:
        """Around the backend call: the session being stepped (:data:`current_session`) and the
        conversation's name (:data:`current_conversation`, unless the caller named it already),
        so an ``openai`` backend sends it as ``X-Agentworld-Conversation``."""
        token = current_session.set(self)
        named = current_conversation.set(self.conversation) if current_conversation.get() is None else None
        try:
            yield
        finally:
            if named is not None:
                current_conversation.reset(named)
            current_session.reset(token)

    def step(self, action: Any) -> Observation:
        """Send one action; return the world model's observation."""
        validated = self.domain.validate_action(action)
        if self.attached is not None:  # a named world's front: the step runs on the stored world
            return self.attached.operate(lambda: self.run_step(validated))
        return self.run_step(validated)

    async def astep(self, action: Any) -> Observation:
        """The async twin of :meth:`step`."""
        validated = self.domain.validate_action(action)
        if self.attached is not None:
            return await self.attached.aoperate(lambda: self.arun_step(validated))
        return await self.arun_step(validated)

    def run_step(
        self,
        validated: BaseModel,
        prompt: str | None = None,
        messages: list[dict[str, Any]] | None = None,
        *,
        backend: Backend | None = None,
    ) -> Observation:
        """One step of an already validated action.

        With ``prompt`` and ``messages`` the caller built the turn prompt and the request (a served
        chat request holds a whole conversation already); otherwise both are rendered from the
        trajectory, as :meth:`step` does. ``backend`` defaults to the world's.
        """
        short, prompt, request, dropped = self._prepare(validated, prompt, messages, backend, False)
        if short is not None:
            return self._finish(validated, prompt, short)
        assert request is not None
        started = time.perf_counter()
        with self._answering():
            completion = self.pm.hook.call_backend(session=self, request=request)
        observation = self._observation(completion, validated, started, dropped, request.backend)
        return self._finish(validated, prompt, observation)

    async def arun_step(
        self,
        validated: BaseModel,
        prompt: str | None = None,
        messages: list[dict[str, Any]] | None = None,
        *,
        backend: Backend | None = None,
    ) -> Observation:
        """The async twin of :meth:`run_step`."""
        short, prompt, request, dropped = self._prepare(validated, prompt, messages, backend, True)
        if short is not None:
            return self._finish(validated, prompt, short)
        assert request is not None
        started = time.perf_counter()
        with self._answering():
            completion = await self.pm.hook.call_backend(session=self, request=request)
        observation = self._observation(completion, validated, started, dropped, request.backend)
        return self._finish(validated, prompt, observation)

    def __repr__(self) -> str:
        return f"<Session {self.id} domain={self.domain.name} turns={len(self.trajectory.turns)}>"


class World:
    """Settings, plugins and a backend: the factory of sessions.

    Arguments override ``AGENTWORLD_*`` environment variables. ``backend`` is a backend name
    (``"openai"``, ``"transformers:/path"``) or a :class:`Backend` instance.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        backend: str | Backend | None = None,
        *,
        settings: Settings | None = None,
        plugin_manager: PluginManager | None = None,
        perturbations: Iterable[Any] | None = None,
        name: str | None = None,
        **overrides: Any,
    ) -> None:
        backend_name = backend if isinstance(backend, str) else None
        if name is not None:
            overrides["world"] = name
        self.settings = settings or load_settings(
            base_url=base_url, model=model, api_key=api_key, backend=backend_name, **overrides
        )
        if name is not None and settings is not None:
            self.settings = settings.model_copy(update={"world": load_settings(world=name).world})
        self._shared: SharedWorld | None = None
        self.pm = plugin_manager or get_plugin_manager()
        if perturbations is None:  # AGENTWORLD_PERTURB / AGENTWORLD_PERTURB_FILE, so every front honours them
            found = self.pm.hook.default_perturbations(registry=self.pm.registry)
            perturbations = [item for items in found for item in items or ()]
        #: perturbations every session gets, before its own (objects are shared by the sessions)
        self.perturbations: list[Any] = list(perturbations)
        self._backend: Backend | None = backend if isinstance(backend, Backend) else None

    @property
    def backend(self) -> Backend:
        """The backend, built on first use from the settings."""
        if self._backend is None:
            self._backend = make_backend(self.settings, self.pm.registry)
            notice = getattr(self._backend, "notice", None)
            if notice:
                print(notice, file=sys.stderr)
        return self._backend

    @property
    def domains(self) -> dict[str, Domain]:
        return dict(self.pm.registry.domains)

    @property
    def offline(self) -> Backend | None:
        """The embedded :class:`~.backends.offline.OfflineBackend` when the world's backend is,
        wraps or chains it, else None (fronts that keep sessions across processes use its
        start/state/snapshot/restore API)."""
        from .backends.offline import find_offline

        return find_offline(self.backend)

    @property
    def name(self) -> str | None:
        """The named world this world's sessions attach to (``AGENTWORLD_WORLD``), or None."""
        return self.settings.world

    @property
    def shared(self) -> SharedWorld:
        """The named world (:class:`~.worlds.SharedWorld`) kept in ``AGENTWORLD_HOME``; a
        :class:`ConfigError` when this world has no name."""
        if self._shared is None:
            if self.name is None:
                raise ConfigError(
                    "This World has no name, so it keeps no shared state",
                    hint="pass World(name=...) or set AGENTWORLD_WORLD",
                )
            from .worlds import SharedWorld

            self._shared = SharedWorld(self, self.name, store=True)
        return self._shared

    def session(self, domain: str, *, front: str | None = None, **options: Any) -> Session:
        """A new session of ``domain`` (the keywords of :meth:`make_session`).

        In a named world (``World(name=...)``, ``AGENTWORLD_WORLD``) it is the world's front
        ``front`` (default: the domain's name): its history and state are the stored world's, and
        each step runs on the world as other processes and fronts left it.
        """
        if self.name is None:
            if front is not None:
                raise ConfigError(
                    f"front={front!r} needs a named world",
                    hint="pass World(name=...) or set AGENTWORLD_WORLD",
                )
            return self.make_session(domain, **options)
        shared = self.shared
        session = shared.front(front or domain, domain, **options)
        session.attached = shared
        shared.open()  # its turns and state as the store has them now
        return session

    def make_session(
        self,
        domain: str,
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        initial_state: str | None = None,
        demonstrations: str | Sequence[str] | None = None,
        perturbations: Iterable[Any] = (),
        seed: int | None = None,
        session_id: str | None = None,
        sampling: dict[str, Any] | Sampling | None = None,
        max_context_tokens: int | None = None,
        system_suffix: str | Callable[[str], str] | None = None,
        base_prompt: str | None = None,
        **context: Any,
    ) -> Session:
        """A new session of ``domain``, of no named world. Keyword context (task, world_bible,
        ...) reaches plugins.

        ``base_prompt`` is the system prompt as a client sent it (a served conversation's), instead
        of the domain's template. ``system_suffix`` is appended verbatim to the system prompt once the plugins prepared it
        (a front's own section, such as the machine description of a virtual terminal); a function
        gets the prepared prompt and returns the text to append (``""`` for none).
        """
        dom = self.pm.registry.domain(domain)
        if tools is not None:
            context["tools"] = list(tools)
        if initial_state is not None:
            context["initial_state"] = initial_state
        if demonstrations is not None:
            context["demonstrations"] = demonstrations
        seed = self.settings.seed if seed is None else seed
        chosen = sampling if isinstance(sampling, Sampling) else dom.sampling_for(sampling)
        if chosen.seed is None and seed is not None:
            chosen = chosen.model_copy(update={"seed": seed})
        return Session(
            self,
            dom,
            context=context,
            plugin_manager=self._session_pm([*self.perturbations, *perturbations]),
            seed=seed,
            session_id=session_id or uuid.uuid4().hex[:12],
            sampling=chosen,
            max_context_tokens=max_context_tokens or self.settings.max_context_tokens,
            system_suffix=system_suffix,
            base_prompt=base_prompt,
        )

    def _session_pm(self, perturbations: list[Any]) -> PluginManager:
        """The world's manager, or a copy with the session's perturbation plugins added."""
        if not perturbations:
            return self.pm
        plugins = [self._perturbation(item) for item in perturbations]
        # pluggy calls the last registered first: register in reverse so they run in the order given
        return self.pm.derive(plugins[::-1])

    def _perturbation(self, item: Any) -> Any:
        """A plugin object from a ``"name:key=value,..."`` spec (or the object itself), through the
        ``resolve_perturbation`` hook."""
        plugin = self.pm.hook.resolve_perturbation(spec=item, registry=self.pm.registry)
        if plugin is not None:
            return plugin
        if isinstance(item, (str, tuple, Mapping)):
            raise ConfigError(
                f"No plugin resolves the perturbation {item!r}",
                hint="load the built-in perturbations plugin (agentworld_plugins.perturbations) "
                "or pass a plugin object",
            )
        return item

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()
        if self._backend is not None:
            self._backend.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
