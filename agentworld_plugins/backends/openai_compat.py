"""Moved: the ``openai`` backend lives in :mod:`agentworld_plugins.backends.openai` (re-exported here)."""

from __future__ import annotations

from .openai import OpenAIBackend, OpenAICompatBackend
from .openai.sdk import START_HINT

__all__ = ["START_HINT", "OpenAIBackend", "OpenAICompatBackend"]
