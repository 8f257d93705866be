"""pytest plugin (entry point ``pytest11``): fixtures to test agents against a scripted world.

Fixtures:

- ``fake_world_server``: a running :class:`FakeWorldModelServer` (real HTTP on 127.0.0.1);
- ``fake_backend``: a :class:`FakeBackend` with ``enqueue()`` and ``history``;
- ``agentworld``: a :class:`~agentworld_plugins.World` wired to ``fake_backend``;
- ``agent_world``: a :class:`~agentworld_plugins.harness.WorldHarness`, a fresh named world in a
  private ``AGENTWORLD_HOME`` that starts real servers on it (``mcp_stdio``, ``mcp_http``,
  ``search_http``, ``shell_env``) and reads it after the agent ran (``files``, ``calls``,
  ``check``); its servers stop after the test.

And helpers for subprocesses: :func:`serve_process`, a real ``agentworld serve`` in a subprocess
(to test an agent, or our own client, against a served world: ``--perturb``, a cassette, a
scenario), built on :func:`cli_process` (any serving command: ``openenv serve``, ...);
:func:`clean_env` (this environment without ``AGENTWORLD_*`` settings);
:func:`kill_cli_midway` (SIGKILLs a real ``agentworld`` run once its output file has grown, for
testing that long jobs resume).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from .backends.fake import FakeBackend
from .fake_server import FakeWorldModelServer, Fault, RecordedRequest, default_responder
from .harness import McpServerConfig, WorldHarness, stop_process
from .session import World

__all__ = [
    "FakeBackend",
    "FakeWorldModelServer",
    "Fault",
    "McpServerConfig",
    "RecordedRequest",
    "WorldHarness",
    "clean_env",
    "cli_process",
    "default_responder",
    "kill_cli_midway",
    "serve_process",
]


@pytest.fixture
def fake_world_server() -> Iterator[FakeWorldModelServer]:
    """A fake OpenAI-compatible world-model server, stopped after the test."""
    with FakeWorldModelServer() as server:
        yield server


@pytest.fixture
def fake_backend() -> FakeBackend:
    """A scripted in-process backend."""
    return FakeBackend()


@pytest.fixture
def agent_world(tmp_path: Path) -> Iterator[WorldHarness]:
    """A fresh named world for testing an agent against (see :mod:`agentworld_plugins.harness`)."""
    with WorldHarness(tmp_path) as harness:
        yield harness


@pytest.fixture
def agentworld(fake_backend: FakeBackend) -> Iterator[World]:
    """A World whose backend is ``fake_backend``."""
    with World(backend=fake_backend) as world:
        yield world


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any ``AGENTWORLD_*`` setting (so a subprocess answers
    from the offline world, not from whatever the machine is configured for), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env.update(extra)
    return env


def kill_cli_midway(args: Sequence[str], output: Path, lines: int, timeout: float = 60.0) -> None:
    """Run ``agentworld ARGS`` in a subprocess (without the caller's ``AGENTWORLD_*`` variables) and
    SIGKILL it once ``output`` holds ``lines`` lines, or after ``timeout`` seconds. Fails the test
    when the run ends by itself first: a job that finishes before the kill tests no resume."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentworld_plugins", *args],
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if output.exists() and output.read_bytes().count(b"\n") >= lines:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it could be killed: {proc.stderr.read().decode()}")
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        proc.stderr.close()


@contextmanager
def cli_process(
    *args: str, env: Mapping[str, str] | None = None, startup_s: float = 60.0, ready_path: str = "/health"
) -> Iterator[str]:
    """``agentworld ARGS --port PORT`` (a command that serves HTTP: ``serve``, ``openenv serve``)
    in a subprocess on a free 127.0.0.1 port; yields its root URL (``http://127.0.0.1:PORT``) once
    ``ready_path`` answers, and stops it after.

    ``env`` replaces the environment (default: this one without ``AGENTWORLD_*`` variables).
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    if env is None:
        env = clean_env()
    command = " ".join(a for a in args[:2] if not a.startswith("-"))
    with tempfile.TemporaryFile("w+") as stderr:  # a file, not a pipe: a chatty server never blocks
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentworld_plugins", *args, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
            env=dict(env),
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + startup_s
        try:
            while True:
                try:
                    urllib.request.urlopen(url + ready_path, timeout=2).read()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        proc.kill()
                        proc.wait()
                        stderr.seek(0)
                        raise RuntimeError(f"agentworld {command} did not start: {stderr.read()}") from None
                    time.sleep(0.1)
            yield url
        finally:
            stop_process(proc)


@contextmanager
def serve_process(*args: str, env: Mapping[str, str] | None = None, startup_s: float = 60.0) -> Iterator[str]:
    """``agentworld serve ARGS`` in a subprocess on a free 127.0.0.1 port (:func:`cli_process`);
    yields its root URL (``http://127.0.0.1:PORT``, the API under ``/v1``) once ``/health``
    answers, and stops it after.

    ``env`` replaces the environment (default: this one without ``AGENTWORLD_*`` variables).
    """
    with cli_process("serve", *args, env=env, startup_s=startup_s) as url:
        yield url
