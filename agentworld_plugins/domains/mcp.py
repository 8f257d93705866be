"""MCP: tool calls ``{tool_name, arguments}`` answered with what an MCP server returns."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ..backends.base import Sampling
from ..hookspecs import hookimpl
from .base import Domain


class ToolCall(BaseModel):
    """One MCP ``tools/call``: the tool's name and its arguments object."""

    model_config = ConfigDict(extra="forbid")

    tool_name: str = Field(min_length=1, description="Name of a tool from the tool definitions.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")


def looks_like_error(text: str) -> bool:
    """Whether an MCP result text reads as a failed call (``isError``)."""
    head = text.lstrip()[:300]
    if head.startswith(("Error", "Unknown tool", "error:")):
        return True
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False
    return isinstance(data, dict) and (data.get("isError") is True or set(data) == {"error"})


class McpDomain(Domain):
    name = "mcp"
    description = "MCP tool calls answered as an MCP server would."
    Action = ToolCall
    example_action: ClassVar[Any] = {"tool_name": "list_issues", "arguments": {"repo": "acme/api"}}
    sampling = Sampling(temperature=0.6, max_tokens=4096)
    # a real MCP server's text content arrives byte for byte, final newline included
    exact_text = True

    def is_error(self, text: str, action: BaseModel) -> bool:
        return looks_like_error(text)


@hookimpl
def register_domains(register: Callable[..., None]) -> None:
    register(McpDomain())
