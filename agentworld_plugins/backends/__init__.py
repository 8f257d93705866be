"""World-model backends and how a backend string becomes one.

A backend string is ``name`` or ``name:spec`` (``transformers:/models/tiny``); the name is looked
up among the backends registered through the ``register_backends`` hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Backend, BackendRequest, Completion, Sampling

if TYPE_CHECKING:
    from ..config import Settings
    from ..plugins import Registry

__all__ = ["Backend", "BackendRequest", "Completion", "Sampling", "make_backend", "split_backend_spec"]


def split_backend_spec(text: str) -> tuple[str, str]:
    """``"cassette:run.db"`` -> ``("cassette", "run.db")``; ``"openai"`` -> ``("openai", "")``."""
    name, _, spec = text.strip().partition(":")
    return name.strip(), spec.strip()


def default_backend_name(settings: Settings) -> str:
    """The backend used when none is named: ``openai`` when a base URL is set."""
    from ..errors import ConfigError

    if settings.base_url:
        return "openai"
    raise ConfigError(
        "No world model configured",
        hint="set AGENTWORLD_BASE_URL=http://localhost:8000/v1 (a vLLM or SGLang server) "
        "or pass --backend / AGENTWORLD_BACKEND",
    )


def make_backend(settings: Settings, registry: Registry, text: str | None = None) -> Backend:
    """Build the backend named by ``text`` (default: ``settings.backend``, then the default)."""
    name, spec = split_backend_spec(text or settings.backend or default_backend_name(settings))
    return registry.backend_factory(name)(settings, spec)
