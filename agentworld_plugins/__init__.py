"""agentworld-plugins: run existing agents, unchanged, against a world simulated by a language model.

>>> from agentworld_plugins import World
>>> world = World()                      # AGENTWORLD_* settings; the offline world if none
>>> term = world.session("terminal")
>>> term.step([{"keystrokes": "pwd\\n", "duration": 0.1}]).text.splitlines()[-2]  # doctest: +SKIP
'/app'
"""

from __future__ import annotations

from .backends import Backend, BackendRequest, Completion, Sampling
from .config import Settings
from .domains import Domain
from .errors import (
    ActionValidationError,
    AgentWorldError,
    BackendError,
    BackendUnavailableError,
    ConfigError,
    ContextBudgetError,
    PluginError,
    UnknownNameError,
)
from .hookspecs import hookimpl, leaves_messages
from .observation import Observation, OfflineResult
from .plugins import PluginManager, get_plugin_manager, new_plugin_manager
from .session import Session, Trajectory, Turn, World
from .turns import messages_for_record, parse_output, render_turn

__all__ = [
    "ActionValidationError",
    "AgentWorldError",
    "Backend",
    "BackendError",
    "BackendRequest",
    "BackendUnavailableError",
    "Completion",
    "ConfigError",
    "ContextBudgetError",
    "Domain",
    "Observation",
    "OfflineResult",
    "PluginError",
    "PluginManager",
    "Sampling",
    "Session",
    "Settings",
    "Trajectory",
    "Turn",
    "UnknownNameError",
    "World",
    "get_plugin_manager",
    "hookimpl",
    "leaves_messages",
    "messages_for_record",
    "new_plugin_manager",
    "parse_output",
    "render_turn",
]

# fronts' import-time setup, through entry points so the core imports no front: the gymnasium
# environments (browsergym/agentworld.*, agentworld/<domain>-v0) are registered when gymnasium is
# imported, without importing it here (see agentworld_plugins.adapters.gui.registration)
from .plugins import run_on_import_entry_points as _run_on_import_entry_points

_run_on_import_entry_points()
