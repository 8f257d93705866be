"""Stored shell sessions as :class:`~agentworld_plugins.Trajectory` objects (one per front), for
``agentworld shell export`` and for training data."""

from __future__ import annotations

from pathlib import Path

from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.session import Observation, Trajectory, Turn
from agentworld_plugins.store import SessionStore

from .terminal import DOMAINS, FRONTS

__all__ = ["trajectories"]


def trajectories(home: str | Path, session_id: str) -> list[Trajectory]:
    """The trajectories of stored session ``session_id`` (fronts without turns left out)."""
    record = SessionStore.at_home(home).load(session_id)
    if record is None:
        raise AgentWorldError(
            f"No shell session named {session_id!r} in {home}", hint="see `agentworld shell sessions`"
        )
    fronts = record.meta.get("fronts") or {}
    out = []
    for front in [*FRONTS, *(f for f in fronts if f not in FRONTS)]:
        rows = [r for r in record.turns if r.front == front]
        if not rows:
            continue
        data = fronts.get(front) or {}
        domain = str(data.get("domain") or DOMAINS.get(front, front))
        traj = Trajectory(f"{session_id}.{front}", domain, str(data.get("system_prompt") or ""))
        traj.turns = [
            Turn(r.number, r.action, r.prompt, Observation.model_validate(r.observation)) for r in rows
        ]
        out.append(traj)
    return out
