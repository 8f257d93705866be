"""Past one machine: work played by Ray actors, written by the driver.

``rollout run --ray ADDRESS`` and ``envgen --ray ADDRESS`` (``--ray`` alone: a local instance)
keep the driver's resumable output file and its order; only the work moves. Each actor builds
its worker from plain values shipped to it (a :class:`~agentworld_plugins.rollout.runner.RolloutSpec`,
a generator) and does one item at a time; the driver keeps ``size`` actors busy. Several
world-model or agent replicas are spread by the world's and the policy's own least-outstanding
balancing (give every base URL, comma separated), in every actor.

Actors ask Ray for no CPU (they wait on HTTP, not on the processor), so ``size`` is bounded by
what the servers take, not by the cluster's cores.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("Ray is not installed", hint='pip install "agentworld-plugins[rl]"') from None
    return ray


class _Worker:
    """An actor's body: the object ``make()`` builds, whose async ``method`` it calls."""

    def __init__(self, make: Callable[[], Any], method: str) -> None:
        self.target = getattr(make(), method)

    async def call(self, *args: Any) -> Any:
        return await self.target(*args)


class RayPool:
    """``size`` actors on the Ray cluster at ``address`` (None: the running instance, else a new
    local one), each holding ``make()``; :meth:`call` runs ``method`` on an idle one."""

    def __init__(
        self, make: Callable[[], Any], method: str, *, address: str | None = None, size: int = 8
    ) -> None:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        actor = ray.remote(num_cpus=0, max_concurrency=1)(_Worker)
        self._ray = ray
        self.actors = [actor.remote(make, method) for _ in range(max(1, size))]
        self._idle: asyncio.Queue[Any] | None = None

    async def call(self, *args: Any) -> Any:
        if self._idle is None:  # made inside the running loop
            self._idle = asyncio.Queue()
            for actor in self.actors:
                self._idle.put_nowait(actor)
        actor = await self._idle.get()
        try:
            return await actor.call.remote(*args)
        finally:
            self._idle.put_nowait(actor)

    @classmethod
    def start(cls, ray: str | bool | None, make: Callable[[], Any], method: str, size: int) -> RayPool | None:
        """A pool for a ``ray=`` argument (an address, True for a local instance), or None."""
        if not ray:
            return None
        return cls(make, method, address=None if ray is True else str(ray), size=size)

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []
