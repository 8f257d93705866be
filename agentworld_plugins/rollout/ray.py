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
import threading
from collections.abc import Callable
from typing import Any

from ..backends.base import Backend, Completion, Sampling
from ..errors import ConfigError

#: items one actor works on at once (its event loop interleaves them)
PER_ACTOR = 8
#: calls in flight per slot (the rest of a slot's calls wait in Ray's queue at its actor)
DEPTH = 4
#: seconds the collector waits on the results in flight before it looks for new ones
COLLECT_WAIT = 0.5


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


def _init(ray: Any, address: str | None) -> None:
    """``ray.init``, with a token-authenticated cluster's refusal as one line naming the fix."""
    if address:
        check_reachable(address)
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # not one line per GCS retry
    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
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
    """An actor's body: the object ``make()`` builds, whose async ``method`` it calls."""

    def __init__(self, make: Callable[[], Any], method: str) -> None:
        self.target = getattr(make(), method)

    async def call(self, *args: Any) -> Any:
        return await self.target(*args)


class RayPool:
    """Actors on the Ray cluster at ``address`` (None: the running instance, else a new local
    one) with ``slots`` places in all, ``per_actor`` each; every actor holds ``make()``, and
    :meth:`call` runs its ``method`` on the actor with the fewest calls outstanding.

    Up to :attr:`capacity` calls (``depth`` per slot) may be in flight: the ones beyond an actor's
    ``per_actor`` wait in Ray's queue at the actor, so a round trip's latency (long on a loaded
    machine, where each of Ray's processes waits for the CPU) overlaps the work instead of adding
    to it. One collector thread waits (blocking, no polling) for results and hands every result
    that is ready to the event loop in one batch."""

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
        actor = ray.remote(num_cpus=0, max_concurrency=per_actor)(_Worker)
        self._ray = ray
        self.actors = [actor.remote(make, method) for _ in range(math.ceil(max(1, slots) / per_actor))]
        self.per_actor = per_actor
        self.capacity = len(self.actors) * per_actor * max(1, depth)
        self._outstanding = [0] * len(self.actors)
        self._pending: dict[Any, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._wake = threading.Condition()
        self._closed = False
        self._collector: threading.Thread | None = None

    @classmethod
    def start(
        cls, ray: str | bool | None, make: Callable[[], Any], method: str, slots: int
    ) -> RayPool | None:
        """A pool for a ``ray=`` argument (an address, True for a local instance), or None."""
        if not ray:
            return None
        return cls(make, method, address=None if ray is True else str(ray), slots=slots)

    async def call(self, *args: Any) -> Any:
        index = min(range(len(self.actors)), key=self._outstanding.__getitem__)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._outstanding[index] += 1
        try:
            ref = self.actors[index].call.remote(*args)
            with self._wake:
                self._pending[ref] = (loop, future)
                if self._collector is None:
                    self._collector = threading.Thread(target=self._collect, name="ray-results", daemon=True)
                    self._collector.start()
                self._wake.notify()
            return await future
        finally:
            self._outstanding[index] -= 1

    def _collect(self) -> None:
        ray = self._ray
        while True:
            with self._wake:
                while not self._pending and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                refs = list(self._pending)
            # blocks until one is ready; the timeout only lets calls made meanwhile join the wait
            ready, _ = ray.wait(refs, num_returns=1, timeout=COLLECT_WAIT)
            if not ready:
                continue
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)  # all that are ready now
            self._deliver(ready)

    def _deliver(self, ready: list[Any]) -> None:
        try:
            outcomes: list[tuple[bool, Any]] = [(True, v) for v in self._ray.get(ready)]
        except Exception:  # one failed: fetch each, to give every caller its own outcome
            outcomes = []
            for ref in ready:
                try:
                    outcomes.append((True, self._ray.get(ref)))
                except Exception as exc:
                    outcomes.append((False, exc))
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
        with self._wake:
            for ref, (ok, value) in zip(ready, outcomes):
                loop, future = self._pending.pop(ref)
                by_loop.setdefault(loop, []).append((future, ok, value))
        for loop, done in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, done)  # one wake-up of the loop per batch
            except RuntimeError:
                pass  # that loop is closed: its callers are gone

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify_all()
        if self._collector is not None:
            self._collector.join(COLLECT_WAIT * 4)
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []


def _settle(done: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    for future, ok, value in done:
        if future.done():
            continue  # its caller was cancelled
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


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
