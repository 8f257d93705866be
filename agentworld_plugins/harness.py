"""Testing your own agent against a simulated world: real servers on a fresh named world, then
assertions on what the agent did to it (the ``agent_world`` fixture of the pytest plugin).

>>> def test_my_agent(agent_world):                                       # doctest: +SKIP
...     server = agent_world.mcp_stdio(pack="filesystem")               # a real stdio MCP server
...     run_my_agent(mcp_config=server.claude(), env=agent_world.shell_env())
...     assert agent_world.files()["/app/report.md"].startswith("# Report")
...     assert agent_world.check({"type": "file_contains", "path": "/app/report.md", "text": "done"})
...     assert [c.tool for c in agent_world.calls()][:1] == ["write_file"]

Every front it starts attaches to one world (``AGENTWORLD_WORLD``) in a private
``AGENTWORLD_HOME``: a file the agent writes through MCP is what ``cat`` prints in the shim, and the
world outlives every connection, so a client that opens a session per call (langchain-mcp-adapters'
default ``get_tools()``) sees what its earlier calls wrote.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .worlds import WorldCall, WorldView, load_world

__all__ = ["McpServerConfig", "WorldHarness", "start_server", "stop_process"]


@dataclass
class McpServerConfig:
    """How a client reaches one MCP server: a stdio command or a URL, in each client's form."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def claude(self) -> dict[str, Any]:
        """``{"mcpServers": {name: ...}}`` as Claude Desktop, Cursor and VS Code read it."""
        if self.url is not None:
            entry: dict[str, Any] = {"url": self.url, "headers": dict(self.headers)}
        else:
            entry = {"command": self.command, "args": list(self.args), "env": dict(self.env)}
        return {"mcpServers": {self.name: entry}}

    def langchain(self) -> dict[str, Any]:
        """One connection of langchain-mcp-adapters' ``MultiServerMCPClient({name: ...})``."""
        if self.url is not None:
            return {"transport": "streamable_http", "url": self.url, "headers": dict(self.headers)}
        return {"transport": "stdio", "command": self.command, "args": list(self.args), "env": dict(self.env)}

    def sdk(self) -> Any:
        """What the ``mcp`` SDK's ``Client(...)`` takes: ``StdioServerParameters`` or the URL."""
        if self.url is not None:
            return self.url
        from mcp import StdioServerParameters

        return StdioServerParameters(command=self.command or sys.executable, args=self.args, env=self.env)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WorldHarness:
    """A fresh named world in its own ``AGENTWORLD_HOME`` (under ``root``), the servers an agent
    under test talks to, and reads of the world after it ran. Close it to stop the servers."""

    def __init__(
        self, root: str | os.PathLike[str], *, name: str = "under-test", backend: str = "offline"
    ) -> None:
        self.root = Path(root)
        self.name = name
        self.home = self.root / "agentworld-home"
        self.home.mkdir(parents=True, exist_ok=True)
        base = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
        #: the environment every front runs in: this world, this home, the backend
        self.env: dict[str, str] = {
            **base,
            "AGENTWORLD_HOME": str(self.home),
            "AGENTWORLD_WORLD": name,
            "AGENTWORLD_BACKEND": backend,
        }
        self._stack = ExitStack()
        self._shims: Path | None = None

    # -- fronts ----------------------------------------------------------------------------------

    def _serve_args(self, pack: str | None, tools: str | os.PathLike[str] | None) -> list[str]:
        if (pack is None) == (tools is None):
            raise ConfigError(
                "Give the MCP server a pack or a tools file", hint="pack='filesystem' or tools='tools.json'"
            )
        return ["--pack", pack] if pack is not None else ["--tools", str(tools)]

    def mcp_stdio(
        self,
        *,
        pack: str | None = None,
        tools: str | os.PathLike[str] | None = None,
        name: str = "agentworld",
    ) -> McpServerConfig:
        """The command that starts an MCP server on this world over stdio (a client launches it,
        as often as it likes: each process attaches to the same world)."""
        args = ["-m", "agentworld_plugins", "mcp", "serve", *self._serve_args(pack, tools), "--name", name]
        env = {k: v for k, v in self.env.items() if k.startswith("AGENTWORLD_") or k in ("PATH", "HOME")}
        return McpServerConfig(name, command=sys.executable, args=args, env=env)

    def mcp_http(
        self,
        *,
        pack: str | None = None,
        tools: str | os.PathLike[str] | None = None,
        name: str = "agentworld",
        token: str | None = None,
    ) -> McpServerConfig:
        """A running streamable-HTTP MCP server on this world (stopped when the harness closes)."""
        port = _free_port()
        args = ["mcp", "serve", *self._serve_args(pack, tools), "--name", name, "--http", "--port", str(port)]
        env = dict(self.env)
        if token:
            env["AGENTWORLD_MCP_TOKEN"] = token
        self._start(args, port)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return McpServerConfig(name, url=f"http://127.0.0.1:{port}/mcp", headers=headers)

    def search_http(self) -> str:
        """A running search API server (Tavily, Serper, Brave) on this world; its base URL."""
        port = _free_port()
        self._start(["search", "serve", "--port", str(port)], port)
        return f"http://127.0.0.1:{port}"

    def shell_env(self) -> dict[str, str]:
        """An environment whose ``bash``/``sh`` (on ``PATH``) are shims on this world's machine:
        give it to the agent's subprocesses. Nothing runs on the host."""
        if self._shims is None:
            from .adapters.shell.daemon import stop
            from .adapters.shell.shim import install

            self._shims = self.root / "shims"
            install(str(self._shims))
            self._stack.callback(stop, str(self.home))
        return {**self.env, "PATH": f"{self._shims}{os.pathsep}{self.env.get('PATH', '')}"}

    def _start(self, args: list[str], port: int, startup_s: float = 60.0) -> None:
        log = open(self.root / f"server-{port}.log", "w+")  # noqa: SIM115 (closed by the stack)
        self._stack.callback(log.close)
        proc = start_server(args, port, self.env, log, startup_s)
        self._stack.callback(stop_process, proc)

    # -- the world after the agent ran -----------------------------------------------------------

    def view(self) -> WorldView:
        """The world as it is now (:class:`~agentworld_plugins.worlds.WorldView`)."""
        return load_world(self.name, self.home)

    def files(self, *, changed: bool = True) -> dict[str, str]:
        """The machine's files (by default the ones beyond the base system), ``{path: text}``."""
        return self.view().files(changed=changed)

    def calls(self, front: str | None = None) -> list[WorldCall]:
        """The calls made on the world in order (``front``: one front's, e.g. ``mcp:agentworld``,
        ``command`` for the shell)."""
        calls = self.view().calls
        return [c for c in calls if front is None or c.front == front]

    def check(self, spec: dict[str, Any]) -> Any:
        """One rollout reward check on the world as it is now (``{"type": "ledger_item",
        "resource": "issue", "where": {...}}``, ``file_contains``, ``sql``, ``tool_called``,
        ``no_errors``, ...): a ``RewardResult``, true when its score is 1."""
        from .plugins import get_plugin_manager
        from .rollout.rewards import reward_registry
        from .rollout.state import WorldState

        params = {k: v for k, v in spec.items() if k not in ("type", "weight", "name")}
        kind = spec.get("type")
        checks = reward_registry(get_plugin_manager().registry)
        if kind not in checks:
            raise ConfigError(f"Unknown check {kind!r}", hint=f"use one of {', '.join(sorted(checks))}")
        view = self.view()
        files = view.files()
        from .worlds.view import state_contents

        _, ledger, database = state_contents(view.states or {})
        episode = _WorldEpisode(view, WorldState(files, ledger, "world", database=database))
        result = checks[kind](episode, **params)
        if inspect.isawaitable(result):
            result = asyncio.run(result)  # type: ignore[arg-type]
        return result

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> WorldHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _WorldEpisode:
    """What a reward check reads of an episode, from a stored world."""

    def __init__(self, view: WorldView, state: Any) -> None:
        self.cache = {"world_state": state}
        self.steps = [(c.tool or json.dumps(c.action), c.action, None) for c in view.calls]
        self.world_errors = sum(1 for c in view.calls if c.is_error)
        self.final_answer: str | None = None
        self.judge: dict[str, Any] = {}


def start_server(
    args: list[str], port: int, env: dict[str, str], log: Any, startup_s: float = 60.0
) -> subprocess.Popen[Any]:
    """``agentworld ARGS`` in a subprocess (stderr to ``log``, a file opened ``w+``), once it
    accepts connections on 127.0.0.1:``port``; a server that exits or never listens is a
    :class:`ConfigError` carrying the end of its log."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentworld_plugins", *args], stdout=subprocess.DEVNULL, stderr=log, env=env
    )
    deadline = time.monotonic() + startup_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_process(proc)
                log.seek(0)
                raise ConfigError(
                    f"agentworld {' '.join(args[:2])} did not start: {log.read()[-2000:]}",
                    hint="see the server's message above",
                ) from None
            time.sleep(0.05)


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """Stop a server subprocess: SIGTERM, then SIGKILL after 10 s."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
