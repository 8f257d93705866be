"""The SDK transport of the ``openai`` backend: the ``openai`` package's clients (proxies,
redirects, everything the SDK honours), one per base URL, sync and per event loop async."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import openai

from ...errors import BackendError, BackendUnavailableError
from ..base import Completion, Sampling, served_extras

__all__ = ["START_HINT", "SdkTransport"]

START_HINT = (
    "start a world model with `vllm serve Qwen/Qwen-AgentWorld-35B-A3B --port 8000 "
    "--reasoning-parser qwen3` (or `python -m sglang.launch_server --model-path ... --port 8000`), "
    "or pick another backend with --backend / AGENTWORLD_BACKEND"
)

_RETRYABLE = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


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
class _LoopClients:
    """The async clients of one event loop (they cannot cross loops)."""

    clients: list[Any]
    closer: Any  # the _close_at_loop_shutdown generator


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class SdkTransport:
    """Chat completions through the ``openai`` SDK (no retries of its own: the backend retries)."""

    label = ""

    def __init__(
        self, base_urls: Sequence[str], api_key: str | None = None, *, timeout: float = 120.0
    ) -> None:
        self.base_urls = list(base_urls)
        self.api_key = api_key or "EMPTY"
        self.timeout = timeout
        self._clients = [
            openai.OpenAI(base_url=u, api_key=self.api_key, timeout=timeout, max_retries=0)
            for u in self.base_urls
        ]
        # async clients belong to one event loop each; the clients of closed loops are dropped
        # when a new loop comes (a weak key would not do: the clients refer to the loop)
        self._aio: dict[asyncio.AbstractEventLoop, _LoopClients] = {}
        self._aio_lock = threading.Lock()

    def payload(
        self, model: str | None, messages: list[dict[str, Any]], sampling: Sampling
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": model, "messages": messages, **sampling.request_fields()}
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
            metadata={"base_url": url, **served_extras(getattr(response, "model_extra", None) or {})},
        )

    def first_model(self, index: int) -> str | None:
        first = next(iter(self._clients[index].models.list()), None)
        return None if first is None else str(first.id)

    async def afirst_model(self, index: int) -> str | None:
        return await asyncio.to_thread(self.first_model, index)

    def complete(
        self, index: int, payload: dict[str, Any], headers: Mapping[str, str] | None = None
    ) -> Completion:
        extra: dict[str, Any] = {"extra_headers": dict(headers)} if headers else {}
        response = self._clients[index].chat.completions.create(**payload, **extra)
        return self._completion(response, self.base_urls[index])

    async def acomplete(
        self, index: int, payload: dict[str, Any], headers: Mapping[str, str] | None = None
    ) -> Completion:
        clients = (await self._loop_clients()).clients
        extra: dict[str, Any] = {"extra_headers": dict(headers)} if headers else {}
        response = await clients[index].chat.completions.create(**payload, **extra)
        return self._completion(response, self.base_urls[index])

    async def _loop_clients(self) -> _LoopClients:
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
            state = _LoopClients(clients, _close_at_loop_shutdown(clients))
            self._aio[loop] = state
        await state.closer.__anext__()  # runs to the yield at once; the loop now tracks it
        return state

    @staticmethod
    def retryable(exc: BaseException) -> bool:
        if isinstance(exc, _RETRYABLE):
            return True
        if isinstance(exc, json.JSONDecodeError):  # a 200 whose body is not JSON: truncated or garbled
            return True
        return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500

    def fail(self, exc: BaseException, url: str, attempts: int = 1, model: str | None = None) -> BackendError:
        """The package's error for an SDK failure at ``url`` after ``attempts`` tries."""
        if isinstance(exc, BackendError):
            return exc
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
                hint = f"check the model name ({model!r}) and that the base URL ends in /v1"
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
