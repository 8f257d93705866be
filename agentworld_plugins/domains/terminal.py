"""Terminal: keystrokes into a Linux shell, answered with the visible screen (about 40 lines)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain, OfflineResult

SCREEN_LINES = 40


class Keystrokes(BaseModel):
    """One batch of keys sent to the terminal, then ``duration`` seconds of waiting."""

    model_config = ConfigDict(extra="forbid")

    keystrokes: str = Field(description="Keys to send; end a command with \\n. Ctrl-C is \\u0003 or C-c.")
    duration: float = Field(1.0, ge=0, le=600, description="Seconds to wait for output.")


class TerminalAction(RootModel[list[Keystrokes]]):
    """A list of keystroke batches; an empty list means the agent considers the task done."""


_ERROR_LINE = re.compile(
    r"(command not found|No such file or directory|Permission denied|^Traceback|"
    r"(^|\s)(error|Error|ERROR):|Segmentation fault|cannot access|not permitted)",
    re.MULTILINE,
)


class TerminalDomain(Domain):
    name = "terminal"
    description = "Linux terminal: keystrokes in, the visible screen out."
    Action = TerminalAction
    example_action: ClassVar[Any] = [{"keystrokes": "ls -la\n", "duration": 0.5}]
    has_state = True
    sampling = Sampling(temperature=0.6, max_tokens=4096)

    def render_action(self, action: BaseModel) -> str:
        import json

        batches = action.model_dump(mode="json")
        if not batches:
            return "[]"
        lines = ",\n".join("  " + json.dumps(b, ensure_ascii=False) for b in batches)
        return f"[\n{lines}\n]"

    def is_error(self, text: str, action: BaseModel) -> bool:
        tail = "\n".join(text.splitlines()[-SCREEN_LINES:])
        return bool(_ERROR_LINE.search(tail))

    def offline_step(
        self, state: dict[str, Any], action: BaseModel, context: dict[str, Any]
    ) -> OfflineResult:
        """Type the keystrokes into a simulated bash (``offline.shell``); answer with the screen.

        ``state["vm"]`` is the machine (made on first use from ``context["files"]``, ``cwd``,
        ``env``), ``state["screen"]`` the transcript lines (the last one holds the cursor) and
        ``state["typed"]`` what sits on the prompt line without Enter. ``duration`` is not waited.
        """
        from ..offline.shell import TerminalScreen, machine_from_context

        terminal = state.get("terminal")
        if terminal is None:
            vm = state.get("vm") or machine_from_context(context, interactive=True)
            initial = context.get("initial_state")
            terminal = TerminalScreen(vm, None if initial is None else str(initial), rows=SCREEN_LINES)
            state["vm"] = vm
            state["terminal"] = terminal
        commands: list[str] = []
        exit_codes: list[int] = []
        unknown: list[str] = []
        raw = action.model_dump(mode="python") if isinstance(action, BaseModel) else action
        batches: list[dict[str, Any]] = (
            [b for b in raw if isinstance(b, dict)] if isinstance(raw, list) else []
        )
        for batch in batches:
            step = terminal.send(str(batch.get("keystrokes", "")))
            commands.extend(step.commands)
            exit_codes.extend(step.exit_codes)
            unknown.extend(step.unknown_commands)
        state["screen"] = terminal.lines
        state["typed"] = terminal.typed
        metadata: dict[str, Any] = {"commands": commands, "exit_codes": exit_codes}
        if unknown:
            metadata["offline_unknown_effect"] = True
            metadata["unknown_commands"] = unknown
        return OfflineResult(
            terminal.view(), is_error=bool(exit_codes) and exit_codes[-1] != 0, metadata=metadata
        )


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(TerminalDomain())
