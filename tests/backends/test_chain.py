"""Backend chains: order, falling through, the error when nobody answers, and parsing chain text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins.backends import replay_plugin
from agentworld_plugins.backends.base import Backend, Completion, Sampling
from agentworld_plugins.backends.cassette import CassetteBackend
from agentworld_plugins.backends.chain import ChainBackend, NoAnswer, build_backend_chain, split_chain
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.backends.scenario import ScenarioBackend
from agentworld_plugins.config import Settings
from agentworld_plugins.errors import BackendError, ConfigError, UnknownNameError
from agentworld_plugins.hookspecs import hookimpl
from agentworld_plugins.plugins import PluginManager, Registry, new_plugin_manager
from agentworld_plugins.session import World
from agentworld_plugins.turns import render_turn

SAMPLING = Sampling()


def user(text: str = "### Turn 1") -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


class Declining(Backend):
    """Never answers; counts how often it was asked."""

    name = "declining"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.calls = 0

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        self.calls += 1
        raise NoAnswer(self.reason)


def test_first_answer_wins_in_order() -> None:
    first, second = FakeBackend().enqueue("one"), FakeBackend().enqueue("two")
    chain = ChainBackend([first, second])
    assert chain.complete(user(), SAMPLING).text == "one"
    assert len(first.history) == 1 and second.history == []


def test_no_answer_passes_to_the_next() -> None:
    declining, fake = Declining("not mine"), FakeBackend().enqueue("answered")
    assert ChainBackend([declining, fake]).complete(user(), SAMPLING).text == "answered"
    assert declining.calls == 1 and len(fake.history) == 1


def test_other_errors_stop_the_chain() -> None:
    fake = FakeBackend()
    broken = FakeBackend().enqueue(BackendError("server down"))
    with pytest.raises(BackendError, match="server down") as info:
        ChainBackend([broken, fake]).complete(user(), SAMPLING)
    assert not isinstance(info.value, NoAnswer)
    assert fake.history == []


def test_nobody_answers_lists_each_reason() -> None:
    chain = ChainBackend([Declining("no step for it"), Declining("not recorded")])
    with pytest.raises(BackendError) as info:
        chain.complete(user("### Turn 5\n**Action:**\nclick('1')"), SAMPLING)
    message = str(info.value)
    assert "No backend in the chain answered ### Turn 5" in message
    assert "1. declining: no step for it" in message and "2. declining: not recorded" in message
    # a chain inside a chain falls through as well
    outer = ChainBackend([chain, FakeBackend().enqueue("outer answer")])
    assert outer.complete(user(), SAMPLING).text == "outer answer"


async def test_async_chain() -> None:
    declining, fake = Declining("skip"), FakeBackend().enqueue("async answer")
    chain = ChainBackend([declining, fake])
    assert (await chain.acomplete(user(), SAMPLING)).text == "async answer"
    with pytest.raises(NoAnswer, match="skip"):
        await ChainBackend([Declining("skip")]).acomplete(user(), SAMPLING)


def test_close_and_describe() -> None:
    closed: list[str] = []

    class Closing(FakeBackend):
        def close(self) -> None:
            closed.append("x")

    chain = ChainBackend([Closing(), Closing()])
    assert chain.describe() == "chain(fake, fake)"
    chain.close()
    assert closed == ["x", "x"]
    with pytest.raises(ConfigError):
        ChainBackend([])


KNOWN = {"scenario", "cassette", "openai", "fake"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "scenario:tests/s.yaml,cassette:run.db,openai",
            [("scenario", "tests/s.yaml"), ("cassette", "run.db"), ("openai", "")],
        ),
        (
            "cassette:runs/a.db?mode=none,openai:http://a:8000/v1|http://b:8000/v1",
            [("cassette", "runs/a.db?mode=none"), ("openai", "http://a:8000/v1|http://b:8000/v1")],
        ),
        ("openai:http://a/v1,http://b/v1", [("openai", "http://a/v1,http://b/v1")]),
        ("cassette:odd,name.db, openai", [("cassette", "odd,name.db"), ("openai", "")]),
        ("cassette:C:/runs/a.db,fake", [("cassette", "C:/runs/a.db"), ("fake", "")]),
        ("fake", [("fake", "")]),
    ],
)
def test_split_chain(text: str, expected: list[tuple[str, str]]) -> None:
    assert split_chain(text, KNOWN) == expected


def test_split_chain_rejects_empty_entries() -> None:
    with pytest.raises(ConfigError, match="Empty entry"):
        split_chain("scenario:a.yaml,,openai", KNOWN)


class _FakePlugin:
    """Registers a ``fake`` backend whose instances the test can reach."""

    def __init__(self) -> None:
        self.made: list[FakeBackend] = []

    @hookimpl
    def register_backends(self, register: Callable[..., None]) -> None:
        def factory(settings: Settings, spec: str) -> Backend:
            backend = FakeBackend(lambda messages: f"model answer {spec}".strip())
            self.made.append(backend)
            return backend

        register("fake", factory)


@pytest.fixture
def plugin() -> _FakePlugin:
    return _FakePlugin()


@pytest.fixture
def pm(plugin: _FakePlugin) -> Iterator[PluginManager]:
    manager = new_plugin_manager(load_entrypoints=False)
    if not manager.is_registered(replay_plugin):
        manager.register(replay_plugin)
    manager.register(plugin, name="test-fake")
    yield manager
    manager.unregister(name="test-fake")


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(
        "steps:\n  - {match: {tool_name: scripted}, observation: from the script, repeat: always}\n"
    )
    return path


def mcp(tool: str, number: int = 1) -> list[dict[str, Any]]:
    return [{"role": "user", "content": render_turn(number, f'{{"tool_name": "{tool}"}}')}]


def test_build_scenario_cassette_backend(
    pm: PluginManager, plugin: _FakePlugin, scenario_file: Path, tmp_path: Path
) -> None:
    cassette_path = tmp_path / "run.db"
    text = f"scenario:{scenario_file},cassette:{cassette_path}?mode=new_episodes,fake"
    backend = build_backend_chain(Settings(), pm.registry, text)
    assert isinstance(backend, ChainBackend)
    scenario, cassette = backend.backends
    assert isinstance(scenario, ScenarioBackend) and scenario.fallthrough
    assert isinstance(cassette, CassetteBackend) and cassette.mode == "new_episodes"
    assert cassette.inner is plugin.made[0]

    assert backend.complete(mcp("scripted"), SAMPLING).text.endswith(
        "from the script\n</predicted_observation>"
    )
    recorded = backend.complete(mcp("other"), SAMPLING)
    assert recorded.text == "model answer" and recorded.metadata["cassette"] == "recorded"
    assert len(plugin.made[0].history) == 1
    backend.close()

    replay = build_backend_chain(
        Settings(), pm.registry, f"scenario:{scenario_file},cassette:{cassette_path}?mode=none"
    )
    assert isinstance(replay, ChainBackend)
    assert replay.complete(mcp("other"), SAMPLING).metadata["cassette"] == "hit"
    with pytest.raises(BackendError, match="### Turn 2"):
        replay.complete(mcp("unseen", number=2), SAMPLING)


def test_cassette_wraps_everything_after_it(pm: PluginManager, plugin: _FakePlugin, tmp_path: Path) -> None:
    backend = build_backend_chain(Settings(), pm.registry, f"cassette:{tmp_path / 'a.db'},fake:one,fake:two")
    assert isinstance(backend, CassetteBackend)
    assert isinstance(backend.inner, ChainBackend)
    assert backend.inner.backends == plugin.made[::-1]  # built last to first
    assert backend.complete(mcp("x"), SAMPLING).text == "model answer one"


def test_single_entry_and_scenario_last(pm: PluginManager, scenario_file: Path) -> None:
    alone = build_backend_chain(Settings(), pm.registry, f"scenario:{scenario_file}")
    assert isinstance(alone, ScenarioBackend) and not alone.fallthrough
    with pytest.raises(BackendError) as info:
        alone.complete(mcp("nothing"), SAMPLING)
    assert not isinstance(info.value, NoAnswer)


def test_unknown_name_in_a_chain(pm: PluginManager, scenario_file: Path) -> None:
    with pytest.raises(UnknownNameError, match="opnai"):
        build_backend_chain(Settings(), pm.registry, f"scenario:{scenario_file},opnai")


def test_with_a_plain_registry() -> None:
    made: list[str] = []

    def factory(settings: Settings, spec: str) -> Backend:
        made.append(spec)
        return FakeBackend().enqueue(f"from {spec}")

    registry = Registry(backends={"fake": factory})
    backend = build_backend_chain(Settings(), registry, "fake:a,fake:b")
    assert isinstance(backend, ChainBackend) and made == ["b", "a"]
    assert backend.complete(user(), SAMPLING).text == "from a"


def test_chain_through_a_world_session(
    pm: PluginManager, plugin: _FakePlugin, scenario_file: Path, tmp_path: Path
) -> None:
    text = f"scenario:{scenario_file},cassette:{tmp_path / 'w.db'},fake"
    backend = build_backend_chain(Settings(), pm.registry, text)
    with World(backend=backend, plugin_manager=pm) as world:
        session = world.session("mcp")
        assert session.step({"tool_name": "scripted"}).text == "from the script"
        live = session.step({"tool_name": "search", "arguments": {"q": "x"}})
        assert live.text == "model answer" and live.metadata["cassette"] == "recorded"
