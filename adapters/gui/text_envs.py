"""``agentworld/<domain>-v0``: plain text gymnasium environments for RL libraries.

One environment per domain (mcp, search, terminal, swe, android, web, os). The observation is
the world's text (a terminal screen, a page tree, a tool result, ...); the action is text (JSON
for terminal, mcp, search, swe and android; a BrowserGym call for web; Python code for os) or the
already-parsed object (a dict or list). ``reset(options={"task": ...})`` picks a task (a bundled
id, a file, a mapping); on the offline backend an episode is deterministic for a given seed.

>>> import gymnasium as gym, agentworld_plugins                                       # doctest: +SKIP
>>> env = gym.make("agentworld/terminal-v0", backend="offline")                      # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                                                    # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step('[{"keystrokes": "ls\\n"}]')  # doctest: +SKIP

An invalid action (one longer than the action space's ``max_length``, 8192 characters, included)
leaves the observation as it was and sets ``info["action_error"]``; an answer
of the world model that is not a screen of the domain keeps the previous one and sets
``info["observation_error"]``. ``reward`` is 1.0 when the task's success criteria hold (the
episode then terminates); an episode also terminates when the agent ends it (``DONE``/``FAIL``,
an Android ``status`` action, ``report_infeasible``, an empty terminal action list), and is
truncated after ``max_steps`` steps.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from agentworld_plugins.errors import ConfigError

from .episode import Episode
from .spaces import ACTION_MAX_LENGTH, Unicode
from .task import DOMAINS, Task, load_task

__all__ = ["DEFAULT_MAX_STEPS", "AgentWorldTextEnv"]

DEFAULT_MAX_STEPS = 50


class AgentWorldTextEnv(gym.Env):
    """A text-in, text-out environment of one domain on the world model (see the module docs).

    ``task``: the default task (``reset(options={"task": ...})`` overrides it). ``world`` /
    ``backend``: where the world model runs (default: ``AGENTWORLD_*`` settings, else the offline
    world). ``session_options``: extra arguments of every :meth:`World.session` call.
    ``max_steps``: truncation (default: the task's, else 50).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        domain: str,
        task: str | dict[str, Any] | Task | None = None,
        *,
        world: Any = None,
        backend: Any = None,
        session_options: dict[str, Any] | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if domain not in DOMAINS:
            raise ConfigError(f"Unknown domain {domain!r}", hint=f"use one of {', '.join(DOMAINS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"Unknown render_mode {render_mode!r}", hint="use 'ansi' or None")
        self.domain = domain
        self.render_mode = render_mode
        self.max_steps = max_steps
        self._task_source = task
        self.episode = Episode(domain, world=world, backend=backend, session_options=session_options)
        self.observation_space = Unicode()
        self.action_space = Unicode(max_length=ACTION_MAX_LENGTH)

    @property
    def task(self) -> Task:
        return self.episode.task

    def _task(self, options: dict[str, Any]) -> Task:
        source = options.get("task", self._task_source)
        if source is None:
            return Task(id=f"{self.domain}-open", domain=self.domain)  # type: ignore[arg-type]
        return load_task(source, self.domain)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        start = self.episode.begin(self._task(options), seed=seed)
        info = {
            "domain": self.domain,
            "task_id": self.task.id,
            "instruction": self.task.instruction,
            "initial_state": start.source,
            "initial_state_error": start.error,
        }
        return self.episode.text, info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if isinstance(action, bytes):
            action = action.decode("utf-8", errors="replace")
        if isinstance(action, str) and not self.action_space.contains(action):
            outcome = self.episode.refuse(
                f"the action is {len(action)} characters long; this environment's action space, "
                f"{self.action_space!r}, allows at most {self.action_space.max_length}"
            )
        else:
            outcome = self.episode.act(action)
        terminated = bool(outcome.success or self.episode.ended)
        limit = self.max_steps or self.task.max_steps or DEFAULT_MAX_STEPS
        truncated = bool(self.episode.steps >= limit and not terminated)
        info = outcome.info()
        info.update(
            {
                "domain": self.domain,
                "task_id": self.task.id,
                "step": self.episode.steps,
                "answer": self.episode.answer,
                "ended_by_agent": self.episode.ended,
                "infeasible": self.episode.infeasible,
            }
        )
        return outcome.text, 1.0 if outcome.success else 0.0, terminated, truncated, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.episode.text
        return None

    def close(self) -> None:
        return None
