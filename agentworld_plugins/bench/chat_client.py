"""The bench's lean client: the ``openai`` backend over its lean transport.

Kept for its earlier name; :func:`~.endpoints` builds :class:`~agentworld_plugins.backends.openai.OpenAIBackend`
with ``transport="lean"`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..backends.openai import OpenAIBackend
from ..backends.openai.transport import LeanTransport

__all__ = ["ChatClientBackend"]

#: no bound of the backend's own: the bench runner bounds the concurrency
UNBOUNDED = 1 << 20


class ChatClientBackend(OpenAIBackend):
    """The ``openai`` backend over the lean transport, with no retries of its own (the bench
    runner retries)."""

    def __init__(
        self,
        base_urls: Sequence[str],
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 600.0,
        max_idle: int = 256,
        **options: Any,
    ) -> None:
        options = {"max_retries": 0, "concurrency": UNBOUNDED, **options}
        super().__init__(
            base_urls, model, api_key, timeout=timeout, transport="lean", max_idle=max_idle, **options
        )

    @property
    def lean(self) -> LeanTransport:
        assert isinstance(self.transport, LeanTransport)
        return self.transport

    @property
    def endpoints(self) -> list[Any]:
        return self.lean.endpoints
