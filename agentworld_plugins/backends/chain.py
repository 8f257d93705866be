"""Backend chains: ``scenario:tests/s.yaml,cassette:run.db,openai`` tries each backend in turn.

A backend that cannot answer a request raises :class:`NoAnswer` and the next one is asked. Two
kinds of entries behave specially when a chain is built from text:

- a factory with an ``inner`` keyword (``cassette``) wraps everything after it: the cassette
  replays what it holds and records what the rest of the chain answers;
- a factory with a ``fallthrough`` keyword (``scenario``) gets ``fallthrough=True`` when something
  follows it, so requests it has no step for pass on instead of failing.

>>> backend = build_backend_chain(settings, registry, "scenario:s.yaml,cassette:run.db,openai")  # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, ConfigError
from .base import Backend, Completion, Sampling

if TYPE_CHECKING:
    from ..config import Settings
    from ..plugins import Registry


class NoAnswer(BackendError):
    """Raised by a backend in a chain that has no answer for this request: try the next one."""


def _turn(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            first = str(message.get("content") or "").strip().splitlines()
            return first[0].strip() if first else "(empty user message)"
    return "(no user message)"


class ChainBackend(Backend):
    """Asks each backend in order and returns the first answer; :class:`NoAnswer` means "next".

    Other errors propagate at once. When every backend declines, :class:`NoAnswer` (a
    :class:`BackendError`) is raised listing each backend's reason, so a chain nested in another
    chain falls through too.
    """

    name = "chain"

    def __init__(self, backends: list[Backend]) -> None:
        if not backends:
            raise ConfigError(
                "A backend chain needs at least one backend", hint="e.g. scenario:s.yaml,openai"
            )
        self.backends = list(backends)

    def describe(self) -> str:
        return "chain(" + ", ".join(b.describe() for b in self.backends) + ")"

    def _none_answered(
        self, messages: list[dict[str, Any]], reasons: list[tuple[Backend, NoAnswer]]
    ) -> NoAnswer:
        lines = [f"  {i}. {b.describe()}: {exc}" for i, (b, exc) in enumerate(reasons, 1)]
        return NoAnswer(
            f"No backend in the chain answered {_turn(messages)}:\n" + "\n".join(lines),
            hint="add a backend that can answer (e.g. ',openai' at the end) or a scenario step for it",
        )

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        reasons: list[tuple[Backend, NoAnswer]] = []
        for backend in self.backends:
            try:
                return backend.complete(messages, sampling)
            except NoAnswer as exc:
                reasons.append((backend, exc))
        raise self._none_answered(messages, reasons)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        reasons: list[tuple[Backend, NoAnswer]] = []
        for backend in self.backends:
            try:
                return await backend.acomplete(messages, sampling)
            except NoAnswer as exc:
                reasons.append((backend, exc))
        raise self._none_answered(messages, reasons)

    def close(self) -> None:
        for backend in self.backends:
            backend.close()


# -- parsing ---------------------------------------------------------------------------------------


def split_backend_spec(text: str) -> tuple[str, str]:
    """``"cassette:run.db"`` -> ``("cassette", "run.db")``; ``"openai"`` -> ``("openai", "")``."""
    name, _, spec = text.strip().partition(":")
    return name.strip(), spec.strip()


_ENTRY = re.compile(r"^\s*([A-Za-z_][\w\-]*)\s*(?::(?!//)|$)")


def split_chain(text: str, known: set[str] | None = None) -> list[tuple[str, str]]:
    """``"scenario:a.yaml,cassette:b.db,openai"`` -> ``[("scenario", "a.yaml"), ...]``.

    The text is cut at commas, and a piece starts a new entry when it begins with a registered
    backend name followed by ``:`` or nothing, or with any other word followed by ``:`` (not
    ``://``) or nothing (so a misspelt name is reported). Other pieces (``http://b/v1``,
    ``b.db``) belong to the previous entry's spec, commas included.
    """
    entries: list[list[str]] = []
    for piece in text.split(","):
        if not piece.strip():
            raise ConfigError(f"Empty entry in backend chain {text!r}", hint="remove the extra comma")
        match = _ENTRY.match(piece)
        registered = match is None and known is not None and split_backend_spec(piece)[0] in known
        if match or registered or not entries:
            entries.append([piece])
        else:
            entries[-1].append(piece)
    return [split_backend_spec(",".join(parts)) for parts in entries]


def _accepts(factory: Any, keyword: str) -> bool:
    try:
        return keyword in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def build_backend_chain(settings: Settings, registry: Registry, text: str) -> Backend:
    """Build the backend a chain string names (see the module docstring); one entry gives that
    backend alone."""
    entries = split_chain(text, set(registry.backends))
    # look every name up before building anything; typed Any: wrapping factories take keywords
    factories: list[tuple[Any, str]] = [(registry.backend_factory(name), spec) for name, spec in entries]
    rest: list[Backend] = []  # the backends built for the entries after the current one
    try:
        for factory, spec in reversed(factories):
            if _accepts(factory, "inner"):
                inner = None if not rest else rest[0] if len(rest) == 1 else ChainBackend(rest)
                rest = [factory(settings, spec, inner=inner)]
            elif rest and _accepts(factory, "fallthrough"):
                rest.insert(0, factory(settings, spec, fallthrough=True))
            else:
                rest.insert(0, factory(settings, spec))
    except BaseException:
        for backend in rest:
            backend.close()
        raise
    return rest[0] if len(rest) == 1 else ChainBackend(rest)
