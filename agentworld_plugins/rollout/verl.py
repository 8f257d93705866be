"""verl: an ``AgentLoop`` that plays simulated tasks inside verl's own rollout.

verl (0.9) runs each dataset row through the agent loop its ``agent_name`` column names. The loop
registered here as ``agentworld`` reads the row's task (``extra_info.task`` or a ``task`` column: a
task JSON object or string, see docs/rollouts.md), starts a fresh session of its simulated world,
and alternates the trainer's own generation (``server_manager.generate`` on token ids) with world
steps. Tool calls are read with verl's own tool parser (``hermes``: ``<tool_call>{...}</tool_call>``,
or the rollout config's ``multi_turn.format``); tokens are kept with verl's Continuous Token
builder, so the response mask marks exactly the model's tokens. The task's reward checks score the
episode into ``reward_score``; the breakdown and the conversation go in ``extra_fields``.

>>> import agentworld_plugins.rollout.verl                                      # doctest: +SKIP
>>> # config: actor_rollout_ref.rollout.agent.agent_loop_config_path -> agent_name: agentworld

The world is :attr:`AgentWorldAgentLoop.world` (set it once per process), else ``World()`` from
the ``AGENTWORLD_*`` settings, built on first use.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import TYPE_CHECKING, Any, ClassVar

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register
from verl.experimental.agent_loop.tool_parser import ToolParser

from ..errors import ConfigError
from .episode import (
    Episode,
    agent_system_prompt,
    first_user_message,
    parse_arguments,
    start_episode,
    tool_action,
    world_step,
)
from .rewards import score_episode
from .tasks import TOOL_DOMAINS, Task, parse_task

if TYPE_CHECKING:
    from ..session import World

AGENT_NAME = "agentworld"


def row_task(row: dict[str, Any]) -> tuple[Task, int]:
    """The task of a verl dataset row and the episode's sample number: ``extra_info.task`` or a
    ``task`` column (an object or JSON text); the sample is ``extra_info.sample``, else the row's
    ``index``."""
    given = row.get("extra_info")
    extra: dict[str, Any] = given if isinstance(given, dict) else {}
    raw = extra.get("task", row.get("task"))
    if raw is None:
        raise ConfigError(
            "The verl row has no task",
            hint="put the task JSON in the row's extra_info.task (or a task column)",
        )
    task = parse_task(json.loads(raw) if isinstance(raw, str) else raw, "the verl row's task")
    if task.domain not in TOOL_DOMAINS:
        raise ConfigError(
            f"The verl agent loop plays tool domains ({', '.join(TOOL_DOMAINS)}), not {task.domain!r}",
            hint="use the SkyRL or OpenEnv adapter for action-text domains",
        )
    return task, int(extra.get("sample", row.get("index", 0)) or 0)


@register(AGENT_NAME)
class AgentWorldAgentLoop(AgentLoopBase):  # type: ignore[misc]
    """One simulated episode per call of :meth:`run`."""

    #: the world every episode of this process plays in (None: ``World()`` on first use)
    world: ClassVar[World | None] = None

    @classmethod
    def _world(cls) -> World:
        if cls.world is None:
            from ..session import World

            cls.world = World()
        return cls.world

    async def run(self, sampling_params: dict[str, Any], **row: Any) -> AgentLoopOutput:
        task, sample = row_task(row)
        world = self._world()
        loop = asyncio.get_running_loop()
        episode = await loop.run_in_executor(None, lambda: start_episode(task, sample, world))
        messages = [
            {"role": "system", "content": agent_system_prompt(task, episode.session)},
            {"role": "user", "content": first_user_message(task)},
        ]
        episode.messages[:] = messages
        tools = episode.tools
        multi_turn = self.rollout_config.get("multi_turn") or {}
        parser = ToolParser.get_tool_parser(multi_turn.get("format") or "hermes", self.tokenizer)
        prompt_ids = await self.ct_build_initial_tokens(list(messages), tools=tools)
        tokens: list[int] = list(prompt_ids)
        mask: list[int] = []
        logprobs: list[float] | None = None
        request_id = uuid.uuid4().hex
        timings = {"generate_sequences": 0.0, "tool_calls": 0.0, "compute_score": 0.0}
        for _ in range(task.max_turns):
            started = time.perf_counter()
            output = await self.server_manager.generate(
                request_id, prompt_ids=tokens, sampling_params=sampling_params
            )
            timings["generate_sequences"] += time.perf_counter() - started
            if output.log_probs and logprobs is None:
                logprobs = []  # the trainer's server gives them: kept for every response token
            merged, mask, new_logprobs = await self.ct_merge_assistant_token(
                tokens, output.token_ids, mask, logprobs, assistant_logprobs=output.log_probs or None
            )
            tokens = merged.token_ids
            logprobs = new_logprobs if logprobs is not None else None
            content, calls = await parser.extract_tool_calls(output.token_ids, None)
            episode.turns += 1
            reply: dict[str, Any] = {"role": "assistant", "content": content}
            if calls:
                reply["tool_calls"] = [
                    {
                        "id": f"call_{episode.turns}_{n}",
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for n, c in enumerate(calls)
                ]
            previous = list(messages)
            messages.append(reply)
            if not calls:
                episode.final_answer, episode.finish = content, "answer"
                break
            started = time.perf_counter()
            for call in reply["tool_calls"]:
                text = await loop.run_in_executor(None, self._step, episode, call["function"])
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
            timings["tool_calls"] += time.perf_counter() - started
            merged, mask, new_logprobs = await self.ct_merge_context_msg(
                [*previous, reply], list(messages), tokens, mask, logprobs, tools=tools
            )
            tokens, logprobs = merged.token_ids, new_logprobs if logprobs is not None else None
        episode.messages[:] = messages
        started = time.perf_counter()
        reward, breakdown = await score_episode(episode, world.pm.registry)
        timings["compute_score"] = time.perf_counter() - started
        response = tokens[len(prompt_ids) :]
        return AgentLoopOutput(
            prompt_ids=list(prompt_ids),
            response_ids=response,
            response_mask=mask[: len(response)],
            response_logprobs=logprobs[: len(response)] if logprobs else None,
            reward_score=reward,
            num_turns=len(messages),
            metrics=timings,
            extra_fields={
                "reward_breakdown": breakdown,
                "messages": messages,
                "finish": episode.finish,
                "world_steps": episode.world_steps,
                "task_id": task.id,
            },
        )

    @staticmethod
    def _step(episode: Episode, function: dict[str, Any]) -> str:
        """One tool call as a world step (bad JSON arguments are answered, not stepped)."""
        name = str(function.get("name") or "")
        arguments, problem = parse_arguments(str(function.get("arguments") or ""))
        if problem is not None:
            episode.world_errors += 1
            episode.steps.append((name, None, None))
            return problem
        return world_step(episode, name, tool_action(episode.task.domain, name, arguments))[0]


__all__ = ["AGENT_NAME", "AgentWorldAgentLoop", "row_task"]
