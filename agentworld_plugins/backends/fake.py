"""An in-process backend with scripted answers and a record of every call (for tests)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from .base import Backend, Completion, Sampling


class FakeBackend(Backend):
    """Answers from a queue (``enqueue``), else from ``responder(messages)``; calls are kept in
    ``history`` as ``(messages, sampling)`` pairs."""

    name = "fake"

    def __init__(self, responder: Callable[[list[dict[str, Any]]], str | Completion] | None = None) -> None:
        self.responder = responder or (lambda messages: f"fake observation {len(self.history)}")
        self.history: list[tuple[list[dict[str, Any]], Sampling]] = []
        self._queue: deque[str | Completion | BaseException] = deque()

    def enqueue(self, *answers: str | Completion | BaseException) -> FakeBackend:
        """Queue answers; an exception instance is raised when its turn comes."""
        self._queue.extend(answers)
        return self

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self.history.append(([dict(m) for m in messages], sampling))
        answer = self._queue.popleft() if self._queue else self.responder(messages)
        if isinstance(answer, BaseException):
            raise answer
        return answer if isinstance(answer, Completion) else Completion(text=answer)

    async def acomplete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        return self.complete(messages, sampling)
