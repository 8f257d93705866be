"""Any OpenAI-compatible chat-completions server: vLLM, SGLang, hosted APIs.

>>> backend = OpenAICompatBackend(["http://localhost:8000/v1"], model="Qwen/Qwen-AgentWorld-35B-A3B")
>>> backend.complete([{"role": "user", "content": "hi"}], Sampling())  # doctest: +SKIP

Retries with exponential backoff on connection errors, timeouts, 429, 5xx and 200 answers whose
body is not JSON (truncated or garbled); several base URLs are spread by least outstanding
requests, and a retry prefers another URL than the one that failed. ``reasoning_content`` (vLLM/SGLang reasoning parsers) is kept apart from the content.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import openai

from ..errors import BackendError, BackendUnavailableError, ConfigError
from ..redaction import redact_text
from .base import Backend, Completion, Sampling

START_HINT = (
    "start a world model with `vllm serve Qwen/Qwen-AgentWorld-35B-A3B --port 8000 "
    "--reasoning-parser qwen3` (or `python -m sglang.launch_server --model-path ... --port 8000`), "
    "or pick another backend with --backend / AGENTWORLD_BACKEND"
)

_RETRYABLE = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, _RETRYABLE):
        return True
    if isinstance(exc, json.JSONDecodeError):  # a 200 whose body is not JSON: truncated or garbled
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


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


async def _close_at_loop_shutdown(clients: list[Any]) -> AsyncIterator[None]:
    """Parked on its first ``yield``; the loop's ``shutdown_asyncgens()`` (``asyncio.run`` calls
    it) closes the generator, and with it the clients, while the loop can still run their close."""
    try:
        yield
    finally:
        for client in clients:
            with suppress(Exception):
                await client.close()


@dataclass
class _LoopState:
    """The async clients and concurrency slots of one event loop (neither can cross loops)."""

    clients: list[Any]
    slots: asyncio.Semaphore
    closer: Any  # the _close_at_loop_shutdown generator


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class OpenAICompatBackend(Backend):
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
    ) -> None:
        if not base_urls:
            raise ConfigError(
                "The openai backend needs a base URL",
                hint="pass base_url=... or set AGENTWORLD_BASE_URL=http://localhost:8000/v1",
            )
        self.base_urls = [u.rstrip("/") for u in base_urls]
        self.model = model
        self.api_key = api_key or "EMPTY"
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.concurrency = concurrency
        self.balancer = _Balancer(len(self.base_urls))
        self._clients = [
            openai.OpenAI(base_url=u, api_key=self.api_key, timeout=timeout, max_retries=0)
            for u in self.base_urls
        ]
        self._slots = threading.BoundedSemaphore(concurrency)
        # async clients and semaphores belong to one event loop each; the states of closed loops
        # are dropped when a new loop comes (a weak key would not do: the clients refer to the loop)
        self._aio: dict[asyncio.AbstractEventLoop, _LoopState] = {}
        self._aio_lock = threading.Lock()
        self._model_lock = threading.Lock()

    def describe(self) -> str:
        return redact_text(f"openai({','.join(self.base_urls)}, model={self.model or '?'})")

    # -- request building and result parsing ---------------------------------------------------

    def _payload(self, messages: list[dict[str, Any]], sampling: Sampling) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "messages": messages, **sampling.request_fields()}
        if sampling.extra_body:
            payload["extra_body"] = sampling.extra_body
        return payload

    @staticmethod
    def _completion(response: Any, url: str) -> Completion:
        if not getattr(response, "choices", None):
            raise BackendError(f"The world model at {url} answered without choices: {response!r:.200}")
        choice = response.choices[0]
        message = choice.message
        extra = getattr(message, "model_extra", None) or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        usage = response.usage.model_dump(exclude_none=True) if getattr(response, "usage", None) else None
        usage = {k: v for k, v in (usage or {}).items() if isinstance(v, int)} or None
        return Completion(
            text=message.content or "",
            reasoning=reasoning if isinstance(reasoning, str) else None,
            usage=usage,
            model=getattr(response, "model", None),
            finish_reason=getattr(choice, "finish_reason", None),
            metadata={"base_url": url},
        )

    def _fail(self, exc: BaseException, url: str, attempts: int = 1) -> BackendError:
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        if isinstance(exc, openai.APITimeoutError):
            return BackendUnavailableError(
                f"The world model at {url} did not answer within {self.timeout:g}s{tries}",
                hint="raise the timeout (AGENTWORLD_TIMEOUT) or check the server's load",
            )
        if isinstance(exc, openai.APIConnectionError):
            return BackendUnavailableError(f"Cannot reach the world model at {url}{tries}", hint=START_HINT)
        if isinstance(exc, openai.APIStatusError):
            body = exc.response.text[:300] if exc.response is not None else ""
            status = exc.status_code
            hint = None
            if status == 404:
                hint = f"check the model name ({self.model!r}) and that the base URL ends in /v1"
            elif status in (401, 403):
                hint = "set the key with --api-key or AGENTWORLD_API_KEY"
            elif status in (400, 422):
                hint = (
                    "the server rejected the request: check the sampling fields (max_tokens within "
                    "the model's context length, extra_body keys the server knows)"
                )
            elif status == 429:
                hint = "the server is rate limiting: lower AGENTWORLD_CONCURRENCY or raise AGENTWORLD_MAX_RETRIES"
            elif status >= 500:
                hint = "the server failed: see its log, or raise AGENTWORLD_MAX_RETRIES for a flaky one"
            return BackendError(f"The world model at {url} answered HTTP {status}{tries}: {body}", hint=hint)
        if isinstance(exc, json.JSONDecodeError):
            return BackendError(
                f"The world model at {url} answered with a body that is not JSON{tries} "
                f"({exc.msg}): {exc.doc[:200]!r}",
                hint="check that the base URL is an OpenAI-compatible server (vLLM, SGLang) and ends in /v1",
            )
        return BackendError(f"The world model at {url} failed{tries}: {type(exc).__name__}: {exc}")

    def _delay(self, attempt: int) -> float:
        base = self.retry_backoff * (2**attempt)
        return base + random.uniform(0, base / 4) if base else 0.0

    # -- model discovery -----------------------------------------------------------------------

    def _ensure_model(self) -> None:
        if self.model:
            return
        with self._model_lock:
            if self.model:
                return
            index = self.balancer.acquire()
            try:
                models = self._clients[index].models.list()
                first = next(iter(models), None)
            except Exception as exc:
                raise self._fail(exc, self.base_urls[index]) from None
            finally:
                self.balancer.release(index)
            if first is None:
                raise ConfigError(
                    f"{self.base_urls[index]}/models lists no model", hint="pass --model / AGENTWORLD_MODEL"
                )
            self.model = first.id

    async def _aensure_model(self) -> None:
        if not self.model:
            await asyncio.to_thread(self._ensure_model)

    # -- sync ----------------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self._ensure_model()
        payload = self._payload(messages, sampling)
        last: int | None = None
        with self._slots:
            for attempt in range(self.max_retries + 1):
                index = self.balancer.acquire(avoid=last)
                url = self.base_urls[index]
                started = time.perf_counter()
                try:
                    response = self._clients[index].chat.completions.create(**payload)
                except Exception as exc:
                    if _is_retryable(exc) and attempt < self.max_retries:
                        last = index
                        time.sleep(self._delay(attempt))
                        continue
                    raise self._fail(exc, url, attempt + 1) from None
                finally:
                    self.balancer.release(index)
                completion = self._completion(response, url)
                completion.metadata.update(latency_s=time.perf_counter() - started, attempts=attempt + 1)
                return completion
        raise AssertionError("unreachable")  # pragma: no cover

    # -- async ---------------------------------------------------------------------------------

    async def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        with self._aio_lock:
            state = self._aio.get(loop)
            if state is not None:
                return state
            for old in [other for other in self._aio if other.is_closed()]:
                del self._aio[old]
            clients = [
                openai.AsyncOpenAI(base_url=u, api_key=self.api_key, timeout=self.timeout, max_retries=0)
                for u in self.base_urls
            ]
            state = _LoopState(clients, asyncio.Semaphore(self.concurrency), _close_at_loop_shutdown(clients))
            self._aio[loop] = state
        await state.closer.__anext__()  # runs to the yield at once; the loop now tracks it
        return state

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        await self._aensure_model()
        payload = self._payload(messages, sampling)
        state = await self._loop_state()
        clients = state.clients
        last: int | None = None
        async with state.slots:
            for attempt in range(self.max_retries + 1):
                index = self.balancer.acquire(avoid=last)
                url = self.base_urls[index]
                started = time.perf_counter()
                try:
                    response = await clients[index].chat.completions.create(**payload)
                except Exception as exc:
                    if _is_retryable(exc) and attempt < self.max_retries:
                        last = index
                        await asyncio.sleep(self._delay(attempt))
                        continue
                    raise self._fail(exc, url, attempt + 1) from None
                finally:
                    self.balancer.release(index)
                completion = self._completion(response, url)
                completion.metadata.update(latency_s=time.perf_counter() - started, attempts=attempt + 1)
                return completion
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        for client in self._clients:
            client.close()
        with self._aio_lock:
            states, self._aio = self._aio, {}
        for loop, state in states.items():
            if loop.is_closed():
                continue  # closed by the loop's shutdown_asyncgens, or left to the GC
            if loop.is_running():
                asyncio.run_coroutine_threadsafe(state.closer.aclose(), loop)
            elif _running_loop() is None:
                loop.run_until_complete(state.closer.aclose())
