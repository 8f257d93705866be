"""Latency: delays drawn per session and turn; asserted on requested delays, never by waiting."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from agentworld_plugins import ConfigError, World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import Faults, Latency
from agentworld_plugins.plugins import new_plugin_manager

PING = {"tool_name": "ping", "arguments": {}}


def make_world() -> World:
    return World(backend=FakeBackend(), plugin_manager=new_plugin_manager(load_entrypoints=False))


def run(latency: Latency, steps: int = 5, seed: int | None = 1, **session: Any) -> list[Any]:
    s = make_world().session("mcp", seed=seed, perturbations=[latency], **session)
    return [s.step(PING) for _ in range(steps)]


def test_fixed_delay_is_requested_on_every_step() -> None:
    waited: list[float] = []
    observations = run(Latency(ms=250, sleep=waited.append), steps=3)
    assert waited == [0.25, 0.25, 0.25]
    assert [o.metadata["perturbations"] for o in observations] == [
        [{"name": "latency", "turn": n, "delay_s": 0.25}] for n in (1, 2, 3)
    ]


def test_uniform_delays_stay_in_bounds_and_repeat_with_the_seed() -> None:
    first: list[float] = []
    again: list[float] = []
    other: list[float] = []
    run(Latency(distribution="uniform", min_ms=100, max_ms=300, sleep=first.append), steps=50)
    run(Latency(distribution="uniform", min_ms=100, max_ms=300, sleep=again.append), steps=50)
    run(Latency(distribution="uniform", min_ms=100, max_ms=300, sleep=other.append), steps=50, seed=2)
    assert all(0.1 <= d <= 0.3 for d in first)
    assert first == again and first != other
    assert len(set(first)) > 40


def test_lognormal_delays_centre_on_the_median_and_respect_the_cap() -> None:
    waited: list[float] = []
    run(Latency(distribution="lognormal", median_ms=400, sigma=0.5, sleep=waited.append), steps=200)
    logs = sorted(math.log(d) for d in waited)
    median = math.exp(logs[len(logs) // 2])
    assert 0.34 < median < 0.47
    capped: list[float] = []
    run(Latency(distribution="lognormal", median_ms=400, sigma=2, max_ms=600, sleep=capped.append), steps=100)
    assert max(capped) == 0.6


def test_async_steps_await_the_async_sleep() -> None:
    slept: list[float] = []
    blocked: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    latency = Latency(ms=120, sleep=blocked.append, async_sleep=fake_sleep)
    session = make_world().session("mcp", perturbations=[latency])

    async def two_steps() -> list[Any]:
        return [await session.astep(PING), await session.astep(PING)]

    observations = asyncio.run(two_steps())
    assert slept == [0.12, 0.12] and blocked == []
    assert observations[1].metadata["perturbations"] == [{"name": "latency", "turn": 2, "delay_s": 0.12}]


def test_latency_follows_targeting_and_schedules() -> None:
    waited: list[float] = []
    latency = Latency(ms=50, tools="slow_*", every=2, sleep=waited.append)
    session = make_world().session("mcp", perturbations=[latency])
    for tool in ["slow_a", "fast", "slow_b", "slow_c", "slow_d"]:
        session.step({"tool_name": tool, "arguments": {}})
    assert waited == [0.05, 0.05]  # the 2nd and 4th slow calls
    delayed = [t.number for t in session.trajectory.turns if t.observation.metadata.get("perturbations")]
    assert delayed == [3, 5]


def test_steps_answered_by_a_fault_are_not_delayed() -> None:
    waited: list[float] = []
    session = make_world().session("mcp", perturbations=[Faults(at=[2]), Latency(ms=10, sleep=waited.append)])
    for _ in range(3):
        session.step(PING)
    assert waited == [0.01, 0.01]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"distribution": "uniform", "min_ms": "500"}, "needs min_ms and max_ms"),
        ({"distribution": "uniform", "min_ms": "500", "max_ms": "100"}, "swap them"),
        ({"distribution": "lognormal", "ms": "100"}, "ms is for distribution=fixed"),
        ({"distribution": "gaussian"}, "distribution='gaussian'"),
        ({"ms": "-5"}, "ms='-5'"),
    ],
)
def test_bad_latency_options_are_refused(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Latency(**options)
