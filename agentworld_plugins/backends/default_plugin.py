"""Built-in plugin: the ``openai`` and ``transformers`` backends and the default backend call."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..config import Settings
    from .base import Backend, BackendRequest


def _openai(settings: Settings, spec: str) -> Backend:
    from .openai import from_settings

    return from_settings(settings, spec)


def _transformers(settings: Settings, spec: str) -> Backend:
    from .transformers_local import TransformersBackend

    return TransformersBackend(spec or settings.model or "")


def _offline(settings: Settings, spec: str) -> Backend:
    from ..plugins import get_plugin_manager
    from .offline import OfflineBackend

    return OfflineBackend(get_plugin_manager().registry, default=spec == "default")


@hookimpl
def register_backends(register: Callable[..., None]) -> None:
    register("openai", _openai)
    register("transformers", _transformers)
    register("offline", _offline)


@hookimpl(trylast=True)
def call_backend(session: Any, request: BackendRequest) -> Any:
    if request.is_async:
        return request.backend.acomplete(request.messages, request.sampling)
    return request.backend.complete(request.messages, request.sampling)
