"""``latency``: delay observations by a fixed, uniform or log-normal number of milliseconds.

The delay wraps the backend call (``call_backend``), so it works for ``step`` (``time.sleep``)
and ``astep`` (``asyncio.sleep``, the event loop keeps running). Steps answered without the
backend (an injected fault) are not delayed. Each delay is drawn from the session's random
stream, so a seeded run waits the same way every time, and is recorded in
``metadata["perturbations"]`` as ``{"name": "latency", "delay_s": ...}``.

Tests pass ``sleep=`` and ``async_sleep=`` to record the requested delays instead of waiting:

>>> waited = []
>>> slow = Latency(ms=250, sleep=waited.append)
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from ..hookspecs import hookimpl
from .base import METADATA_KEY, TargetedPerturbation, TargetOptions

if TYPE_CHECKING:
    from ..backends.base import BackendRequest, Completion
    from ..session import Observation, Session


class LatencyOptions(TargetOptions):
    distribution: Literal["fixed", "uniform", "lognormal"] = Field(
        "fixed", description="how delays are drawn: fixed (ms), uniform (min_ms-max_ms) or lognormal"
    )
    ms: float | None = Field(None, ge=0, description="the delay of the fixed distribution (default 500)")
    min_ms: float | None = Field(None, ge=0, description="uniform: the shortest delay")
    max_ms: float | None = Field(
        None, ge=0, description="uniform: the longest delay; lognormal: a cap on the delay"
    )
    median_ms: float | None = Field(None, gt=0, description="lognormal: the median delay (default 500)")
    sigma: float = Field(0.5, ge=0, le=5, description="lognormal: the spread (standard deviation of the log)")

    @model_validator(mode="after")
    def _fits(self) -> LatencyOptions:
        if self.distribution == "uniform":
            if self.min_ms is None or self.max_ms is None:
                raise ValueError("distribution=uniform needs min_ms and max_ms, e.g. min_ms=100,max_ms=900")
            if self.min_ms > self.max_ms:
                raise ValueError(f"min_ms={self.min_ms} is above max_ms={self.max_ms}; swap them")
        if self.distribution != "fixed" and self.ms is not None:
            raise ValueError(f"ms is for distribution=fixed; {self.distribution} takes other options")
        if self.distribution != "lognormal" and self.median_ms is not None:
            raise ValueError("median_ms is for distribution=lognormal")
        return self


class Latency(TargetedPerturbation):
    """Delays matching steps before the agent sees their observation."""

    name = "latency"
    Options = LatencyOptions
    example = "latency:distribution=lognormal,median_ms=800,sigma=0.6,tools=web_*"
    skip_inert = False

    def __init__(
        self,
        *,
        sleep: Callable[[float], Any] | None = None,
        async_sleep: Callable[[float], Awaitable[Any]] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.sleep = sleep or time.sleep
        self.async_sleep = async_sleep or asyncio.sleep

    def delay_s(self, session: Session, turn: int) -> float:
        """The delay of ``turn`` in seconds (drawn from the session's stream)."""
        opts: LatencyOptions = self.options
        if opts.distribution == "fixed":
            ms = 500.0 if opts.ms is None else opts.ms
        elif opts.distribution == "uniform":
            assert opts.min_ms is not None and opts.max_ms is not None
            ms = opts.min_ms + (opts.max_ms - opts.min_ms) * self.random(session).uniform(turn, "delay")
        else:
            median = 500.0 if opts.median_ms is None else opts.median_ms
            normal = self.random(session).rng(turn, "delay").gauss(0.0, 1.0)
            ms = median * math.exp(opts.sigma * normal)
            if opts.max_ms is not None:
                ms = min(ms, opts.max_ms)
        return round(ms / 1000.0, 6)

    @hookimpl
    def before_step(self, session: Session, action: Any) -> None:
        view = self.view(session, action)
        state = self.state(session)
        if self.fires(session, view):
            state["delay"] = {"turn": session.turn_number, "s": self.delay_s(session, session.turn_number)}
        else:
            state.pop("delay", None)
        return None

    def _stamp(self, session: Session, completion: Completion, delay: float, turn: int) -> Completion:
        entry = {"name": self.name, "turn": turn, "delay_s": delay}
        listed = [*completion.metadata.get(METADATA_KEY, []), entry]
        return dataclasses.replace(completion, metadata={**completion.metadata, METADATA_KEY: listed})

    @hookimpl(wrapper=True)
    def call_backend(self, session: Session, request: BackendRequest) -> Generator[None, Any, Any]:
        planned = self.state(session).get("delay")
        turn = session.turn_number
        result = yield
        if not planned or planned.get("turn") != turn:
            return result
        delay = float(planned["s"])
        if request.is_async:

            async def delayed() -> Completion:
                completion = await result
                await self.async_sleep(delay)
                return self._stamp(session, completion, delay, turn)

            return delayed()
        self.sleep(delay)
        return self._stamp(session, result, delay, turn)

    @hookimpl
    def after_observation(self, session: Session, action: Any, observation: Observation) -> None:
        self.count(session, self.view(session, action))
        self.state(session).pop("delay", None)
        return None
