"""Building a machine from a session's context (files, cwd, env, prompt)."""

from __future__ import annotations

import re
from typing import Any

from ..vfs import FsError, VirtualFS
from .machine import VirtualMachine

_PROMPT_LINE = re.compile(r"^(?P<user>[a-z_][\w.-]*)@(?P<host>[\w.-]+):(?P<cwd>[^\s#$]*)[#$] ?$")


def machine_from_context(context: dict[str, Any], *, interactive: bool = True) -> VirtualMachine:
    """A machine for a session: ``files`` (a ``{path: content}`` seed or a real folder to copy),
    ``cwd`` (default /app) and ``env`` from the context. A prompt on the last line of
    ``initial_state`` (``root@box:/app#``) sets the hostname and, without ``cwd``, the directory."""
    from ...errors import ConfigError

    files = context.get("files")
    cwd = context.get("cwd")
    hostname = "agentworld"
    user = "root"
    initial = context.get("initial_state")
    if isinstance(initial, str) and initial.strip():
        m = _PROMPT_LINE.match(initial.rstrip("\n").split("\n")[-1].rstrip())
        if m:
            hostname = m.group("host")
            user = m.group("user")
            shown = m.group("cwd")
            if cwd is None and shown:
                home = "/root" if user == "root" else f"/home/{user}"
                cwd = home + shown[1:] if shown.startswith("~") else shown
    cwd = cwd or "/app"
    base = cwd if cwd.startswith("/") else "/app"
    try:
        fs = VirtualFS.from_seed(files, base=base)
    except FsError as exc:
        raise ConfigError(
            f"Cannot seed the offline filesystem from {files!r}: {exc.strerror}",
            hint="pass context['files'] as a {path: content} dict or the path of an existing folder",
        ) from None
    env = {str(k): str(v) for k, v in (context.get("env") or {}).items()}
    return VirtualMachine(fs, cwd=cwd, env=env, user=user, hostname=hostname, interactive=interactive)
