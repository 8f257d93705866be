"""One episode: an agent policy plays one task against the simulated world, turn by turn.

Tool domains (mcp, swe, search) use native tool calling: the agent's ``tool_calls`` are world
steps and each observation goes back as a ``tool`` message. Action-text domains (terminal, web,
android, os) read the action from the agent's reply (its last fenced block, else the whole
reply) and send the observation back as a ``user`` message; ``<answer>...</answer>`` ends the
episode there. In both, a reply with no action is the final answer.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ActionValidationError
from .agent import EpisodeInfo
from .tasks import TOOL_DOMAINS, Task

if TYPE_CHECKING:
    from ..session import Observation, Session, World
    from ..worlds import SharedWorld

_FENCE = re.compile(r"```[\w-]*\n(.*?)\n?```", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def derive_seed(*parts: Any) -> int:
    """A stable 31-bit seed from the parts (the same on every machine and Python)."""
    digest = hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (2**31)


def episode_seeds(task: Task, sample: int) -> dict[str, int]:
    """The seeds of episode ``sample`` of a task's group: distinct per sample, the same on reruns."""
    return {
        "task": task.seed,
        "sample": sample,
        "world": derive_seed(task.id, task.seed, sample, "world"),
        "agent": derive_seed(task.id, task.seed, sample, "agent"),
    }


def openai_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """MCP tool definitions in the OpenAI ``tools`` form the agent's server expects."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": str(tool.get("description") or ""),
                "parameters": tool.get("inputSchema") or {"type": "object", "properties": {}},
            },
        }
        for tool in tools or []
    ]


def agent_tool_definitions(session: Session) -> list[dict[str, Any]]:
    """The tools the agent is offered: the session's tool definitions (tool domains only)."""
    if session.domain.name not in TOOL_DOMAINS:
        return []
    tools = session.context.get("tools")
    if tools is None and session.domain.name == "search":
        from ..domains.search import SEARCH_TOOLS

        tools = SEARCH_TOOLS
    return openai_tools(tools)


def agent_system_prompt(task: Task, session: Session) -> str:
    """The agent's system prompt: its role and, in action-text domains, the action format."""
    domain = session.domain
    role = f"You are an agent working in the {domain.name} environment ({domain.description.rstrip('.')}). "
    if domain.name in TOOL_DOMAINS:
        return (
            role + "Use the tools to carry out the task. When it is done, reply with your final answer "
            "and no tool call."
        )
    example = domain.example_action
    shown = example if isinstance(example, str) else json.dumps(example)
    return (
        role + "Each turn, reply with exactly one action in a fenced code block, for example:\n"
        f"```\n{shown}\n```\n"
        "When the task is done, reply with <answer>your final answer</answer> and no action."
    )


def first_user_message(task: Task) -> str:
    text = task.instruction
    if task.initial_state:
        text += f"\n\nThe environment shows:\n{task.initial_state}"
    return text


@dataclass
class Episode:
    """A played episode: the conversation, how it ended, and the session it played in."""

    task: Task
    sample: int
    seeds: dict[str, int]
    session: Session
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    final_answer: str | None = None
    finish: str = "max_turns"  # "answer" | "max_turns"
    turns: int = 0
    world_steps: int = 0
    world_errors: int = 0
    #: (tool or action, arguments, observation) of every world step, in order
    steps: list[tuple[str, Any, Observation | None]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=lambda: {"agent_s": 0.0, "world_s": 0.0})
    #: default endpoint of ``judge`` rewards (``base_url``, ``model``, ``api_key``)
    judge: dict[str, Any] = field(default_factory=dict)
    #: what reward checks computed once for all of them (the final world state)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def loss_mask(self) -> list[int]:
        """1 for the agent's own messages (what a trainer learns from), 0 for the rest."""
        return [1 if m.get("role") == "assistant" else 0 for m in self.messages]


AgentCall = Callable[[list[dict[str, Any]], list[dict[str, Any]], EpisodeInfo], Awaitable[dict[str, Any]]]


def tool_action(domain: str, name: str, arguments: Any) -> dict[str, Any]:
    key = "name" if domain == "search" else "tool_name"  # the search domain's action names its tool "name"
    return {key: name, "arguments": arguments}


def parse_arguments(text: str) -> tuple[Any, str | None]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        return None, f"Error: the tool call's arguments are not JSON ({exc.msg} at char {exc.pos})"
    if not isinstance(value, dict):
        return None, "Error: the tool call's arguments must be a JSON object"
    return value, None


def action_text(content: str) -> str | None:
    """The action in an action-text reply: its last fenced block, else the whole reply (None when
    the reply holds ``<answer>`` or nothing)."""
    if _ANSWER.search(content) or not content.strip():
        return None
    blocks = _FENCE.findall(content)
    return (blocks[-1] if blocks else content).strip()


def _booked(
    episode: Episode, label: str, action: Any, observation: Observation | None, error: str = ""
) -> tuple[str, bool]:
    """Record one world step (``observation`` None: the action was rejected with ``error``);
    ``(what the agent sees, is_error)``."""
    episode.steps.append((label, action, observation))
    if observation is None:
        episode.world_errors += 1
        return f"Error: {error}", True
    episode.world_steps += 1
    episode.world_errors += int(observation.is_error)
    return observation.text, observation.is_error


async def _world_step(episode: Episode, label: str, action: Any) -> tuple[str, bool]:
    """Validate and play one action; ``(observation text, is_error)``. Bad actions are answered
    with the validation error, the way the impersonated system would, and do not reach the world."""
    session = episode.session
    started = time.perf_counter()
    try:
        validated = session.domain.validate_action(action)
    except ActionValidationError as exc:
        return _booked(episode, label, action, None, exc.message)
    if session.attached is not None:  # a stored episode world (--world): the step is stored with it
        attached = session.attached
        observation = await attached.aoperate(lambda: session.arun_step(validated))
    else:
        observation = await session.arun_step(validated)
    episode.timings["world_s"] += time.perf_counter() - started
    return _booked(episode, label, action, observation)


def world_step(episode: Episode, label: str, action: Any) -> tuple[str, bool]:
    """The synchronous twin of the episode's world step (for environments a trainer drives)."""
    try:
        observation = episode.session.step(action)
    except ActionValidationError as exc:
        return _booked(episode, label, action, None, exc.message)
    return _booked(episode, label, action, observation)


def start_episode(task: Task, sample: int, world: World, *, session_id: str | None = None) -> Episode:
    """Episode ``sample`` of ``task`` before its first turn: a fresh session of the task's world
    (context, perturbations, the sample's world seed) and the tools the agent is offered."""
    seeds = episode_seeds(task, sample)
    options = {
        "seed": seeds["world"],
        "perturbations": task.perturbations,
        "session_id": session_id,
        **task.session_context(world.pm.registry),
    }
    if world.name is None:
        session = world.make_session(task.domain, **options)
    else:  # each episode its own world, kept as NAME.TASK.SAMPLE to inspect after the run
        shared = episode_world(world, task, sample)
        session = shared.front("episode", task.domain, **options)
        session.attached = shared
    return Episode(task, sample, seeds, session, [], agent_tool_definitions(session))


_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@+-]")


def episode_name(world_name: str, task: Task, sample: int) -> str:
    """The stored world of episode ``sample`` of ``task`` in a run given ``--world NAME``."""
    return f"{world_name}.{_UNSAFE.sub('-', task.id)}.{sample}"[:128]


def episode_world(world: World, task: Task, sample: int) -> SharedWorld:
    """A fresh stored world for one episode (one left by an earlier, interrupted run is removed:
    the episode is played again from the start)."""
    from ..worlds import fresh_world

    return fresh_world(world, episode_name(str(world.name), task, sample))


async def play(
    task: Task,
    sample: int,
    world: World,
    act: AgentCall,
    *,
    session_id: str | None = None,
) -> Episode:
    """Play episode ``sample`` of ``task``: at most ``task.max_turns`` agent turns.

    ``act`` is the policy call (the runner wraps :meth:`Policy.act` with retries and a timeout).
    Failures of the agent or of the world model propagate: the runner marks the episode failed.
    """
    episode = start_episode(task, sample, world, session_id=session_id or f"{task.id}#{sample}")
    session, seeds, tools, messages = episode.session, episode.seeds, episode.tools, episode.messages
    messages += [
        {"role": "system", "content": agent_system_prompt(task, session)},
        {"role": "user", "content": first_user_message(task)},
    ]
    info = EpisodeInfo(task.id, sample, seeds["agent"], task.domain)
    tool_domain = task.domain in TOOL_DOMAINS
    for _ in range(task.max_turns):
        started = time.perf_counter()
        reply = await act(list(messages), tools, info)
        episode.timings["agent_s"] += time.perf_counter() - started
        messages.append(reply)
        episode.turns += 1
        content = str(reply.get("content") or "")
        if tool_domain:
            calls = reply.get("tool_calls") or []
            if not calls:
                episode.final_answer, episode.finish = content, "answer"
                break
            for call in calls:
                function = call.get("function") or {}
                name = str(function.get("name") or "")
                arguments, problem = parse_arguments(str(function.get("arguments") or ""))
                if problem is None:
                    text, _ = await _world_step(episode, name, tool_action(task.domain, name, arguments))
                else:
                    episode.world_errors += 1
                    episode.steps.append((name, None, None))
                    text = problem
                messages.append({"role": "tool", "tool_call_id": call.get("id"), "content": text})
        else:
            action = action_text(content)
            if action is None:
                found = _ANSWER.search(content)
                episode.final_answer = found.group(1).strip() if found else content
                episode.finish = "answer"
                break
            text, _ = await _world_step(episode, "action", action)
            messages.append({"role": "user", "content": text})
    return episode
