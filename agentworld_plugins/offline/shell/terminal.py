"""A machine behind a 160x40 terminal pane: keystrokes in, screen out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .constants import CLEAR_SCREEN, COLUMNS
from .limits import Budget, ResourceLimit, enter, leave
from .quoting import _display

if TYPE_CHECKING:
    from .machine import VirtualMachine


#: tmux key names an agent may send as a whole batch, and the bytes they stand for
TMUX_KEYS = {
    "C-c": "\x03",
    "C-d": "\x04",
    "C-l": "\x0c",
    "C-u": "\x15",
    "C-z": "\x1a",
    "Enter": "\n",
    "KPEnter": "\n",
    "C-m": "\n",
    "C-j": "\n",
    "Escape": "\x1b",
    "Tab": "\t",
    "BSpace": "\x7f",
    "Up": "",
    "Down": "",
    "Left": "",
    "Right": "",
}


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
#: characters typed as they are (no control character, no DEL)
_PLAIN_RUN = re.compile(r"[^\x00-\x1f\x7f]+")


@dataclass
class ScreenStep:
    """What one batch of keystrokes did: the commands entered and their exit codes."""

    commands: list[str] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    unknown_commands: list[str] = field(default_factory=list)


class TerminalScreen:
    """A terminal pane (``rows`` x ``cols``) showing an interactive :class:`VirtualMachine`.

    Keys are typed onto the prompt line; Enter runs the line (or asks for more with ``> `` when
    the command is unfinished); Ctrl-C prints ``^C`` and a fresh prompt; ``clear`` and Ctrl-L
    empty the screen. :meth:`view` is what ``tmux capture-pane`` would show: the last ``rows``
    lines, long lines wrapped at ``cols``, trailing spaces trimmed.
    """

    def __init__(
        self, vm: VirtualMachine, initial: str | None = None, *, rows: int = 40, cols: int = COLUMNS
    ) -> None:
        self.vm = vm
        self.rows = rows
        self.cols = cols
        self.scrollback = 2000
        #: the transcript; the last element is the line the cursor is on
        self.lines: list[str] = [""]
        #: text typed on the prompt line and not yet entered
        self.typed = ""
        self.pending: list[str] = []
        #: the delimiter of the here-document being typed (None: not in one)
        self.heredoc: str | None = None
        self.prompt_text = vm.prompt()
        if initial is not None and initial.strip():
            self.show(initial, prompt=True)
        else:
            self.lines = [self.prompt_text]

    def show(self, screen: str, *, prompt: bool = False) -> None:
        """Make ``screen`` what the pane shows, the cursor after its last line: on its prompt when
        it ends with one, else on a new line (a command still running), or after a fresh prompt
        when ``prompt`` is set (an initial screen)."""
        shown = screen.rstrip("\n").split("\n")
        last = shown[-1]
        self.typed = ""
        self.pending = []
        if re.search(r"[#$>]$", last):
            last += " "
        if re.search(r"[#$>] $", last):
            self.lines = [*shown[:-1], last]
            self.prompt_text = last
        elif prompt:  # the screen shows no prompt yet: the shell prints one
            self.lines = [*shown, self.prompt_text]
        else:
            self.lines = [*shown, ""]

    # -- output ----------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Write program output at the cursor (``\\n``, ``\\r``, clear-screen understood)."""
        text = _display(text)
        while text:
            k = text.find(CLEAR_SCREEN[:3])
            head, rest = (text, "") if k < 0 else (text[:k], text[k:])
            self._write_plain(head)
            if not rest:
                break
            m = re.match(r"(\x1b\[H)?(\x1b\[2J)(\x1b\[3J)?", rest)
            if m and m.group(0):
                self.lines = [""]
                text = rest[m.end() :]
            else:
                self._write_plain(rest[:3])
                text = rest[3:]

    def _write_plain(self, text: str) -> None:
        text = _ANSI.sub("", text).replace("\x07", "")
        text = text.replace("\r\n", "\n")
        pieces = text.rsplit("\n", self.scrollback + 1)
        if len(pieces) > self.scrollback + 1:  # what scrolls off at once is never seen: not kept
            self.lines = [""]
            pieces = pieces[1:]
        for k, piece in enumerate(pieces):
            if k > 0:
                self.lines.append("")
            if "\r" in piece:
                piece = piece.rsplit("\r", 1)[1]
                self.lines[-1] = ""
            self.lines[-1] += piece
        if len(self.lines) > self.scrollback:
            del self.lines[: len(self.lines) - self.scrollback]

    def _show_prompt(self, prompt: str) -> None:
        self.prompt_text = prompt
        self.lines[-1] += prompt

    # -- input -----------------------------------------------------------------------------------

    def send(self, keys: str) -> ScreenStep:
        """Type ``keys`` (text, ``\\n`` for Enter, control characters, or one tmux key name)."""
        step = ScreenStep()
        budget = Budget(self.vm.limits)  # typing is work too: reading unfinished input again
        previous = enter(budget)
        try:
            self._type(keys, step)
        except ResourceLimit as exc:  # typing alone (unfinished input) ran past the budget
            self._over_budget(exc)
        except MemoryError:  # the host ran short (the budgets keep a step well below): one line
            self._over_budget(ResourceLimit("xmalloc: cannot allocate memory", 2))
        finally:
            leave(previous)
        return step

    def _type(self, keys: str, step: ScreenStep) -> None:
        if keys.strip() in TMUX_KEYS and keys.strip() != "":
            keys = TMUX_KEYS[keys.strip()]
        i = 0
        n = len(keys)
        while i < n:
            ch = keys[i]
            if ch == "\r" and i + 1 < n and keys[i + 1] == "\n":
                i += 1
                ch = "\n"
            if ch in "\n\r":
                self._enter(step)
            elif ch == "\x03":
                self._interrupt()
            elif ch == "\x04":
                if not self.typed and not self.pending:
                    self.lines[-1] += "exit"
                    self.write("\n")
                    self._show_prompt(self.vm.prompt())
            elif ch == "\x0c":
                self.lines = [self.prompt_text + self.typed]
            elif ch == "\x15":
                self.lines[-1] = self.lines[-1][: len(self.lines[-1]) - len(self.typed)]
                self.typed = ""
            elif ch in "\x7f\b":
                if self.typed:
                    self.typed = self.typed[:-1]
                    self.lines[-1] = self.lines[-1][:-1]
            elif ch == "\x1b":
                m = re.match(r"\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])?", keys[i:])
                i += max(1, m.end() if m else 1)
                continue
            elif ch == "\t" or ch == "\x1a" or (ord(ch) < 32 and ch != "\t"):
                pass
            else:  # a run of plain characters goes in at once (one by one was quadratic)
                run = _PLAIN_RUN.match(keys, i)
                end = run.end() if run else i + 1
                self.typed += keys[i:end]
                self.lines[-1] += keys[i:end]
                i = end
                continue
            i += 1

    def _over_budget(self, exc: ResourceLimit) -> None:
        """The rest of the keys are dropped, as a killed step would lose them; the shell stays."""
        self.typed = ""
        self.pending = []
        self.heredoc = None
        self.write(f"\nbash: {exc.message}\n")
        self.vm.last_status = exc.status
        self._show_prompt(self.vm.prompt())

    def _interrupt(self) -> None:
        self.lines[-1] += "^C"
        self.lines.append("")
        self.typed = ""
        self.pending = []
        self.heredoc = None
        self.vm.last_status = 130
        self._show_prompt(self.vm.prompt())

    def _enter(self, step: ScreenStep) -> None:
        line = self.typed
        self.typed = ""
        self.lines.append("")
        if not self.pending and not line.strip():
            self._show_prompt(self.vm.prompt())
            return
        self.pending.append(line)
        heredoc = getattr(self, "heredoc", None)
        if heredoc is not None and line.lstrip("\t") != heredoc:
            self._show_prompt("> ")  # a here-document's body: nothing to parse until its end
            return
        self.heredoc = None
        text = "\n".join(self.pending)
        try:
            more, self.heredoc = self.vm.continuation(text)
            if more:
                self._show_prompt("> ")
                return
            self.pending = []
            result = self.vm.run(text)
        except RecursionError:  # nested too deep for the parser: this line fails, the next one runs
            self.pending = []
            self.heredoc = None
            self.vm.last_status = 1
            self.write("bash: maximum recursion depth exceeded\n")
            step.commands.append(text)
            step.exit_codes.append(1)
            self._show_prompt(self.vm.prompt())
            return
        self.write(result.output)
        step.commands.append(text)
        step.exit_codes.append(result.exit_code)
        step.unknown_commands.extend(result.unknown_commands)
        self._show_prompt(self.vm.prompt())

    # -- what is seen ----------------------------------------------------------------------------

    def view(self) -> str:
        """The visible screen: the last ``rows`` lines (wrapped at ``cols``), ending with the
        cursor line (usually the prompt)."""
        rows: list[str] = []
        for line in reversed(self.lines):
            if len(line) <= self.cols:
                rows.append(line)
            else:
                rows.extend(reversed([line[k : k + self.cols] for k in range(0, len(line), self.cols)]))
            if len(rows) >= self.rows:
                break
        return "\n".join(r.rstrip() for r in reversed(rows[: self.rows]))
