"""The backend protocol: ``complete(messages, sampling) -> Completion`` and its async twin."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Sampling(BaseModel):
    """Sampling parameters sent with every request."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(0.6, ge=0, le=2, description="0.6 for training variety, 0.0 for evaluation.")
    max_tokens: int = Field(4096, ge=1, description="Most tokens the model may generate.")
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = Field(None, description="Passed to the server for reproducible sampling.")
    stop: list[str] | None = None
    extra_body: dict[str, Any] | None = Field(
        None, description="Server-specific fields (vLLM/SGLang: top_k, chat_template_kwargs, ...)."
    )

    def request_fields(self) -> dict[str, Any]:
        """The non-empty fields, as the OpenAI chat-completions API names them."""
        return self.model_dump(exclude_none=True, exclude={"extra_body"})


@dataclass
class Completion:
    """One backend answer. ``reasoning`` is what a reasoning parser split off, if anything."""

    text: str
    reasoning: str | None = None
    usage: dict[str, int] | None = None
    model: str | None = None
    finish_reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class BackendRequest:
    """What the ``call_backend`` hook receives."""

    messages: list[dict[str, Any]]
    sampling: Sampling
    backend: Backend
    is_async: bool = False


class Backend:
    """Base class for backends. Subclasses implement :meth:`complete`; override :meth:`acomplete`
    when they have a native async path (the default runs :meth:`complete` in a worker thread).
    """

    name: str = "backend"
    #: whether requests must fit the session's context budget (False where no model reads them)
    context_budget: bool = True

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        raise NotImplementedError

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return await asyncio.to_thread(self.complete, messages, sampling)

    def describe(self) -> str:
        """One line for logs and ``Observation.metadata['backend']``."""
        return self.name

    def close(self) -> None:
        """Release connections; the backend may not be used afterwards."""


def served_extras(body: Mapping[str, Any]) -> dict[str, Any]:
    """What an ``agentworld serve`` answer carries beside the choices, for the observation's
    metadata: ``perturbations`` (its ``--perturb`` provenance: the faults it injected, so a remote
    session's trajectory keeps them for ``agentworld report``) and ``warnings``."""
    extras: dict[str, Any] = {}
    listed = body.get("perturbations")
    if isinstance(listed, list) and all(isinstance(e, dict) for e in listed):
        extras["perturbations"] = [dict(e) for e in listed]
    warnings = body.get("warnings")
    if isinstance(warnings, list):
        extras["warnings"] = [str(w) for w in warnings]
    return extras
