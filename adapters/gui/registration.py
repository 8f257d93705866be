"""Gymnasium registration of ``browsergym/agentworld.<task>`` and ``agentworld/<domain>-v0``.

Two ways in, both cheap:

* the ``gymnasium.envs`` entry point (``__root__``) calls :func:`register_envs` when gymnasium
  0.26-0.29 is imported; gymnasium 1.x dropped entry-point plugins, so there
  ``gym.make("agentworld_plugins:browsergym/agentworld.open")`` imports us first, or
* ``import agentworld_plugins`` calls :func:`install`: when gymnasium is already imported the
  environments are registered at once; otherwise a tiny import hook registers them right after
  gymnasium's own import finishes. Nothing here imports gymnasium, numpy or Pillow, so the package
  imports as fast without gymnasium installed. ``AGENTWORLD_NO_GYM_REGISTER=1`` turns it off.

Registering only records entry-point strings; the environment modules load on ``gym.make``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import warnings
from types import ModuleType
from typing import Any

__all__ = ["BROWSERGYM_PREFIX", "TEXT_NAMESPACE", "env_ids", "install", "register_envs"]

BROWSERGYM_PREFIX = "browsergym/agentworld."
TEXT_NAMESPACE = "agentworld"
_DOMAINS = ("mcp", "search", "terminal", "swe", "android", "web", "os")
_MODULE = "agentworld_plugins.adapters.gui"
_lock = threading.Lock()


def _web_task_names() -> list[str]:
    """The bundled web tasks' names, read from the package folder (no imports)."""
    folder = os.path.join(os.path.dirname(__file__), "tasks", "web")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = set()
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext in (".json", ".yaml", ".yml"):
            found.add(stem)
    return sorted(found)


def env_ids() -> list[str]:
    """Every environment id this package registers."""
    web = [f"{BROWSERGYM_PREFIX}open", *(f"{BROWSERGYM_PREFIX}{name}" for name in _web_task_names())]
    return [*web, *(f"{TEXT_NAMESPACE}/{domain}-v0" for domain in _DOMAINS)]


def register_envs() -> None:
    """Register the environments with gymnasium (idempotent; needs gymnasium)."""
    from gymnasium.envs.registration import register, registry

    with _lock:
        for env_id in env_ids():
            if env_id in registry:
                continue
            if env_id.startswith(BROWSERGYM_PREFIX):
                name = env_id[len(BROWSERGYM_PREFIX) :]
                register(
                    id=env_id,
                    entry_point=f"{_MODULE}.browsergym:make_env",
                    kwargs={"task": None if name == "open" else f"web/{name}"},
                    nondeterministic=True,  # elapsed_time is wall-clock time, as in BrowserGym
                )
            else:
                domain = env_id.split("/", 1)[1].removesuffix("-v0")
                register(
                    id=env_id,
                    entry_point=f"{_MODULE}.text_envs:AgentWorldTextEnv",
                    kwargs={"domain": domain},
                )


class _Loader(importlib.abc.Loader):
    """Runs gymnasium's own loader, then registers our environments."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        try:
            self._loader.exec_module(module)
        finally:
            module.__loader__ = self._loader  # leave no trace of the hook
            if module.__spec__ is not None:
                module.__spec__.loader = self._loader
            _uninstall()
        _register_quietly()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _Watcher(importlib.abc.MetaPathFinder):
    """Waits for ``import gymnasium``; answers nothing for any other module.

    It never edits ``sys.meta_path`` while the import system walks it (that would skip the next
    finder); the loader removes it once gymnasium is loaded.
    """

    def __init__(self) -> None:
        self.active = True

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium" or not self.active:
            return None
        self.active = False  # the lookup below walks sys.meta_path again
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.active = True
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader)
        return spec


_WATCHER = _Watcher()


def _uninstall() -> None:
    try:
        sys.meta_path.remove(_WATCHER)
    except ValueError:
        pass


def _register_quietly() -> None:
    try:
        register_envs()
    except Exception as exc:  # an import hook must never break the importer
        warnings.warn(f"agentworld: could not register the gymnasium environments: {exc}", stacklevel=2)


def install() -> None:
    """Register now if gymnasium is loaded, else as soon as it is imported (see module docs)."""
    if os.environ.get("AGENTWORLD_NO_GYM_REGISTER", "").strip() not in ("", "0"):
        return
    if "gymnasium.envs.registration" in sys.modules:
        _register_quietly()
    elif "gymnasium" not in sys.modules and _WATCHER not in sys.meta_path:
        sys.meta_path.insert(0, _WATCHER)
