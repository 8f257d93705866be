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
from .shell import VirtualMachine
from .vfs import FsError, VirtualFS

__all__ = ["INTERACTIVE_DOMAINS", "shared_machine_states"]

#: domains whose shell is interactive (a terminal's bash); the others run like ``bash -c``
INTERACTIVE_DOMAINS = frozenset({"terminal"})


def shared_machine_states(
    domains: Mapping[str, str],
    *,
    files: dict[str, str] | str | None = None,
    cwd: str = "/app",
    hostname: str = "agentworld",
    user: str = "root",
    env: Mapping[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """The offline world state of each named session (``{name: domain}``): one filesystem seeded
    from ``files`` (a ``{path: content}`` mapping or a real folder, read once), a shell each."""
    try:
        fs = VirtualFS.from_seed(files, base=cwd)
    except FsError as exc:
        raise ConfigError(
            f"Cannot seed the machine from {files!r}: {exc.strerror}",
            hint="pass a {path: content} mapping or the path of an existing folder",
        ) from None
    common: dict[str, Any] = {"env": dict(env or {}), "user": user, "hostname": hostname}
    return {
        name: {"vm": VirtualMachine(fs, cwd, interactive=domain in INTERACTIVE_DOMAINS, **common)}
        for name, domain in domains.items()
    }
