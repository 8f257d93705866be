"""OS: pyautogui code on an Ubuntu desktop (OSWorld), answered with the accessibility tree."""

from __future__ import annotations

import re
import textwrap
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, RootModel, field_validator
from pydantic_core import PydanticCustomError

from .. import pyast
from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

#: OSWorld's special actions, each accepted alone in place of code
SPECIAL_ACTIONS = ("WAIT", "FAIL", "DONE")

_FENCE = re.compile(r"\A```[ \t]*(?:python|py|python3)?[ \t]*\n(?P<code>.*?)\n?[ \t]*```\Z", re.DOTALL)


def clean_code(text: str) -> str:
    """The code without surrounding whitespace, a surrounding ```python fence, or common indent."""
    match = _FENCE.match(text.strip())
    if match:
        text = match.group("code")
    return textwrap.dedent(text).strip()


def _fail(message: str) -> PydanticCustomError:
    expected = "Python code using pyautogui, or WAIT, FAIL or DONE alone"
    return PydanticCustomError("os_action", "{message}", {"message": message, "expected": expected})


class OsAction(RootModel[str]):
    """Python code run on the desktop (pyautogui, time, ...), or ``WAIT``, ``FAIL`` or ``DONE``."""

    @field_validator("root", mode="after")
    @classmethod
    def _check(cls, value: str) -> str:
        code = clean_code(value)
        if not code:
            raise _fail(
                "empty action; send pyautogui code such as pyautogui.click(960, 540), or WAIT/FAIL/DONE"
            )
        if code in SPECIAL_ACTIONS:
            return code
        try:
            with warnings.catch_warnings():  # agent code is not ours: no SyntaxWarnings
                warnings.simplefilter("ignore", SyntaxWarning)
                pyast.parse(code, mode="exec")
        except SyntaxError as exc:
            raise _fail(
                f"the code does not parse: line {exc.lineno}, column {exc.offset}: {exc.msg}"
            ) from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise _fail(f"the code does not parse: {exc}") from None
        return code

    @property
    def special(self) -> str | None:
        """``WAIT``, ``FAIL`` or ``DONE`` when the action is one of them, else None."""
        return self.root if self.root in SPECIAL_ACTIONS else None


_ERROR = re.compile(
    r"^Traceback \(most recent call last\):|^\s*(?:[A-Za-z_][\w.]*)?(?:Error|Exception): ", re.MULTILINE
)


class OsDomain(Domain):
    """OSWorld desktop tasks on Ubuntu with GNOME.

    The agent sends Python code using pyautogui (``pyautogui.click(960, 540)``,
    ``pyautogui.hotkey('ctrl', 's')``, several statements in order) or one of ``WAIT``,
    ``FAIL``, ``DONE``; the world model answers with the desktop's accessibility tree after the
    code ran. The first turn carries the starting desktop under ``**Current State:**``.
    """

    name = "os"
    description = "OSWorld pyautogui code answered with the desktop's accessibility tree."
    Action = OsAction
    example_action: ClassVar[Any] = "pyautogui.click(960, 540)"
    action_fence = "python"
    has_state = True
    requires_block = True
    sampling = Sampling(temperature=0.6, max_tokens=8192)

    def action_hint(self) -> str:
        return (
            "a valid os action is Python code such as pyautogui.click(960, 540), or WAIT, FAIL or DONE alone"
        )

    def render_action(self, action: BaseModel) -> str:
        return str(action.model_dump())

    def is_error(self, text: str, action: BaseModel) -> bool:
        """True only when the text shows a Python traceback or a line such as ``Error: ...`` or
        ``ValueError: ...`` (the desktop itself shows no Python errors)."""
        return bool(_ERROR.search(text))


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(OsDomain())
