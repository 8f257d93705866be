"""The plugin manager: built-ins, registries, entry points, errors, the CLI listing, the example plugin."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType

import click
import pluggy
import pytest
from click.testing import CliRunner

from agentworld_plugins import plugins
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.domains.base import Domain, OfflineResult
from agentworld_plugins.domains.mcp import McpDomain
from agentworld_plugins.errors import ActionValidationError, ConfigError, PluginError, UnknownNameError
from agentworld_plugins.hookspecs import hookimpl
from agentworld_plugins.plugins import DEFAULT_PLUGINS, PluginManager, new_plugin_manager, plugin_summary
from agentworld_plugins.session import World

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "agentworld-hello"
BUILTIN_DOMAINS = {"mcp", "search", "terminal", "swe", "android", "web", "os"}


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, *pairs: tuple[str, str]) -> None:
    """Make ``plugins.entry_points(group=...)`` see only ``(name, module)`` pairs."""
    eps = [EntryPoint(name=name, value=value, group=plugins.ENTRY_POINT_GROUP) for name, value in pairs]

    def entry_points(*, group: str) -> list[EntryPoint]:
        return [ep for ep in eps if ep.group == group]

    monkeypatch.setattr(plugins, "entry_points", entry_points)


class CustomMcp(McpDomain):
    description = "an override of the built-in mcp domain"


class OverridesMcp:
    @hookimpl
    def register_domains(self, register: Callable[..., None]) -> None:
        register(CustomMcp())


# --- the registry ---------------------------------------------------------------------------------------


def test_builtin_domains_and_backends(pm: PluginManager) -> None:
    registry = pm.registry
    assert set(registry.domains) == BUILTIN_DOMAINS
    assert all(isinstance(d, Domain) and d.name == name for name, d in registry.domains.items())
    assert {"openai", "transformers"} <= set(registry.backends)
    assert all(callable(factory) for factory in registry.backends.values())


def test_builtins_are_registered_under_their_module_names(pm: PluginManager) -> None:
    names = {name for name, _ in pm.list_name_plugin()}
    assert set(DEFAULT_PLUGINS) <= names
    for module_name in DEFAULT_PLUGINS:
        assert pm.get_plugin(module_name) is sys.modules[module_name]


def test_a_plugin_can_override_a_builtin_domain(pm: PluginManager, register: Callable[..., object]) -> None:
    assert type(pm.registry.domain("mcp")) is McpDomain
    register(OverridesMcp())
    assert type(pm.registry.domain("mcp")) is CustomMcp
    assert set(pm.registry.domains) == BUILTIN_DOMAINS  # replaced, not added


def test_a_plugin_can_override_a_builtin_backend(pm: PluginManager, register: Callable[..., object]) -> None:
    fake = FakeBackend().enqueue("from the override")

    class OverridesOpenai:
        @hookimpl
        def register_backends(self, register: Callable[..., None]) -> None:
            register("openai", lambda settings, spec: fake)

    register(OverridesOpenai())
    world = World(backend="openai", plugin_manager=pm)
    assert world.backend is fake
    assert world.session("mcp").step({"tool_name": "t"}).text == "from the override"


def test_unknown_domain_lists_the_registered_ones(pm: PluginManager) -> None:
    world = World(backend=FakeBackend(), plugin_manager=pm)
    with pytest.raises(UnknownNameError) as caught:
        world.session("nope")
    message = str(caught.value)
    assert "Unknown domain 'nope'" in message
    for name in BUILTIN_DOMAINS:
        assert name in message
    assert "register_domains" in message
    assert caught.value.known == sorted(BUILTIN_DOMAINS)
    assert isinstance(caught.value, KeyError)


def test_unknown_backend_lists_the_registered_ones(pm: PluginManager) -> None:
    world = World(backend="nope:spec", plugin_manager=pm)
    with pytest.raises(UnknownNameError) as caught:
        _ = world.backend
    message = str(caught.value)
    assert "Unknown backend 'nope'" in message
    assert "openai" in message and "transformers" in message
    assert "register_backends" in message


def test_unknown_perturbation_and_tool_pack(pm: PluginManager) -> None:
    world = World(backend=FakeBackend(), plugin_manager=pm)
    with pytest.raises(UnknownNameError, match="Unknown perturbation 'jitter'"):
        world.session("mcp", perturbations=["jitter:ms=5"])
    with pytest.raises(UnknownNameError, match="Unknown tool pack 'github'"):
        pm.registry.tool_pack("github")


def test_registering_a_plugin_invalidates_the_registry(
    pm: PluginManager, register: Callable[..., object]
) -> None:
    class Adds:
        @hookimpl
        def register_tool_packs(self, register: Callable[..., None]) -> None:
            register("notes", [{"name": "add_note", "inputSchema": {"type": "object"}}])

    before = pm.registry
    assert pm.registry is before  # cached while nothing changes
    assert "notes" not in before.tool_packs

    plugin = register(Adds())
    assert pm.registry is not before
    assert pm.registry.tool_pack("notes")[0]["name"] == "add_note"

    pm.unregister(plugin)
    assert "notes" not in pm.registry.tool_packs


def test_registry_reaches_new_sessions(pm: PluginManager, register: Callable[..., object]) -> None:
    world = World(backend=FakeBackend(), plugin_manager=pm)
    assert world.session("mcp").domain.description != CustomMcp.description
    register(OverridesMcp())
    assert world.session("mcp").domain.description == CustomMcp.description
    assert isinstance(world.domains["mcp"], CustomMcp)


# --- plugin_summary and `agentworld plugins` --------------------------------------------------------


class Watcher:
    @hookimpl
    def register_domains(self, register: Callable[..., None]) -> None:
        pass

    @hookimpl
    def after_observation(self) -> None:
        return None


def test_plugin_summary_lists_hooks(pm: PluginManager, register: Callable[..., object]) -> None:
    register(Watcher(), name="watcher")
    rows = {row["name"]: row for row in plugin_summary(pm)}

    assert rows["watcher"]["hooks"] == ["after_observation", "register_domains"]
    assert rows["watcher"]["builtin"] is False
    assert rows["agentworld_plugins.domains.mcp"]["hooks"] == ["register_domains"]
    assert {"call_backend", "register_backends"} <= set(
        rows["agentworld_plugins.backends.default_plugin"]["hooks"]
    )
    assert all(rows[name]["builtin"] for name in DEFAULT_PLUGINS)

    only = plugin_summary(pm, "after_observation")
    assert [row["name"] for row in only] == ["watcher"]
    backend_callers = [row["name"] for row in plugin_summary(pm, "call_backend")]
    assert "agentworld_plugins.backends.default_plugin" in backend_callers
    assert "watcher" not in backend_callers


@pytest.fixture
def global_pm(monkeypatch: pytest.MonkeyPatch, pm: PluginManager) -> PluginManager:
    """Make the test's fresh manager the process-wide one that the CLI and ``World()`` use."""
    monkeypatch.setattr(plugins, "_pm", pm)
    return pm


def test_cli_plugins_command(global_pm: PluginManager, register: Callable[..., object]) -> None:
    register(Watcher(), name="watcher")
    runner = CliRunner()

    third_party = json.loads(runner.invoke(cli, ["plugins"]).output)
    assert [row["name"] for row in third_party] == ["watcher"]

    everything = json.loads(runner.invoke(cli, ["plugins", "--all"]).output)
    assert {row["name"] for row in everything} == {"watcher", *DEFAULT_PLUGINS}

    by_hook = json.loads(runner.invoke(cli, ["plugins", "--hook", "after_observation"]).output)
    assert [row["name"] for row in by_hook] == ["watcher"]

    builtin_hook = json.loads(runner.invoke(cli, ["plugins", "--all", "--hook", "call_backend"]).output)
    names = [row["name"] for row in builtin_hook]
    assert "agentworld_plugins.backends.default_plugin" in names and "watcher" not in names


# --- entry points -----------------------------------------------------------------------------------------


def test_entry_point_plugins_are_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HELLO))
    monkeypatch.delenv("AGENTWORLD_LOAD_PLUGINS", raising=False)
    fake_entry_points(monkeypatch, ("hello", "agentworld_hello"))
    pm = new_plugin_manager()
    assert pm.get_plugin("hello") is importlib.import_module("agentworld_hello")
    assert "hello" in pm.registry.domains


def test_load_plugins_empty_loads_no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    # the entry point would fail to import if anything tried to load it
    fake_entry_points(monkeypatch, ("broken", "agentworld_no_such_module_xyz"))
    monkeypatch.setenv("AGENTWORLD_LOAD_PLUGINS", "")
    pm = new_plugin_manager()
    assert pm.get_plugin("broken") is None
    assert {name for name, _ in pm.list_name_plugin()} == set(DEFAULT_PLUGINS)
    assert set(pm.registry.domains) == BUILTIN_DOMAINS


def test_load_plugins_selects_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HELLO))
    fake_entry_points(monkeypatch, ("hello", "agentworld_hello"), ("broken", "agentworld_no_such_module_xyz"))
    monkeypatch.setenv("AGENTWORLD_LOAD_PLUGINS", " hello ,")
    pm = new_plugin_manager()
    assert pm.get_plugin("hello") is not None
    assert pm.get_plugin("broken") is None


def test_a_failing_entry_point_names_the_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "agentworld_boom_plugin.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("AGENTWORLD_LOAD_PLUGINS", raising=False)
    fake_entry_points(monkeypatch, ("boom", "agentworld_boom_plugin"))
    with pytest.raises(PluginError) as caught:
        new_plugin_manager()
    message = str(caught.value)
    assert "'boom'" in message and "agentworld_boom_plugin" in message
    assert "RuntimeError: boom at import" in message
    assert "AGENTWORLD_LOAD_PLUGINS" in message  # the hint says how to skip it


def test_a_failing_builtin_import_names_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "DEFAULT_PLUGINS", (*DEFAULT_PLUGINS, "agentworld_no_such_module_xyz"))
    with pytest.raises(PluginError, match=r"'agentworld_no_such_module_xyz'.*ModuleNotFoundError"):
        new_plugin_manager(load_entrypoints=False)


def test_a_misspelled_hook_in_an_entry_point_fails_at_load(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "agentworld_typo_plugin.py").write_text(
        "from agentworld_plugins.hookspecs import hookimpl\n\n\n"
        "@hookimpl\ndef register_domain(register):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("AGENTWORLD_LOAD_PLUGINS", raising=False)
    fake_entry_points(monkeypatch, ("typo", "agentworld_typo_plugin"))
    with pytest.raises(pluggy.PluginValidationError, match="register_domain"):
        new_plugin_manager()


def test_trace_plugins_logs_hook_calls(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENTWORLD_TRACE_PLUGINS", "1")
    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Watcher(), name="watcher")
    World(backend=FakeBackend(), plugin_manager=pm).session("mcp").step({"tool_name": "t"})
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("agentworld:")]
    assert any("before_step" in line for line in lines)
    assert any("call_backend" in line for line in lines)
    assert "agentworld: after_observation -> watcher" in lines  # chained hooks name each plugin


def test_no_trace_by_default(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("AGENTWORLD_TRACE_PLUGINS", raising=False)
    pm = new_plugin_manager(load_entrypoints=False)
    World(backend=FakeBackend(), plugin_manager=pm).session("mcp").step({"tool_name": "t"})
    assert "agentworld:" not in capsys.readouterr().err


# --- the example plugin -----------------------------------------------------------------------------------


@pytest.fixture
def hello(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The example plugin's module, imported from its folder (not installed)."""
    monkeypatch.syspath_prepend(str(HELLO))
    return importlib.import_module("agentworld_hello")


def test_example_plugin_step_through_fake_backend(
    pm: PluginManager, register: Callable[..., object], hello: ModuleType
) -> None:
    register(hello, name="hello")
    backend = FakeBackend().enqueue("<predicted_observation>\nGreetings, Ada.\n</predicted_observation>")
    world = World(backend=backend, plugin_manager=pm)
    session = world.session("hello")

    observation = session.step({"name": "Ada"})

    assert observation.text == "Greetings, Ada."  # from the backend, not the offline answer
    assert observation.metadata["backend"] == "fake"
    (messages, sampling) = backend.history[0]
    assert messages[0]["content"] == session.system_prompt
    assert "greeting service" in session.system_prompt.lower()
    assert messages[-1]["role"] == "user" and '"name": "Ada"' in messages[-1]["content"]
    assert sampling.max_tokens == hello.HelloDomain.sampling.max_tokens
    assert session.trajectory.turns[0].action == {"name": "Ada"}


def test_example_plugin_runs_offline(
    pm: PluginManager, register: Callable[..., object], hello: ModuleType
) -> None:
    register(hello, name="hello")
    if "offline" not in pm.registry.backends:
        pytest.skip("no offline backend registered")
    world = World(backend="offline", plugin_manager=pm)
    assert world.session("hello").step({"name": "Ada"}).text == "Hello, Ada!"


def test_example_plugin_domain(pm: PluginManager, register: Callable[..., object], hello: ModuleType) -> None:
    register(hello, name="hello")
    domain = pm.registry.domain("hello")
    assert isinstance(domain, hello.HelloDomain)
    assert set(pm.registry.domains) == {*BUILTIN_DOMAINS, "hello"}

    action = domain.validate_action({"name": "Ada"})
    assert isinstance(action, hello.Greeting)
    assert domain.offline_step({}, action, {}) == OfflineResult(text="Hello, Ada!")
    domain.validate_action(domain.example_action)
    with pytest.raises(ActionValidationError, match="name"):
        domain.validate_action({})
    with pytest.raises(ActionValidationError):
        domain.validate_action({"name": "Ada", "extra": 1})

    assert any(row["name"] == "hello" for row in plugin_summary(pm, "register_commands"))


def test_example_plugin_adds_the_hello_command(
    pm: PluginManager, register: Callable[..., object], global_pm: PluginManager, hello: ModuleType
) -> None:
    register(hello, name="hello")
    backend = FakeBackend().enqueue("Hello there, Ada!")

    class FakeBackendPlugin:
        @hookimpl
        def register_backends(self, register: Callable[..., None]) -> None:
            register("fake", lambda settings, spec: backend)

    register(FakeBackendPlugin())
    group = click.Group()
    pm.hook.register_commands(cli=group)
    assert "hello" in group.commands

    runner = CliRunner()
    help_result = runner.invoke(group, ["hello", "--help"])
    assert help_result.exit_code == 0
    assert "NAME" in help_result.output and "--backend" in help_result.output

    result = runner.invoke(group, ["hello", "Ada", "--backend", "fake"], env={"AGENTWORLD_BASE_URL": None})
    assert result.exit_code == 0, result.output
    assert result.output == "Hello there, Ada!\n"
    assert '"name": "Ada"' in backend.history[0][0][-1]["content"]


def test_example_plugin_declares_its_entry_point() -> None:
    with (HELLO / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)
    assert project["project"]["name"] == "agentworld-hello"
    assert project["project"]["entry-points"]["agentworld"] == {"hello": "agentworld_hello"}
    shipped = project["tool"]["setuptools"]["package-data"]["agentworld_hello"]
    assert all((HELLO / "agentworld_hello" / name).is_file() for name in shipped)
    assert (HELLO / "README.md").is_file()
    assert "pip install -e examples/agentworld-hello" in (HELLO / "README.md").read_text(encoding="utf-8")


def test_wrapper_on_a_chained_hook_is_refused():
    from agentworld_plugins.errors import PluginError as _PluginError

    class Wrapping:
        @hookimpl(wrapper=True)
        def transform_messages(self, session, messages):
            result = yield
            return result

    pm = new_plugin_manager(load_entrypoints=False)
    with pytest.raises(_PluginError, match="transform_messages as a wrapper"):
        pm.register(Wrapping())
    assert not any(isinstance(p, Wrapping) for p in pm.get_plugins())


def test_registration_hook_may_take_no_arguments():
    class Quiet:
        @hookimpl
        def register_domains(self):
            return None

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Quiet())
    assert "terminal" in pm.registry.domains


def test_misspelled_perturbation_hook_is_reported():
    import pluggy

    from agentworld_plugins.backends.fake import FakeBackend as _FakeBackend
    from agentworld_plugins.session import World as _World

    class Typo:
        @hookimpl
        def after_observaton(self, observation):
            return observation

    world = _World(backend=_FakeBackend(), plugin_manager=new_plugin_manager(load_entrypoints=False))
    with pytest.raises(pluggy.PluginValidationError, match="after_observaton"):
        world.session("mcp", perturbations=[Typo()])


def test_example_plugin_perturbation(
    pm: PluginManager, register: Callable[..., object], hello: ModuleType
) -> None:
    register(hello, name="hello")
    assert pm.registry.perturbation("grumpy") is hello.Grumpy
    world = World(backend="offline", plugin_manager=pm)
    session = world.session("hello", perturbations=["grumpy:every=2,phrase=Not now"])
    texts = [session.step({"name": n}).text for n in ("Ada", "Bob", "Cy", "Di")]
    assert texts == ["Hello, Ada!", "Not now, Bob!", "Hello, Cy!", "Not now, Di!"]
    assert session.trajectory.turns[1].observation.metadata["perturbations"][0]["name"] == "grumpy"
    with pytest.raises(ConfigError, match="did you mean 'phrase'"):
        hello.Grumpy(phrse="x")
