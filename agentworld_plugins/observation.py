"""What the agent sees after one action (:class:`Observation`) and what an offline world answers
(:class:`OfflineResult`): the observation types every layer passes around.

It sits in the base layer so that hooks, backends, perturbations and fronts can name it without
importing the session or the domains; :mod:`agentworld_plugins.session`,
:mod:`agentworld_plugins.domains.base` and the package re-export them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field


class Observation(BaseModel):
    """What the agent sees after one action, and how it came about."""

    text: str = Field(description="The observation as the agent sees it.")
    raw: str | None = Field(None, description="The model's whole answer (None when no model was asked).")
    reasoning: str | None = Field(None, description="The model's reasoning, kept apart from the text.")
    is_error: bool = Field(False, description="Whether the environment reports a failure.")
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass
class OfflineResult:
    """What an offline world (``register_offline_worlds``) answers: the observation text and,
    optionally, whether it is an error (``None``: let :meth:`Domain.is_error` decide) and extra
    metadata."""

    text: str
    is_error: bool | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
