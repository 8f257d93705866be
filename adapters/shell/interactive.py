"""``agentworld shell``: an interactive shell on a simulated machine, for people to explore it.

The prompt is the machine's (``root@agentworld:/app#``); lines are edited and remembered with
prompt_toolkit when it is installed and the shell runs in a terminal (readline otherwise, plain
lines when input is piped). Ctrl-C drops the line being typed, Ctrl-D or ``exit`` leaves. Every
line is typed into the virtual terminal's screen front, so what you do is one session with what
agents do through the shim or tmux look-alike (same ``--session``)::

    agentworld shell --session demo
    root@agentworld:/app# ls
    README.md  main.py  requirements.txt
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from agentworld_plugins.errors import AgentWorldError

from .terminal import VirtualTerminal

__all__ = ["line_reader", "run_shell"]

Reader = Callable[[str], str]


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def line_reader(
    editor: str = "auto", history: Path | None = None, stdin: IO[str] | None = None
) -> tuple[Reader, str]:
    """A function ``read(prompt) -> line`` (raising EOFError / KeyboardInterrupt) and its kind:
    ``prompt_toolkit``, ``readline`` or ``plain``."""
    stdin = stdin or sys.stdin
    tty = _is_tty(stdin) and _is_tty(sys.stdout)
    if editor in ("auto", "prompt_toolkit") and tty and os.environ.get("TERM") != "dumb":
        try:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import FileHistory, InMemoryHistory
        except ImportError:
            if editor == "prompt_toolkit":
                raise AgentWorldError(
                    "prompt_toolkit is not installed",
                    hint='install the shell extra from the checkout: pip install -e ".[shell]"',
                ) from None
        else:
            store: Any = InMemoryHistory()
            if history is not None:
                try:
                    history.parent.mkdir(parents=True, exist_ok=True)
                    store = FileHistory(str(history))
                except OSError:
                    pass
            session: Any = PromptSession(history=store)
            return (lambda prompt: session.prompt(prompt)), "prompt_toolkit"
    if editor in ("auto", "readline") and tty:
        try:
            import readline
        except ImportError:
            pass
        else:
            if history is not None:
                try:
                    readline.read_history_file(history)
                except OSError:
                    pass

                def save() -> None:
                    try:
                        history.parent.mkdir(parents=True, exist_ok=True)
                        readline.write_history_file(history)
                    except OSError:
                        pass

                import atexit

                atexit.register(save)
            return input, "readline"

    def plain(prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    return plain, "plain"


def run_shell(
    terminal: VirtualTerminal,
    *,
    reader: Reader | None = None,
    out: IO[str] | None = None,
    history: Path | None = None,
    editor: str = "auto",
) -> int:
    """Read lines and type them into ``terminal`` until Ctrl-D or ``exit``; return the exit status."""
    out = out or sys.stdout
    if reader is None:
        reader, _kind = line_reader(editor, history)
    status = 0
    prompt = terminal.prompt()
    while True:
        try:
            line = reader(prompt)
        except KeyboardInterrupt:
            out.write("^C\n")
            if prompt.strip() == ">":
                prompt = terminal.interrupt()
            continue
        except EOFError:
            out.write("exit\n")
            out.flush()
            return status
        try:
            result = terminal.send_line(line)
        except KeyboardInterrupt:
            out.write("^C\n")
            continue
        except AgentWorldError as exc:
            out.write(f"agentworld: {exc}\n")
            out.flush()
            continue
        out.write(result.output)
        out.flush()
        status = result.status
        if result.exited is not None:
            return result.exited
        prompt = result.prompt
