"""Helpers of the conformance suite: a cache for throwaway environments, a clean environment, an
app served on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: one tool, as a tools file or a ``tools/list`` result holds it
TOOLS = {
    "tools": [
        {
            "name": "create_ticket",
            "description": "Create a support ticket.",
            "inputSchema": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "urgent": {"type": "boolean"}},
                "required": ["title"],
            },
        }
    ]
}


#: read once at import: the tests clear AGENTWORLD_* settings from the environment
CACHE_ROOT = Path(
    os.environ.get("AGENTWORLD_CONFORMANCE_CACHE") or Path.home() / ".cache" / "agentworld-conformance"
)


def cache_dir(*parts: str) -> Path:
    """Where throwaway environments (a venv, an npm install) live across runs, keyed by version."""
    path = CACHE_ROOT.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without AGENTWORLD_* settings (so the offline world answers)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env.update(extra)
    return env


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` behind uvicorn on 127.0.0.1 in a thread; yields ``http://127.0.0.1:<port>``."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the HTTP server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
