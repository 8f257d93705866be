"""Moved: the session store lives in the core, :mod:`agentworld_plugins.store` (re-exported here)."""

from __future__ import annotations

from agentworld_plugins.store import (
    DB_NAME,
    SessionRecord,
    SessionStore,
    StoreConflictError,
    StoreError,
    StoreLockedError,
    TurnRow,
)

__all__ = [
    "DB_NAME",
    "SessionRecord",
    "SessionStore",
    "StoreConflictError",
    "StoreError",
    "StoreLockedError",
    "TurnRow",
]
