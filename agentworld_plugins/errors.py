"""The error hierarchy. Every message says what went wrong and how to fix it."""

from __future__ import annotations

import reprlib
from collections.abc import Iterable
from typing import Any

from .redaction import redact_text

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 4, 200, 200, 60


def short_repr(value: Any) -> str:
    """A bounded ``repr`` (nesting, long strings and huge numbers cut) for error messages."""
    try:
        return _REPR.repr(value)
    except (RecursionError, ValueError):
        return f"<{type(value).__name__}>"


class AgentWorldError(Exception):
    """Base class of every error this package raises on purpose.

    ``hint`` is the fix, shown after the message by the CLI and in ``str()``.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        # messages are printed and served: credentials inside them (a URL's password) never are
        message = redact_text(message)
        hint = None if hint is None else redact_text(hint)
        self.message = message
        self.hint = hint
        super().__init__(f"{message} ({hint})" if hint else message)


class ConfigError(AgentWorldError):
    """Settings or arguments that cannot work together."""


class UnknownNameError(AgentWorldError, KeyError):
    """A domain, backend, perturbation or tool pack name that nothing registered."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        listing = ", ".join(self.known) or "none"
        super().__init__(
            f"Unknown {kind} {name!r}",
            hint=f"registered {kind}s: {listing}; a plugin can add more with "
            f"register_{kind.replace(' ', '_')}s",
        )

    def __str__(self) -> str:  # KeyError would repr() the message otherwise
        return Exception.__str__(self)


class PluginError(AgentWorldError):
    """A plugin failed to load or registered something invalid."""


class ActionValidationError(AgentWorldError, ValueError):
    """An agent's action does not fit its domain's ``Action`` model.

    ``errors`` holds one dict per bad field: ``loc`` (dotted path), ``msg``, ``input`` and
    ``expected``.
    """

    def __init__(self, domain: str, errors: list[dict[str, Any]], *, hint: str | None = None) -> None:
        self.domain = domain
        self.errors = errors
        lines = [f"{len(errors)} validation error{'s' if len(errors) != 1 else ''} for {domain} action"]
        for err in errors:
            lines.append(f"  {err['loc'] or '(action)'}: {err['msg']} (got {short_repr(err['input'])})")
        super().__init__("\n".join(lines), hint=hint)


class BackendError(AgentWorldError):
    """The world-model backend failed to answer."""


class BackendUnavailableError(BackendError):
    """The world model could not be reached at all (connection refused, DNS, timeouts)."""


class ContextBudgetError(AgentWorldError):
    """A single turn does not fit in the session's context budget even with history dropped."""


class ParseWarning(UserWarning):
    """Model output that needed repair to yield an observation (never raised, only recorded)."""
