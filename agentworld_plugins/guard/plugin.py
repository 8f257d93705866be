"""Built-in plugin: the ``guarded`` and ``drift`` backends and the guards of the mcp, terminal, swe and
android domains."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..config import Settings


def guarded_backend(settings: Settings, spec: str, inner: Backend | None = None) -> Backend:
    """``guarded[:POLICY][:INNER]``: ``guarded:openai``, ``guarded:repair:openai``, or ``guarded:flag``
    in front of a chain (``guarded:flag,openai``). POLICY is ``flag``, ``repair``, ``engine`` or
    ``default`` (each domain's own, docs/guard.md); INNER defaults to the backend the settings
    name without a guard."""
    from ..backends import make_backend
    from ..errors import ConfigError
    from ..plugins import get_plugin_manager
    from .core import POLICIES, GuardedBackend, parse_policy

    first, _, rest = spec.partition(":")
    policy: str | None = None
    if first in (*POLICIES, "default"):
        policy = None if first == "default" else first
        spec = rest
    elif first and not rest and first not in get_plugin_manager().registry.backends:
        parse_policy(first, "")  # a misspelt policy: say so
    registry = get_plugin_manager().registry
    if inner is None:
        if spec.split(":", 1)[0] == "guarded":
            raise ConfigError(
                "A guarded backend cannot guard another one", hint="name one guard: guarded:repair:openai"
            )
        unguarded = settings.model_copy(update={"guard": None})
        text = spec or (
            settings.backend if settings.backend and not settings.backend.startswith("guarded") else None
        )
        inner = make_backend(unguarded, registry, text)
    checkers = {domain: factory() for domain, factory in registry.guards.items()}
    return GuardedBackend(inner, checkers, policy)


def _mcp() -> object:
    from .mcp import McpChecker

    return McpChecker()


def _terminal() -> object:
    from .shell import ShellChecker

    return ShellChecker("terminal")


def _swe() -> object:
    from .shell import ShellChecker

    return ShellChecker("swe")


def _android() -> object:
    from .android import AndroidChecker

    return AndroidChecker()


@hookimpl
def register_backends(register: Callable[..., None]) -> None:
    from .drift import drift_backend

    register("guarded", guarded_backend)
    register("drift", drift_backend)


@hookimpl
def register_guards(register: Callable[..., None]) -> None:
    register("mcp", _mcp)
    register("terminal", _terminal)
    register("swe", _swe)
    register("android", _android)
