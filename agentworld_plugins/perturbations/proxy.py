"""Perturbations for conversations that arrive without a session (``agentworld serve``, ``bench``).

:class:`PerturbingBackend` wraps any backend. For each chat request in the trained turn format it
recognises the domain, rebuilds a transient :class:`~agentworld_plugins.session.Session` whose
trajectory holds the conversation's earlier turns, and runs the perturbation hooks around one
call to the wrapped backend::

    world = World(backend="offline")
    served = PerturbingBackend(world.backend, world, ["faults:kinds=rate_limit,rate=0.2"])

The transient session is named by the conversation: its id and seed are a hash of the name the
caller gave it (:data:`~agentworld_plugins.current.current_conversation`: ``bench infer`` sets the
record's episode; ``serve`` takes an ``X-Agentworld-Conversation`` header or a ``conversation_id``
field), else of the system prompt and the first user turn, so every request of one conversation
draws from the same random streams and a conversation sent twice is perturbed the same way. Before the current turn, the
perturbations' ``before_step`` and ``after_observation`` hooks are replayed over the earlier turns
(without the backend), which rebuilds their per-session state (``every``/``first`` counters) and
tells which earlier turns an injected error answered (those never reached the world, so the
offline world does not apply them).

A request whose domain cannot be recognised, or whose current turn has no valid action, goes to
the wrapped backend unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..backends.base import Backend, Completion, Sampling
from ..backends.offline import DomainDetector
from ..current import current_conversation
from ..errors import AgentWorldError, BackendError
from ..plugins import PluginManager
from ..session import Session, Turn
from ..turns import context_from_system, extract_action, state_of_turn, system_of
from .config import resolve

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..domains.base import Domain
    from ..observation import Observation
    from ..session import World

METADATA_KEY = "perturbations"


def conversation_key(messages: Sequence[dict[str, Any]], salt: str = "", name: str | None = None) -> bytes:
    """A digest of what names a conversation: ``name`` when the caller gave one (a benchmark
    record's episode), else its system prompt and its first user turn."""
    if name is None:
        name = current_conversation.get()
    if name:
        parts: tuple[str, ...] = (salt, "conversation", name)
    else:
        first = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        parts = (salt, system_of(list(messages)), first)
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.digest()


class _Capture(Backend):
    """Passes one request to ``inner`` and keeps its completion (for the model name and usage)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.completion: Completion | None = None

    def describe(self) -> str:
        return self.inner.describe()

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self.completion = self.inner.complete(messages, sampling)
        return self.completion

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self.completion = await self.inner.acomplete(messages, sampling)
        return self.completion


class _Prepared:
    """One request made ready: the transient session, its action, turn prompt and messages."""

    def __init__(
        self, session: Session, validated: BaseModel, prompt: str, messages: list[dict[str, Any]]
    ) -> None:
        self.session = session
        self.validated = validated
        self.prompt = prompt
        self.messages = messages


class PerturbingBackend(Backend):
    """Applies ``perturbations`` (objects or ``name:key=value`` specs) to every conversation
    answered by ``inner``; ``world`` gives the plugins, the registry and the settings."""

    name = "perturbing"

    def __init__(self, inner: Backend, world: World, perturbations: Iterable[Any]) -> None:
        self.inner = inner
        self.world = world
        self.perturbations = [resolve(item, world.pm.registry) for item in perturbations]
        self.notice = getattr(inner, "notice", None)
        self._detector = DomainDetector(world.pm.registry)
        #: the sessions' manager: the world's plugins and the perturbations (as World.session builds it)
        self._pm: PluginManager = world._session_pm(self.perturbations)
        #: the perturbations alone, to replay earlier turns without other plugins' side effects
        self._replay_pm = PluginManager()
        for plugin in reversed(self.perturbations):  # pluggy calls the last registered first
            self._replay_pm.register(plugin)

    def describe(self) -> str:
        specs = [p.spec() if hasattr(p, "spec") else type(p).__name__ for p in self.perturbations]
        return f"{self.inner.describe()} perturbed by {'; '.join(specs) or 'nothing'}"

    def close(self) -> None:
        self.inner.close()

    async def aclose_idle(self) -> None:
        closer = getattr(self.inner, "aclose_idle", None)
        if closer is not None:
            await closer()

    # -- requests --------------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        prepared = self._prepare(messages, sampling)
        if prepared is None:
            return self.inner.complete(messages, sampling)
        capture = _Capture(self.inner)
        observation = prepared.session.run_step(
            prepared.validated, prepared.prompt, prepared.messages, backend=capture
        )
        return self._completion(observation, capture.completion)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        prepared = self._prepare(messages, sampling)
        if prepared is None:
            return await self.inner.acomplete(messages, sampling)
        capture = _Capture(self.inner)
        observation = await prepared.session.arun_step(
            prepared.validated, prepared.prompt, prepared.messages, backend=capture
        )
        return self._completion(observation, capture.completion)

    # -- the transient session -------------------------------------------------------------------

    def _prepare(self, messages: list[dict[str, Any]], sampling: Sampling) -> _Prepared | None:
        """The session and request for ``messages``, or None to pass the request through."""
        if not self.perturbations or not messages or messages[-1].get("role") != "user":
            return None
        try:
            domain = self._detector.detect(messages)
        except BackendError:
            return None
        prompt = str(messages[-1].get("content") or "")
        found = extract_action(prompt)
        if found is None:
            return None
        try:
            validated = domain.validate_action(found[1])
        except AgentWorldError:
            return None
        system = system_of(messages)
        key = conversation_key(messages, salt=f"{domain.name}|{self.world.settings.seed}")
        session = Session.from_messages(
            self.world,
            domain,
            messages,
            plugin_manager=self._pm,
            context=self._context(domain, messages, system),
            seed=int.from_bytes(key[:8], "big") >> 1,
            session_id=key.hex()[:12],
            sampling=sampling,
        )
        self._replay(session)
        return _Prepared(session, validated, prompt, self._request(messages, system, session.system_prompt))

    @staticmethod
    def _context(domain: Domain, messages: list[dict[str, Any]], system: str) -> dict[str, Any]:
        """The session context a conversation implies: tools from the system prompt, and the
        first turn's ``**Current State:**`` as the initial state (a fault on turn 1 redraws the
        conversation's own screen, ``root@box:/srv#``, not a default one)."""
        context = context_from_system(system)
        first = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        state = state_of_turn(first) if domain.has_state else None
        if state is not None:
            context.setdefault("initial_state", state)
        return context

    def _replay(self, session: Session) -> None:
        """Run the perturbations' hooks over the earlier turns again, without the backend."""
        turns = session.trajectory.turns
        session.trajectory.turns = []
        for turn in turns:
            if turn.action is not None:
                validated = session.domain.validate_action(turn.action)
                short = self._replay_pm.hook.before_step(session=session, action=validated)
                seen = turn.observation if short is None else short
                self._replay_pm.chain(
                    "after_observation", "observation", seen, session=session, action=validated
                )
                if short is not None and short.text.strip() == turn.observation.text.strip():
                    # the conversation shows the injected answer: this action never reached the world
                    metadata = {**short.metadata, "short_circuit": True}
                    turn = Turn(
                        turn.number, turn.action, turn.prompt, short.model_copy(update={"metadata": metadata})
                    )
            session.trajectory.turns.append(turn)

    @staticmethod
    def _request(messages: list[dict[str, Any]], system: str, prompt: str) -> list[dict[str, Any]]:
        """The request's own messages, with the system prompt as ``prepare_system_prompt`` left it."""
        request = [dict(m) for m in messages]
        if prompt == system:
            return request
        for message in request:
            if message.get("role") == "system":
                message["content"] = prompt
                return request
        return [{"role": "system", "content": prompt}, *request]

    def _completion(self, observation: Observation, answered: Completion | None) -> Completion:
        metadata = dict(observation.metadata)
        metadata[METADATA_KEY] = list(metadata.get(METADATA_KEY, []))
        metadata["is_error"] = observation.is_error
        return Completion(
            text=f"<predicted_observation>\n{observation.text}\n</predicted_observation>",
            reasoning=observation.reasoning,
            usage=answered.usage if answered is not None else None,
            model=answered.model if answered is not None else None,
            finish_reason=(answered.finish_reason if answered is not None else None) or "stop",
            metadata=metadata,
        )
