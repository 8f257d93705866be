"""Terminal: keystrokes into a Linux shell, answered with the visible screen (about 40 lines)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

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


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(TerminalDomain())
