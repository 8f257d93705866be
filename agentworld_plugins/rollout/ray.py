"""Past one machine: work done by Ray actors, written by the driver.

``rollout run --ray ADDRESS``, ``envgen --ray ADDRESS`` and ``bench run --ray ADDRESS`` (``--ray``
alone: a local instance) keep the driver's resumable output file and its order; only the work
moves. Each actor builds its worker from plain values shipped to it (a
:class:`~agentworld_plugins.rollout.runner.RolloutSpec`, a generator, a backend factory) and
runs up to ``per_actor`` items at once in its own event loop; the driver keeps every slot busy.
Several world-model or agent replicas are spread by the backends' and the policy's own
least-outstanding balancing (give every base URL, comma separated), in every actor.

Actors ask Ray for no CPU (they wait on HTTP, not on the processor), so the number of slots is
bounded by what the servers take, not by the cluster's cores.
"""

from __future__ import annotations

import asyncio
import math
import re
import socket
from collections.abc import Callable
from typing import Any

from ..backends.base import Backend, Completion, Sampling
from ..errors import ConfigError

#: items one actor works on at once (its event loop interleaves them)
PER_ACTOR = 8


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "Ray is not installed", hint='install the rl extra from the checkout: pip install -e ".[rl]"'
        ) from None
    return ray


_HOST_PORT = re.compile(r"^(?:ray://)?\[?([^\]/]+?)\]?:(\d+)/?$")


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once, naming the address, when nothing listens at a ``HOST:PORT`` Ray address
    (``ray.init`` would keep retrying for minutes). Other forms (``auto``) are left to Ray."""
    found = _HOST_PORT.match(address.strip())
    if not found:
        return
    host, port = found.group(1), int(found.group(2))
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise ConfigError(
            f"Cannot reach the Ray cluster at {address}: {exc.strerror or exc}",
            hint="start it with 'ray start --head' on that node (port 6379 by default), "
            "or pass --ray alone for a local instance",
        ) from None


class _Worker:
    """An actor's body: the object ``make()`` builds, whose async ``method`` it calls."""

    def __init__(self, make: Callable[[], Any], method: str) -> None:
        self.target = getattr(make(), method)

    async def call(self, *args: Any) -> Any:
        return await self.target(*args)


class RayPool:
    """Actors on the Ray cluster at ``address`` (None: the running instance, else a new local
    one) with ``slots`` places in all, ``per_actor`` each; every actor holds ``make()``, and
    :meth:`call` runs its ``method`` in a free slot."""

    def __init__(
        self,
        make: Callable[[], Any],
        method: str,
        *,
        address: str | None = None,
        slots: int = 8,
        per_actor: int = PER_ACTOR,
    ) -> None:
        ray = _ray()
        if not ray.is_initialized():
            if address:
                check_reachable(address)
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        per_actor = max(1, min(per_actor, slots))
        actor = ray.remote(num_cpus=0, max_concurrency=per_actor)(_Worker)
        self._ray = ray
        self.actors = [actor.remote(make, method) for _ in range(math.ceil(max(1, slots) / per_actor))]
        self.per_actor = per_actor
        self._free: asyncio.Queue[Any] | None = None

    @classmethod
    def start(
        cls, ray: str | bool | None, make: Callable[[], Any], method: str, slots: int
    ) -> RayPool | None:
        """A pool for a ``ray=`` argument (an address, True for a local instance), or None."""
        if not ray:
            return None
        return cls(make, method, address=None if ray is True else str(ray), slots=slots)

    async def call(self, *args: Any) -> Any:
        if self._free is None:  # made inside the running loop
            self._free = asyncio.Queue()
            for _ in range(self.per_actor):
                for actor in self.actors:
                    self._free.put_nowait(actor)
        actor = await self._free.get()
        try:
            return await actor.call.remote(*args)
        finally:
            self._free.put_nowait(actor)

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []


class RayBackend(Backend):
    """A backend whose requests are sent by Ray actors, each holding ``make()`` (a backend
    factory of plain values, e.g. ``functools.partial(world_backend, base_url=...)``)."""

    name = "ray"

    def __init__(self, make: Callable[[], Backend], ray: str | bool, slots: int, label: str = "") -> None:
        self.pool = RayPool(make, "acomplete", address=None if ray is True else str(ray), slots=slots)
        self.label = label

    def describe(self) -> str:
        return f"ray({self.label or 'backend'}; {len(self.pool.actors)} actors)"

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return await self.pool.call(messages, sampling)  # type: ignore[no-any-return]

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return asyncio.run(self.acomplete(messages, sampling))

    def close(self) -> None:
        self.pool.close()
