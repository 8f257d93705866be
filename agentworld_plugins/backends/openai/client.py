"""The ``openai`` backend: any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted APIs).

>>> backend = OpenAIBackend(["http://localhost:8000/v1"], model="Qwen/Qwen-AgentWorld-35B-A3B")
>>> backend.complete([{"role": "user", "content": "hi"}], Sampling())  # doctest: +SKIP

Retries with exponential backoff on connection errors, timeouts, 429, 5xx and 200 answers whose
body is not JSON (truncated or garbled); several base URLs are spread by least outstanding
requests, and a retry prefers another URL than the one that failed; at most ``concurrency``
requests are in flight. ``reasoning_content`` (vLLM/SGLang reasoning parsers) is kept apart from
the content. The requests go through a transport: ``"sdk"`` (the ``openai`` package, the default:
it honours proxies) or ``"lean"`` (:mod:`.transport`, a hand-written HTTP/1.1 client that costs a
fraction of the SDK's CPU per request, what ``agentworld bench`` uses). Every request names its
conversation in an ``X-Agentworld-Conversation`` header when one is known (a session's
``domain/session-id``, a benchmark record's ``domain/episode-id``), so a remote
``agentworld serve --perturb`` draws each conversation's own faults.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from ...current import CONVERSATION_HEADER, conversation_header, current_conversation
from ...errors import ConfigError
from ...redaction import redact_text, remember_secret
from ..base import Backend, Completion, Sampling

if TYPE_CHECKING:
    from ...config import Settings

__all__ = ["TRANSPORTS", "OpenAIBackend", "Transport", "conversation_headers", "from_settings"]

TRANSPORTS = ("sdk", "lean")


class Transport(Protocol):
    """How :class:`OpenAIBackend` sends one request to the base URL numbered ``index``, with
    ``headers`` added to the request's own (the conversation's name)."""

    label: str

    def payload(self, model: str | None, messages: list[dict[str, Any]], sampling: Sampling) -> Any: ...
    def complete(self, index: int, payload: Any, headers: Mapping[str, str] | None = None) -> Completion: ...
    async def acomplete(
        self, index: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> Completion: ...
    def first_model(self, index: int) -> str | None: ...
    async def afirst_model(self, index: int) -> str | None: ...
    def retryable(self, exc: BaseException) -> bool: ...
    def fail(self, exc: BaseException, url: str, attempts: int = 1, model: str | None = None) -> Any: ...
    def close(self) -> None: ...


class _Balancer:
    """Least-outstanding-requests choice among base URLs, ties broken round robin."""

    def __init__(self, n: int) -> None:
        self.outstanding = [0] * n
        self.served = [0] * n
        self._lock = threading.Lock()
        self._tiebreak = itertools.count()

    def acquire(self, avoid: int | None = None) -> int:
        with self._lock:
            n = len(self.outstanding)
            start = next(self._tiebreak) % n
            order = [(start + k) % n for k in range(n)]
            candidates = [i for i in order if i != avoid] or order
            best = min(candidates, key=lambda i: self.outstanding[i])
            self.outstanding[best] += 1
            return best

    def release(self, index: int) -> None:
        with self._lock:
            self.outstanding[index] -= 1
            self.served[index] += 1


def _credentials(url: str) -> str | None:
    """The ``user:password`` (or ``user``) of a URL's ``user:password@``, else None."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return None
    userinfo, at, _ = netloc.rpartition("@")
    return userinfo if at else None


def conversation_headers() -> dict[str, str]:
    """``X-Agentworld-Conversation: NAME`` for the conversation being answered
    (:data:`~agentworld_plugins.current.current_conversation`), else nothing. A ``serve --perturb``
    server keys its random streams by it; other servers (vLLM, SGLang) ignore it."""
    name = current_conversation.get()
    return {CONVERSATION_HEADER: conversation_header(name)} if name else {}


class OpenAIBackend(Backend):
    """Chat completions against one or more OpenAI-compatible base URLs."""

    name = "openai"

    def __init__(
        self,
        base_urls: Sequence[str],
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        retry_backoff: float = 0.5,
        concurrency: int = 64,
        transport: str | Transport = "sdk",
        max_idle: int = 256,
    ) -> None:
        if not base_urls:
            raise ConfigError(
                "The openai backend needs a base URL",
                hint="pass base_url=... or set AGENTWORLD_BASE_URL=http://localhost:8000/v1",
            )
        self.base_urls = [u.rstrip("/") for u in base_urls]
        if api_key and api_key != "EMPTY":
            for url in self.base_urls:
                if _credentials(url) is not None:
                    raise ConfigError(
                        f"The base URL {url} carries credentials (user:password@) and an API key is "
                        "set as well: the URL's credentials would replace the bearer key",
                        hint="drop the user:password@ part of the URL (pass the key as the API key "
                        "only), or unset the API key (AGENTWORLD_API_KEY)",
                    )
        self.model = model
        self.api_key = api_key or "EMPTY"
        remember_secret(api_key)
        for url in self.base_urls:
            userinfo = _credentials(url)
            if userinfo is not None:
                remember_secret(userinfo)
                remember_secret(userinfo.partition(":")[2])
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.concurrency = concurrency
        self.balancer = _Balancer(len(self.base_urls))
        self.transport: Transport = self._transport(transport, max_idle)
        self._set_model(model)
        self._slots = threading.BoundedSemaphore(concurrency)
        # asyncio semaphores and locks belong to one event loop each
        self._aio: dict[asyncio.AbstractEventLoop, tuple[asyncio.Semaphore, asyncio.Lock]] = {}
        self._aio_lock = threading.Lock()
        self._model_lock = threading.Lock()

    def _transport(self, transport: str | Transport, max_idle: int) -> Transport:
        if not isinstance(transport, str):
            return transport
        if transport == "sdk":
            from .sdk import SdkTransport

            return SdkTransport(self.base_urls, self.api_key, timeout=self.timeout)
        if transport == "lean":
            from .transport import LeanTransport

            return LeanTransport(self.base_urls, self.api_key, max_idle=max_idle)
        raise ConfigError(f"Unknown transport {transport!r}", hint=f"choose {' or '.join(TRANSPORTS)}")

    def describe(self) -> str:
        label = f", {self.transport.label}" if self.transport.label else ""
        return redact_text(f"openai({','.join(self.base_urls)}, model={self.model or '?'}{label})")

    def _set_model(self, model: str | None) -> None:
        self.model = model
        if hasattr(self.transport, "model"):
            self.transport.model = model  # type: ignore[attr-defined]

    def _delay(self, attempt: int) -> float:
        base = self.retry_backoff * (2**attempt)
        return base + random.uniform(0, base / 4) if base else 0.0

    # -- model discovery -----------------------------------------------------------------------

    def _adopt(self, index: int, first: str | None) -> None:
        if first is None:
            raise ConfigError(
                f"{self.base_urls[index]}/models lists no model", hint="pass --model / AGENTWORLD_MODEL"
            )
        self._set_model(first)

    def _ensure_model(self) -> None:
        if self.model:
            return
        with self._model_lock:
            if self.model:
                return
            index = self.balancer.acquire()
            try:
                self._adopt(index, self.transport.first_model(index))
            except ConfigError:
                raise
            except Exception as exc:
                raise self.transport.fail(exc, self.base_urls[index], model=self.model) from None
            finally:
                self.balancer.release(index)

    async def _aensure_model(self, lock: asyncio.Lock) -> None:
        if self.model:
            return
        async with lock:
            if not self.model:
                index = self.balancer.acquire()
                try:
                    self._adopt(index, await self.transport.afirst_model(index))
                except ConfigError:
                    raise
                except Exception as exc:
                    raise self.transport.fail(exc, self.base_urls[index], model=self.model) from None
                finally:
                    self.balancer.release(index)

    # -- sync ----------------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self._ensure_model()
        payload = self.transport.payload(self.model, messages, sampling)
        headers = conversation_headers()
        last: int | None = None
        with self._slots:
            for attempt in range(self.max_retries + 1):
                index = self.balancer.acquire(avoid=last)
                started = time.perf_counter()
                try:
                    completion = self.transport.complete(index, payload, headers)
                except Exception as exc:
                    if self.transport.retryable(exc) and attempt < self.max_retries:
                        last = index
                        time.sleep(self._delay(attempt))
                        continue
                    raise self.transport.fail(exc, self.base_urls[index], attempt + 1, self.model) from None
                finally:
                    self.balancer.release(index)
                completion.metadata.update(latency_s=time.perf_counter() - started, attempts=attempt + 1)
                return completion
        raise AssertionError("unreachable")  # pragma: no cover

    # -- async ---------------------------------------------------------------------------------

    def _loop_state(self) -> tuple[asyncio.Semaphore, asyncio.Lock]:
        loop = asyncio.get_running_loop()
        state = self._aio.get(loop)
        if state is not None:
            return state
        with self._aio_lock:
            state = self._aio.get(loop)
            if state is None:
                for old in [other for other in self._aio if other.is_closed()]:
                    del self._aio[old]
                state = self._aio[loop] = (asyncio.Semaphore(self.concurrency), asyncio.Lock())
        return state

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        slots, model_lock = self._loop_state()
        await self._aensure_model(model_lock)
        payload = self.transport.payload(self.model, messages, sampling)
        headers = conversation_headers()
        last: int | None = None
        async with slots:
            for attempt in range(self.max_retries + 1):
                index = self.balancer.acquire(avoid=last)
                started = time.perf_counter()
                try:
                    completion = await self.transport.acomplete(index, payload, headers)
                except Exception as exc:
                    if self.transport.retryable(exc) and attempt < self.max_retries:
                        last = index
                        await asyncio.sleep(self._delay(attempt))
                        continue
                    raise self.transport.fail(exc, self.base_urls[index], attempt + 1, self.model) from None
                finally:
                    self.balancer.release(index)
                completion.metadata.update(latency_s=time.perf_counter() - started, attempts=attempt + 1)
                return completion
        raise AssertionError("unreachable")  # pragma: no cover

    async def aclose_idle(self) -> None:
        """Close idle keep-alive connections of the lean transport (before its event loop ends)."""
        closer = getattr(self.transport, "aclose_idle", None)
        if closer is not None:
            await closer()

    def close(self) -> None:
        self.transport.close()


def from_settings(settings: Settings, spec: str = "", transport: str | Transport = "sdk") -> OpenAIBackend:
    """The backend for ``AGENTWORLD_*`` settings; ``spec`` (``URL|URL``) overrides the base URLs."""
    urls = [u for u in spec.split("|") if u] if spec else settings.base_urls
    return OpenAIBackend(
        urls,
        model=settings.model,
        api_key=settings.api_key,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        retry_backoff=settings.retry_backoff,
        concurrency=settings.concurrency,
        transport=transport,
    )
