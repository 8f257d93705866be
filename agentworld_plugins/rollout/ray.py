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
import os
import re
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..backends.base import Backend, Completion, Sampling
from ..errors import ConfigError

#: items one actor works on at once (its event loop interleaves them)
PER_ACTOR = 8
#: calls in flight per slot (the rest of a slot's calls wait in Ray's queue at its actor)
DEPTH = 4


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "Ray is not installed", hint='install the rl extra from the checkout: pip install -e ".[rl]"'
        ) from None
    return ray


_HOST_PORT = re.compile(r"^(?:ray://)?\[?([^\]/]+?)\]?:(\d+)/?$")
#: HTTP/2's client preface and an empty SETTINGS frame: a gRPC server (Ray's GCS and its client
#: server speak gRPC) answers with a SETTINGS frame of its own
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_H2_SETTINGS = 0x4


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once, naming the address, when nothing listens at a ``HOST:PORT`` Ray address, or
    when what listens there does not speak Ray's protocol (gRPC over HTTP/2): ``ray.init`` would
    keep retrying for minutes. Other forms (``auto``) are left to Ray."""
    found = _HOST_PORT.match(address.strip())
    if not found:
        return
    host, port = found.group(1), int(found.group(2))
    hint = (
        "start it with 'ray start --head' on that node (port 6379 by default), "
        "or pass --ray alone for a local instance"
    )
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise ConfigError(
            f"Cannot reach the Ray cluster at {address}: {exc.strerror or exc}", hint=hint
        ) from None
    answer: bytes | None
    with sock:
        try:
            sock.sendall(_H2_PREFACE)
            answer = _read_some(sock, 9)
        except TimeoutError:
            answer = None
        except OSError:
            answer = b""  # reset at the handshake
    if answer is not None and len(answer) >= 9 and answer[3] == _H2_SETTINGS:
        return
    if answer is None:
        what = f"the server there did not answer Ray's handshake in {timeout:g}s"
    elif answer.startswith(b"HTTP/") or answer.lstrip()[:9].lower() in (b"<!doctype", b"<html>"):
        first = answer.strip().splitlines()[0].decode("latin-1", "replace")[:80]
        what = f"an HTTP/1 server listens there (it answered {first!r})"
    elif not answer:
        what = "the server there closed the connection at Ray's handshake"
    else:
        what = f"the server there does not speak Ray's protocol (gRPC); it answered {answer[:16]!r}"
    raise ConfigError(
        f"{address} is not a Ray cluster: {what}",
        hint="pass the head node's GCS address (ray start --head prints it; port 6379 by default), "
        "or --ray alone for a local instance",
    )


def _read_some(sock: socket.socket, wanted: int) -> bytes:
    """``wanted`` bytes (fewer when the peer closes); past them, when they are not an HTTP/2
    frame, the rest of the first line (to name what answered)."""
    data = b""
    while len(data) < wanted or (b"\n" not in data and len(data) < 256 and data[3:4] != b"\x04"):
        chunk = sock.recv(256)
        if not chunk:
            break
        data += chunk
    return data


_AUTH_WORDS = ("Unauthenticated", "InvalidAuthToken", "AuthenticationError", "token authentication")


def _refused_for_token(exc: BaseException) -> str | None:
    """Ray's reason when ``exc`` (or what it was raised from) is a token-authenticated cluster's
    refusal: ``ray.init`` wraps the GCS's ``Unauthenticated`` answer in a ConnectionError."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        text = f"{type(seen).__name__}: {seen}"
        for word in _AUTH_WORDS:
            if word in text:
                at = text.find("InvalidAuthToken")
                return text[at:].splitlines()[0][:160] if at >= 0 else word
        seen = seen.__cause__ or seen.__context__
    return None


def init_ray(address: str | None = None, **options: Any) -> None:
    """Connect to the Ray cluster at ``address``, or start a local instance (``options`` go to
    ``ray.init``: ``num_cpus=2``, ...), as ``--ray`` does."""
    _init(_ray(), address, **options)


def _init(ray: Any, address: str | None, **options: Any) -> None:
    """``ray.init``, with a token-authenticated cluster's refusal as one line naming the fix.

    A local instance starts its workers at the priority of this process: Ray's default (niceness
    15, so that its own daemons come first) leaves an actor ~2% of a core on a busy machine, where
    every episode then takes fifty times as long. A cluster's raylets were started with their own
    setting (``RAY_worker_niceness=0 ray start ...`` does the same there)."""
    if address:
        check_reachable(address)
    else:
        os.environ.setdefault("RAY_worker_niceness", "0")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # not one line per GCS retry
    options.setdefault("log_to_driver", False)
    try:
        ray.init(address=address, ignore_reinit_error=True, **options)
    except Exception as exc:
        reason = _refused_for_token(exc)
        if reason is None:
            raise
        raise ConfigError(
            f"The Ray cluster at {address or 'this node'} refused this driver's token ({reason})",
            hint="set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN to the cluster's token, or RAY_AUTH_TOKEN_PATH "
            "to its file ('ray get-auth-token' on the head node prints it)",
        ) from None


class _Worker:
    """An actor's body: the object ``make()`` builds, whose async ``method`` its batches call,
    at most ``per_actor`` calls at once."""

    def __init__(self, make: Callable[[], Any], method: str, per_actor: int = PER_ACTOR) -> None:
        self.target = getattr(make(), method)
        self.per_actor = per_actor
        self._slots: asyncio.Semaphore | None = None  # made in the actor's event loop

    async def batch(self, calls: list[tuple[Any, ...]]) -> AsyncIterator[list[tuple[int, bool, Any]]]:
        """Run ``calls`` (each one call's arguments), ``per_actor`` at a time across all batches;
        yield ``(index, ok, result or exception)`` of every call finished since the last yield (one
        message back to the driver for all that finished together)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.per_actor)
        slots = self._slots

        async def one(index: int, args: tuple[Any, ...]) -> tuple[int, bool, Any]:
            async with slots:
                try:
                    return index, True, await self.target(*args)
                except Exception as exc:
                    return index, False, _shippable(exc)

        pending = {asyncio.ensure_future(one(i, args)) for i, args in enumerate(calls)}
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            yield [task.result() for task in done]


def _shippable(exc: Exception) -> Exception:
    """``exc``, or a RuntimeError naming it when it cannot travel back to the driver."""
    import pickle

    try:
        pickle.dumps(exc)
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


#: pools kept for the rest of the process (:meth:`RayPool.start`), by what their actors hold
_KEPT: dict[tuple[Any, ...], RayPool] = {}


class RayPool:
    """Actors on the Ray cluster at ``address`` (None: the running instance, else a new local
    one) with ``slots`` places in all, ``per_actor`` each; every actor holds ``make()``, and
    :meth:`call` runs its ``method`` on an actor.

    Calls made while the event loop runs go to the actors together: each actor with the fewest
    calls outstanding gets a share as one batch, and streams back the results as they are done
    (several in one message when they finish together). A Ray round trip costs several hops
    between Ray's processes, each waiting for the CPU on a loaded machine; batching makes that
    cost one per batch instead of one per call. Up to :attr:`capacity` calls (``depth`` per slot)
    may be outstanding; those beyond an actor's ``per_actor`` wait at the actor."""

    def __init__(
        self,
        make: Callable[[], Any],
        method: str,
        *,
        address: str | None = None,
        slots: int = 8,
        per_actor: int = PER_ACTOR,
        depth: int = DEPTH,
    ) -> None:
        ray = _ray()
        if not ray.is_initialized():
            _init(ray, address)
        per_actor = max(1, min(per_actor, slots))
        actor = ray.remote(num_cpus=0, max_concurrency=_MAX_BATCHES)(_Worker)
        self._ray = ray
        count = math.ceil(max(1, slots) / per_actor)
        self.actors = [actor.remote(make, method, per_actor) for _ in range(count)]
        self.per_actor = per_actor
        self.capacity = len(self.actors) * per_actor * max(1, depth)
        self.kept = False
        self._outstanding = [0] * len(self.actors)
        self._queue: list[tuple[tuple[Any, ...], asyncio.Future[Any]]] = []
        self._flushing = False
        self._batches: set[asyncio.Task[None]] = set()

    @classmethod
    def start(
        cls, ray: str | bool | None, make: Callable[[], Any], method: str, slots: int
    ) -> RayPool | None:
        """A pool for a ``ray=`` argument (an address, True for a local instance), or None.

        The pool is kept for the rest of the process: a later run with the same work (the same
        ``make``, e.g. the same rollout spec) on the same cluster reuses its actors instead of
        starting new ones (an actor's start is a Python process importing this package)."""
        if not ray:
            return None
        address = None if ray is True else str(ray)
        ray_module = _ray()
        if not ray_module.is_initialized():
            _init(ray_module, address)
        key = _pool_key(ray_module, address, make, method, slots)
        if key is None:
            return cls(make, method, address=address, slots=slots)
        for old in [k for k in _KEPT if k[0] != key[0]]:  # another Ray session's: its actors are gone
            del _KEPT[old]
        pool = _KEPT.get(key)
        if pool is None or not pool.actors:
            pool = _KEPT[key] = cls(make, method, address=address, slots=slots)
            pool.kept = True
        return pool

    async def call(self, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((args, future))
        if not self._flushing:  # the calls made until the loop comes round go together
            self._flushing = True
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        self._flushing = False
        queue, self._queue = self._queue, []
        queue = [(args, future) for args, future in queue if not future.done()]  # cancelled meanwhile
        actors = len(self.actors)
        while queue and actors:
            index = min(range(actors), key=self._outstanding.__getitem__)
            share = math.ceil(len(queue) / actors)
            chunk, queue = queue[:share], queue[share:]
            actors -= 1
            self._outstanding[index] += len(chunk)
            stream = self.actors[index].batch.options(num_returns="streaming").remote([a for a, _ in chunk])
            task = asyncio.ensure_future(self._drain(index, stream, [f for _, f in chunk]))  # noqa: RUF006 (kept in _batches)
            self._batches.add(task)
            task.add_done_callback(self._batches.discard)

    async def _drain(self, index: int, stream: Any, futures: list[asyncio.Future[Any]]) -> None:
        """Hand each result of a batch to its caller as it comes."""
        left = len(futures)
        try:
            async for ref in stream:
                for number, ok, value in await ref:
                    left -= 1
                    self._outstanding[index] -= 1
                    future = futures[number]
                    if future.done():
                        continue  # its caller was cancelled
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        except Exception as exc:  # the actor died, or the batch could not be sent
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
        finally:
            self._outstanding[index] -= left  # the calls that never came back

    def close(self) -> None:
        """Let go of the pool: a kept one keeps its actors for the next run, any other kills them."""
        if self.kept:
            return
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []


#: batches one actor may run at once (its slots bound the calls in them)
_MAX_BATCHES = 1000


def _pool_key(
    ray: Any, address: str | None, make: Callable[[], Any], method: str, slots: int
) -> tuple[Any, ...] | None:
    """What identifies a pool's actors: the Ray session, the cluster, what ``make`` builds (its
    pickled form), ``method`` and ``slots``; None when ``make`` cannot be pickled to compare."""
    import hashlib

    from ray import cloudpickle

    try:
        made = hashlib.sha256(cloudpickle.dumps(make)).hexdigest()
        session = ray.get_runtime_context().get_job_id()
    except Exception:
        return None
    return (session, address, made, method, slots)


class RayBackend(Backend):
    """A backend whose requests are sent by Ray actors, each holding ``make()`` (a backend
    factory of plain values, e.g. ``functools.partial(world_backend, base_url=...)``)."""

    name = "ray"

    def __init__(self, make: Callable[[], Backend], ray: str | bool, slots: int, label: str = "") -> None:
        self.pool = RayPool(
            make, "acomplete", address=None if ray is True else str(ray), slots=slots, depth=1
        )
        self.label = label

    def describe(self) -> str:
        return f"ray({self.label or 'backend'}; {len(self.pool.actors)} actors)"

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return await self.pool.call(messages, sampling)  # type: ignore[no-any-return]

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return asyncio.run(self.acomplete(messages, sampling))

    def close(self) -> None:
        self.pool.close()
