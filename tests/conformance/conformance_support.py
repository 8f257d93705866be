"""Helpers of the conformance suite: a cache for throwaway environments, a clean environment, an
app served on 127.0.0.1."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from agentworld_plugins.http_guard import serving
from agentworld_plugins.testing import clean_env as clean_env  # re-exported for the suite

#: one tool, as a tools file or a ``tools/list`` result holds it
TOOLS = {
    "tools": [
        {
            "name": "create_ticket",
            "description": "Create a support ticket.",
            "inputSchema": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "urgent": {"type": "boolean"}},
                "required": ["title"],
            },
        }
    ]
}


#: read once at import: the tests clear AGENTWORLD_* settings from the environment
CACHE_ROOT = Path(
    os.environ.get("AGENTWORLD_CONFORMANCE_CACHE") or Path.home() / ".cache" / "agentworld-conformance"
)


def cache_dir(*parts: str) -> Path:
    """Where throwaway environments (a venv, an npm install) live across runs, keyed by version."""
    path = CACHE_ROOT.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def served(app: Any) -> AbstractContextManager[str]:
    """``app`` on 127.0.0.1 in a thread, as ``agentworld ... serve`` runs it (lifespan on); yields
    ``http://127.0.0.1:<port>``."""
    return serving(app, lifespan="on")
