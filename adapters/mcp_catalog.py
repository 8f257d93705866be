"""What a fake MCP server offers: tools, resources, prompts and its identity, from any source.

Sources are a tools file (a ``tools/list`` result or a list of tool definitions, JSON or YAML), a
tool pack registered through ``register_tool_packs``, or a snapshot written after mirroring a real
server. Every tool's ``inputSchema`` and ``outputSchema`` are checked as JSON Schema when loaded,
so a broken file stops the server before any client connects, with the file, the tool and the JSON
pointer of the problem.

A snapshot is a JSON file that any tools-file reader also accepts (it has a ``tools`` list)::

    {"agentworld_mcp_snapshot": 1, "source": "npx -y @modelcontextprotocol/server-github",
     "server": {"name": "github", "version": "0.6.2", "instructions": null},
     "tools": [...], "resources": [...], "resourceTemplates": [...], "prompts": [...]}

>>> catalog = Catalog.from_tools([{"name": "ping", "inputSchema": {"type": "object"}}])
>>> [tool.name for tool in catalog.tools]
['ping']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

from agentworld_plugins.errors import ConfigError
from agentworld_plugins.tooldefs import normalize_tools

from .mcp_validation import schema_problem

__all__ = ["SNAPSHOT_KEY", "Catalog", "load_catalog", "pack_catalog"]

#: the key (and format version) that marks a snapshot file
SNAPSHOT_KEY = "agentworld_mcp_snapshot"
SNAPSHOT_VERSION = 1

_SCHEMA_HINT = "fix the schema: it must be a valid JSON Schema object (https://json-schema.org)"


def _wire(item: BaseModel) -> dict[str, Any]:
    return item.model_dump(by_alias=True, mode="json", exclude_none=True)


def _pointer(*parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _check_tool(tool: dict[str, Any], source: str, at: str) -> types.Tool:
    """The tool as the SDK models it, after checking its schemas; raise naming file, tool, pointer."""
    name = tool["name"]
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        if schema is None and key == "outputSchema":
            continue
        problem = schema_problem(schema)
        if problem is None and isinstance(schema, dict) and schema.get("type", "object") != "object":
            problem = "/type", f"MCP requires {key} to describe an object, not {schema['type']!r}"
        if problem is not None:
            inner, message = problem
            raise ConfigError(
                f"{source}: tool {name!r} has an invalid {key} at {at}/{key}{inner}: {message}",
                hint=_SCHEMA_HINT,
            )
    try:
        return types.Tool.model_validate(tool)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = _pointer(*first["loc"])
        raise ConfigError(
            f"{source}: tool {name!r} is not a valid MCP tool at {at}{where}: {first['msg']}",
            hint="a tool has name, description, inputSchema and optionally outputSchema and annotations",
        ) from None


def _models(model: type[BaseModel], items: Any, source: str, key: str) -> list[Any]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise ConfigError(
            f"{source}: {key!r} must be a list", hint="see a snapshot written by --save-snapshot"
        )
    out = []
    for i, item in enumerate(items):
        try:
            out.append(model.model_validate(item))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise ConfigError(
                f"{source}: {key} entry at {_pointer(key, i, *first['loc'])} is invalid: {first['msg']}",
                hint="see a snapshot written by --save-snapshot",
            ) from None
    return out


@dataclass
class Catalog:
    """Everything the fake server lists, and how it introduces itself."""

    tools: list[types.Tool]
    resources: list[types.Resource] = field(default_factory=list)
    resource_templates: list[types.ResourceTemplate] = field(default_factory=list)
    prompts: list[types.Prompt] = field(default_factory=list)
    server_name: str | None = None
    server_version: str | None = None
    server_title: str | None = None
    instructions: str | None = None
    source: str = ""
    #: the capabilities the mirrored server declared (its ``initialize`` answer), wire form
    capabilities: dict[str, Any] | None = None
    #: the protocol version the mirrored server spoke (a handshake-era server is served as one)
    protocol_version: str | None = None

    # -- building ----------------------------------------------------------------------------------

    @classmethod
    def from_tools(cls, data: Any, source: str = "tool definitions", **identity: Any) -> Catalog:
        """From a ``tools/list`` result or a list of tool definitions (dicts in wire form)."""
        prefix = "/tools" if isinstance(data, dict) else ""
        tools = [
            _check_tool(tool, source, f"{prefix}/{i}")
            for i, tool in enumerate(normalize_tools(data, source=source))
        ]
        catalog = cls(tools=tools, source=source, **identity)
        catalog._check_unique()
        return catalog

    @classmethod
    def from_snapshot(cls, data: dict[str, Any], source: str = "snapshot") -> Catalog:
        """From a snapshot written by :meth:`to_snapshot` (or ``--save-snapshot``)."""
        version = data.get(SNAPSHOT_KEY)
        if version != SNAPSHOT_VERSION:
            raise ConfigError(
                f"{source}: snapshot format {version!r} is not supported (expected {SNAPSHOT_VERSION})",
                hint="mirror the server again with --save-snapshot",
            )
        server = data.get("server") or {}
        if not isinstance(server, dict):
            raise ConfigError(f"{source}: 'server' must be an object", hint="mirror the server again")
        catalog = cls.from_tools(
            {"tools": data.get("tools") or []},
            source,
            server_name=server.get("name"),
            server_version=server.get("version"),
            server_title=server.get("title"),
            instructions=server.get("instructions"),
        )
        catalog.resources = _models(types.Resource, data.get("resources"), source, "resources")
        catalog.resource_templates = _models(
            types.ResourceTemplate, data.get("resourceTemplates"), source, "resourceTemplates"
        )
        catalog.prompts = _models(types.Prompt, data.get("prompts"), source, "prompts")
        capabilities = data.get("capabilities")
        if capabilities is not None and not isinstance(capabilities, dict):
            raise ConfigError(f"{source}: 'capabilities' must be an object", hint="mirror the server again")
        catalog.capabilities = capabilities
        if isinstance(data.get("protocolVersion"), str):
            catalog.protocol_version = data["protocolVersion"]
        if data.get("source"):
            catalog.source = str(data["source"])
        return catalog

    @classmethod
    def merge(cls, catalogs: Sequence[Catalog]) -> Catalog:
        """One catalog from several; the first one with an identity names the server."""
        if len(catalogs) == 1:
            return catalogs[0]
        merged = cls(tools=[], source=" + ".join(c.source for c in catalogs if c.source))
        for catalog in catalogs:
            merged.tools.extend(catalog.tools)
            merged.resources.extend(catalog.resources)
            merged.resource_templates.extend(catalog.resource_templates)
            merged.prompts.extend(catalog.prompts)
            for attr in (
                "server_name",
                "server_version",
                "server_title",
                "instructions",
                "capabilities",
                "protocol_version",
            ):
                if getattr(merged, attr) is None:
                    setattr(merged, attr, getattr(catalog, attr))
        merged._check_unique()
        return merged

    def _check_unique(self) -> None:
        seen: set[str] = set()
        for tool in self.tools:
            if tool.name in seen:
                raise ConfigError(
                    f"Tool {tool.name!r} is defined twice ({self.source or 'tool definitions'})",
                    hint="tool names must be unique across --tools, --pack, --snapshot and --mirror",
                )
            seen.add(tool.name)

    # -- views -------------------------------------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The tools as the world model's prompt shows them (wire form, without icons or _meta)."""
        keep = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
        return [{k: v for k, v in _wire(tool).items() if k in keep} for tool in self.tools]

    def to_snapshot(self, source: str | None = None) -> dict[str, Any]:
        """A JSON-ready snapshot (see the module docs)."""
        server = {
            "name": self.server_name,
            "version": self.server_version,
            "title": self.server_title,
            "instructions": self.instructions,
        }
        return {
            SNAPSHOT_KEY: SNAPSHOT_VERSION,
            "source": source or self.source,
            "captured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "server": {k: v for k, v in server.items() if v is not None},
            "tools": [_wire(t) for t in self.tools],
            "resources": [_wire(r) for r in self.resources],
            "resourceTemplates": [_wire(r) for r in self.resource_templates],
            "prompts": [_wire(p) for p in self.prompts],
            **({"capabilities": self.capabilities} if self.capabilities is not None else {}),
            **({"protocolVersion": self.protocol_version} if self.protocol_version else {}),
        }

    def save_snapshot(self, path: str | Path, source: str | None = None) -> Path:
        path = Path(path)
        text = json.dumps(self.to_snapshot(source), ensure_ascii=False, indent=2) + "\n"
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"Cannot write snapshot {path}: {exc.strerror}", hint="check the path"
            ) from None
        return path


# -- files and packs -------------------------------------------------------------------------------


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(f"Cannot read tools file {path}: {reason}", hint="check the path") from None
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text)
        return json.loads(text)
    except Exception as exc:
        raise ConfigError(
            f"Tools file {path} does not parse: {exc}", hint="fix the JSON/YAML syntax"
        ) from None


def load_catalog(path: str | Path) -> Catalog:
    """A tools file or a snapshot (recognised by its ``agentworld_mcp_snapshot`` key)."""
    path = Path(path)
    data = _read(path)
    if isinstance(data, dict) and SNAPSHOT_KEY in data:
        return Catalog.from_snapshot(data, str(path))
    return Catalog.from_tools(data, str(path))


def pack_catalog(name: str, registry: Any) -> Catalog:
    """A tool pack registered through ``register_tool_packs`` (``registry`` is the plugin registry)."""
    return Catalog.from_tools(registry.tool_pack(name), f"tool pack {name!r}", server_name=name)


def catalogs_from(paths: Iterable[str | Path]) -> list[Catalog]:
    return [load_catalog(p) for p in paths]
