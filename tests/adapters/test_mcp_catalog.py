"""Tool definitions for the fake MCP server: files, packs, schema checks, argument and output checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from agentworld_plugins.adapters.mcp_catalog import Catalog, load_catalog, pack_catalog
from agentworld_plugins.adapters.mcp_server import FakeMcpServer
from agentworld_plugins.adapters.mcp_validation import ToolSchemas, argument_errors, parse_structured
from click.testing import CliRunner
from mcp import Client

from agentworld_plugins import World
from agentworld_plugins.cli import cli
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.plugins import new_plugin_manager
from agentworld_plugins.toolpacks import bundled_packs

GOOD = {"name": "count", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}
BROKEN = {
    "name": "create_event",
    "description": "Create an event.",
    "inputSchema": {"type": "object", "properties": {"when": {"type": "datetime"}}},
}


# -- loading and refusing to start ------------------------------------------------------------------


def test_tools_file_forms(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([GOOD]))
    result = tmp_path / "result.yaml"
    result.write_text(
        yaml.safe_dump({"tools": [{**GOOD, "name": "other", "annotations": {"readOnlyHint": True}}]})
    )
    assert [t.name for t in load_catalog(listed).tools] == ["count"]
    (tool,) = load_catalog(result).tools
    assert tool.annotations is not None and tool.annotations.read_only_hint is True


@pytest.mark.parametrize(
    ("data", "suffix", "pointer"),
    [
        ({"tools": [GOOD, BROKEN]}, ".json", "/tools/1/inputSchema/properties/when/type"),
        ([BROKEN], ".yaml", "/0/inputSchema/properties/when/type"),
        (
            [{**GOOD, "outputSchema": {"type": "object", "required": "id"}}],
            ".json",
            "/0/outputSchema/required",
        ),
        ([{**GOOD, "inputSchema": {"type": "string"}}], ".json", "/0/inputSchema/type"),
    ],
)
def test_invalid_schema_names_file_tool_and_pointer(
    tmp_path: Path, data: Any, suffix: str, pointer: str
) -> None:
    path = tmp_path / f"tools{suffix}"
    path.write_text(yaml.safe_dump(data) if suffix == ".yaml" else json.dumps(data))
    with pytest.raises(ConfigError) as info:
        load_catalog(path)
    message = info.value.message
    assert message.startswith(f"{path}: tool ")
    assert f" at {pointer}: " in message
    name = data["tools"][1]["name"] if isinstance(data, dict) else data[0]["name"]
    assert f"tool {name!r}" in message


def test_server_refuses_to_start_on_a_broken_tools_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [GOOD, BROKEN]}))
    result = CliRunner().invoke(cli, ["mcp", "serve", "--tools", str(path)])
    assert result.exit_code == 1
    assert (
        f"Error: {path}: tool 'create_event' has an invalid inputSchema at /tools/1/inputSchema/properties/when/type"
        in result.stderr
    )
    assert "Hint: fix the schema" in result.stderr


def test_unreadable_and_duplicate_definitions(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot read tools file"):
        load_catalog(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigError, match="does not parse"):
        load_catalog(broken)
    with pytest.raises(ConfigError, match="'count' is defined twice"):
        Catalog.merge([Catalog.from_tools([GOOD], "a"), Catalog.from_tools([GOOD], "b")])
    nameless = tmp_path / "nameless.json"
    nameless.write_text(json.dumps([{"description": "no name"}]))
    with pytest.raises(ConfigError, match="has no 'name'"):
        load_catalog(nameless)


def test_snapshot_of_an_unknown_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"agentworld_mcp_snapshot": 99, "tools": []}))
    with pytest.raises(ConfigError, match="snapshot format 99 is not supported"):
        load_catalog(path)


# -- packs -------------------------------------------------------------------------------------------


def _minimal(schema: dict[str, Any]) -> Any:
    """The smallest arguments a schema accepts (enough for the bundled packs)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: _minimal(props[name]) for name in schema.get("required", [])}
    if kind == "array":
        return [_minimal(schema.get("items") or {"type": "string"})] * schema.get("minItems", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    formats = {"date-time": "2025-06-03T09:00:00Z", "email": "ana@example.com"}
    return formats.get(schema.get("format", ""), "x" * schema.get("minLength", 1))


def test_bundled_packs_are_registered_and_valid() -> None:
    registry = new_plugin_manager(load_entrypoints=False).registry
    names = {pack["name"] for pack in bundled_packs()}
    assert names == {"filesystem", "github-issues", "sql-database", "calendar-email"}
    for name in names:
        catalog = pack_catalog(name, registry)
        assert catalog.server_name == name and len(catalog.tools) >= 5
        assert all(t.description and t.annotations for t in catalog.tools)
        assert any(t.output_schema for t in catalog.tools)


@pytest.mark.parametrize("pack", ["filesystem", "github-issues", "sql-database", "calendar-email"])
def test_every_pack_tool_answers_offline(pack: str) -> None:
    world = World(backend="offline")
    fake = FakeMcpServer(world, pack_catalog(pack, world.pm.registry))

    async def main() -> None:
        async with Client(fake.server, mode="legacy") as client:
            for tool in (await client.list_tools()).tools:
                result = await client.call_tool(tool.name, _minimal(tool.input_schema))
                text = result.content[0].text  # type: ignore[union-attr]
                if result.is_error:  # the world may say "not found"; never that the call itself was bad
                    assert not text.startswith(("Error calling tool", "Unknown tool", "Output validation")), (
                        text
                    )
                else:
                    assert (result.structured_content is not None) == (tool.output_schema is not None)

    anyio.run(main)


def test_a_plugin_pack_overrides_a_bundled_one() -> None:
    from agentworld_plugins import hookimpl

    class Mine:
        @hookimpl
        def register_tool_packs(self, register: Any) -> None:
            register("filesystem", [GOOD])

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Mine())
    assert [t.name for t in pack_catalog("filesystem", pm.registry).tools] == ["count"]


# -- arguments and structured output ----------------------------------------------------------------

SCHEMAS = ToolSchemas(
    {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 5},
            "when": {"type": "string", "pattern": "^[0-9]{4}-"},
            "size": {"type": "number", "exclusiveMinimum": 0},
            "count": {"type": "integer", "multipleOf": 2},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 1},
            "meta": {
                "type": "object",
                "properties": {"k": {"type": "string"}},
                "additionalProperties": False,
            },
            "kind": {"const": "note"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
    },
    {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
)


def test_argument_errors_cover_the_common_keywords() -> None:
    text = argument_errors(
        "t",
        {
            "title": "too long",
            "when": "June",
            "size": 0,
            "count": 3,
            "flag": "maybe",  # "yes" is a boolean to pydantic (lax mode)
            "tags": ["a", "b"],
            "meta": {"k": "v", "x": 1},
            "kind": "task",
            "either": "x",
        },
        SCHEMAS,
    )
    assert text is not None
    assert text.splitlines()[0] == "Error calling tool 't': 9 validation errors for call[t]"
    for expected in (
        "String should have at most 5 characters [type=string_too_long",
        "String should match pattern '^[0-9]{4}-' [type=string_pattern_mismatch",
        "Input should be greater than 0 [type=greater_than",
        "Input should be a multiple of 2 [type=multiple_of",
        "Input should be a valid boolean, unable to interpret input [type=bool_parsing",
        "List should have at most 1 item after validation, not 2 [type=too_long",
        "meta.x\n  Extra inputs are not permitted [type=extra_forbidden",
        "Input should be 'note' [type=literal_error",
        "either\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing",
    ):
        assert expected in text
    assert argument_errors("t", {"title": "ok", "count": 2}, SCHEMAS) is None


@pytest.mark.parametrize(
    ("text", "value", "exact"),
    [
        ('{"id": 1}', {"id": 1}, True),
        ('```json\n{"id": 2}\n```', {"id": 2}, False),
        ('Created: {"id": 3} (done)', {"id": 3}, False),
        ('{"content": [], "structuredContent": {"id": 4}, "isError": false}', {"id": 4}, False),
    ],
)
def test_structured_output_is_found_in_what_models_write(text: str, value: Any, exact: bool) -> None:
    found = parse_structured(text, SCHEMAS)
    assert found.ok and found.value == value and found.exact is exact


def test_structured_output_problems_are_explained() -> None:
    assert parse_structured("Created note 5", SCHEMAS).problem == (
        "the response is not JSON; the tool's outputSchema requires a JSON object"
    )
    assert parse_structured('{"id": "5"}', SCHEMAS).problem == "at ['id']: '5' is not of type 'integer'"
    assert parse_structured("{}", SCHEMAS).problem == "at the top level: 'id' is a required property"
    wrapped = ToolSchemas(
        None,
        {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
    )
    assert parse_structured("42", wrapped).value == {"result": 42}
