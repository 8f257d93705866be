"""tmux for agents that drive a terminal: Terminal-Bench's ``TmuxSession`` and ``tmux`` commands.

:class:`TmuxSession` has the methods Terminal-Bench 1 agents (Terminus) call, on a 160x40
screen drawn by the virtual terminal's screen front::

    from agentworld_plugins.adapters.shell import TmuxSession

    tmux = TmuxSession("agent")                       # World(): AGENTWORLD_* or the offline world
    tmux.send_keys(["ls -la", "Enter"], min_timeout_sec=0.5)
    print(tmux.get_incremental_output())              # "New Terminal Output:\\n..."
    tmux.capture_pane(capture_entire=True)

:class:`TmuxCommands` answers ``tmux ...`` command lines (``new-session``, ``send-keys``,
``capture-pane``, ``has-session``, ``kill-session``, ``clear-history``, ``set-option``, ...), which
is how Harbor's Terminus-2 drives its tmux layer through ``exec``; :mod:`.envs` routes them here.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .terminal import COLS, ROWS, VirtualTerminal

__all__ = ["TmuxCommands", "TmuxSession"]

#: keys that end a command line in tmux's send-keys
_ENTER = {"Enter", "C-m", "KPEnter", "C-j", "^M", "^J"}


class TmuxSession:
    """A look-alike of Terminal-Bench's ``TmuxSession`` over a :class:`~.terminal.VirtualTerminal`.

    ``container``, ``commands_path``, ``disable_recording`` and ``user`` are accepted for
    signature compatibility and ignored. ``terminal`` (or ``world`` / ``machine`` / ``store`` /
    ``session_id``) says which simulated machine is behind the pane.
    """

    _GET_ASCIINEMA_TIMESTAMP_SCRIPT_CONTAINER_PATH = "/tmp/get-asciinema-timestamp.sh"

    def __init__(
        self,
        session_name: str = "agent",
        container: Any = None,
        commands_path: Any = None,
        disable_recording: bool = False,
        user: str = "",
        *,
        terminal: VirtualTerminal | None = None,
        world: Any = None,
        machine: Any = None,
        store: Any = None,
        session_id: str | None = None,
    ) -> None:
        self.session_name = session_name
        self.container = container
        self.terminal = terminal or VirtualTerminal(
            world, session_id=session_id or session_name, machine=machine, store=store
        )
        self.disable_recording = disable_recording
        self._previous_buffer: str | None = None
        self._started = False
        self._stopped = False
        self._started_at = time.monotonic()

    @classmethod
    def from_container_name(cls, session_name: str, container_name: str) -> TmuxSession:
        """Terminal-Bench's constructor by container name: the name picks the simulated machine."""
        return cls(session_name=session_name, container=container_name, session_id=container_name)

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def logging_path(self) -> Path:
        return Path("/logs") / f"{self.session_name}.log"

    def start(self) -> None:
        self._started = True
        self._stopped = False
        self._started_at = time.monotonic()

    def get_asciinema_timestamp(self) -> float:
        """Seconds into the session's recording (Terminus marks its episodes with it); 0.0 when
        recording is disabled, as in Terminal-Bench. Nothing is recorded: the clock is the pane's."""
        if self.disable_recording:
            return 0.0
        return round(time.monotonic() - self._started_at, 3)

    def stop(self) -> None:
        self._stopped = True

    def is_session_alive(self) -> bool:
        return not self._stopped and self.terminal.alive

    # -- keys ------------------------------------------------------------------------------------

    def send_keys(
        self,
        keys: str | list[str],
        block: bool = False,
        min_timeout_sec: float = 0.0,
        max_timeout_sec: float = 180.0,
    ) -> None:
        """Type ``keys`` (text, or tmux key names such as ``Enter`` and ``C-c``).

        The simulation answers at once, so ``block`` and the timeouts decide nothing; a blocking
        send of a command without Enter gets one, as tmux's ``wait`` trick would need.
        """
        if isinstance(keys, str):
            keys = [keys]
        keys = list(keys)
        if block and keys and keys[-1] not in _ENTER and not str(keys[-1]).endswith("\n"):
            keys.append("Enter")
        duration = max(min_timeout_sec, 0.1)
        self.terminal.send_keys(keys, duration=min(duration, max_timeout_sec or duration))

    def send_command(self, command: Any) -> None:
        """Terminal-Bench's ``TerminalCommand`` (command, min/max timeout, block, append_enter)."""
        keys = [command.command]
        if getattr(command, "append_enter", True):
            keys.append("Enter")
        self.send_keys(
            keys,
            block=getattr(command, "block", False),
            min_timeout_sec=getattr(command, "min_timeout_sec", 0.0),
            max_timeout_sec=getattr(command, "max_timeout_sec", 180.0),
        )

    # -- the pane --------------------------------------------------------------------------------

    def capture_pane(self, capture_entire: bool = False) -> str:
        """The visible 160x40 screen, or the whole scrollback with ``capture_entire``."""
        if capture_entire:
            return "\n".join(self.terminal.transcript())
        return self.terminal.screen()

    def _visible(self) -> str:
        return self.capture_pane(capture_entire=False)

    def get_incremental_output(self) -> str:
        """What is new since the last call ("New Terminal Output:"), or the whole screen
        ("Current Terminal Screen:") on the first call or when the old output cannot be found."""
        current = self.capture_pane(capture_entire=True)
        previous, self._previous_buffer = self._previous_buffer, current
        if previous is None:
            return f"Current Terminal Screen:\n{self._visible()}"
        old, now = previous.rstrip("\n").split("\n"), current.split("\n")
        # the old buffer's last line is the prompt the new input was typed on: it has grown
        keep = len(old) - 1
        if now[:keep] == old[:keep] and len(now) > keep and now[keep].startswith(old[-1].rstrip()):
            new = "\n".join(now[keep:])
            if new.strip() and new.strip() != old[-1].strip():
                return f"New Terminal Output:\n{new}"
        return f"Current Terminal Screen:\n{self._visible()}"

    def clear_history(self) -> None:
        self.terminal.clear_history()
        self._previous_buffer = None

    def copy_to_container(
        self,
        paths: Any,
        container_dir: str | None = None,
        container_filename: str | None = None,
    ) -> None:
        """Copy host files (a folder: the files in it) into the simulated machine
        (``container_dir``, default ``/``), as Terminal-Bench copies test and helper scripts into
        its container."""
        folder = (container_dir or "").rstrip("/")
        for item in [paths] if isinstance(paths, (str, Path)) else list(paths):
            source = Path(item)
            if source.is_dir():
                found = [(f, f"{source.name}/{f.relative_to(source).as_posix()}") for f in source.rglob("*")]
            else:
                found = [(source, container_filename or source.name)]
            for path, name in found:
                if path.is_file():
                    self.terminal.write_file(
                        f"{folder}/{name}", path.read_text(encoding="utf-8", errors="replace")
                    )


class TmuxCommands:
    """Answers ``tmux`` command lines on a virtual terminal: ``run(argv) -> (stdout, stderr, code)``."""

    def __init__(self, terminal: VirtualTerminal) -> None:
        self.terminal = terminal
        self.sessions: dict[str, float] = {}
        self.options: dict[str, str] = {}

    def run(self, argv: Sequence[str]) -> tuple[str, str, int]:
        """Run ``tmux ARGS`` (``argv`` without the leading ``tmux``); ``;`` separates commands."""
        args = list(argv)
        while args and (args[0] in ("-2", "-u", "-v") or (args[0] in ("-L", "-S", "-f") and len(args) > 1)):
            args = args[1:] if args[0] in ("-2", "-u", "-v") else args[2:]
        if args[:1] == ["-V"]:
            return "tmux 3.4\n", "", 0
        if not args:
            args = ["new-session"]
        out: list[str] = []
        code = 0
        command: list[str] = []
        for arg in [*args, ";"]:
            if arg in (";", "\\;"):
                if command:
                    stdout, stderr, code = self._one(command)
                    out.append(stdout)
                    if code:
                        return "".join(out), stderr, code
                command = []
            else:
                command.append(arg)
        return "".join(out), "", code

    def _target(self, args: list[str]) -> str:
        for flag in ("-t", "-s"):
            if flag in args[:-1]:
                return args[args.index(flag) + 1].split(":", 1)[0].split(".", 1)[0]
        return next(iter(self.sessions), "0")

    def _one(self, argv: list[str]) -> tuple[str, str, int]:
        name, args = argv[0], argv[1:]
        if name in ("new-session", "new"):
            session = args[args.index("-s") + 1] if "-s" in args[:-1] else str(len(self.sessions))
            if session in self.sessions:
                return "", f"duplicate session: {session}\n", 1
            self.sessions[session] = time.time()
            return "", "", 0
        if name in ("has-session", "has"):
            target = self._target(args)
            if target in self.sessions:
                return "", "", 0
            return "", f"can't find session: {target}\n", 1
        if name in ("kill-session", "kill-server"):
            if name == "kill-server":
                self.sessions.clear()
            else:
                self.sessions.pop(self._target(args), None)
            return "", "", 0
        if name in ("list-sessions", "ls"):
            if not self.sessions:
                return "", "no server running on /tmp/tmux-0/default\n", 1
            lines = [
                f"{s}: 1 windows (created {time.ctime(t)}) [{COLS}x{ROWS}]\n"
                for s, t in self.sessions.items()
            ]
            return "".join(lines), "", 0
        if name in ("send-keys", "send"):
            return self._send_keys(args)
        if name in ("capture-pane", "capturep"):
            return self._capture(args)
        if name in ("clear-history", "clearhist"):
            self.terminal.clear_history()
            return "", "", 0
        if name == "display-message":
            fmt = args[-1] if args and not args[-1].startswith("-") else ""
            shown = fmt.replace("#{pane_width}", str(COLS)).replace("#{pane_height}", str(ROWS))
            shown = shown.replace("#{session_name}", self._target(args))
            return (shown + "\n") if "-p" in args else "", "", 0
        if name in (
            "set-option",
            "set",
            "set-window-option",
            "setw",
            "pipe-pane",
            "pipep",
            "resize-window",
            "resize-pane",
            "select-window",
            "select-pane",
            "wait-for",
            "wait",
            "start-server",
            "refresh-client",
        ):
            return "", "", 0
        return "", f"unknown command: {name}\n", 1

    def _send_keys(self, args: list[str]) -> tuple[str, str, int]:
        literal = False
        keys: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in ("-t", "-N") and i + 1 < len(args):
                i += 2
                continue
            if arg == "-l":
                literal = True
            elif arg in ("-H", "-R", "-X", "-M"):
                pass
            else:
                keys.append(arg)
            i += 1
        if keys:
            text = "".join(keys) if literal else keys
            self.terminal.send_keys(text)
        return "", "", 0

    def _capture(self, args: list[str]) -> tuple[str, str, int]:
        start = args[args.index("-S") + 1] if "-S" in args[:-1] else None
        entire = start is not None and (
            start == "-" or (start.lstrip("-").isdigit() and start.startswith("-"))
        )
        if entire:
            lines = self.terminal.transcript()
            if start not in (None, "-"):
                lines = lines[-(ROWS + int(start.lstrip("-"))) :]
            text = "\n".join(lines)
        else:
            text = self.terminal.screen()
        return (text + "\n") if "-p" in args else "", "", 0


_SEP = "__AGENTWORLD_TMUX_SEP__"


def tmux_argv(command: str) -> list[list[str]] | None:
    """The ``tmux`` invocations in a command line (inside ``script -c "..."`` too), or None when
    it runs other programs as well and is not a tmux command line. tmux's own separator ``\\;``
    stays inside an invocation; the shell's ``;``, ``&&`` and ``||`` separate invocations."""
    text = command.replace("\\;", f" {_SEP} ")
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return None
    found: list[list[str]] = []
    part: list[str] = []
    for token in [*tokens, "&&"]:
        if token in ("|", "&", "|&"):
            return None
        if token not in ("&&", ";", "||", ";;"):
            part.append(token)
            continue
        if part:
            if part[0] == "tmux":
                found.append([";" if t == _SEP else t for t in part[1:]])
            elif part[0] == "script" and any(
                p[:1] == "-" and p[1:2] != "-" and "c" in p[1:] for p in part[1:]
            ):
                inner = next((p for p in part[1:] if not p.startswith("-") and "tmux" in p), None)
                nested = tmux_argv(inner.replace(_SEP, "\\;")) if inner else None
                if nested is None:
                    return None
                found.extend(nested)
            elif part[0] not in ("export", "cd", "true", "unset"):
                return None
        part = []
    return found or None
