"""World-model backends and how a backend string becomes one.

A backend string is ``name`` or ``name:spec`` (``transformers:/models/tiny``); the name is looked
up among the backends registered through the ``register_backends`` hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Backend, BackendRequest, Completion, Sampling
from .chain import build_backend_chain, split_backend_spec

if TYPE_CHECKING:
    from ..config import Settings
    from ..plugins import Registry

__all__ = ["Backend", "BackendRequest", "Completion", "Sampling", "make_backend", "split_backend_spec"]


def default_backend_name(settings: Settings) -> str:
    """The backend used when none is named: ``openai`` with a base URL, else the offline world."""
    return "openai" if settings.base_url else "offline:default"


def make_backend(settings: Settings, registry: Registry, text: str | None = None) -> Backend:
    """Build the backend named by ``text`` (default: ``settings.backend``, then the default).

    A comma-separated text is a chain: ``scenario:s.yaml,cassette:run.db,openai``.
    """
    text = text or settings.backend or default_backend_name(settings)
    if "," in text:
        backend = build_backend_chain(settings, registry, text)
    else:
        name, spec = split_backend_spec(text)
        backend = registry.backend_factory(name)(settings, spec)
    if settings.guard and not text.startswith("guarded"):  # --guard / AGENTWORLD_GUARD: wrap it
        guarded = registry.backend_factory("guarded")
        return guarded(settings, settings.guard, inner=backend)  # type: ignore[call-arg]
    return backend
