"""Environment classes that agent harnesses load by name, answered by the virtual terminal.

mini-swe-agent (``environment_class: agentworld_plugins.adapters.shell.envs.MiniSweEnvironment``
in its config, or ``--environment-class`` with that dotted path)::

    env = MiniSweEnvironment(cwd="/app", timeout=30)
    env.execute({"command": "ls"})      # {"output": "...", "returncode": 0, "exception_info": ""}

Harbor (Terminal-Bench 2) style::

    env = SimulatedEnvironment(session_id="trial-1")
    result = await env.exec("python3 --version", cwd="/app")    # ExecResult(stdout, stderr, return_code)

``SimulatedEnvironment.exec`` also answers the ``tmux`` command lines Harbor's Terminus-2 sends
(``tmux new-session``, ``send-keys``, ``capture-pane``, ...) on the same machine's screen.
Uploads read host files (read-only) into the simulated machine; downloads write the simulated
files to the host path the harness names (that is their job). Agent commands never touch the host.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shlex
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentworld_plugins.errors import AgentWorldError

from .machine import MachineSpec
from .terminal import VirtualTerminal
from .tmux import TmuxCommands, tmux_argv

__all__ = ["ExecResult", "MiniSweConfig", "MiniSweEnvironment", "SimulatedEnvironment", "Submitted"]

SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
KERNEL = "6.8.0-50-generic"


class Submitted(Exception):
    """The agent printed the submit marker (mini-swe-agent's own exception is used when installed)."""


@functools.lru_cache(maxsize=1)
def _submitted_class() -> type[Exception]:
    """mini-swe-agent's ``Submitted`` when it is installed (its agent loop catches that), made a
    subclass of ours too, so that code catching either one sees the submission."""
    try:
        from minisweagent.exceptions import Submitted as Upstream  # type: ignore[import-not-found]
    except Exception:
        return Submitted

    def __init__(self: Exception, *messages: dict[str, Any]) -> None:
        Exception.__init__(self, *messages)  # args, as ours has them
        self.messages = messages  # type: ignore[attr-defined]  # as mini-swe-agent reads them

    return type("Submitted", (Upstream, Submitted), {"__init__": __init__, "__module__": Upstream.__module__})


class MiniSweConfig:
    """mini-swe-agent's environment config (``cwd``, ``env``, ``timeout``) plus where the machine is:
    ``session`` (the store's session name; none: kept in memory), ``state`` (a ``--state`` path),
    ``hostname``. Other keys are kept in ``extra``."""

    def __init__(
        self,
        cwd: str = "",
        env: dict[str, str] | None = None,
        timeout: int = 30,
        session: str | None = None,
        state: str | None = None,
        hostname: str | None = None,
        **extra: Any,
    ) -> None:
        self.cwd = cwd
        self.env = dict(env or {})
        self.timeout = timeout
        self.session = session
        self.state = state
        self.hostname = hostname
        self.extra = extra

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return {
            "cwd": self.cwd,
            "env": self.env,
            "timeout": self.timeout,
            "session": self.session,
            "state": self.state,
            "hostname": self.hostname,
            **self.extra,
        }


def _terminal_for(
    terminal: VirtualTerminal | None,
    world: Any,
    session: str | None,
    store: Any,
    machine: Any,
    cwd: str | None,
    state: str | None = None,
    hostname: str | None = None,
) -> VirtualTerminal:
    if terminal is not None:
        return terminal
    if machine is None:
        overrides: dict[str, Any] = {"cwd": cwd or None, "hostname": hostname}
        given = {k: v for k, v in overrides.items() if v}
        machine = MachineSpec.load(state, **overrides) if state else (MachineSpec(**given) if given else None)
    if store is None and session:
        store = True
    return VirtualTerminal(world, session_id=session, machine=machine, store=store)


class MiniSweEnvironment:
    """mini-swe-agent's ``Environment`` protocol over a virtual terminal.

    Each ``execute`` runs like ``bash -c`` in a fresh shell (as ``LocalEnvironment`` does):
    files persist, ``cd`` does not. ``output`` holds stdout then stderr.
    """

    def __init__(
        self,
        *,
        config_class: type = MiniSweConfig,
        terminal: VirtualTerminal | None = None,
        world: Any = None,
        store: Any = None,
        machine: Any = None,
        **kwargs: Any,
    ) -> None:
        self.config = config_class(**kwargs)
        self.terminal = _terminal_for(
            terminal,
            world,
            getattr(self.config, "session", None),
            store,
            machine,
            getattr(self.config, "cwd", "") or None,
            getattr(self.config, "state", None),
            getattr(self.config, "hostname", None),
        )

    def execute(
        self, action: dict[str, Any] | str, cwd: str = "", *, timeout: int | None = None
    ) -> dict[str, Any]:
        """Run ``action["command"]`` (a plain string is accepted, as older versions send)."""
        command = action.get("command", "") if isinstance(action, dict) else str(action)
        try:
            result = self.terminal.run(
                str(command),
                cwd=cwd or self.config.cwd or None,
                timeout=timeout or self.config.timeout,
                env=self.config.env or None,
            )
            output: dict[str, Any] = {
                "output": result.output,
                "returncode": result.exit_code,
                "exception_info": "",
            }
            if result.timed_out:  # as LocalEnvironment reports subprocess's TimeoutExpired
                seconds = timeout or self.config.timeout
                message = f"Command '{command}' timed out after {seconds} seconds"
                output = {
                    "output": result.output,
                    "returncode": -1,
                    "exception_info": f"An error occurred while executing the command: {message}",
                    "extra": {"exception_type": "TimeoutExpired", "exception": message},
                }
        except AgentWorldError as exc:
            output = {
                "output": "",
                "returncode": -1,
                "exception_info": f"An error occurred while executing the command: {exc}",
                "extra": {"exception_type": type(exc).__name__, "exception": str(exc)},
            }
        self._check_finished(output)
        return output

    def _check_finished(self, output: dict[str, Any]) -> None:
        lines = str(output.get("output", "")).lstrip().splitlines(keepends=True)
        if lines and lines[0].strip() == SUBMIT_MARKER and output.get("returncode") == 0:
            submission = "".join(lines[1:])
            raise _submitted_class()(
                {
                    "role": "exit",
                    "content": submission,
                    "extra": {"exit_status": "Submitted", "submission": submission},
                }
            )

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        machine = self.terminal.machine
        platform = {
            "system": "Linux",
            "node": machine.hostname,
            "release": KERNEL,
            "version": "#50-Ubuntu SMP PREEMPT_DYNAMIC",
            "machine": "x86_64",
        }
        return {**self.config.model_dump(), **platform, **machine.env, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {
            "info": {
                "config": {
                    "environment": self.config.model_dump(mode="json"),
                    "environment_type": f"{type(self).__module__}.{type(self).__name__}",
                }
            }
        }


def _exec_result_class() -> type[BaseModel]:
    try:
        from harbor.environments.base import ExecResult as Upstream  # type: ignore[import-not-found]
    except Exception:
        return ExecResult
    return Upstream  # type: ignore[no-any-return]


class ExecResult(BaseModel):
    """Harbor's exec result (its own class is used when harbor is installed)."""

    stdout: str | None = None
    stderr: str | None = None
    return_code: int


class SimulatedEnvironment:
    """A Harbor-style environment (``start``, ``stop``, ``exec``, uploads, downloads) whose
    container is the virtual terminal's machine. Harbor's constructor arguments are accepted
    (and ignored where they describe a real container)."""

    def __init__(
        self,
        environment_dir: Any = None,
        environment_name: str = "agentworld",
        session_id: str | None = None,
        trial_paths: Any = None,
        task_env_config: Any = None,
        logger: Any = None,
        *,
        terminal: VirtualTerminal | None = None,
        world: Any = None,
        machine: Any = None,
        store: Any = None,
        persistent_env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.environment_dir = environment_dir
        self.environment_name = environment_name
        self.session_id = session_id
        self.trial_paths = trial_paths
        self.task_env_config = task_env_config
        self.default_user: str | int | None = None
        self._persistent_env = dict(persistent_env or {})
        self.terminal = _terminal_for(terminal, world, session_id, store, machine, None)
        self.tmux = TmuxCommands(self.terminal)
        self._started = False

    @staticmethod
    def type() -> str:
        return "agentworld"

    @property
    def is_mounted(self) -> bool:
        return False

    @property
    def supports_gpus(self) -> bool:
        return False

    @property
    def can_disable_internet(self) -> bool:
        return True

    async def start(self, force_build: bool = False) -> None:
        self._started = True

    async def stop(self, delete: bool = True) -> None:
        self._started = False

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> Any:
        """Run ``command`` (``bash -c`` semantics) on the machine; ``tmux`` command lines drive
        its screen. ``user`` is accepted; the machine has one user."""
        result_class = _exec_result_class()
        invocations = tmux_argv(command)
        if invocations is not None:
            return await asyncio.to_thread(self._tmux, invocations, result_class)
        merged = {**self._persistent_env, **(env or {})}
        try:
            result = await self.terminal.arun(command, cwd=cwd, timeout=timeout_sec, env=merged or None)
        except AgentWorldError as exc:
            return result_class(stdout="", stderr=f"agentworld: {exc}\n", return_code=1)
        return result_class(stdout=result.stdout, stderr=result.stderr, return_code=result.exit_code)

    def _tmux(self, invocations: list[list[str]], result_class: Any) -> Any:
        out: list[str] = []
        err, code = "", 0
        for argv in invocations:
            stdout, err, code = self.tmux.run(argv)
            out.append(stdout)
            if code:
                break
        return result_class(stdout="".join(out), stderr=err, return_code=code)

    # -- files -----------------------------------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        """Copy a host file into the machine (the host file is only read)."""
        content = Path(source_path).read_bytes().decode("utf-8", "replace")
        await self.terminal.atool("write_file", {"file_path": target_path, "content": content})

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        root = Path(source_dir)
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            await self.upload_file(path, f"{target_dir.rstrip('/')}/{path.relative_to(root).as_posix()}")

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        """Write the machine's file to the host path the harness names."""
        content = await asyncio.to_thread(self.terminal.read_file, source_path)
        target = Path(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        listing = await self.terminal.arun(f"find {shlex.quote(source_dir)} -type f")
        if listing.exit_code != 0:
            raise FileNotFoundError(f"{source_dir}: {listing.stderr.strip()}")
        base = source_dir.rstrip("/") or "/"
        root = Path(target_dir).resolve()
        for path in listing.stdout.splitlines():
            relative = os.path.relpath(path, base)
            target = (root / relative).resolve()
            if relative.startswith("..") or not target.is_relative_to(root):
                continue  # the listing is simulated: never write outside the folder asked for
            await self.download_file(path, target)

    async def is_dir(self, path: str, user: str | int | None = None) -> bool:
        return (await self.terminal.arun(f"test -d {shlex.quote(path)}")).exit_code == 0

    async def is_file(self, path: str, user: str | int | None = None) -> bool:
        return (await self.terminal.arun(f"test -f {shlex.quote(path)}")).exit_code == 0
