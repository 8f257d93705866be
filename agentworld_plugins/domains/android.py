"""Android: AndroidWorld JSON actions on a phone, answered with the screen's UI element list."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

ActionType = Literal[
    "click",
    "double_tap",
    "long_press",
    "scroll",
    "swipe",
    "input_text",
    "navigate_home",
    "navigate_back",
    "keyboard_enter",
    "open_app",
    "status",
    "wait",
    "answer",
]
Direction = Literal["up", "down", "left", "right"]
GoalStatus = Literal["complete", "infeasible"]

ACTION_TYPES: tuple[str, ...] = get_args(ActionType)
DIRECTIONS: tuple[str, ...] = get_args(Direction)
GOAL_STATUSES: tuple[str, ...] = get_args(GoalStatus)

#: action types aimed at one point: a UI element by ``index`` or a screen position ``x``, ``y``
_TARGETED = ("click", "double_tap", "long_press")


def _fail(message: str, expected: str) -> PydanticCustomError:
    return PydanticCustomError("android_action", "{message}", {"message": message, "expected": expected})


class AndroidAction(BaseModel):
    """AndroidWorld's ``JSONAction``: an ``action_type`` and the fields that type uses.

    ``index`` is the number of a UI element in the current screen's element list; ``x``, ``y``
    are screen pixels. Fields a type does not use are ignored, as AndroidWorld does.
    """

    model_config = ConfigDict(extra="forbid")

    action_type: ActionType = Field(description="What to do.")
    index: int | None = Field(None, ge=0, description="UI element number from the element list.")
    x: int | None = Field(None, ge=0, description="Screen x in pixels (with y).")
    y: int | None = Field(None, ge=0, description="Screen y in pixels (with x).")
    text: str | None = Field(None, description="Text to type (input_text) or the answer (answer).")
    direction: Direction | None = Field(None, description="scroll/swipe direction.")
    goal_status: GoalStatus | None = Field(None, description="For status.")
    app_name: str | None = Field(None, description="App to launch (open_app).")
    keycode: str | None = Field(None, description="An Android key code such as KEYCODE_ENTER.")
    clear_text: bool | None = Field(None, description="input_text: clear the field first.")

    @model_validator(mode="after")
    def _check_fields(self) -> AndroidAction:
        kind = self.action_type
        has_x, has_y = self.x is not None, self.y is not None
        if has_x != has_y:
            given, missing = ("x", "y") if has_x else ("y", "x")
            raise _fail(f"{kind}: {given} was given without {missing}; give both x and y", "x and y together")
        has_point = has_x and has_y
        has_index = self.index is not None
        if kind in _TARGETED:
            if has_index and has_point:
                raise _fail(f"{kind}: give either index or x and y, not both", "index XOR x, y")
            if not (has_index or has_point):
                raise _fail(
                    f"{kind} needs index (a UI element number) or both x and y (screen pixels)",
                    f'{{"action_type": "{kind}", "index": 3}}',
                )
        elif kind == "input_text":
            if self.text is None:
                raise _fail(
                    "input_text needs text (the string to type)",
                    '{"action_type": "input_text", "text": "hello", "index": 2}',
                )
            if has_index and has_point:
                raise _fail("input_text: give either index or x and y, not both", "index XOR x, y")
        elif kind in ("scroll", "swipe"):
            if self.direction is None:
                raise _fail(
                    f"{kind} needs direction, one of {', '.join(DIRECTIONS)}",
                    f'{{"action_type": "{kind}", "direction": "down"}}',
                )
            if kind == "scroll" and has_index and has_point:
                raise _fail("scroll: give either index or x and y, not both", "index XOR x, y")
        elif kind == "open_app":
            if not (self.app_name and self.app_name.strip()):
                raise _fail(
                    "open_app needs app_name (the app's name)",
                    '{"action_type": "open_app", "app_name": "Clock"}',
                )
        elif kind == "status":
            if self.goal_status is None:
                raise _fail(
                    f"status needs goal_status, one of {', '.join(GOAL_STATUSES)}",
                    '{"action_type": "status", "goal_status": "complete"}',
                )
        elif kind == "answer" and self.text is None:
            raise _fail(
                "answer needs text (the answer for the user)", '{"action_type": "answer", "text": "42"}'
            )
        return self


class AndroidDomain(Domain):
    """AndroidWorld phone tasks.

    The agent sends AndroidWorld JSON actions (``{"action_type": "click", "index": 5}``,
    ``{"action_type": "input_text", "text": "milk", "index": 2}``, ...); the world model answers
    with the screen after the action as a numbered list of UI elements (text, content
    description, class, resource name, flags, bbox). The first turn carries the starting screen
    under ``**Current State:**``.
    """

    name = "android"
    description = "AndroidWorld JSON actions answered with the phone screen's UI elements."
    Action = AndroidAction
    example_action: ClassVar[Any] = {"action_type": "click", "index": 3}
    has_state = True
    requires_block = True
    sampling = Sampling(temperature=0.6, max_tokens=8192)

    def render_action(self, action: BaseModel) -> str:
        """One line of JSON with the set fields only, ``action_type`` first."""
        return json.dumps(action.model_dump(mode="json", exclude_none=True), ensure_ascii=False)

    def is_error(self, text: str, action: BaseModel) -> bool:
        """Android shows no error text for most failures; only an answer opening with Error counts."""
        return text.lstrip().startswith(("Error", "ERROR"))


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(AndroidDomain())
