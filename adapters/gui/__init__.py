"""Simulated GUI environments that look like BrowserGym, AndroidWorld and OSWorld, and generic
``agentworld/<domain>-v0`` text environments for RL libraries.

Each front turns an agent's actions into :meth:`~agentworld_plugins.Session.step` calls and the
world model's text into what the real library returns (observation dictionaries, accessibility
trees, ``State`` records, wireframe screenshots)::

    import gymnasium as gym
    import agentworld_plugins  # registers browsergym/agentworld.* and agentworld/*-v0

    env = gym.make("browsergym/agentworld.open", backend="offline")
    android = AgentWorldAndroidEnv(task="android/clock-set-alarm", backend="offline")
    desktop = DesktopEnv(backend="offline")

The names below are imported on first use, so that importing this package needs neither
gymnasium nor Pillow.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "AgentWorldAndroidEnv",
    "AgentWorldBrowserEnv",
    "AgentWorldTextEnv",
    "DesktopEnv",
    "Episode",
    "JSONAction",
    "State",
    "Task",
    "UIElement",
    "load_task",
    "register_envs",
]

_WHERE = {
    "AgentWorldAndroidEnv": "androidworld",
    "JSONAction": "androidworld",
    "State": "androidworld",
    "UIElement": "androidworld",
    "AgentWorldBrowserEnv": "browsergym",
    "AgentWorldTextEnv": "text_envs",
    "DesktopEnv": "osworld",
    "Episode": "episode",
    "Task": "task",
    "load_task": "task",
    "register_envs": "registration",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
