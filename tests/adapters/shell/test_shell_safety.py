"""The canary: every front is asked to touch, write, delete and download; the host does not change
and no network connection is attempted."""

from __future__ import annotations

import asyncio
import io
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell import (
    MiniSweEnvironment,
    SimulatedEnvironment,
    TmuxSession,
    VirtualTerminal,
    coding_mcp_server,
    coding_tools,
)
from agentworld_plugins.adapters.shell.interactive import run_shell
from agentworld_plugins.adapters.shell.swerex import swerex_app
from mcp import Client
from starlette.testclient import TestClient

from agentworld_plugins import World


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self.thread.join()
        self.sock.close()


@pytest.fixture
def canary(tmp_path: Path) -> Iterator[tuple[Path, Listener]]:
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "existing.txt").write_text("original\n")
    listener = Listener()
    yield folder, listener
    listener.close()


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def attacks(folder: Path, port: int) -> list[str]:
    return [
        f"touch {folder}/new-file",
        f"echo pwned > {folder}/existing.txt",
        f"printf x >> {folder}/existing.txt; cp {folder}/existing.txt {folder}/copy",
        f"curl -s http://127.0.0.1:{port}/exfil; wget -q http://127.0.0.1:{port}/x; nc 127.0.0.1 {port}",
        f"python3 -c \"open('{folder}/py.txt', 'w').write('x')\"",
        f"rm -rf {folder}",
    ]


def test_no_front_changes_the_host_or_opens_a_connection(
    canary: tuple[Path, Listener],
    shim_env: dict[str, str],
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder, listener = canary
    before = snapshot(folder)
    commands = attacks(folder, listener.port)
    workdir = tmp_path / "cwd"
    workdir.mkdir()

    # subprocess fronts: bash -c, sh -c, a script on stdin, an interactive shell on a pipe
    for command in commands:
        for argv in (["bash", "-c", command], ["sh", "-c", command]):
            subprocess.run(
                argv, env=shim_env, cwd=workdir, capture_output=True, timeout=60, stdin=subprocess.DEVNULL
            )
    script = "\n".join(commands) + "\n"
    subprocess.run(
        ["bash"], input=script, env=shim_env, cwd=workdir, capture_output=True, text=True, timeout=60
    )
    subprocess.run(
        ["bash", "-i"], input=script, env=shim_env, cwd=workdir, capture_output=True, text=True, timeout=60
    )

    # in-process fronts: no INET connection may even be tried
    tried: list[object] = []
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            tried.append(address)
            raise OSError("network disabled by the canary test")
        real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    term = VirtualTerminal(world)
    feed = iter([*commands, "exit"])
    run_shell(term, reader=lambda prompt: next(feed), out=io.StringIO())
    tmux = TmuxSession("canary", terminal=VirtualTerminal(world))
    for command in commands:
        tmux.send_keys([command, "Enter"])
    mini = MiniSweEnvironment(terminal=VirtualTerminal(world))
    harbor = SimulatedEnvironment(terminal=VirtualTerminal(world))
    tools = {t.name: t for t in coding_tools(VirtualTerminal(world))}
    http = TestClient(swerex_app(VirtualTerminal(world)))
    http.post("/create_session", json={"session": "default"})
    for command in commands:
        mini.execute({"command": command})
        asyncio.run(harbor.exec(command))
        tools["run_shell_command"].invoke({"command": command})
        tools["execute_bash"].invoke({"command": command})
        http.post("/execute", json={"command": command})
        http.post("/run_in_session", json={"command": command, "check": "ignore"})
    tools["write_file"].invoke({"file_path": f"{folder}/existing.txt", "content": "pwned"})
    tools["str_replace_editor"].invoke({"command": "create", "path": f"{folder}/created", "file_text": "x"})
    http.post("/write_file", json={"path": f"{folder}/existing.txt", "content": "pwned"})

    async def over_mcp() -> None:
        async with Client(coding_mcp_server(VirtualTerminal(world)), mode="legacy") as client:
            for command in commands:
                await client.call_tool("run_shell_command", {"command": command})
            await client.call_tool("write_file", {"file_path": f"{folder}/mcp.txt", "content": "x"})

    asyncio.run(over_mcp())

    assert snapshot(folder) == before
    assert list(workdir.iterdir()) == []
    assert tried == []
    assert listener.accepted == 0
