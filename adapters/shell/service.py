"""What a shim asks for, answered: the requests of :mod:`.shim`, served in-process or by :mod:`.daemon`.

A request is a dict with ``op`` and the shim's ``env`` (its ``AGENTWORLD_*`` variables, which
choose the world, the home folder and the session):

- ``run``: ``command`` (and optional ``stdin``, ``cwd``) through the command front ->
  ``stdout``, ``stderr``, ``exit_code``;
- ``prompt``: the interactive shell's prompt -> ``prompt``;
- ``line``: one line typed at the interactive shell (``text``) -> ``output``, ``prompt``,
  ``status``, ``exited``;
- ``interrupt``: Ctrl-C at the interactive shell -> ``prompt``.

Every answer is a dict; a failure is ``{"error": "one line"}``. The service keeps one world per
distinct set of ``AGENTWORLD_*`` settings and one :class:`~.terminal.VirtualTerminal` per session,
bound to the session store of the request's home, so it may serve many shims at once.

Environment variables read from the request:

- ``AGENTWORLD_WORLD`` (the named world, shared with ``mcp serve --world`` and every other front),
  else ``AGENTWORLD_SESSION`` (default ``default``), and ``AGENTWORLD_HOME`` (default ``~/.agentworld``);
- ``AGENTWORLD_SHELL_STATE`` (``--state``: a folder, a JSON/YAML machine, a text description),
  ``AGENTWORLD_SHELL_HOSTNAME``, ``AGENTWORLD_SHELL_USER``, ``AGENTWORLD_SHELL_CWD``: the machine
  of a new session;
- the world's settings (``AGENTWORLD_BASE_URL``, ``AGENTWORLD_BACKEND``, ``AGENTWORLD_MODEL``, ...)
  and ``AGENTWORLD_PERTURB`` / ``AGENTWORLD_PERTURB_FILE``.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agentworld_plugins.errors import AgentWorldError
from agentworld_plugins.store import SessionStore

from .machine import MachineSpec
from .terminal import VirtualTerminal

__all__ = ["DEFAULT_SESSION", "ShellService", "machine_from_env", "world_from_env"]

DEFAULT_SESSION = "default"
#: variables that name the session or its machine, not the world
_SESSION_VARS = {
    "AGENTWORLD_SESSION",
    "AGENTWORLD_SHELL_STATE",
    "AGENTWORLD_SHELL_HOSTNAME",
    "AGENTWORLD_SHELL_USER",
    "AGENTWORLD_SHELL_CWD",
}


def world_from_env(env: dict[str, str]) -> Any:
    """A World from the ``AGENTWORLD_*`` variables of ``env``, its backend built quietly (a shim
    must not print the offline notice on stderr). Settings also read the serving process's own
    environment, so the daemon clears its ``AGENTWORLD_*`` variables when it starts."""
    from agentworld_plugins.backends import make_backend
    from agentworld_plugins.config import Settings, load_settings
    from agentworld_plugins.perturbations.config import perturbations_from_options, specs_from_env
    from agentworld_plugins.plugins import get_plugin_manager
    from agentworld_plugins.session import World

    values: dict[str, Any] = {}
    for name in Settings.model_fields:
        value = env.get(f"AGENTWORLD_{name.upper()}")
        if value not in (None, ""):
            values[name] = value
    settings = load_settings(**values)
    pm = get_plugin_manager()
    perturbations = perturbations_from_options(
        specs_from_env(env), env.get("AGENTWORLD_PERTURB_FILE") or None, pm.registry, use_env=False
    )
    backend = make_backend(settings, pm.registry)
    return World(backend=backend, settings=settings, plugin_manager=pm, perturbations=perturbations)


def machine_from_env(env: dict[str, str]) -> MachineSpec | None:
    """The machine a new session starts as, from ``AGENTWORLD_SHELL_*`` (None: none given, so a
    stored session is used as it is, without a warning that a machine was ignored)."""
    overrides: dict[str, Any] = {
        "hostname": env.get("AGENTWORLD_SHELL_HOSTNAME") or None,
        "user": env.get("AGENTWORLD_SHELL_USER") or None,
        "cwd": env.get("AGENTWORLD_SHELL_CWD") or None,
    }
    state = env.get("AGENTWORLD_SHELL_STATE")
    if state:
        return MachineSpec.load(state, **overrides)
    given = {k: v for k, v in overrides.items() if v is not None}
    return MachineSpec(**given) if given else None


class ShellService:
    """Answers shim requests; thread-safe (each session is locked by its terminal and the store)."""

    def __init__(self, *, max_sessions: int = 256) -> None:
        self._worlds: dict[tuple[tuple[str, str], ...], Any] = {}
        self._terminals: OrderedDict[tuple[Any, ...], VirtualTerminal] = OrderedDict()
        self._stores: dict[Path, SessionStore] = {}
        self._guard = threading.Lock()
        self.max_sessions = max_sessions
        #: the warnings each session's shim was given already (said once per session)
        self._said: weakref.WeakKeyDictionary[VirtualTerminal, set[str]] = weakref.WeakKeyDictionary()

    def _world(self, env: dict[str, str]) -> Any:
        key = tuple(
            sorted(
                (k, v)
                for k, v in env.items()
                if k.startswith("AGENTWORLD_")
                and k not in _SESSION_VARS
                and not k.startswith("AGENTWORLD_SHIM_")
            )
        )
        with self._guard:
            world = self._worlds.get(key)
        if world is None:
            world = world_from_env(env)
            with self._guard:
                world = self._worlds.setdefault(key, world)
        return world

    def terminal(self, env: dict[str, str]) -> VirtualTerminal:
        """The request's terminal (created, or taken from the cache)."""
        world = self._world(env)
        home = Path(world.settings.home).expanduser()
        # a named world is one machine whatever front touches it: its name names the session
        session = env.get("AGENTWORLD_WORLD") or env.get("AGENTWORLD_SESSION") or DEFAULT_SESSION
        key = (id(world), str(home), session)
        with self._guard:
            found = self._terminals.get(key)
            if found is not None:
                self._terminals.move_to_end(key)
                return found
            store = self._stores.get(home)
            if store is None:
                store = self._stores[home] = SessionStore.at_home(home)
        terminal = VirtualTerminal(world, session_id=session, store=store, machine=machine_from_env(env))
        with self._guard:
            terminal = self._terminals.setdefault(key, terminal)
            while len(self._terminals) > self.max_sessions:
                self._terminals.popitem(last=False)
        return terminal

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one request; errors come back as ``{"error": "one line"}``."""
        try:
            return self._handle(request)
        except AgentWorldError as exc:
            return {"error": str(exc.message) + (f" ({exc.hint})" if exc.hint else "")}
        except Exception as exc:  # a bug must still give the shim one line, not a hang
            return {"error": f"internal error: {type(exc).__name__}: {exc}"}

    def _handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        env = {str(k): str(v) for k, v in (request.get("env") or {}).items()}
        if op == "ping":
            return {"ok": True}
        terminal = self.terminal(env)
        if op == "run":
            result = terminal.run(
                str(request.get("command", "")),
                cwd=request.get("cwd") or None,
                stdin=request.get("stdin") or None,
            )
            answer: dict[str, Any] = {
                "stdout": _bytes_only(result.stdout),
                "stderr": _bytes_only(result.stderr),
                "exit_code": result.exit_code,
            }
            with self._guard:  # each warning once per session
                said = self._said.setdefault(terminal, set())
                new = [w for w in result.observation.metadata.get("warnings", []) if w not in said]
                said.update(new)
            if new:
                answer["warnings"] = new
            return answer
        if op == "prompt":
            return {"prompt": terminal.prompt()}
        if op == "line":
            line = terminal.send_line(str(request.get("text", "")))
            return {
                "output": _bytes_only(line.output),
                "prompt": line.prompt,
                "status": line.status,
                "exited": line.exited,
            }
        if op == "interrupt":
            return {"prompt": terminal.interrupt()}
        return {"error": f"unknown request {op!r}"}


#: surrogates that stand for no byte (``surrogateescape`` uses U+DC80..U+DCFF for bytes 0x80..0xFF)
_NOT_A_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _bytes_only(text: str) -> str:
    """``text`` the shim can write as bytes: a lone surrogate that stands for no byte is U+FFFD."""
    return text if text.isascii() else _NOT_A_BYTE.sub("\ufffd", text)
