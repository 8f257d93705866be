"""``agentworld serve --world NAME``: served conversations as fronts of a named world.

A conversation (named by its ``X-Agentworld-Conversation`` header, else by its system prompt and
first turn) is the world's front ``serve-<hash>``: each request's new turn is stepped on the
world as other fronts and processes left it, so a served terminal conversation's files are the
ones ``agentworld shell --world NAME`` sees, and ``agentworld world show NAME`` lists the calls.
A request whose earlier turns are not the front's (the client rewound or edited the
conversation) is answered as without a world, and says so in its warnings.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from .backends.base import Backend, Completion, Sampling
from .current import current_conversation
from .turns import context_from_system, state_of_turn, system_of

if TYPE_CHECKING:
    from .session import World

__all__ = ["WorldServedBackend"]


class WorldServedBackend(Backend):
    """Answers chat requests on ``world``'s named world (:class:`~.worlds.SharedWorld`)."""

    name = "world"

    def __init__(self, world: World) -> None:
        from .backends.offline import DomainDetector

        self.world = world
        self.inner = world.backend
        self._detector = DomainDetector(world.pm.registry)

    def describe(self) -> str:
        return f"{self.inner.describe()} on world {self.world.name!r}"

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        import anyio

        return anyio.run(self.acomplete, messages, sampling)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        domain = self._detector.detect(messages)
        system = system_of(messages)
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        key = current_conversation.get() or f"{domain.name}\x00{system}\x00{users[0] if users else ''}"
        front = "serve-" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        context = context_from_system(system)
        initial = state_of_turn(users[0]) if users and domain.has_state else None
        if initial is not None:
            context["initial_state"] = initial
        shared = self.world.shared
        session = shared.front(front, domain.name, base_prompt=system, **context)
        from .backends.offline import parse_action

        action = parse_action(domain, users[-1])

        async def step() -> Any:
            if len(session.trajectory.turns) != len(users) - 1:
                return None  # the client's history is not the world's: answer without it
            return await session.arun_step(action, users[-1], list(messages))

        observation = await shared.aoperate(step)
        if observation is None:
            completion = await self.inner.acomplete(messages, sampling)
            completion.metadata.setdefault("warnings", []).append(
                f"the conversation's earlier turns are not world {self.world.name!r}'s front {front}: "
                "answered without the world"
            )
            return completion
        return Completion(
            text=observation.raw or f"<predicted_observation>\n{observation.text}\n</predicted_observation>",
            reasoning=observation.reasoning,
            model=observation.metadata.get("model"),
            finish_reason="stop",
            metadata={**observation.metadata, "world": self.world.name, "front": front},
        )

    def close(self) -> None:
        self.inner.close()
