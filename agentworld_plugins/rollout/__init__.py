"""Sim-RL rollouts: agent policies play tasks against the simulated world; episodes are scored
by reward checks and written as chat JSONL for trainers.

>>> from agentworld_plugins.rollout import RolloutSpec, rollout
>>> spec = RolloutSpec(agent="scripted:agent.yaml")                        # doctest: +SKIP
>>> rollout("tasks.jsonl", "episodes.jsonl", spec, group_size=4)            # doctest: +SKIP

See ``docs/rollouts.md``.
"""

from __future__ import annotations

from .agent import EpisodeInfo, OpenAIPolicy, Policy, ScriptedPolicy, make_policy
from .episode import Episode, episode_seeds, play
from .rewards import RewardResult, score_episode
from .runner import EpisodeRunner, RolloutSpec, arollout, episode_line, rollout
from .state import WorldState, world_state
from .tasks import RewardSpec, Task, load_tasks, parse_task, write_tasks

__all__ = [
    "Episode",
    "EpisodeInfo",
    "EpisodeRunner",
    "OpenAIPolicy",
    "Policy",
    "RewardResult",
    "RewardSpec",
    "RolloutSpec",
    "ScriptedPolicy",
    "Task",
    "WorldState",
    "arollout",
    "episode_line",
    "episode_seeds",
    "load_tasks",
    "make_policy",
    "parse_task",
    "play",
    "rollout",
    "score_episode",
    "world_state",
    "write_tasks",
]
