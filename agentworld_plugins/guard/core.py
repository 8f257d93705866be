"""The consistency guard: a world model's observations checked against what the world knows.

A :class:`GuardedBackend` wraps the backend that answers (a world model, a scenario, a cassette).
For every step of a session it asks that backend as usual, then hands the action and the model's
observation to the domain's :class:`Checker`. The checker keeps *facts* in the session's state
(``session.state["guard"]``): what the agent's own actions established (a file it wrote, a row it
inserted, an issue it created or deleted) and what the model asserted first about things nothing
established yet (the content of a file the model showed first becomes the file's content). Each
fact remembers the turn that established it and whether the agent or the model did.

When an observation contradicts a fact, the policy decides:

- ``flag``: the observation is returned unchanged, with ``metadata["guard"]`` saying what
  contradicts what, and the turn that established it;
- ``repair``: the model is asked once more, with the contradiction stated; if its second answer
  still contradicts, the checker's facts are substituted into the model's own text;
- ``engine``: where the checker knows the whole answer exactly the engine answers (the model is
  not asked); elsewhere contradicted facts are substituted into the model's text without a
  second request.

Free text and generated values (timestamps, ids the model invents for new things, prose) are never
checked: only content, presence, counts, ids and values that an earlier turn fixed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..backends.base import Backend, Completion, Sampling
from ..current import current_session
from ..errors import AgentWorldError, ConfigError
from ..turns import context_from_system, extract_action, system_of

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..domains.base import Domain

POLICIES = ("flag", "repair", "engine")

#: the policy of each domain when none is chosen (docs/guard.md explains the choice)
DEFAULT_POLICIES: dict[str, str] = {"mcp": "repair", "swe": "repair", "terminal": "repair"}
FALLBACK_POLICY = "flag"

#: the note the model gets with a repair request (the contradictions follow it)
REPAIR_NOTE = (
    "Note from the environment: your previous prediction for this turn contradicted the "
    "environment's state established in earlier turns. Predict the observation again, consistent "
    "with these facts:"
)


@dataclass
class Contradiction:
    """One fact an observation contradicts."""

    #: what kind of fact: ``content``, ``presence``, ``absence``, ``rows``, ``count``, ``field``,
    #: ``duplicate-id``
    kind: str
    #: what the fact is about: ``/app/a.txt``, ``table notes``, ``issue 12``
    subject: str
    #: the fact as the world knows it (short)
    expected: Any
    #: what the observation said instead (short)
    observed: Any
    #: the turn that established the fact, and by whom: ``agent`` (its action) or ``model`` (an
    #: earlier observation)
    turn: int
    source: str

    def describe(self) -> str:
        by = "your action" if self.source == "agent" else "the observation"
        return (
            f"{self.subject}: expected {_short(self.expected)} (established by {by} in turn "
            f"{self.turn}), the prediction says {_short(self.observed)}"
        )

    def to_json(self) -> dict[str, Any]:
        found = asdict(self)
        found["expected"] = _short(self.expected, 300)
        found["observed"] = _short(self.observed, 300)
        return found


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class Verdict:
    """A checker's judgement of one observation."""

    contradictions: list[Contradiction] = field(default_factory=list)
    #: whether anything in the observation was compared with a fact
    checked: bool = False


class Checker:
    """The guard of one domain. Subclasses implement the four methods; all state lives in
    ``facts`` (the session's ``state["guard"]["facts"]``: plain, picklable values) so a named
    world keeps it across processes."""

    domain: str = ""

    def check(self, facts: dict[str, Any], action: BaseModel, text: str, context: dict[str, Any]) -> Verdict:
        """Compare observation ``text`` of ``action`` with the facts; change nothing."""
        raise NotImplementedError

    def substitute(
        self, facts: dict[str, Any], action: BaseModel, text: str, verdict: Verdict, context: dict[str, Any]
    ) -> str:
        """``text`` with the contradicted facts replaced by the world's, in the text's own form."""
        raise NotImplementedError

    def exact(self, facts: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> str | None:
        """The whole observation when the facts determine it exactly, else None."""
        return None

    def commit(
        self,
        facts: dict[str, Any],
        action: BaseModel,
        text: str,
        is_error: bool,
        turn: int,
        context: dict[str, Any],
    ) -> None:
        """Record what ``action`` and the observation the agent got establish."""
        raise NotImplementedError


def parse_policy(text: str | None, domain: str) -> str:
    """The policy named by ``text`` (None: the domain's default); a ConfigError naming the choices."""
    if text is None or text == "":
        return DEFAULT_POLICIES.get(domain, FALLBACK_POLICY)
    if text not in POLICIES:
        raise ConfigError(
            f"Unknown guard policy {text!r}", hint="use one of: " + ", ".join(POLICIES) + " (docs/guard.md)"
        )
    return text


def _wrap(text: str) -> str:
    return f"<predicted_observation>\n{text}\n</predicted_observation>"


@dataclass
class _Step:
    """What one guarded request is about: the domain, its checker, the action, the facts."""

    domain: Domain
    checker: Checker
    action: BaseModel
    facts: dict[str, Any]
    context: dict[str, Any]
    turn: int
    #: where events are kept (a session's state), or None (a conversation without a session)
    state: dict[str, Any] | None


class GuardedBackend(Backend):
    """Answers with ``inner`` and checks every answer with the domain's checker (see the module
    docstring). Inside a session the facts live in its state; a conversation that arrives
    without one (``agentworld serve``, ``bench infer``) has its facts rebuilt from its earlier
    turns (cached by conversation, so a growing conversation costs one turn per request)."""

    name = "guarded"

    def __init__(
        self, inner: Backend, checkers: dict[str, Checker], policy: str | None = None, cache_size: int = 256
    ) -> None:
        self.inner = inner
        self.checkers = checkers
        if policy is not None:
            parse_policy(policy, "")
        self.policy = policy
        self.context_budget = inner.context_budget
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"guarded({self.policy or 'default'}: {self.inner.describe()})"

    def close(self) -> None:
        self.inner.close()

    # -- the step ----------------------------------------------------------------------------------

    def _prepare(self, messages: list[dict[str, Any]]) -> _Step | None:
        if not messages:
            return None
        session = current_session.get()
        if session is not None:
            domain = session.domain
        else:
            try:
                domain = _detector().detect(messages)
            except AgentWorldError:
                return None
        checker = self.checkers.get(domain.name)
        if checker is None:
            return None
        action = _action(domain, str(messages[-1].get("content") or ""))
        if action is None:
            return None
        if session is not None:
            return _Step(
                domain,
                checker,
                action,
                _facts(session.state),
                session.context,
                session.turn_number,
                session.state,
            )
        context = context_from_system(system_of(messages))
        facts = self._conversation_facts(domain, checker, messages, context)
        turn = sum(1 for m in messages if m.get("role") == "user")
        return _Step(domain, checker, action, facts, context, turn, None)

    def _conversation_facts(
        self, domain: Domain, checker: Checker, messages: list[dict[str, Any]], context: dict[str, Any]
    ) -> dict[str, Any]:
        """The facts the earlier turns of a conversation established (each turn committed as if
        the guard had answered it)."""
        import copy

        pairs = [
            (str(messages[i].get("content") or ""), str(messages[i + 1].get("content") or ""))
            for i in range(len(messages) - 1)
            if messages[i].get("role") == "user" and messages[i + 1].get("role") == "assistant"
        ]
        key = _conversation_key(domain.name, system_of(messages), pairs)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return copy.deepcopy(found)
            shorter = self._cache.get(_conversation_key(domain.name, system_of(messages), pairs[:-1]))
        facts: dict[str, Any] = copy.deepcopy(shorter) if shorter is not None else {}
        for number, (prompt, answer) in enumerate(pairs, 1):
            if shorter is not None and number < len(pairs):
                continue
            action = _action(domain, prompt)
            if action is None:
                continue
            text = domain.parse_output(answer, None).text
            checker.commit(facts, action, text, domain.is_error(text, action), number, context)
        with self._lock:
            self._cache[key] = copy.deepcopy(facts)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return facts

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        step = self._prepare(messages)
        if step is None:
            return self._unchecked(self.inner.complete(messages, sampling))
        policy = parse_policy(self.policy, step.domain.name)
        exact = step.checker.exact(step.facts, step.action, step.context) if policy == "engine" else None
        if exact is not None:
            completion = Completion(text=_wrap(exact), model="guard", finish_reason="stop")
            return self._finish(step, completion, exact, Verdict(checked=True), "engine")
        completion = self.inner.complete(messages, sampling)
        text, verdict = self._judge(step, completion)
        if not verdict.contradictions:
            return self._finish(step, completion, text, verdict, "none")
        if policy == "repair":
            second = self.inner.complete(self._repair_request(messages, verdict), sampling)
            return self._after_repair(step, second, verdict)
        if policy == "engine":
            return self._substituted(step, completion, text, verdict, verdict)
        return self._finish(step, completion, text, verdict, "flagged")

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        step = self._prepare(messages)
        if step is None:
            return self._unchecked(await self.inner.acomplete(messages, sampling))
        policy = parse_policy(self.policy, step.domain.name)
        exact = step.checker.exact(step.facts, step.action, step.context) if policy == "engine" else None
        if exact is not None:
            completion = Completion(text=_wrap(exact), model="guard", finish_reason="stop")
            return self._finish(step, completion, exact, Verdict(checked=True), "engine")
        completion = await self.inner.acomplete(messages, sampling)
        text, verdict = self._judge(step, completion)
        if not verdict.contradictions:
            return self._finish(step, completion, text, verdict, "none")
        if policy == "repair":
            second = await self.inner.acomplete(self._repair_request(messages, verdict), sampling)
            return self._after_repair(step, second, verdict)
        if policy == "engine":
            return self._substituted(step, completion, text, verdict, verdict)
        return self._finish(step, completion, text, verdict, "flagged")

    # -- pieces --------------------------------------------------------------------------------------

    @staticmethod
    def _unchecked(completion: Completion) -> Completion:
        completion.metadata.setdefault("guard", {"checked": False, "reason": "no checker for this request"})
        return completion

    @staticmethod
    def _judge(step: _Step, completion: Completion) -> tuple[str, Verdict]:
        text = step.domain.parse_output(completion.text, completion.reasoning).text
        return text, step.checker.check(step.facts, step.action, text, step.context)

    def _after_repair(self, step: _Step, second: Completion, first: Verdict) -> Completion:
        text, verdict = self._judge(step, second)
        if not verdict.contradictions:
            return self._finish(step, second, text, first, "repaired")
        return self._substituted(step, second, text, verdict, first)

    @staticmethod
    def _repair_request(messages: list[dict[str, Any]], verdict: Verdict) -> list[dict[str, Any]]:
        """The same request with the contradictions stated before the turn prompt (the action
        stays where the turn format puts it: last)."""
        lines = [f"- {c.describe()}" for c in verdict.contradictions]
        last = dict(messages[-1])
        last["content"] = f"{REPAIR_NOTE}\n" + "\n".join(lines) + f"\n\n{last.get('content') or ''}"
        return [*messages[:-1], last]

    def _substituted(
        self, step: _Step, completion: Completion, text: str, verdict: Verdict, first: Verdict
    ) -> Completion:
        fixed = step.checker.substitute(step.facts, step.action, text, verdict, step.context)
        replaced = Completion(
            text=_wrap(fixed),
            reasoning=completion.reasoning,
            usage=completion.usage,
            model=completion.model,
            finish_reason=completion.finish_reason,
            metadata=dict(completion.metadata),
        )
        return self._finish(step, replaced, fixed, first, "substituted")

    def _finish(
        self, step: _Step, completion: Completion, text: str, verdict: Verdict, outcome: str
    ) -> Completion:
        is_error = completion.metadata.get("is_error")
        if not isinstance(is_error, bool):
            is_error = step.domain.is_error(text, step.action)
        step.checker.commit(step.facts, step.action, text, is_error, step.turn, step.context)
        event = {
            "checked": verdict.checked,
            "policy": parse_policy(self.policy, step.domain.name),
            "outcome": outcome,
            "contradictions": [c.to_json() for c in verdict.contradictions],
        }
        if verdict.contradictions and step.state is not None:
            guard = step.state.setdefault("guard", {})
            guard.setdefault("events", []).append(
                {"turn": step.turn, "outcome": outcome, "count": len(verdict.contradictions)}
            )
        completion.metadata["guard"] = event
        return completion


def _action(domain: Domain, prompt: str) -> BaseModel | None:
    found = extract_action(prompt)
    if found is None:
        return None
    try:
        return domain.validate_action(found[1])
    except AgentWorldError:
        return None


def _conversation_key(domain: str, system: str, pairs: list[tuple[str, str]]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in (domain, system, *(x for pair in pairs for x in pair)):
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


_DETECTOR: list[Any] = []


def _detector() -> Any:
    if not _DETECTOR:
        from ..backends.offline import DomainDetector
        from ..plugins import get_plugin_manager

        _DETECTOR.append(DomainDetector(get_plugin_manager().registry))
    return _DETECTOR[0]


def _facts(state: dict[str, Any]) -> dict[str, Any]:
    guard = state.setdefault("guard", {})
    facts: dict[str, Any] = guard.setdefault("facts", {})
    return facts


def guard_summary(observations_metadata: list[dict[str, Any]]) -> dict[str, int]:
    """Counts of guard events over observations' metadata: steps checked, contradicted, and
    each outcome (``flagged``, ``repaired``, ``substituted``, ``engine``)."""
    counts = {"checked": 0, "contradicted": 0, "contradictions": 0}
    for metadata in observations_metadata:
        event = metadata.get("guard") if isinstance(metadata, dict) else None
        if not isinstance(event, dict):
            continue
        counts["checked"] += bool(event.get("checked"))
        found = event.get("contradictions") or []
        if found:
            counts["contradicted"] += 1
            counts["contradictions"] += len(found)
        outcome = event.get("outcome")
        if isinstance(outcome, str) and outcome != "none":
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts
