"""Tool definition files: a ``tools/list`` result or a plain list of MCP tool definitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import ConfigError
from .files import parse_data


def normalize_tools(data: Any, source: str = "tool definitions") -> list[dict[str, Any]]:
    """Check and normalise tool definitions; each gets an ``inputSchema`` (default: any object)."""
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list):
        raise ConfigError(
            f"{source} must be a list of tools or an object with a 'tools' list",
            hint='e.g. [{"name": "search", "description": "...", "inputSchema": {"type": "object"}}]',
        )
    tools = []
    for i, tool in enumerate(data):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
            raise ConfigError(f"{source}: tool #{i} has no 'name'", hint="every tool needs a name string")
        tool = dict(tool)
        if "input_schema" in tool and "inputSchema" not in tool:
            tool["inputSchema"] = tool.pop("input_schema")
        if "output_schema" in tool and "outputSchema" not in tool:
            tool["outputSchema"] = tool.pop("output_schema")
        schema = tool.setdefault("inputSchema", {"type": "object"})
        if not isinstance(schema, dict):
            raise ConfigError(
                f"{source}: tool {tool['name']!r} has an inputSchema that is not an object",
                hint="inputSchema must be a JSON Schema object",
            )
        tools.append(tool)
    return tools


def load_tools(path: str | Path) -> list[dict[str, Any]]:
    """Read tool definitions from a JSON or YAML file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read tools file {path}: {exc.strerror}", hint="check the path") from None
    try:
        data = parse_data(text, path)
    except Exception as exc:
        raise ConfigError(
            f"Tools file {path} does not parse: {exc}", hint="fix the JSON/YAML syntax"
        ) from None
    return normalize_tools(data, source=str(path))
