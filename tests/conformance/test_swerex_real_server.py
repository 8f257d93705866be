"""One client script (SWE-ReX's own ``RemoteRuntime``) against the real ``swerex-remote`` and
against ``agentworld shell swerex``: timeouts, syntax errors and interrupts must come back the
same. The real server runs the host's bash, so the script runs only harmless commands (``sleep``,
``echo``, a short busy loop that the timeout and the interrupt stop)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("swerex", reason="swe-rex is in the dev extra")

from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from conformance_support import served
from swerex.runtime.abstract import BashAction, BashInterruptAction, Command, CreateBashSessionRequest
from swerex.runtime.remote import RemoteRuntime

from agentworld_plugins import World

TOKEN = "s3cret"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def real_server(tmp_path: Path) -> Iterator[str]:
    """The real ``swerex-remote`` on 127.0.0.1 (its sessions run the host's bash in ``tmp_path``)."""
    program = shutil.which("swerex-remote")
    if program is None or not sys.platform.startswith("linux"):
        pytest.skip("swerex-remote (swe-rex) on Linux is needed to compare with")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env["HOME"] = str(tmp_path)
    process = subprocess.Popen(
        [program, "--host", "127.0.0.1", "--port", str(port), "--auth-token", TOKEN],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):  # until it listens (its start is not timed: each try is a connect)
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                pytest.fail("swerex-remote exited before it listened")
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _outcome(call: Any) -> tuple[str, ...]:
    """What one call gave: ``("ok", output, exit code)`` or ``("raised", class, message)``."""
    try:
        result = await call
    except Exception as exc:
        message = str(exc)
        if type(exc).__name__ == "NonZeroExitCodeError":  # the real output repr holds pexpect's \r\n
            message = message.split("\n")[0]
        return ("raised", type(exc).__name__, message)
    if hasattr(result, "stdout"):
        return ("ok", result.stdout.strip(), str(result.exit_code))
    return ("ok", result.output.strip(), str(result.exit_code))


async def client_script(url: str) -> list[tuple[str, ...]]:
    host, port = url.rsplit(":", 1)
    runtime = RemoteRuntime(host=host, port=int(port), auth_token=TOKEN, timeout=60)
    await runtime.create_session(CreateBashSessionRequest())
    run = runtime.run_in_session
    steps = [
        run(BashAction(command="echo start", timeout=10)),
        run(BashAction(command="sleep 100", timeout=2)),
        run(BashInterruptAction()),
        run(BashAction(command="echo alive", timeout=10)),
        run(BashAction(command="timeout 1 sleep 5; echo $?", timeout=10)),
        run(BashAction(command="echo )", timeout=10)),
        run(BashAction(command="if true; then echo x", timeout=10)),
        run(BashAction(command="while true; do :; done", timeout=2)),
        run(BashInterruptAction()),
        run(BashAction(command="echo after the loop", timeout=10)),
        run(BashAction(command="false", timeout=10)),
        run(BashAction(command="false", timeout=10, check="silent")),
        runtime.execute(Command(command="sleep 100", shell=True, timeout=2)),
        runtime.execute(Command(command="timeout 1 sleep 5; echo $?", shell=True, timeout=10)),
        runtime.execute(Command(command="echo done", shell=True, timeout=10)),
    ]
    outcomes = []
    for step in steps:
        outcomes.append(await _outcome(step))
    await runtime.close()
    return outcomes


def test_the_same_client_script_gets_what_the_real_server_gives(tmp_path: Path) -> None:
    with real_server(tmp_path) as url:
        real = asyncio.run(client_script(url))
    world = World(backend="offline")
    with served(swerex_app(VirtualTerminal(world), token=TOKEN)) as url:
        started = time.monotonic()
        ours = asyncio.run(client_script(url))
        del started  # virtual time: nothing waited for (not asserted: no test depends on timing)
    assert ours == real
    # what the comparison covers: the timeouts and the syntax error really were raised
    raised = [o[1] for o in real if o[0] == "raised"]
    assert raised.count("CommandTimeoutError") == 3 and raised.count("BashIncorrectSyntaxError") == 2
