"""SkyRL: simulated environments as ``skyrl_gym`` text environments.

SkyRL's generator hands the environment the model's raw text each turn (``step(action: str)``)
and feeds back the observation messages it returns. :class:`AgentWorldTextEnv` plays one task
(the dataset row's ``extras["task"]``) against the world: tool domains read tool calls written
as ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (the Hermes/Qwen text form; the
system prompt lists the tools) and answer each with ``<tool_response>``; action-text domains read
the reply's fenced action. ``<answer>...</answer>``, a reply with no action, or the task's
``max_turns`` ends the episode with the task's reward.

>>> register_skyrl()                                                       # doctest: +SKIP
>>> env = skyrl_gym.make("agentworld", env_config={"backend": "offline"}, extras={"task": task})  # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import ConfigError
from .episode import (
    action_text,
    agent_system_prompt,
    first_user_message,
    start_episode,
    world_step,
)
from .rewards import score_sync
from .tasks import TOOL_DOMAINS, parse_task

try:  # the rl extra: skyrl-gym
    from skyrl_gym.envs.base_text_env import BaseTextEnv
except ImportError:  # pragma: no cover - only without the rl extra
    BaseTextEnv = object  # type: ignore[assignment,misc]

ENV_ID = "agentworld"
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)

TOOL_FORMAT = (
    "\n\nTools (JSON Schema):\n{tools}\n\nTo call a tool, write "
    '<tool_call>{{"name": TOOL, "arguments": {{...}}}}</tool_call>; the answer comes back in '
    "<tool_response>. When the task is done, reply with <answer>your final answer</answer>."
)


class AgentWorldTextEnv(BaseTextEnv):  # type: ignore[misc,valid-type]
    """One task in the simulated world, as a SkyRL text environment.

    ``env_config``: World options (``backend``, ``base_url``, ``model``, ``api_key``; default: the
    offline world). ``extras``: the dataset row; ``task`` is a task object or its JSON text.
    """

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        if BaseTextEnv is object:
            raise ConfigError(
                "skyrl-gym is not installed",
                hint='install the rl extra from the checkout: pip install -e ".[rl]"',
            )
        super().__init__()
        from ..session import World

        extras = dict(extras or {})
        given = extras.get("task")
        if isinstance(given, str):
            given = json.loads(given)
        if not isinstance(given, dict):
            raise ConfigError("The SkyRL row has no task", hint='put the task object in extras["task"]')
        options = {k: v for k, v in dict(env_config or {}).items() if v is not None}
        options.setdefault("backend", "offline")
        self.world = World(perturbations=[], **options)
        self.task = parse_task(given, 'extras["task"]', self.world.pm.registry)
        self.max_turns = self.task.max_turns
        self.episode = start_episode(self.task, int(extras.get("sample", 0)), self.world)

    def _system_prompt(self) -> str:
        system = agent_system_prompt(self.task, self.episode.session)
        if self.task.domain in TOOL_DOMAINS:
            tools = json.dumps([t["function"] for t in self.episode.tools], ensure_ascii=False, indent=1)
            system = system.split(" When it is done")[0] + TOOL_FORMAT.format(tools=tools)
        return system

    def init(self, prompt: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The first messages. SkyRL's generator passes the dataset row's prompt: its messages are
        kept, and the system message gets the environment's own (the tools, the ``<tool_call>``
        and ``<answer>`` formats) after the row's system text, so the model is told how to act.
        Without a prompt: the system prompt and the task's instruction."""
        system = self._system_prompt()
        info = {"task_id": self.task.id}
        if not prompt:
            return [
                {"role": "system", "content": system},
                {"role": "user", "content": first_user_message(self.task)},
            ], info
        messages = [dict(m) for m in prompt]
        if messages[0].get("role") == "system":
            given = str(messages[0].get("content") or "").strip()
            messages[0]["content"] = f"{given}\n\n{system}" if given else system
        else:
            messages.insert(0, {"role": "system", "content": system})
        return messages, info

    def _finish(self, observations: list[dict[str, Any]]) -> dict[str, Any]:
        reward, breakdown = score_sync(self.episode, self.world.pm.registry)
        return {
            "observations": observations,
            "reward": reward,
            "done": True,
            "metadata": {"reward_breakdown": breakdown, "turns": self.turns},
        }

    def step(self, action: str) -> dict[str, Any]:  # type: ignore[override]
        """One model reply: its tool calls or action played, or the episode finished."""
        self.turns += 1
        self.episode.turns = self.turns
        episode = self.episode
        if self.task.domain in TOOL_DOMAINS:
            calls = _TOOL_CALL.findall(action)
            if not calls:
                found = _ANSWER.search(action)
                episode.final_answer, episode.finish = (found.group(1) if found else action).strip(), "answer"
                return self._finish([])
            key = "name" if self.task.domain == "search" else "tool_name"
            answers = []
            for text in calls:
                try:
                    call = json.loads(text)
                    raw: Any = {key: call["name"], "arguments": call.get("arguments") or {}}
                    label = str(call["name"])
                except (ValueError, KeyError, TypeError):
                    answers.append("Error: the tool call is not JSON with a name and arguments")
                    episode.world_errors += 1
                    continue
                answers.append(world_step(self.episode, label, raw)[0])
            content = "\n".join(f"<tool_response>\n{a}\n</tool_response>" for a in answers)
        else:
            found_action = action_text(action)
            if found_action is None:
                found = _ANSWER.search(action)
                episode.final_answer, episode.finish = (found.group(1) if found else action).strip(), "answer"
                return self._finish([])
            content = world_step(self.episode, "action", found_action)[0]
        observations = [{"role": "user", "content": content}]
        if self.turns >= self.max_turns:
            return self._finish(observations)
        return {"observations": observations, "reward": 0.0, "done": False, "metadata": {}}

    def close(self) -> None:
        self.world.close()


def register_skyrl(env_id: str = ENV_ID) -> None:
    """Register :class:`AgentWorldTextEnv` with ``skyrl_gym`` under ``env_id``."""
    try:
        import skyrl_gym
    except ImportError:
        raise ConfigError(
            "skyrl-gym is not installed",
            hint='install the rl extra from the checkout: pip install -e ".[rl]"',
        ) from None
    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point=f"{__name__}:AgentWorldTextEnv")
