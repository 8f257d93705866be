"""What the agent sees after one action: the observation type every layer passes around.

It sits in the base layer so that hooks, backends, perturbations and fronts can name it without
importing the session; :mod:`agentworld_plugins.session` and the package re-export it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Observation(BaseModel):
    """What the agent sees after one action, and how it came about."""

    text: str = Field(description="The observation as the agent sees it.")
    raw: str | None = Field(None, description="The model's whole answer (None when no model was asked).")
    reasoning: str | None = Field(None, description="The model's reasoning, kept apart from the text.")
    is_error: bool = Field(False, description="Whether the environment reports a failure.")
    metadata: dict[str, Any] = Field(default_factory=dict)
