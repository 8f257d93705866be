"""Built-in tool packs: realistic MCP tool sets for servers you do not have at hand.

Each pack is a plain definition file in this folder (``{"name", "description", "tools": [...]}``,
JSON or YAML) registered through ``register_tool_packs``, exactly as a third-party plugin would::

    agentworld mcp serve --pack filesystem
    agentworld mcp serve --pack github-issues --pack calendar-email

Shipped: ``filesystem``, ``github-issues``, ``sql-database``, ``calendar-email``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.resources import files
from typing import Any

from ..errors import PluginError
from ..files import parse_data
from ..hookspecs import hookimpl

__all__ = ["bundled_packs", "register_tool_packs"]

_SUFFIXES = (".json", ".yaml", ".yml")


def bundled_packs() -> Iterator[dict[str, Any]]:
    """The pack files of this folder, parsed, in name order."""
    folder = files(__name__)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(_SUFFIXES):
            continue
        text = entry.read_text(encoding="utf-8")
        try:
            data = parse_data(text, entry.name)
        except Exception as exc:
            raise PluginError(
                f"Tool pack file {entry.name} does not parse: {exc}", hint="reinstall agentworld-plugins"
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
            raise PluginError(
                f"Tool pack file {entry.name} has no 'tools' list", hint="reinstall agentworld-plugins"
            )
        data.setdefault("name", entry.name.rsplit(".", 1)[0].replace("_", "-"))
        yield data


@hookimpl(trylast=True)
def register_tool_packs(register: Callable[..., None]) -> None:
    for pack in bundled_packs():
        register(pack["name"], pack["tools"])
