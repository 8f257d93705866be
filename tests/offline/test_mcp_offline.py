"""The offline MCP world: ledger consistency, output schemas, determinism and FastMCP-style errors."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import jsonschema
import pytest
from jsonschema.validators import validator_for

from agentworld_plugins.domains.base import OfflineResult
from agentworld_plugins.domains.mcp import McpDomain, ToolCall, looks_like_error
from agentworld_plugins.offline.mcp import classify_tool, mcp_step

ISSUE = {
    "type": "object",
    "properties": {
        "number": {"type": "integer"},
        "title": {"type": "string"},
        "body": {"type": "string"},
        "state": {"type": "string", "enum": ["open", "closed"]},
        "created_at": {"type": "string", "format": "date-time"},
    },
    "required": ["number", "title", "state"],
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_issue",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "title": {"type": "string"},
                "body": {"type": "string"},
                "priority": {"type": "integer", "minimum": 1, "maximum": 5},
            },
            "required": ["repo", "title"],
        },
        "outputSchema": ISSUE,
    },
    {
        "name": "get_issue",
        "inputSchema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "issue_number": {"type": "integer"}},
            "required": ["repo", "issue_number"],
        },
        "outputSchema": ISSUE,
    },
    {
        "name": "list_issues",
        "inputSchema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "state": {"type": "string"}},
            "required": ["repo"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"issues": {"type": "array", "items": ISSUE}, "total_count": {"type": "integer"}},
            "required": ["issues", "total_count"],
        },
    },
    {
        "name": "update_issue",
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "issue_number": {"type": "integer"},
                "title": {"type": "string"},
                "state": {"type": "string", "enum": ["open", "closed"]},
            },
            "required": ["repo", "issue_number"],
        },
        "outputSchema": ISSUE,
    },
    {
        "name": "delete_issue",
        "inputSchema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "issue_number": {"type": "integer"}},
            "required": ["repo", "issue_number"],
        },
    },
]


def call(state: dict[str, Any], name: str, arguments: dict[str, Any], tools: Any = TOOLS) -> OfflineResult:
    return mcp_step(state, name, arguments, {"tools": tools} if tools is not None else {})


def body(result: OfflineResult) -> Any:
    assert result.is_error is False, result.text
    return json.loads(result.text)


def check(schema: dict[str, Any], value: Any) -> None:
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    cls(schema, format_checker=cls.FORMAT_CHECKER).validate(value)


# -- tool names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("create_issue", ("create", "issue")),
        ("list_issues", ("list", "issue")),
        ("github_create_issue", ("create", "issue")),
        ("getPullRequests", ("list", "pull_request")),
        ("search_repositories", ("list", "repository")),
        ("fetch_invoice_by_id", ("get", "invoice")),
        ("rename_file", ("update", "file")),
        ("archive_project", ("delete", "project")),
        ("send_email", (None, None)),
    ],
)
def test_tool_names_are_classified(name: str, expected: tuple[Any, Any]) -> None:
    assert classify_tool(name)[:2] == expected


# -- the ledger -----------------------------------------------------------------------------------


def test_crud_is_consistent_within_a_session() -> None:
    state: dict[str, Any] = {}
    first = body(call(state, "create_issue", {"repo": "acme/api", "title": "Crash on start"}))
    second = body(
        call(state, "create_issue", {"repo": "acme/api", "title": "Docs typo", "body": "see README"})
    )
    assert (first["number"], second["number"]) == (1, 2)
    assert first["state"] == "open"  # a fresh item takes the schema's "open" state

    listed = body(call(state, "list_issues", {"repo": "acme/api"}))
    assert [i["title"] for i in listed["issues"]] == ["Crash on start", "Docs typo"]
    assert listed["total_count"] == 2

    got = body(call(state, "get_issue", {"repo": "acme/api", "issue_number": 2}))
    assert got["title"] == "Docs typo" and got["body"] == "see README"
    assert got["created_at"] == second["created_at"]  # filled-in fields stay put

    updated = body(call(state, "update_issue", {"repo": "acme/api", "issue_number": 2, "state": "closed"}))
    assert updated["state"] == "closed" and updated["title"] == "Docs typo"
    assert body(call(state, "get_issue", {"repo": "acme/api", "issue_number": 2}))["state"] == "closed"
    assert body(call(state, "list_issues", {"repo": "acme/api", "state": "open"}))["total_count"] == 1

    deleted = body(call(state, "delete_issue", {"repo": "acme/api", "issue_number": 2}))
    assert deleted["success"] is True

    missing = call(state, "get_issue", {"repo": "acme/api", "issue_number": 2})
    assert missing.is_error is True
    assert missing.text == "Error: issue 2 not found"
    assert looks_like_error(missing.text)

    listed = body(call(state, "list_issues", {"repo": "acme/api"}))
    assert [i["number"] for i in listed["issues"]] == [1]
    assert (
        call(state, "update_issue", {"repo": "acme/api", "issue_number": 9}).text
        == "Error: issue 9 not found"
    )
    assert call(state, "delete_issue", {"repo": "acme/api", "issue_number": 9}).is_error is True


def test_lax_arguments_are_coerced_like_pydantic() -> None:
    state: dict[str, Any] = {}
    call(state, "create_issue", {"repo": "r", "title": "t"})
    assert body(call(state, "get_issue", {"repo": "r", "issue_number": "1"}))["number"] == 1


def test_ledger_without_tool_definitions() -> None:
    state: dict[str, Any] = {}
    made = body(call(state, "add_note", {"text": "buy milk"}, tools=None))
    assert made == {"id": 1, "text": "buy milk"}
    body(call(state, "add_note", {"text": "call Ada", "tag": "home"}, tools=None))
    assert body(call(state, "list_notes", {"tag": "home"}, tools=None)) == [
        {"id": 2, "text": "call Ada", "tag": "home"}
    ]
    assert (
        body(call(state, "edit_note", {"id": 1, "text": "buy oat milk"}, tools=None))["text"]
        == "buy oat milk"
    )
    assert body(call(state, "show_note", {"id": 1}, tools=None)) == {"id": 1, "text": "buy oat milk"}
    closed = body(call(state, "archive_note", {"id": 2}, tools=None))
    assert closed["state"] == "archived"
    assert body(call(state, "remove_note", {"id": 1}, tools=None))["deleted"] is True
    assert call(state, "show_note", {"id": 1}, tools=None).text == "Error: note 1 not found"
    other = body(call(state, "restart_server", {"force": True}, tools=None))
    assert other == {"status": "ok", "tool": "restart_server", "arguments": {"force": True}}


def test_chosen_ids_are_kept_and_skipped() -> None:
    state: dict[str, Any] = {}
    assert body(call(state, "create_tag", {"id": 2, "name": "b"}, tools=None))["id"] == 2
    assert [body(call(state, "create_tag", {"name": n}, tools=None))["id"] for n in "ac"] == [1, 3]
    duplicate = call(state, "create_tag", {"id": 3, "name": "d"}, tools=None)
    assert duplicate.text == "Error: tag 3 already exists" and duplicate.is_error is True


def test_calls_outside_the_ledger_echo_their_arguments_into_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperature_c": {"type": "number", "minimum": -40, "maximum": 45},
        },
        "required": ["city", "temperature_c"],
        "additionalProperties": False,
    }
    tools = [{"name": "get_weather", "inputSchema": {"type": "object"}, "outputSchema": schema}]
    weather = body(call({}, "get_weather", {"city": "Oslo", "units": "metric"}, tools))
    assert weather["city"] == "Oslo" and set(weather) == {"city", "temperature_c"}
    check(schema, weather)


def test_weather_without_bounds_reads_like_weather() -> None:
    """No minimum/maximum in the schema: the field's name picks a plausible range and words."""
    schema = {
        "type": "object",
        "properties": {
            "temperature": {"type": "number"},
            "humidity": {"type": "integer"},
            "wind_speed": {"type": "number"},
            "conditions": {"type": "string"},
            "attempts": {"type": "integer"},
        },
        "required": ["temperature", "humidity", "wind_speed", "conditions", "attempts"],
    }
    tools = [{"name": "get_weather", "inputSchema": {"type": "object"}, "outputSchema": schema}]
    answers = [
        body(call({}, "get_weather", {"city": city}, tools)) for city in ("Oslo", "Lima", "Pune", "Kyiv")
    ]
    for weather in answers:
        check(schema, weather)
        assert -10 <= weather["temperature"] <= 35 and 20 <= weather["humidity"] <= 95
        assert 0 <= weather["wind_speed"] <= 30 and weather["attempts"] >= 0
        assert weather["conditions"] in {
            "clear",
            "partly cloudy",
            "overcast",
            "light rain",
            "fog",
            "snow showers",
        }
    assert len({w["temperature"] for w in answers}) > 1  # each city its own weather


def test_string_ids_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"user_id": {"type": "string"}, "email": {"type": "string", "format": "email"}},
        "required": ["user_id", "email"],
    }
    tools = [
        {"name": "create_user", "inputSchema": {"type": "object"}, "outputSchema": schema},
        {
            "name": "get_user",
            "inputSchema": {"type": "object", "properties": {"user_id": {"type": "string"}}},
            "outputSchema": schema,
        },
    ]
    state: dict[str, Any] = {}
    made = body(call(state, "create_user", {"email": "ada@example.com"}, tools))
    assert made["user_id"] == "user_1" and made["email"] == "ada@example.com"
    assert body(call(state, "get_user", {"user_id": "user_1"}, tools)) == made


# -- output schemas -------------------------------------------------------------------------------

ADDRESS = {
    "type": "object",
    "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
    },
    "required": ["street", "city", "zip"],
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "nested_objects": {
        "type": "object",
        "properties": {
            "user": {
                "type": "object",
                "properties": {
                    "login": {"type": "string", "minLength": 3, "maxLength": 12},
                    "profile": {
                        "type": "object",
                        "properties": {
                            "age": {"type": "integer", "minimum": 0, "maximum": 120},
                            "bio": {"type": "string"},
                        },
                        "required": ["age"],
                    },
                },
                "required": ["login", "profile"],
            }
        },
        "required": ["user"],
    },
    "array_of_objects": {
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                "minItems": 2,
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "score": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                    "required": ["name", "score"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["results"],
    },
    "enums": {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["queued", "running", "done"]},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
            "mixed": {"enum": ["a", 1, None, [1, 2]]},
            "fixed": {"const": "v1"},
        },
        "required": ["status", "priority", "mixed", "fixed"],
    },
    "required_closed": {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "message": {"type": "string"}, "note": {"type": "string"}},
        "required": ["ok", "message"],
        "additionalProperties": False,
    },
    "formats": {
        "type": "object",
        "properties": {
            "created_at": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "uuid": {"type": "string", "format": "uuid"},
            "ip": {"type": "string", "format": "ipv4"},
        },
        "required": ["created_at", "day", "email", "homepage", "uuid", "ip"],
    },
    "integer_bounds": {
        "type": "object",
        "properties": {
            "small": {"type": "integer", "minimum": -3, "maximum": 3},
            "big": {"type": "integer", "minimum": 100000},
            "even": {"type": "integer", "multipleOf": 2, "exclusiveMinimum": 10, "exclusiveMaximum": 20},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
        },
        "required": ["small", "big", "even", "ratio"],
    },
    "any_of": {
        "type": "object",
        "properties": {
            "value": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "integer", "minimum": 1000}]},
            "maybe": {
                "anyOf": [
                    {"type": "null"},
                    {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                ]
            },
            "nullable": {"type": ["string", "null"]},
        },
        "required": ["value", "maybe", "nullable"],
    },
    "refs_and_defs": {
        "type": "object",
        "$defs": {"Address": ADDRESS},
        "properties": {
            "home": {"$ref": "#/$defs/Address"},
            "others": {"type": "array", "items": {"$ref": "#/$defs/Address"}},
        },
        "required": ["home", "others"],
    },
    "recursive": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/node"}},
                },
                "required": ["name", "children"],
            }
        },
        "type": "object",
        "properties": {"tree": {"$ref": "#/definitions/node"}},
        "required": ["tree"],
    },
    "one_of_tagged": {
        "type": "object",
        "properties": {
            "pet": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "cat"}, "meows": {"type": "boolean"}},
                        "required": ["kind", "meows"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "dog"}, "barks": {"type": "integer", "minimum": 1}},
                        "required": ["kind", "barks"],
                        "additionalProperties": False,
                    },
                ]
            }
        },
        "required": ["pet"],
    },
    "all_of_and_maps": {
        "allOf": [
            {
                "type": "object",
                "properties": {"id": {"type": "string", "pattern": "^ord_[a-f0-9]{6}$"}},
                "required": ["id"],
            },
            {
                "properties": {
                    "totals": {
                        "type": "object",
                        "additionalProperties": {"type": "integer", "minimum": 0},
                        "minProperties": 2,
                    },
                    "tags": {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 1, "maximum": 5},
                        "uniqueItems": True,
                        "minItems": 4,
                    },
                },
                "required": ["totals", "tags"],
            },
        ]
    },
    "free_object": {"type": "object"},
}

CALLS = [
    ("create_widget", {"name": "alpha", "size": 3}),
    ("get_widget", {"id": 1}),
    ("list_widgets", {}),
    ("update_widget", {"id": 1, "name": "beta"}),
    ("ping_service", {"host": "db"}),
    ("delete_widget", {"id": 1}),
]


@pytest.mark.parametrize("schema_name", sorted(SCHEMAS))
def test_results_validate_against_output_schemas(schema_name: str) -> None:
    schema = SCHEMAS[schema_name]
    tools = [{"name": n, "inputSchema": {"type": "object"}, "outputSchema": schema} for n, _ in CALLS]
    state: dict[str, Any] = {}
    made: dict[str, Any] = {"id": 1}
    for name, arguments in CALLS:
        if "id" in arguments:  # address the item by the id the create call showed
            arguments = {**{k: v for k, v in arguments.items() if k != "id"}, **made}
        result = call(state, name, arguments, tools)
        assert result.is_error is False, result.text
        value = json.loads(result.text)
        if name.startswith("create"):
            made = {k: value[k] for k in ("id", "uuid") if k in value} or made
        check(schema, value)
        assert result.metadata["structured_content"] == value
        for text in _strings(value, "created_at"):
            datetime.fromisoformat(text)


def _strings(value: Any, key: str) -> list[str]:
    if isinstance(value, dict):
        found = [value[key]] if isinstance(value.get(key), str) else []
        return found + [s for v in value.values() for s in _strings(v, key)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, key)]
    return []


def test_ledger_data_lands_in_the_schema_slot() -> None:
    wrapped = {
        "type": "object",
        "properties": {"success": {"type": "boolean"}, "issue": ISSUE},
        "required": ["success", "issue"],
    }
    listed = {
        "type": "object",
        "properties": {"page": {"type": "integer"}, "items": {"type": "array", "items": ISSUE}},
        "required": ["items"],
    }
    tools = [
        {"name": "create_issue", "inputSchema": {"type": "object"}, "outputSchema": wrapped},
        {"name": "list_issues", "inputSchema": {"type": "object"}, "outputSchema": listed},
    ]
    state: dict[str, Any] = {}
    made = body(call(state, "create_issue", {"title": "Wrapped"}, tools))
    assert made["issue"]["title"] == "Wrapped" and made["issue"]["number"] == 1
    check(wrapped, made)
    items = body(call(state, "list_issues", {}, tools))["items"]
    assert [(i["number"], i["title"]) for i in items] == [(1, "Wrapped")]


def test_same_calls_give_the_same_answers() -> None:
    def run() -> list[str]:
        state: dict[str, Any] = {}
        tools = [
            {"name": n, "inputSchema": {"type": "object"}, "outputSchema": SCHEMAS["formats"]}
            for n, _ in CALLS
        ]
        texts = [call(state, n, a, tools).text for n, a in CALLS]
        texts += [
            call(state, n, a).text
            for n, a in (("create_issue", {"repo": "r", "title": "t"}), ("list_issues", {"repo": "r"}))
        ]
        return texts

    first, second = run(), run()
    assert first == second
    assert len(set(first)) > 3  # and not all the same


def test_reads_repeat_and_writes_vary() -> None:
    schema = SCHEMAS["array_of_objects"]
    tools = [
        {"name": n, "inputSchema": {"type": "object"}, "outputSchema": schema}
        for n in ("get_forecast", "ping_host")
    ]
    state: dict[str, Any] = {}
    reads = {call(state, "get_forecast", {"city": "Oslo"}, tools).text for _ in range(3)}
    writes = {call(state, "ping_host", {"host": "db"}, tools).text for _ in range(3)}
    assert len(reads) == 1
    assert len(writes) > 1


# -- errors ---------------------------------------------------------------------------------------


def test_missing_required_argument_reads_like_fastmcp() -> None:
    result = call({}, "create_issue", {"repo": "acme/api"})
    assert result.is_error is True
    assert result.text.splitlines()[:3] == [
        "Error calling tool 'create_issue': 1 validation error for call[create_issue]",
        "title",
        "  Field required [type=missing, input_value={'repo': 'acme/api'}, input_type=dict]",
    ]
    assert result.text.splitlines()[3].startswith(
        "    For further information visit https://errors.pydantic.dev/"
    )
    assert looks_like_error(result.text)


def test_several_argument_errors_in_field_order() -> None:
    result = call({}, "create_issue", {"title": 7, "priority": "high"})
    lines = result.text.splitlines()
    assert lines[0] == "Error calling tool 'create_issue': 3 validation errors for call[create_issue]"
    assert [lines[1], lines[4], lines[7]] == ["repo", "title", "priority"]
    assert lines[5] == "  Input should be a valid string [type=string_type, input_value=7, input_type=int]"
    assert lines[8].startswith(
        "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing"
    )


def test_bounds_and_enums_are_reported() -> None:
    result = call({}, "create_issue", {"repo": "r", "title": "t", "priority": 9})
    assert (
        "  Input should be less than or equal to 5 [type=less_than_equal, input_value=9, input_type=int]"
        in result.text
    )
    result = call({}, "update_issue", {"repo": "r", "issue_number": 1, "state": "gone"})
    assert (
        "  Input should be 'open' or 'closed' [type=literal_error, input_value='gone', input_type=str]"
        in result.text
    )


def test_unknown_tool() -> None:
    result = call({}, "drop_database", {})
    assert result.text == "Unknown tool: drop_database"
    assert result.is_error is True


def test_odd_schemas_never_raise() -> None:
    tools = [
        {
            "name": "weird",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "wat"}}},
            "outputSchema": {"type": "nope"},
        },
        {"name": "get_thing", "inputSchema": {"type": "object"}, "outputSchema": {"$ref": "#/$defs/missing"}},
        {
            "name": "list_things",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"a": False}},
        },
    ]
    for name in ("weird", "get_thing", "list_things"):
        result = call({}, name, {"x": 1}, tools)
        assert isinstance(result.text, str) and result.text


def test_domain_offline_step() -> None:
    domain = McpDomain()
    state: dict[str, Any] = {}
    context = {"tools": TOOLS}
    made = domain.offline_step(
        state, ToolCall(tool_name="create_issue", arguments={"repo": "r", "title": "x"}), context
    )
    assert json.loads(made.text)["number"] == 1
    again = domain.offline_step(
        state, ToolCall(tool_name="get_issue", arguments={"repo": "r", "issue_number": 1}), context
    )
    assert json.loads(again.text)["title"] == "x"
