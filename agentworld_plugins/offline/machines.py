"""Simulated machines several sessions share: one filesystem, one shell per session.

The offline backend's :meth:`~agentworld_plugins.backends.offline.OfflineBackend.start_machine`
starts sessions from these states (the virtual terminal's command and screen fronts), so that a
file one session writes is there for the other while ``cd`` and ``export`` stay in the shell where
they were typed, as on a real machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from .vfs import FsError, VirtualFS

__all__ = ["INTERACTIVE_DOMAINS", "SHELL_DOMAINS", "mcp_world_on", "shared_machine_states"]

#: domains whose shell is interactive (a terminal's bash); the others run like ``bash -c``
INTERACTIVE_DOMAINS = frozenset({"terminal"})
#: domains that run a shell on the machine
SHELL_DOMAINS = frozenset({"terminal", "swe"})


def shared_machine_states(
    domains: Mapping[str, str],
    *,
    files: dict[str, str] | str | None = None,
    cwd: str = "/app",
    hostname: str = "agentworld",
    user: str = "root",
    env: Mapping[str, str] | None = None,
    shared: dict[str, Any] | None = None,
    contexts: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """The offline world state of each named session (``{name: domain}``): one filesystem seeded
    from ``files`` (a ``{path: content}`` mapping or a real folder, read once), a shell each.

    ``shared`` holds the machine a named world keeps (its ``"fs"``): the sessions join that
    filesystem, and a new one is put there. With it, an ``mcp`` session's file tools act on the
    same filesystem (``contexts[name]`` gives its ``allowed_directories``); other domains get a
    state of their own."""
    fs = shared.get("fs") if shared is not None else None
    if fs is None:
        try:
            fs = VirtualFS.from_seed(files, base=cwd)
        except FsError as exc:
            raise ConfigError(
                f"Cannot seed the machine from {files!r}: {exc.strerror}",
                hint="pass a {path: content} mapping or the path of an existing folder",
            ) from None
        if shared is not None:
            shared["fs"] = fs
    common: dict[str, Any] = {"env": dict(env or {}), "user": user, "hostname": hostname}
    states: dict[str, dict[str, Any]] = {}
    for name, domain in domains.items():
        if domain in SHELL_DOMAINS or shared is None:
            from .shell import VirtualMachine  # the whole shell: imported when a front runs one

            states[name] = {
                "vm": VirtualMachine(fs, cwd, interactive=domain in INTERACTIVE_DOMAINS, **common)
            }
        elif domain == "mcp":
            context = dict((contexts or {}).get(name) or {})
            context.setdefault("cwd", cwd)
            states[name] = {"mcp_world": mcp_world_on(fs, context)}
        else:
            states[name] = {}
    return states


def mcp_world_on(fs: VirtualFS, context: dict[str, Any]) -> dict[str, Any]:
    """A fresh MCP world state whose file tools act on ``fs`` (a named world's filesystem)."""
    from .mcp.families.files import FileStore
    from .mcp.world import new_world

    world = new_world()
    world["files"] = FileStore.on(fs, context)
    return world
