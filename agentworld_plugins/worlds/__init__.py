"""Named worlds: one environment whatever touches it (docs/worlds.md).

- :class:`SharedWorld`: a world's fronts on one state, kept in the world store
  (``$AGENTWORLD_HOME/shell.db``) across connections, processes and restarts;
- :func:`list_worlds`, :func:`load_world` (a :class:`WorldView` to read: files, SQL tables,
  ledgers, each front's history, the calls in order), :func:`reset_world`, :func:`remove_world`:
  what ``agentworld world ls|show|export|reset|rm`` do.
"""

from __future__ import annotations

from .shared import NAME_PATTERN, SharedWorld, check_world_name, fresh_world
from .view import WorldCall, WorldView, list_worlds, load_world, remove_world, reset_world, world_store

__all__ = [
    "NAME_PATTERN",
    "SharedWorld",
    "WorldCall",
    "WorldView",
    "check_world_name",
    "fresh_world",
    "list_worlds",
    "load_world",
    "remove_world",
    "reset_world",
    "world_store",
]
