"""The hooks that keep the layers apart: offline worlds registered by name, perturbation specs and
AGENTWORLD_PERTURB resolved by the perturbations plugin, fronts' import-time setup by entry point."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from agentworld_plugins import OfflineResult, World, hookimpl
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.backends.offline import OfflineBackend
from agentworld_plugins.domains.base import Domain
from agentworld_plugins.errors import BackendError, ConfigError
from agentworld_plugins.perturbations import Latency
from agentworld_plugins.plugins import DEFAULT_PLUGINS, PluginManager, new_plugin_manager

PING = {"tool_name": "ping", "arguments": {}}


class Echo(BaseModel):
    say: str


class EchoDomain(Domain):
    name = "echo"
    description = "echoes what it is told"
    Action = Echo

    def template(self, prompts_dir: Any = None, name: str = "system.txt") -> str:
        return "You simulate an echo service."


class EchoDomainWithItsOwnWorld(EchoDomain):
    def offline_step(
        self, state: dict[str, Any], action: BaseModel, context: dict[str, Any]
    ) -> OfflineResult:
        return OfflineResult(f"own: {Echo.model_validate(action).say}")


def echo_world(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    state["n"] = state.get("n", 0) + 1
    return OfflineResult(f"{state['n']}: {Echo.model_validate(action).say}")


def plugin_manager(domain: Domain, *, world: bool) -> PluginManager:
    class Plugin:
        @hookimpl
        def register_domains(self, register: Callable[..., None]) -> None:
            register(domain)

        if world:

            @hookimpl
            def register_offline_worlds(self, register: Callable[..., None]) -> None:
                register("echo", echo_world)

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Plugin())
    return pm


def offline_world(pm: PluginManager) -> World:
    return World(backend=OfflineBackend(pm.registry), plugin_manager=pm)


# --- register_offline_worlds ------------------------------------------------------------------------


def test_the_builtin_worlds_are_registered_by_the_offline_plugin() -> None:
    assert "agentworld_plugins.offline.plugin" in DEFAULT_PLUGINS
    worlds = new_plugin_manager(load_entrypoints=False).registry.offline_worlds
    assert set(worlds) == {"mcp", "search", "terminal", "swe", "android", "web", "os"}


def test_a_registered_world_answers_its_domain_and_keeps_state() -> None:
    session = offline_world(plugin_manager(EchoDomain(), world=True)).session("echo")
    assert session.step({"say": "hi"}).text == "1: hi"
    assert session.step({"say": "again"}).text == "2: again"


def test_a_domain_that_overrides_offline_step_answers_itself() -> None:
    session = offline_world(plugin_manager(EchoDomainWithItsOwnWorld(), world=True)).session("echo")
    assert session.step({"say": "hi"}).text == "own: hi"


def test_a_domain_without_an_offline_world_gets_an_error_naming_it() -> None:
    session = offline_world(plugin_manager(EchoDomain(), world=False)).session("echo")
    with pytest.raises(BackendError, match="no behaviour for domain 'echo'") as caught:
        session.step({"say": "hi"})
    assert "register_offline_worlds" in (caught.value.hint or "")


def test_a_later_registration_replaces_a_builtin_world() -> None:
    class Replaces:
        @hookimpl
        def register_offline_worlds(self, register: Callable[..., None]) -> None:
            register("mcp", lambda state, action, context: OfflineResult("replaced"))

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Replaces())
    assert offline_world(pm).session("mcp").step(PING).text == "replaced"


def test_a_light_step_runs_on_the_callers_thread_and_others_in_a_worker() -> None:
    """``kind="light"``: an async step the world calls light is answered on the event loop's
    thread (no hand-off), any other in a worker thread; the answers are the same either way."""
    import asyncio
    import threading

    threads: list[int] = []

    def world(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
        threads.append(threading.get_ident())
        return echo_world(state, action, context)

    class Plugin:
        @hookimpl
        def register_domains(self, register: Callable[..., None]) -> None:
            register(EchoDomain())

        @hookimpl
        def register_offline_worlds(self, register: Callable[..., None]) -> None:
            register("echo", world)
            register("echo", lambda state, action, context: action.say.startswith("light"), kind="light")

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Plugin())
    session = offline_world(pm).session("echo")

    async def steps() -> tuple[int, list[str]]:
        said = [(await session.astep({"say": s})).text for s in ("first", "light one", "heavy", "light two")]
        return threading.get_ident(), said

    loop_thread, said = asyncio.run(steps())
    assert said == ["1: first", "2: light one", "3: heavy", "4: light two"]
    # the first step builds the world (never light); the light ones ran on the loop's thread
    assert threads[1] == threads[3] == loop_thread
    assert threads[0] != loop_thread and threads[2] != loop_thread
    plain = offline_world(plugin_manager(EchoDomain(), world=True)).session("echo")
    assert [plain.step({"say": s}).text for s in ("first", "light one", "heavy", "light two")] == said


def test_an_unknown_offline_world_kind_names_light_among_the_kinds() -> None:
    class Plugin:
        @hookimpl
        def register_offline_worlds(self, register: Callable[..., None]) -> None:
            register("echo", echo_world, kind="fast")

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Plugin())
    with pytest.raises(ConfigError, match="unknown kind 'fast'") as caught:
        pm.registry  # noqa: B018 (the registry is built on first use)
    assert 'kind="light"' in (caught.value.hint or "")


# --- resolve_perturbation / default_perturbations -----------------------------------------------------


def test_specs_are_resolved_by_the_perturbations_plugin() -> None:
    world = World(backend=FakeBackend(), plugin_manager=new_plugin_manager(load_entrypoints=False))
    session = world.session("mcp", perturbations=["latency:ms=0"])
    assert any(isinstance(p, Latency) for _, p in session.pm.list_name_plugin())


def test_without_a_resolver_a_spec_is_an_error_and_an_object_is_used_as_it_is() -> None:
    pm = new_plugin_manager(load_entrypoints=False)
    pm.unregister(name="agentworld_plugins.perturbations")
    world = World(backend=FakeBackend().enqueue("done"), plugin_manager=pm, perturbations=[])
    with pytest.raises(ConfigError, match="No plugin resolves the perturbation 'latency:ms=0'"):
        world.session("mcp", perturbations=["latency:ms=0"])

    class Upper:
        @hookimpl
        def after_observation(self, observation: Any) -> Any:
            return observation.model_copy(update={"text": observation.text.upper()})

    assert world.session("mcp", perturbations=[Upper()]).step(PING).text == "DONE"


def test_agentworld_perturb_reaches_every_world_through_default_perturbations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTWORLD_PERTURB", "latency:ms=0")
    monkeypatch.delenv("AGENTWORLD_PERTURB_FILE", raising=False)
    pm = new_plugin_manager(load_entrypoints=False)
    assert [type(p) for p in World(backend=FakeBackend(), plugin_manager=pm).perturbations] == [Latency]
    pm.unregister(name="agentworld_plugins.perturbations")
    assert World(backend=FakeBackend(), plugin_manager=pm).perturbations == []


# --- agentworld.on_import ------------------------------------------------------------------------------


def test_a_failing_on_import_entry_point_warns_without_breaking_the_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from importlib.metadata import EntryPoint

    from agentworld_plugins import plugins

    eps = [
        EntryPoint(
            name="broken", value="agentworld_no_such_module_xyz:install", group=plugins.ON_IMPORT_GROUP
        )
    ]
    monkeypatch.setattr(plugins, "entry_points", lambda *, group: [ep for ep in eps if ep.group == group])
    with pytest.warns(UserWarning, match="entry point 'broken'"):
        plugins.run_on_import_entry_points()


def test_importing_the_package_imports_no_front_but_the_gym_registration_hook() -> None:
    code = (
        "import sys, agentworld_plugins; "
        "print(sorted(m for m in sys.modules if m.startswith(('agentworld_plugins.adapters', "
        "'agentworld_plugins.cli', 'agentworld_plugins.bench', 'agentworld_plugins.offline.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(
        [
            "agentworld_plugins.adapters",
            "agentworld_plugins.adapters.gui",
            "agentworld_plugins.adapters.gui.registration",
        ]
    )
