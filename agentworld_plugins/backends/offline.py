"""The embedded ``offline`` backend: a deterministic, stateful world with no model.

Each domain's ``offline_step(state, action, context)`` answers. Inside a session the offline
state lives on the session (actions answered by another backend of a chain are replayed into it
before the next offline answer). Without a session (``agentworld serve``), the domain is
recognised from the messages and the state is rebuilt by replaying the earlier actions, with a
cache keyed by the conversation so a growing conversation costs one step per request.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ..errors import ActionValidationError, BackendError
from .base import Backend, Completion, Sampling

if TYPE_CHECKING:
    from ..domains.base import Domain
    from ..plugins import Registry
    from ..session import Session

#: the session whose step is being answered (set by Session.step / astep)
current_session: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "agentworld_current_session", default=None
)

NOTICE = (
    "agentworld: no world model configured, using the embedded offline world (deterministic, no model). "
    "Set AGENTWORLD_BASE_URL=http://localhost:8000/v1 or pass --base-url to use Qwen-AgentWorld."
)

_ACTION = re.compile(r"\*\*Action:\*\*\n", re.MULTILINE)
_FENCED = re.compile(r"\A```([\w-]*)\n(.*?)\n?```\s*\Z", re.DOTALL)
_TURN = re.compile(r"\A### Turn (\d+)")


def extract_action(turn_prompt: str) -> tuple[str | None, str] | None:
    """``(fence language or None, action text)`` from a rendered turn prompt, or None."""
    matches = list(_ACTION.finditer(turn_prompt))
    if not matches:
        return None
    body = turn_prompt[matches[-1].end() :].strip("\n")
    fenced = _FENCED.match(body)
    if fenced:
        return fenced.group(1) or "", fenced.group(2)
    return None, body


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


def turn_number(prompt: str) -> int | None:
    """The N of a prompt's leading ``### Turn N`` header, or None."""
    found = _TURN.match(prompt.lstrip())
    return int(found.group(1)) if found else None


def system_of(messages: list[dict[str, Any]]) -> str:
    """The content of a conversation's first system message (``""`` when there is none)."""
    return next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")


def context_from_system(system: str) -> dict[str, Any]:
    """Tool definitions embedded in a system prompt as a JSON list (best effort)."""
    start = system.find('[\n  {\n    "name"')
    if start < 0:
        return {}
    depth = 0
    for i, ch in enumerate(system[start:], start):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            try:
                tools = json.loads(system[start : i + 1])
            except json.JSONDecodeError:
                return {}
            return {"tools": tools} if isinstance(tools, list) else {}
    return {}


class DomainDetector:
    """Recognises the domain of a chat conversation in the trained turn format: by its system
    prompt (the first line of a bundled template), else by the shape of the current action.

    Shared by the offline world and :class:`~agentworld_plugins.backends.perturbing.PerturbingBackend`,
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

    def detect(self, messages: list[dict[str, Any]]) -> Domain:
        """The domain of a conversation; a :class:`BackendError` when it cannot be told."""
        from ..domain_detect import guess_domain  # the turns' own shape first, any system prompt

        guessed = guess_domain(messages, list(self.registry.domains))
        if guessed is not None:
            return self.registry.domain(guessed)
        system = system_of(messages)
        for marker, name in self.markers().items():
            if marker in system:
                return self.registry.domain(name)
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


class OfflineBackend(Backend):
    """Answers every turn with the domain's deterministic offline behaviour."""

    name = "offline"

    def __init__(self, registry: Registry, *, default: bool = False, cache_size: int = 256) -> None:
        self.registry = registry
        self.notice = NOTICE if default else None
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
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
            raise BackendError(
                "The offline world cannot tell which domain this conversation is", hint=exc.hint
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
            if turn.action is not None and not turn.observation.metadata.get("short_circuit"):
                action = session.domain.validate_action(turn.action)
                session.domain.offline_step(store["state"], action, session.context)
        store["applied"] = done
        return store

    def _answer(
        self, domain: Domain, state: dict[str, Any], action: Any, context: dict[str, Any]
    ) -> Completion:
        try:
            result = domain.offline_step(state, action, context)
        except NotImplementedError:
            raise BackendError(
                f"The offline world has no behaviour for domain {domain.name!r}",
                hint="use a scenario or cassette backend for it, or a real world model",
            ) from None
        metadata: dict[str, Any] = {"offline": True, **result.metadata}
        if result.is_error is not None:
            metadata["is_error"] = result.is_error
        return Completion(text=_wrap(result.text), metadata=metadata, model="offline", finish_reason="stop")

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        session = current_session.get()
        if session is not None:
            domain = session.domain
            action = self._parse_action(domain, str(messages[-1].get("content") or ""))
            with self._lock:
                store = self._session_state(session)
                completion = self._answer(domain, store["state"], action, session.context)
                store["applied"] += 1
            return completion
        return self._complete_stateless(messages)

    def _complete_stateless(self, messages: list[dict[str, Any]]) -> Completion:
        if not messages or messages[-1].get("role") != "user":
            raise BackendError(
                "The last message must be the user's turn prompt", hint="end with the current turn"
            )
        domain = self.detect_domain(messages)
        system = system_of(messages)
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        action = self._parse_action(domain, users[-1])
        context = self._context_from_system(system)
        with self._lock:
            state = self._cache.pop(self._key(domain.name, users[:-1], system), None)
            if state is None:
                state = {}
                for prompt in users[:-1]:
                    domain.offline_step(state, self._parse_action(domain, prompt), context)
            completion = self._answer(domain, state, action, context)
            self._cache[self._key(domain.name, users, system)] = state
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return completion

    @staticmethod
    def _context_from_system(system: str) -> dict[str, Any]:
        return context_from_system(system)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return self.complete(messages, sampling)
