"""The embedded ``offline`` backend: a deterministic, stateful world with no model.

The world registered for the session's domain through ``register_offline_worlds`` answers
(``step(state, action, context)``); a domain that overrides ``Domain.offline_step`` answers itself. Inside a session the offline
state lives on the session (actions answered by another backend of a chain are replayed into it
before the next offline answer). Without a session (``agentworld serve``), the domain is
recognised from the messages and the state is rebuilt by replaying the earlier actions, with a
cache keyed by the conversation so a growing conversation costs one step per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..current import current_session
from ..errors import ActionValidationError, BackendError
from ..turns import context_from_system, extract_action, state_of_turn, system_of
from .base import Backend, Completion, Sampling

if TYPE_CHECKING:
    from ..domains.base import Domain
    from ..plugins import Registry
    from ..session import Session

NOTICE = (
    "agentworld: no world model configured, using the embedded offline world (deterministic, no model). "
    "Set AGENTWORLD_BASE_URL=http://localhost:8000/v1 or pass --base-url to use Qwen-AgentWorld."
)


def parse_action(domain: Domain, prompt: str) -> Any:
    """The domain's validated action from a rendered turn prompt.

    Raises :class:`BackendError` when the prompt has no ``**Action:**`` and the domain's
    :class:`ActionValidationError` when the action does not fit it.
    """
    found = extract_action(prompt)
    if found is None:
        raise BackendError(
            f"Found no **Action:** in the turn prompt {prompt[:60]!r}",
            hint="send turns in the trained format (### Turn N / **Action:** ...)",
        )
    return domain.validate_action(found[1])


#: the first line of a world-model system prompt: every bundled template and plugin template
#: (docs/writing-plugins.md) starts with "# <Environment> World Model"
_WORLD_MODEL_HEADING = re.compile(r"#[ \t]+([^\n]*World Model)[ \t]*(?:\n|$)")


class DomainDetector:
    """Recognises the domain of a chat conversation in the trained turn format: by its system
    prompt (the first line of a bundled template), else by the shape of the current action.

    Shared by the offline world and :class:`~agentworld_plugins.perturbations.proxy.PerturbingBackend`,
    which both answer conversations that arrive without a session.
    """

    #: domains tried in this order when the system prompt names none (then the rest)
    ORDER = ("terminal", "android", "search", "os", "swe", "mcp", "web")

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._markers: dict[str, str] | None = None

    def markers(self) -> dict[str, str]:
        """The first line of each bundled template, to recognise a domain by its system prompt."""
        if self._markers is None:
            markers = {}
            for name, dom in self.registry.domains.items():
                try:
                    first = dom.template().strip().splitlines()[0].strip()
                except Exception:
                    continue
                if first:
                    markers[first] = name
            self._markers = markers
        return self._markers

    def unknown_heading(self, system: str) -> str | None:
        """The ``# ... World Model`` heading a system prompt starts with when it is no registered
        domain's template (a plugin installed after this process started), else None."""
        heading = _WORLD_MODEL_HEADING.match(system.lstrip())
        if heading is None or any(marker in system for marker in self.markers()):
            return None
        return heading.group(1).strip()

    def unknown_domain_error(self, heading: str) -> BackendError:
        return BackendError(
            f"The system prompt is for {heading!r}, which is no domain of this server (it has "
            f"{', '.join(sorted(self.registry.domains))})",
            hint="install the plugin that adds the domain and restart the server (plugins load when "
            "it starts); `agentworld domains` lists what is loaded",
        )

    def detect(self, messages: list[dict[str, Any]]) -> Domain:
        """The domain of a conversation; a :class:`BackendError` when it cannot be told."""
        from ..domain_detect import forced_domain, guess_domain  # the turns' own shape, any prompt

        system = system_of(messages)
        for marker, name in self.markers().items():  # a registered template, as rendered: certain
            if system.lstrip().startswith(marker) and not forced_domain.get():
                return self.registry.domain(name)
        guessed = guess_domain(messages, list(self.registry.domains))
        if guessed is not None:
            return self.registry.domain(guessed)
        for marker, name in self.markers().items():
            if marker in system:
                return self.registry.domain(name)
        unknown = self.unknown_heading(system)
        if unknown:  # a domain's template, but not one registered here: guessing by shape answers wrongly
            raise self.unknown_domain_error(unknown)
        prompt = str(messages[-1].get("content") or "") if messages else ""
        order = [*self.ORDER, *(n for n in self.registry.domains if n not in self.ORDER)]
        for name in order:
            dom = self.registry.domains.get(name)
            if dom is None:
                continue
            try:
                parse_action(dom, prompt)
            except (ActionValidationError, BackendError):
                continue
            return dom
        raise BackendError(
            "Cannot tell which domain this conversation is",
            hint="start with one of the bundled system prompts (agentworld prompt DOMAIN)",
        )


def _wrap(text: str) -> str:
    return f"<predicted_observation>\n{text}\n</predicted_observation>"


#: the longest turn prompt a light step may have (its action's arguments are in it)
LIGHT_PROMPT_CHARS = 16_384


class OfflineBackend(Backend):
    """Answers every turn with the domain's deterministic offline behaviour."""

    name = "offline"
    context_budget = False  # it reads the action, not a model's context: no token budget

    def __init__(self, registry: Registry, *, default: bool = False, cache_size: int = 256) -> None:
        self.registry = registry
        self.notice = NOTICE if default else None
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cache_size = cache_size
        #: guards the tables below (held only for lookups, never while a world runs)
        self._lock = threading.Lock()
        #: one lock per session (shared by the sessions of one machine): worlds of different
        #: sessions run at the same time, each session's steps one after another
        self._session_locks: weakref.WeakKeyDictionary[Session, threading.RLock] = weakref.WeakKeyDictionary()
        self._detector = DomainDetector(registry)

    def describe(self) -> str:
        return "offline"

    # -- actions from messages -------------------------------------------------------------------

    def _parse_action(self, domain: Domain, prompt: str) -> Any:
        try:
            return parse_action(domain, prompt)
        except BackendError as exc:
            raise BackendError(
                f"The offline world found no **Action:** in the turn prompt {prompt[:60]!r}", hint=exc.hint
            ) from None

    def _system_markers(self) -> dict[str, str]:
        return self._detector.markers()

    def detect_domain(self, messages: list[dict[str, Any]]) -> Domain:
        """The domain of a conversation: by its system prompt, else by the action's shape."""
        try:
            return self._detector.detect(messages)
        except BackendError as exc:
            detail = "" if exc.message.startswith("Cannot tell") else f": {exc.message}"
            raise BackendError(
                f"The offline world cannot tell which domain this conversation is{detail}", hint=exc.hint
            ) from None

    # -- state -----------------------------------------------------------------------------------

    @staticmethod
    def _key(domain: str, user_prompts: list[str], system: str) -> str:
        digest = hashlib.blake2b(digest_size=16)
        digest.update(domain.encode())
        digest.update(system.encode())
        for prompt in user_prompts:
            digest.update(b"\x00")
            digest.update(prompt.encode())
        return digest.hexdigest()

    def _session_state(self, session: Session) -> dict[str, Any]:
        store = session.state.setdefault("offline", {"applied": 0, "state": {}})
        done = len(session.trajectory.turns)
        for turn in session.trajectory.turns[store["applied"] : done]:
            # answered by another backend of a chain: bring the world up to date (a turn a plugin
            # answered in before_step, such as an injected fault, never reached the world)
            if turn.action is None:
                continue
            if not turn.observation.metadata.get("short_circuit"):
                action = session.domain.validate_action(turn.action)
                self.world_for(session.domain, session.pm.registry)(store["state"], action, session.context)
                continue
            answered = session.pm.registry.offline_answered.get(session.domain.name)
            if answered is not None:  # the world shows what the agent saw (a terminal's screen)
                action = session.domain.validate_action(turn.action)
                answered(store["state"], action, turn.observation.text, session.context)
        store["applied"] = done
        return store

    def world_for(self, domain: Domain, registry: Registry | None = None) -> Callable[..., Any]:
        """The offline world of ``domain``: its own ``offline_step`` when it overrides it, else the
        one registered for its name in ``registry`` (a session's; default: the backend's); a
        :class:`BackendError` when there is none."""
        own = getattr(type(domain), "offline_step", None)
        if own is not None and not getattr(own, "registry_lookup", False):
            return domain.offline_step  # type: ignore[no-any-return]
        step = (registry or self.registry).offline_world(domain.name)
        if step is None:
            raise BackendError(
                f"The offline world has no behaviour for domain {domain.name!r}",
                hint="use a scenario or cassette backend for it, or a real world model "
                "(a plugin adds an offline world with register_offline_worlds)",
            )
        return step

    def _answer(
        self,
        domain: Domain,
        state: dict[str, Any],
        action: Any,
        context: dict[str, Any],
        registry: Registry | None = None,
    ) -> Completion:
        step = self.world_for(domain, registry)
        try:
            result = step(state, action, context)
        except NotImplementedError:
            raise BackendError(
                f"The offline world has no behaviour for domain {domain.name!r}",
                hint="use a scenario or cassette backend for it, or a real world model",
            ) from None
        metadata: dict[str, Any] = {"offline": True, **result.metadata}
        if result.is_error is not None:
            metadata["is_error"] = result.is_error
        return Completion(text=_wrap(result.text), metadata=metadata, model="offline", finish_reason="stop")

    def _session_action(self, session: Session, prompt: Any) -> Any:
        """The action of ``session``'s turn prompt: the session's own validated action when the
        prompt is the very string it rendered from it (no plugin changed it), else parsed."""
        rendered = session.rendered
        if rendered is not None and rendered[0] is prompt:
            return rendered[1]
        return self._parse_action(session.domain, str(prompt or ""))

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        session = current_session.get()
        if session is not None:
            domain = session.domain
            action = self._session_action(session, messages[-1].get("content"))
            with self.session_lock(session):
                store = self._session_state(session)
                completion = self._answer(
                    domain, store["state"], action, session.context, session.pm.registry
                )
                store["applied"] += 1
            return completion
        return self._complete_stateless(messages)

    def session_lock(self, session: Session) -> threading.RLock:
        """The lock ``session``'s world is stepped under (one machine's sessions share one)."""
        with self._lock:
            lock = self._session_locks.get(session)
            if lock is None:
                lock = self._session_locks[session] = threading.RLock()
            return lock

    def _share_lock(self, sessions: list[Session]) -> None:
        with self._lock:
            lock = threading.RLock()
            for session in sessions:
                self._session_locks[session] = lock

    def _complete_stateless(self, messages: list[dict[str, Any]]) -> Completion:
        if not messages or messages[-1].get("role") != "user":
            raise BackendError(
                "The last message must be the user's turn prompt", hint="end with the current turn"
            )
        domain = self.detect_domain(messages)
        system = system_of(messages)
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        try:
            action = self._parse_action(domain, users[-1])
        except ActionValidationError:
            unknown = self._detector.unknown_heading(system)
            if unknown:  # the action only looked like another domain's: say which domain it was for
                error = self._detector.unknown_domain_error(unknown)
                raise BackendError(
                    f"The offline world cannot answer this conversation: {error.message}", hint=error.hint
                ) from None
            raise
        context = self._context_from_system(system)
        initial = state_of_turn(users[0]) if domain.has_state else None
        if initial is not None:  # the session's initial_state travels in the first turn's prompt
            context["initial_state"] = initial
        with self._lock:  # taken out of the table: no other request steps the same state object
            state = self._cache.pop(self._key(domain.name, users[:-1], system), None)
        if state is None:  # rebuilt outside the table's lock: other conversations go on meanwhile
            state = {}
            step = self.world_for(domain)
            for prompt in users[:-1]:
                step(state, self._parse_action(domain, prompt), context)
        completion = self._answer(domain, state, action, context)
        with self._lock:
            self._cache[self._key(domain.name, users, system)] = state
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return completion

    @staticmethod
    def _context_from_system(system: str) -> dict[str, Any]:
        return context_from_system(system)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        # a world's step is CPU work of up to its budget: in a worker thread, so the event loop
        # (a server's /health, other sessions) never waits for it; the context (current session)
        # goes with it. A light step (its world says so) is answered here: the hand-off to a
        # thread and back would cost more than the step.
        session = current_session.get()
        if session is not None and messages:
            completion = self._light_step(session, messages[-1].get("content"))
            if completion is not None:
                return completion
        return await asyncio.to_thread(self.complete, messages, sampling)

    def _light_step(self, session: Session, prompt: Any) -> Completion | None:
        """``session``'s step answered on the caller's thread, or None (it runs in a worker
        thread) unless all hold: its world registered which steps are light (``kind="light"``)
        and says this one is, the turn prompt is short, the world is up to date (no turns of
        another backend to replay) and no other thread is stepping it."""
        registry = session.pm.registry
        light = registry.offline_light.get(session.domain.name)
        if light is None or not isinstance(prompt, str) or len(prompt) > LIGHT_PROMPT_CHARS:
            return None
        if self.world_for(session.domain, registry) is not registry.offline_worlds.get(session.domain.name):
            return None  # the domain's own offline_step answers it: the registered check is not its
        lock = self.session_lock(session)
        if not lock.acquire(blocking=False):
            return None
        try:
            store = session.state.get("offline")
            if store is None or store["applied"] != len(session.trajectory.turns):
                return None
            action = self._session_action(session, prompt)
            if not light(store["state"], action, session.context):
                return None
            completion = self._answer(session.domain, store["state"], action, session.context, registry)
            store["applied"] += 1
            return completion
        finally:
            lock.release()

    # -- the public state API (fronts that keep sessions across processes) ------------------------

    def start(self, session: Session, state: dict[str, Any]) -> None:
        """Start ``session``'s offline world from ``state`` (the objects its world keeps, e.g. a
        machine shared with another session) instead of building it from the context on the first
        step. ``state`` is the world before the session's first turn: turns the session already
        has are replayed into it now."""
        with self.session_lock(session):
            session.state["offline"] = {"applied": 0, "state": state}
            self._session_state(session)

    def start_machine(self, sessions: dict[str, Session], **machine: Any) -> None:
        """Start shell sessions (swe, terminal) on one simulated machine: one filesystem, a shell
        each (interactive for the terminal domain). ``machine`` takes ``files`` (a ``{path:
        content}`` seed or a folder to copy), ``cwd``, ``hostname``, ``user`` and ``env``."""
        build = self._machine_builder()
        states = build({n: s.domain.name for n, s in sessions.items()}, **machine)
        self._share_lock(list(sessions.values()))  # one filesystem: their steps take turns
        for name, session in sessions.items():
            self.start(session, states[name])

    def join_machine(self, session: Session, machine: dict[str, Any], **options: Any) -> None:
        """Start ``session``'s offline world on a machine other sessions may share (a named
        world's): ``machine`` holds the shared objects (its ``"fs"``, made from ``options`` —
        ``files``, ``cwd``, ``hostname``, ``user``, ``env`` — when it has none yet). A shell domain
        gets a shell of its own on that filesystem, the mcp domain file tools on it; the others
        a state of their own."""
        build = self._machine_builder()
        states = build(
            {"front": session.domain.name}, shared=machine, contexts={"front": session.context}, **options
        )
        self.start(session, states["front"])

    def read_resource(self, session: Session, uri: str) -> tuple[str, str] | None:
        """``(text, mime type)`` of MCP resource ``uri`` in ``session``'s world, up to date with its
        turns; None when its world does not know that resource (``register_offline_worlds(...,
        kind="resource")``)."""
        read = session.pm.registry.offline_resources.get(session.domain.name)
        if read is None:
            return None
        with self.session_lock(session):
            found = read(self._session_state(session)["state"], uri, session.context)
        return None if found is None else (str(found[0]), str(found[1]))

    def share_lock(self, sessions: list[Session]) -> None:
        """Step ``sessions`` under one lock (they share a machine)."""
        self._share_lock(sessions)

    def _machine_builder(self) -> Callable[..., Any]:
        build = self.registry.offline_machines.get("shell")
        if build is None:
            raise BackendError(
                "No offline shell machine is registered",
                hint="load the built-in offline plugin (agentworld_plugins.offline.plugin) or a plugin "
                'that calls register("shell", build, kind="machine") in register_offline_worlds',
            )
        return build

    def state(self, session: Session) -> dict[str, Any]:
        """``session``'s offline world state, brought up to date with its turns (turns another
        backend of a chain answered are replayed into it). Fronts read it, e.g. ``state["terminal"]``
        (the terminal domain's screen) and ``state["vm"]`` (the shell machine)."""
        with self.session_lock(session):
            return self._session_state(session)["state"]  # type: ignore[no-any-return]

    def snapshot(self, sessions: dict[str, Session]) -> bytes:
        """The offline worlds of the named sessions as bytes (objects they share stay shared);
        :meth:`restore` takes it back in a process running the same version."""
        import pickle

        with contextlib.ExitStack() as held:
            for lock in self._locks_of(sessions):
                held.enter_context(lock)
            states = {name: s.state.get("offline") for name, s in sessions.items()}
            return snapshot_tag().encode() + b"\n" + pickle.dumps(states, protocol=pickle.HIGHEST_PROTOCOL)

    def _locks_of(self, sessions: dict[str, Session]) -> list[threading.RLock]:
        """The sessions' locks, each once, in one fixed order (no two callers deadlock)."""
        unique = {id(lock): lock for lock in (self.session_lock(s) for s in sessions.values())}
        return [unique[k] for k in sorted(unique)]

    @staticmethod
    def snapshot_version() -> str:
        """The tag a :meth:`snapshot` starts with: the package and Python version that wrote it."""
        return snapshot_tag()

    def restore(self, sessions: dict[str, Session], snapshot: bytes) -> bool:
        """Put the worlds of a :meth:`snapshot` back into the named sessions; False (nothing
        changed) when it was written by another version or does not load. Turns the sessions have
        beyond the snapshot are replayed into them now."""
        import pickle

        tag, _, body = snapshot.partition(b"\n")
        if tag != snapshot_tag().encode():
            return False
        try:
            states = pickle.loads(body)
        except Exception:
            return False
        if not isinstance(states, dict) or not all(name in states for name in sessions):
            return False
        with contextlib.ExitStack() as held:
            for lock in self._locks_of(sessions):
                held.enter_context(lock)
            for name, session in sessions.items():
                if states[name] is None:
                    session.state.pop("offline", None)
                else:
                    session.state["offline"] = states[name]
            for session in sessions.values():
                self._session_state(session)
        return True


#: bump when the offline state's pickled layout changes incompatibly
SNAPSHOT_FORMAT = 1


_TAG: list[str] = []


def snapshot_tag() -> str:
    """What an :meth:`OfflineBackend.snapshot` must have been written by to be restored."""
    if not _TAG:
        import sys
        from importlib.metadata import PackageNotFoundError, version

        try:
            package = version("agentworld-plugins")
        except PackageNotFoundError:  # pragma: no cover - not installed
            package = "0"
        _TAG.append(f"{package}|py{sys.version_info[0]}.{sys.version_info[1]}|{SNAPSHOT_FORMAT}")
    return _TAG[0]


def find_offline(backend: Backend, depth: int = 0) -> OfflineBackend | None:
    """The embedded offline backend that ``backend`` is, wraps or chains, else None."""
    if isinstance(backend, OfflineBackend):
        return backend
    if depth > 8:
        return None
    inner = [*(getattr(backend, "backends", None) or []), getattr(backend, "inner", None)]
    for candidate in inner:
        found = find_offline(candidate, depth + 1) if candidate is not None else None
        if found is not None:
            return found
    return None
