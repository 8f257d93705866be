"""The plugin manager: built-in plugins, entry-point plugins, and what they register.

``AGENTWORLD_LOAD_PLUGINS``: comma-separated entry-point names to load (empty string: none);
unset loads every installed plugin. ``AGENTWORLD_TRACE_PLUGINS=1`` logs each hook call to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .errors import ConfigError, PluginError, UnknownNameError

if TYPE_CHECKING:
    from .backends.base import Backend
    from .config import Settings
    from .domains.base import Domain

ENTRY_POINT_GROUP = "agentworld"

DEFAULT_PLUGINS: tuple[str, ...] = (
    "agentworld_plugins.domains.mcp",
    "agentworld_plugins.domains.search",
    "agentworld_plugins.domains.terminal",
    "agentworld_plugins.domains.swe",
    "agentworld_plugins.domains.android",
    "agentworld_plugins.domains.web",
    "agentworld_plugins.domains.os",
    "agentworld_plugins.backends.default_plugin",
    "agentworld_plugins.backends.replay_plugin",
    "agentworld_plugins.toolpacks",
    "agentworld_plugins.perturbations",
    "agentworld_plugins.offline.plugin",
    "agentworld_plugins.guard.plugin",
)

#: entry points called (with no arguments) when ``agentworld_plugins`` is imported: a front's
#: cheap setup that must happen then, such as the gymnasium registration hook, without the core
#: importing the front
ON_IMPORT_GROUP = "agentworld.on_import"

BackendFactory = Callable[["Settings", str], "Backend"]


@dataclass
class Registry:
    """What the registration hooks registered, by name."""

    domains: dict[str, Domain] = field(default_factory=dict)
    backends: dict[str, BackendFactory] = field(default_factory=dict)
    perturbations: dict[str, Callable[..., Any]] = field(default_factory=dict)
    tool_packs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: each domain's offline world: ``step(state, action, context) -> OfflineResult``
    offline_worlds: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: builders of machines several offline sessions share, by kind (``"shell"``)
    offline_machines: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: how an offline world takes in a turn answered without it (an injected fault), by domain
    offline_answered: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: the SQL tables an offline world's state has from the start (read by ``sql`` rewards), by domain
    offline_tables: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: how an offline world reads an MCP resource of its state (``read(state, uri, context)``), by domain
    offline_resources: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: which of an offline world's steps are light (``light(state, action, context) -> bool``), by domain
    offline_light: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: reward checks of rollouts, by name (the built-ins are the rollout front's own)
    rewards: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: consistency guards (``guarded`` backend), by domain: a factory of a ``guard.Checker``
    guards: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def domain(self, name: str) -> Domain:
        try:
            return self.domains[name]
        except KeyError:
            raise UnknownNameError("domain", name, self.domains) from None

    def backend_factory(self, name: str) -> BackendFactory:
        try:
            return self.backends[name]
        except KeyError:
            raise UnknownNameError("backend", name, self.backends) from None

    def perturbation(self, name: str) -> Callable[..., Any]:
        try:
            return self.perturbations[name]
        except KeyError:
            raise UnknownNameError("perturbation", name, self.perturbations) from None

    def offline_world(self, name: str) -> Callable[..., Any] | None:
        """The offline world registered for domain ``name``, or None."""
        return self.offline_worlds.get(name)

    def tool_pack(self, name: str) -> list[dict[str, Any]]:
        try:
            return self.tool_packs[name]
        except KeyError:
            raise UnknownNameError("tool pack", name, self.tool_packs) from None


class PluginManager(pluggy.PluginManager):
    """A pluggy manager for the ``agentworld`` project with a lazily built :class:`Registry`."""

    #: hooks whose implementations are called one after another by :meth:`chain` or the
    #: registry, so they cannot be wrappers
    PLAIN_HOOKS = frozenset(
        {
            "register_domains",
            "register_backends",
            "register_perturbations",
            "register_tool_packs",
            "register_offline_worlds",
            "register_rewards",
            "register_guards",
            "prepare_system_prompt",
            "transform_messages",
            "after_observation",
        }
    )

    def __init__(self) -> None:
        super().__init__(ENTRY_POINT_GROUP)
        self.add_hookspecs(hookspecs)
        self._registry: Registry | None = None
        self.trace_enabled = False
        #: distribution versions of entry-point plugins, by plugin name
        self.versions: dict[str, str] = {}

    def register(self, plugin: object, name: str | None = None) -> str | None:
        self._registry = None  # a new plugin may register new things
        registered = super().register(plugin, name)
        if registered is not None:
            for hook in self.get_hookcallers(plugin) or []:
                if hook.name not in self.PLAIN_HOOKS:
                    continue
                if any(i.plugin is plugin and (i.wrapper or i.hookwrapper) for i in hook.get_hookimpls()):
                    self.unregister(plugin)
                    raise PluginError(
                        f"Plugin {registered!r} implements {hook.name} as a wrapper",
                        hint=f"{hook.name} implementations are chained: return a value instead of yielding",
                    )
        return registered

    def derive(self, extra: list[object]) -> PluginManager:
        """A manager with this one's plugins (and tracing) plus ``extra`` (per-session plugins)."""
        pm = PluginManager()
        pm.versions = self.versions
        for name, plugin in self.list_name_plugin():
            if plugin is not None:
                pm.register(plugin, name=name)
        for plugin in extra:
            pm.register(plugin)
        pm.check_pending()
        if self.trace_enabled:
            pm.enable_trace()
        return pm

    def enable_trace(self) -> None:
        """Log every hook call to stderr (what ``AGENTWORLD_TRACE_PLUGINS=1`` turns on)."""
        self.trace_enabled = True
        self.trace.root.setwriter(lambda msg: sys.stderr.write(f"agentworld: {msg}"))
        self.enable_tracing()

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        self._registry = None
        return super().unregister(plugin, name)

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = self._collect()
        return self._registry

    def _collect(self) -> Registry:
        reg = Registry()

        def domain(d: Domain) -> None:
            if not getattr(d, "name", None):
                raise PluginError(f"register_domains got {d!r} without a name", hint="set Domain.name")
            reg.domains[d.name] = d

        def backend(name: str, factory: BackendFactory) -> None:
            reg.backends[name] = factory

        def perturbation(name: str, factory: Callable[..., Any]) -> None:
            reg.perturbations[name] = factory

        def tool_pack(name: str, tools: list[dict[str, Any]]) -> None:
            reg.tool_packs[name] = list(tools)

        def offline_world(name: str, step: Callable[..., Any], *, kind: str = "world") -> None:
            if kind == "machine":
                reg.offline_machines[name] = step
            elif kind == "world":
                reg.offline_worlds[name] = step
            elif kind == "answered":
                reg.offline_answered[name] = step
            elif kind == "tables":
                reg.offline_tables[name] = step
            elif kind == "resource":
                reg.offline_resources[name] = step
            elif kind == "light":
                reg.offline_light[name] = step
            else:
                raise ConfigError(
                    f"register_offline_worlds: unknown kind {kind!r} for {name!r}",
                    hint='pass kind="world" (a domain\'s step), kind="machine" (a shared machine builder), '
                    'kind="answered" (a world taking in a turn answered without it) '
                    'kind="tables" (the tables a world\'s state has from the start), '
                    'kind="resource" (how a world reads an MCP resource of its state) '
                    "or kind=\"light\" (which of a world's steps may run on the caller's thread)",
                )

        def reward(name: str, check: Callable[..., Any]) -> None:
            reg.rewards[name] = check

        def guard(domain: str, factory: Callable[..., Any]) -> None:
            reg.guards[domain] = factory

        # get_hookimpls() lists in registration order: later plugins override earlier ones.
        for fn, hook in (
            (domain, self.hook.register_domains),
            (backend, self.hook.register_backends),
            (perturbation, self.hook.register_perturbations),
            (tool_pack, self.hook.register_tool_packs),
            (offline_world, self.hook.register_offline_worlds),
            (reward, self.hook.register_rewards),
            (guard, self.hook.register_guards),
        ):
            for impl in hook.get_hookimpls():
                impl.function(**{a: fn for a in impl.argnames})
        return reg

    def chain(self, hook_name: str, value_name: str, value: Any, **kwargs: Any) -> Any:
        """Call a chained hook: each implementation gets the value left by the previous one.

        Implementations run in pluggy's call order (``tryfirst`` first); one returning ``None``
        leaves the value unchanged.
        """
        caller = getattr(self.hook, hook_name)
        for impl in reversed(caller.get_hookimpls()):
            args = {**kwargs, value_name: value}
            if self.trace_enabled:
                print(f"agentworld: {hook_name} -> {impl.plugin_name}", file=sys.stderr)
            result = impl.function(**{a: args[a] for a in impl.argnames})
            if result is not None:
                value = result
        return value


def edits_messages(pm: PluginManager) -> bool:
    """Whether a ``transform_messages`` implementation of ``pm`` may edit messages in place."""
    return any(
        not getattr(impl.function, "leaves_messages", False)
        for impl in pm.hook.transform_messages.get_hookimpls()
    )


def _import_plugin(module_name: str) -> object:
    try:
        return importlib.import_module(module_name)
    except Exception as exc:
        raise PluginError(
            f"Could not import plugin {module_name!r}: {type(exc).__name__}: {exc}",
            hint="reinstall the plugin or leave it out with AGENTWORLD_LOAD_PLUGINS",
        ) from exc


def _load_entry_points(pm: PluginManager) -> None:
    wanted_env = os.environ.get("AGENTWORLD_LOAD_PLUGINS")
    wanted = None if wanted_env is None else {n.strip() for n in wanted_env.split(",") if n.strip()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if wanted is not None and ep.name not in wanted:
            continue
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        try:
            plugin = ep.load()
        except Exception as exc:
            raise PluginError(
                f"Could not load plugin {ep.name!r} ({ep.value}): {type(exc).__name__}: {exc}",
                hint="reinstall it, or skip it with AGENTWORLD_LOAD_PLUGINS=<the plugins to load>",
            ) from exc
        pm.register(plugin, name=ep.name)
        if ep.dist is not None:
            pm.versions[ep.name] = ep.dist.version


def new_plugin_manager(*, load_entrypoints: bool = True) -> PluginManager:
    """A fresh manager with the built-in plugins and, unless disabled, installed ones."""
    pm = PluginManager()
    for module_name in DEFAULT_PLUGINS:
        pm.register(_import_plugin(module_name), name=module_name)
    if load_entrypoints:
        _load_entry_points(pm)
    pm.check_pending()
    if os.environ.get("AGENTWORLD_TRACE_PLUGINS", "") not in ("", "0"):
        pm.enable_trace()
    return pm


def run_on_import_entry_points() -> None:
    """Call each ``agentworld.on_import`` entry point (see :data:`ON_IMPORT_GROUP`); one that fails
    is reported as a warning, never breaking the import."""
    import warnings

    for ep in entry_points(group=ON_IMPORT_GROUP):
        try:
            ep.load()()
        except Exception as exc:
            warnings.warn(
                f"agentworld: the {ON_IMPORT_GROUP} entry point {ep.name!r} ({ep.value}) failed: "
                f"{type(exc).__name__}: {exc}",
                stacklevel=2,
            )


_pm: PluginManager | None = None


def get_plugin_manager() -> PluginManager:
    """The process-wide manager, created on first use."""
    global _pm
    if _pm is None:
        _pm = new_plugin_manager()
    return _pm


def plugin_summary(pm: PluginManager, hook: str | None = None) -> list[dict[str, Any]]:
    """Name and implemented hooks of each loaded plugin (for ``agentworld plugins``)."""
    out = []
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda item: item[0]):
        hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
        if hook and hook not in hooks:
            continue
        out.append(
            {
                "name": name,
                "hooks": hooks,
                "version": pm.versions.get(name),
                "builtin": name in DEFAULT_PLUGINS,
            }
        )
    return out
