"""Rollouts past one machine: episodes played by Ray actors, written by the driver.

``rollout run --ray ADDRESS`` (or ``--ray`` for a local instance) keeps the driver's resumable
output file and task order; only the playing moves. Each actor builds its own world and agent
policy from the :class:`~agentworld_plugins.rollout.runner.RolloutSpec` (plain values, shipped to
the workers) and plays one episode at a time; the driver keeps ``size`` actors busy. Several
world-model or agent replicas are spread by the world's and the policy's own least-outstanding
balancing (give every base URL, comma separated), in every actor.

Actors ask Ray for no CPU (they wait on HTTP, not on the processor), so ``size`` is bounded by
what the servers take, not by the cluster's cores.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..bench.runner import JobResult
    from .runner import RolloutSpec
    from .tasks import Task


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("Ray is not installed", hint='pip install "agentworld-plugins[rl]"') from None
    return ray


class _EpisodeActor:
    """The actor's body: an :class:`EpisodeRunner` of its own."""

    def __init__(self, spec: RolloutSpec) -> None:
        from .runner import EpisodeRunner

        self.runner = EpisodeRunner(spec)

    async def run(self, task: dict[str, Any], sample: int) -> tuple[dict[str, Any], bool, bool]:
        from .tasks import Task

        result = await self.runner.run(Task.model_validate(task), sample)
        return result.line, result.ok, result.unavailable


class RayEpisodes:
    """A pool of ``size`` episode actors on the Ray cluster at ``address`` (None: the running
    instance, else a new local one)."""

    def __init__(self, spec: RolloutSpec, address: str | None = None, size: int = 8) -> None:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        actor = ray.remote(num_cpus=0, max_concurrency=1)(_EpisodeActor)
        self._ray = ray
        self.actors = [actor.remote(spec) for _ in range(max(1, size))]
        self._idle: asyncio.Queue[Any] | None = None

    async def run(self, task: Task, sample: int) -> JobResult:
        from ..bench.runner import JobResult

        if self._idle is None:
            self._idle = asyncio.Queue()
            for actor in self.actors:
                self._idle.put_nowait(actor)
        actor = await self._idle.get()
        try:
            line, ok, unavailable = await actor.run.remote(task.model_dump(mode="json"), sample)
        finally:
            self._idle.put_nowait(actor)
        return JobResult(line, ok, unavailable)

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []
