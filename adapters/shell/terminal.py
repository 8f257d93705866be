"""The virtual terminal: one simulated machine behind every way an agent runs commands.

A :class:`VirtualTerminal` has two fronts, each a :class:`~agentworld_plugins.Session`:

- the **command** front (swe domain): ``run(command, cwd, timeout) -> CommandResult`` sends a
  ``run_shell_command`` call and parses the Stdout / Stderr / Exit Code fields of the answer into
  real streams and a real exit status; the coding tools (``read_file``, ``edit``,
  ``execute_bash``, ``str_replace_editor``, ...) go to the same session (:meth:`tool`);
- the **screen** front (terminal domain): ``send_keys(keys) -> screen`` types into the machine's
  interactive bash and returns the 160x40 screen; :meth:`send_line` turns that into
  "output + next prompt" for line-oriented fronts (``agentworld shell``, the interactive shim).

Both fronts simulate **one machine**. With a world model, each front is its own conversation and
the model keeps the machine consistent from the shared description in both system prompts
(``World.session(..., system_suffix=...)``). With the offline world the fronts share the machine
itself: the offline backend (``World.offline``) starts both sessions with ``start_machine`` on
one filesystem under two shells (``bash -c`` style for commands, an interactive bash for the
screen). So a file written by ``bash -c`` is there when the tmux
look-alike runs ``cat``, while ``cd`` and ``export`` stay in the shell where they were typed, as
on a real machine. The terminal reads the offline screen through ``OfflineBackend.state``.

With a ``store`` the terminal lives in the SQLite session store (:mod:`agentworld_plugins.store`)
under its ``session_id``: every operation takes the session's lock, reloads it when another
process changed it, steps, and appends the new turns, so separate ``bash -c`` processes continue
one session. The offline machine is stored as ``OfflineBackend.snapshot`` bytes every few turns
and brought back with ``OfflineBackend.restore`` (the turns after the snapshot are replayed by the
backend). Nothing is ever run on the host.

>>> term = VirtualTerminal(World(backend="offline"))                        # doctest: +SKIP
>>> term.run("echo hi > a.txt && cat a.txt").stdout                         # doctest: +SKIP
'hi\\n'
>>> term.send_keys("cat a.txt\\n").splitlines()[-2:]                        # doctest: +SKIP
['hi', 'root@agentworld:/app#']
"""

from __future__ import annotations

import asyncio
import re
import shlex
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentworld_plugins.errors import AgentWorldError, ConfigError
from agentworld_plugins.observation import raw_streams
from agentworld_plugins.store import SessionStore

from .machine import DEFAULT_PS1, MachineSpec, render_ps1
from .results import CommandResult, LineResult, parse_bash_footer, parse_shell_result, truncate_output

if TYPE_CHECKING:
    from agentworld_plugins.session import Observation, Session, Turn, World

__all__ = ["DOMAINS", "FRONTS", "KEY_NAMES", "VirtualTerminal", "keys_to_text"]

T = TypeVar("T")

#: the two fronts and the domain each one's session belongs to
FRONTS = ("command", "screen")
DOMAINS = {"command": "swe", "screen": "terminal"}
ROWS, COLS = 40, 160
#: scrollback lines kept for a screen drawn by a world model
SCROLLBACK = 2000

#: tmux key names and the characters they stand for
KEY_NAMES: dict[str, str] = {
    "Enter": "\n",
    "C-m": "\n",
    "C-j": "\n",
    "KPEnter": "\n",
    "^M": "\n",
    "Escape": "\x1b",
    "Tab": "\t",
    "BTab": "\x1b[Z",
    "BSpace": "\x7f",
    "Space": " ",
    "Up": "\x1b[A",
    "Down": "\x1b[B",
    "Right": "\x1b[C",
    "Left": "\x1b[D",
    "Home": "\x1b[H",
    "End": "\x1b[F",
    "DC": "\x1b[3~",
    "Delete": "\x1b[3~",
    "PageUp": "\x1b[5~",
    "PPage": "\x1b[5~",
    "PageDown": "\x1b[6~",
    "NPage": "\x1b[6~",
}
for _letter in "abcdefghijklmnopqrstuvwxyz":
    KEY_NAMES.setdefault(f"C-{_letter}", chr(ord(_letter) - 96))
    KEY_NAMES.setdefault(f"^{_letter.upper()}", chr(ord(_letter) - 96))


def keys_to_text(keys: Iterable[str]) -> str:
    """tmux-style keys (literal text or key names such as ``Enter``, ``C-c``) as characters."""
    return "".join(KEY_NAMES.get(k, k) for k in keys)


_EXIT_LINE = re.compile(r"^\s*(?:exit|logout)(?:\s+(-?\d+))?\s*;?\s*$")


# -- the terminal ----------------------------------------------------------------------------------


class VirtualTerminal:
    """One simulated machine with a command front and a screen front (see the module docstring).

    ``world`` defaults to ``World()``. ``store`` is a :class:`~.store.SessionStore`, a path to one,
    ``True`` for the one in ``AGENTWORLD_HOME``, or None to keep the session in memory.
    ``machine`` (a :class:`MachineSpec`, dict or ``--state`` path) is used when the session is new;
    a stored session keeps the machine it started as. ``perturbations`` apply to both fronts, on
    top of the world's own.
    """

    def __init__(
        self,
        world: World | None = None,
        *,
        session_id: str | None = None,
        machine: MachineSpec | dict[str, Any] | str | Path | None = None,
        store: SessionStore | str | Path | bool | None = None,
        perturbations: Iterable[Any] = (),
        seed: int | None = None,
    ) -> None:
        from agentworld_plugins.worlds import SharedWorld

        if world is None:
            from agentworld_plugins.session import World

            world = World()
        self.world = world
        self._given_machine = None if machine is None else MachineSpec.coerce(machine)
        self.perturbations = list(perturbations)
        start = self._given_machine or MachineSpec()
        # a named World (AGENTWORLD_WORLD) is one machine whatever session a harness names
        name = world.name or session_id or uuid.uuid4().hex[:12]
        if store is None and world.name is not None:
            store = True  # a named world lives in the world store
        #: the world this terminal is two fronts of (the World's name, else ``session_id``)
        self.shared = SharedWorld(world, name, store=store, machine=start.to_dict(), seed=seed)
        self.id = self.shared.name
        self.store: SessionStore | None = self.shared.store
        self._closed = False
        #: why the ``machine`` given was not used (the stored world has its own), or None
        self.machine_warning: str | None = None
        self._offline_checked = False
        self._offline_api: Any = None
        self._kwargs: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    # -- the world -------------------------------------------------------------------------------

    @property
    def machine(self) -> MachineSpec:
        """The machine the world started as (a stored world keeps its own)."""
        return MachineSpec.from_dict(self.shared.machine)

    @property
    def seed(self) -> int | None:
        return self.shared.seed

    @property
    def _meta(self) -> dict[str, Any]:
        """The terminal's own state in the world: the scrollback of a model-drawn screen, exited."""
        return self.shared.meta("terminal")

    @property
    def _scrollback(self) -> list[str]:
        return list(self._meta.get("scrollback") or [])

    @_scrollback.setter
    def _scrollback(self, lines: list[str]) -> None:
        self._meta["scrollback"] = lines[-SCROLLBACK:]
        self.shared.changed()

    @property
    def _exited(self) -> bool:
        return bool(self._meta.get("exited"))

    def _offline(self) -> Any:
        """The world's embedded offline backend (its public state API), or None."""
        if not self._offline_checked:
            self._offline_api = self.world.offline
            self._offline_checked = True
        return self._offline_api

    def _note_machine(self) -> None:
        given = self._given_machine
        if given is not None and self.store is not None and given.to_dict() != self.machine.to_dict():
            machine = self.machine
            self.machine_warning = (
                f"session {self.id!r} already exists, so the machine given for it (--state, --hostname, "
                f"--user, --cwd) is ignored: it keeps {machine.user}@{machine.hostname}; "
                "start it afresh with --new (or VirtualTerminal(..., store=...) after store.delete)"
            )
        else:
            self.machine_warning = None

    def _operate(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the up-to-date world, holding it, and store what it added."""
        if self._closed:
            raise AgentWorldError(
                f"Virtual terminal {self.id} is closed", hint="create a new VirtualTerminal"
            )

        def op() -> T:
            self._note_machine()
            for front in FRONTS:  # both on the world (a fallback replay needs every front's turns)
                self.session(front)
            return fn()

        return self.shared.operate(op)

    # -- sessions --------------------------------------------------------------------------------

    def _session_kwargs(self, front: str) -> dict[str, Any]:
        machine = self.shared.machine
        cached = self._kwargs.get(front)
        if cached is not None and cached[0] is machine:
            return cached[1]
        from .definitions import all_tools

        spec = MachineSpec.from_dict(machine)
        context: dict[str, Any] = {"cwd": spec.cwd, "env": dict(spec.env)}
        if spec.files is not None:
            context["files"] = spec.files
        if front == "screen":
            context["initial_state"] = spec.prompt()
        kwargs = {
            "tools": all_tools() if front == "command" else None,
            "perturbations": self.perturbations,
            "session_id": f"{self.id}.{front}",
            # the prompt ends with a newline: a blank line, then the machine
            "system_suffix": f"\n{spec.describe()}",
            **context,
        }
        self._kwargs[front] = (machine, kwargs)
        return kwargs

    def session(self, front: str) -> Session:
        """The front's session (``"command"``: swe domain, ``"screen"``: terminal domain)."""
        if front not in DOMAINS:
            raise ConfigError(f"Unknown front {front!r}", hint="use 'command' or 'screen'")
        return self.shared.front(front, DOMAINS[front], **self._session_kwargs(front))

    def _step(self, front: str, action: Any) -> Observation:
        observation = self._operate(lambda: self.session(front).step(action))
        if self.machine_warning:
            observation.metadata.setdefault("warnings", []).append(self.machine_warning)
        return observation

    def open(self) -> VirtualTerminal:
        """Load (or create) the stored session now, so ``machine`` (and ``machine_warning``) say
        what the session runs on before the first command."""
        self._operate(lambda: None)
        return self

    @property
    def turns(self) -> dict[str, list[Turn]]:
        """The turns of each front so far (in this process's view of the session)."""
        return {f: self.shared.turns(f) for f in FRONTS}

    # -- the command front -----------------------------------------------------------------------

    @staticmethod
    def compose(command: str, *, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
        """The command line that runs ``command`` with ``env`` exported and ``stdin`` fed to it."""
        if env:
            exports = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
            command = f"export {exports}\n{command}"
        if stdin:
            delimiter = "AGENTWORLD_STDIN"
            while delimiter in stdin:
                delimiter += "_"
            body = stdin if stdin.endswith("\n") else stdin + "\n"
            command = f"{{ {command}\n}} <<'{delimiter}'\n{body}{delimiter}"
        return command

    def run(
        self,
        command: str,
        cwd: str | None = None,
        timeout: float | None = None,
        *,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> CommandResult:
        """Run ``command`` like ``bash -c`` (a fresh shell in the project root, or ``cwd``).

        ``timeout`` (seconds) goes with the call: the offline world ends the command when it
        passes on its virtual clock (at once for ``sleep``), and ``CommandResult.timed_out`` says so.
        """
        arguments: dict[str, Any] = {"command": self.compose(command, env=env, stdin=stdin)}
        if cwd:
            arguments["directory"] = cwd
        if timeout:  # the offline world ends the command there on its virtual clock (timed_out)
            arguments["timeout"] = timeout
        observation = self._step("command", {"tool_name": "run_shell_command", "arguments": arguments})
        stdout, stderr, code = parse_shell_result(observation.text, is_error=observation.is_error)
        exact = raw_streams(observation)
        if exact is not None:  # the world's own bytes: the text shows them lossily
            stdout, stderr = (b.decode("utf-8", "surrogateescape") for b in exact)
        return CommandResult(truncate_output(stdout), truncate_output(stderr), code, observation)

    async def arun(
        self,
        command: str,
        cwd: str | None = None,
        timeout: float | None = None,
        *,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> CommandResult:
        return await asyncio.to_thread(self.run, command, cwd, timeout, env=env, stdin=stdin)

    def tool(self, name: str, arguments: dict[str, Any] | None = None) -> Observation:
        """Call one coding tool (``read_file``, ``edit``, ``str_replace_editor``, ...) on the machine."""
        return self._step("command", {"tool_name": name, "arguments": dict(arguments or {})})

    async def atool(self, name: str, arguments: dict[str, Any] | None = None) -> Observation:
        return await asyncio.to_thread(self.tool, name, arguments)

    def execute_bash(self, command: str) -> CommandResult:
        """Run ``command`` in the persistent shell of the command front (OpenHands' ``execute_bash``:
        ``cd`` and ``export`` last). Its output merges both streams into ``stdout``."""
        observation = self.tool("execute_bash", {"command": command})
        output, code = parse_bash_footer(observation.text)
        if code is None:
            code = 1 if observation.is_error else 0
        return CommandResult(truncate_output(output), "", code, observation)

    def read_file(self, path: str) -> str:
        """A file's text on the machine (``cat``); raises when it cannot be read."""
        result = self.run(f"cat -- {shlex.quote(path)}")
        if result.exit_code != 0:
            raise AgentWorldError(
                f"Cannot read {path} on the simulated machine: {result.stderr.strip()}", hint="check the path"
            )
        return result.stdout

    def write_file(self, path: str, content: str) -> Observation:
        """Write a file on the machine (the coding tools' ``write_file``)."""
        return self.tool("write_file", {"file_path": path, "content": content})

    # -- the screen front ------------------------------------------------------------------------

    @staticmethod
    def keystrokes(keys: str | Sequence[Any], duration: float | None = None) -> list[dict[str, Any]]:
        """The terminal action for ``keys``: text, a list of tmux keys, or keystroke dicts."""
        wait = 0.1 if duration is None else max(0.0, min(float(duration), 600.0))
        if isinstance(keys, str):
            return [{"keystrokes": KEY_NAMES.get(keys, keys), "duration": wait}]
        keys = list(keys)
        if keys and all(isinstance(k, dict) for k in keys):
            return [dict(k) for k in keys]
        text = keys_to_text(str(k) for k in keys)
        return [{"keystrokes": text, "duration": wait}] if text else []

    def _offline_state(self) -> dict[str, Any] | None:
        """The offline world of the screen front (its ``vm`` and ``terminal``), up to date; None
        when a world model draws the screen."""
        offline = self._offline()
        return None if offline is None else offline.state(self.session("screen"))

    def _offline_screen(self) -> Any:
        state = self._offline_state()
        return None if state is None else state.get("terminal")

    def _note_screen(self, screen: str) -> None:
        if self._offline_screen() is not None:
            return
        new = screen.split("\n")
        old = self._scrollback
        for size in range(min(len(old), len(new)), 0, -1):
            if old[-size:-1] == new[: size - 1] and new[size - 1].startswith(old[-1].rstrip()):
                self._scrollback = old[:-size] + new
                break
        else:
            self._scrollback = old + new

    def _note_exits(self, batches: list[dict[str, Any]]) -> None:
        typed = "".join(str(b.get("keystrokes", "")) for b in batches)
        if any(_EXIT_LINE.match(line) for line in typed.split("\n")[:-1]) or "\x04" in typed:
            self._set_exited()

    def send_keys(self, keys: str | Sequence[Any], duration: float | None = None) -> str:
        """Type ``keys`` into the interactive shell; return the screen (last 40 lines)."""
        batches = self.keystrokes(keys, duration)

        def op() -> str:
            observation = self.session("screen").step(batches)
            self._note_screen(observation.text)
            self._note_exits(batches)
            return observation.text

        return self._operate(op)

    async def asend_keys(self, keys: str | Sequence[Any], duration: float | None = None) -> str:
        return await asyncio.to_thread(self.send_keys, keys, duration)

    def _screen_now(self) -> str:
        terminal = self._offline_screen()
        if terminal is not None:
            return str(terminal.view())
        turns = self.shared.turns("screen")
        if turns:
            return turns[-1].observation.text
        return self.machine.prompt().rstrip()

    def screen(self) -> str:
        """The visible screen now (no step is taken)."""
        return self._operate(self._screen_now)

    def transcript(self) -> list[str]:
        """Every line the screen has shown (the scrollback, up to 2000 lines)."""

        def op() -> list[str]:
            terminal = self._offline_screen()
            if terminal is not None:
                return [line.rstrip() for line in terminal.lines]
            return list(self._scrollback) or self._screen_now().split("\n")

        return self._operate(op)

    def clear_history(self) -> None:
        """Forget the scrollback above the visible screen (``tmux clear-history``)."""

        def op() -> None:
            terminal = self._offline_screen()
            if terminal is not None:
                del terminal.lines[:-ROWS]
            self._scrollback = self._scrollback[-ROWS:]

        self._operate(op)

    @property
    def alive(self) -> bool:
        """False once ``exit`` was typed at the interactive shell or the terminal was closed."""
        return not self._closed and not self._exited

    def _prompt_now(self) -> str:
        state = self._offline_state()
        if state is not None and state.get("vm") is not None:
            vm = state["vm"]
            terminal = state.get("terminal")
            if terminal is not None and terminal.pending:
                return str(vm.vars.get("PS2", "> "))
            return render_ps1(vm.vars.get("PS1", DEFAULT_PS1), vm)
        last = self._screen_now().split("\n")[-1]
        return last + " " if re.search(r"[#$>]$", last) else last

    def prompt(self) -> str:
        """The interactive shell's prompt now (PS1, or PS2 inside an unfinished command)."""
        return self._operate(self._prompt_now)

    def send_line(self, line: str) -> LineResult:
        """Type ``line`` and Enter; return what it printed and the next prompt (interactive fronts)."""
        batches = self.keystrokes(line.rstrip("\n") + "\n")

        def op() -> LineResult:
            terminal = self._offline_screen()
            before = len(terminal.lines) if terminal is not None else 1
            previous = self._screen_now().split("\n")
            observation = self.session("screen").step(batches)
            self._note_screen(observation.text)
            terminal = self._offline_screen()
            typed = line.rstrip("\n")
            output_lines: list[str]
            if terminal is not None:
                lines = terminal.lines
                echo = before - 1
                if not (0 <= echo < len(lines) - 1 and lines[echo].endswith(typed)):
                    echo = next((k for k in range(len(lines) - 2, -1, -1) if lines[k].endswith(typed)), -1)
                output_lines = [ln.rstrip() for ln in lines[echo + 1 : -1]] if echo >= 0 else []
            else:
                output_lines = _new_output(previous, observation.text.split("\n"), typed)
            codes = observation.metadata.get("exit_codes") or []
            status = int(codes[-1]) if codes else (1 if observation.is_error else 0)
            exited = None
            match = _EXIT_LINE.match(line)
            if match:
                exited = int(match.group(1)) & 0xFF if match.group(1) else status
                self._set_exited()
            output = "\n".join(output_lines) + ("\n" if output_lines else "")
            return LineResult(output, self._prompt_now(), status, exited)

        return self._operate(op)

    def interrupt(self) -> str:
        """Ctrl-C at the interactive shell; returns the new prompt."""

        def op() -> str:
            self.session("screen").step([{"keystrokes": "C-c", "duration": 0.1}])
            return self._prompt_now()

        return self._operate(op)

    # -- lifecycle -------------------------------------------------------------------------------

    def _set_exited(self) -> None:
        self._meta["exited"] = True
        self.shared.changed()

    def reload(self) -> None:
        """Forget this process's view of the session; the next operation reads the store."""
        self.shared.reload()

    def close(self) -> None:
        self._closed = True
        self.shared.close()

    def __enter__(self) -> VirtualTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        counts = ", ".join(f"{f}={len(self.shared.turns(f))}" for f in FRONTS)
        return f"<VirtualTerminal {self.id} {self.machine.user}@{self.machine.hostname} turns: {counts}>"


def _new_output(previous: list[str], screen: list[str], line: str) -> list[str]:
    """The lines a command printed, from the screens before and after it (a model-drawn screen)."""
    body = screen[:-1]
    for k in range(len(body) - 1, -1, -1):
        if line and body[k].rstrip().endswith(line.rstrip()):
            return body[k + 1 :]
    for size in range(min(len(previous), len(body)), 0, -1):
        if previous[-size:-1] == body[: size - 1]:
            return body[size:]
    return body
