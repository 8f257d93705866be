"""SWE: coding-agent tool calls (Qwen Code / Gemini CLI, OpenHands) on a repository."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain

#: required arguments of the tools agents use most; other tool names pass through unchecked
REQUIRED_ARGUMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "run_shell_command": (("command",),),
    "execute_bash": (("command",),),
    "read_file": (("absolute_path", "file_path", "path"),),
    "write_file": (("file_path", "absolute_path", "path"), ("content",)),
    "edit": (("file_path", "absolute_path", "path"), ("old_string",), ("new_string",)),
    "replace": (("file_path", "absolute_path", "path"), ("old_string",), ("new_string",)),
    "list_directory": (("path", "dir_path", "absolute_path"),),
    "glob": (("pattern",),),
    "grep_search": (("pattern",),),
    "search_file_content": (("pattern",),),
    "str_replace_editor": (("command",), ("path",)),
}
EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")


class SweToolCall(BaseModel):
    """One coding-tool call; ``name`` is accepted for ``tool_name``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    tool_name: str = Field(min_length=1, validation_alias=AliasChoices("tool_name", "name"))
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_arguments(self) -> SweToolCall:
        for alternatives in REQUIRED_ARGUMENTS.get(self.tool_name, ()):
            if not any(a in self.arguments for a in alternatives):
                raise ValueError(
                    f"{self.tool_name} needs arguments.{alternatives[0]}"
                    + (f" (or {', '.join(alternatives[1:])})" if len(alternatives) > 1 else "")
                )
        if self.tool_name == "str_replace_editor" and self.arguments["command"] not in EDITOR_COMMANDS:
            raise ValueError(f"str_replace_editor command must be one of {', '.join(EDITOR_COMMANDS)}")
        return self


_EXIT_CODE = re.compile(r"^Exit Code:\s*(-?\d+)", re.MULTILINE)
_ERROR_FIELD = re.compile(r"^Error:\s*(?!\(none\))\S", re.MULTILINE)


def exit_code_of(text: str) -> int | None:
    """The ``Exit Code:`` field of a run_shell_command result, if there is one."""
    match = _EXIT_CODE.search(text)
    return int(match.group(1)) if match else None


class SweDomain(Domain):
    name = "swe"
    description = "Coding-agent tools (shell, read/write/edit files, search) on a repository."
    Action = SweToolCall
    example_action: ClassVar[Any] = {"tool_name": "run_shell_command", "arguments": {"command": "git status"}}
    sampling = Sampling(temperature=0.6, max_tokens=8192)

    def render_action(self, action: BaseModel) -> str:
        import json

        return json.dumps(action.model_dump(mode="json", by_alias=False), ensure_ascii=False, indent=2)

    def is_error(self, text: str, action: BaseModel) -> bool:
        code = exit_code_of(text)
        if code is not None:
            return code != 0
        return bool(_ERROR_FIELD.search(text)) or text.lstrip().startswith("Error")


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(SweDomain())
