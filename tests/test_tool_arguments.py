"""The FastMCP argument check: pydantic's own text for a function of the schema's shape is the
reference (FastMCP validates a tool's arguments against its function with a pydantic TypeAdapter,
whose errors are titled ``call[NAME]``)."""

from __future__ import annotations

import doctest
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agentworld_plugins import tool_arguments
from agentworld_plugins.tool_arguments import (
    ArgumentChecker,
    argument_checker,
    check_arguments,
    coerce_arguments,
)


class Meta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    k: str
    n: int = 0


def create_issue(
    repo: str,
    title: Annotated[str, Field(min_length=1, max_length=8)],
    priority: Annotated[int, Field(ge=0, le=5)] = 0,
    flag: bool = False,
    size: Annotated[float, Field(gt=0)] = 1.0,
    state: Literal["open", "closed"] = "open",
    meta: Optional[Meta] = None,  # noqa: UP045 - the Optional a FastMCP tool is written with
    either: Optional[int] = None,  # noqa: UP045
    tags: Annotated[list[str], Field(max_length=1)] = [],  # noqa: B006
    code: Annotated[str, Field(pattern="^[A-Z]+$")] = "A",
    step: Annotated[int, Field(multiple_of=2)] = 0,
) -> None:
    """A tool's function, as FastMCP would wrap it."""


ADAPTER = TypeAdapter(create_issue)
SCHEMA = ADAPTER.json_schema()


def _pydantic(arguments: dict[str, Any]) -> str | None:
    try:
        ADAPTER.validate_python(arguments)
    except ValidationError as exc:
        return f"Error calling tool 'create_issue': {exc}"
    return None


BASE = {"repo": "acme/api", "title": "Login"}


@pytest.mark.parametrize(
    "arguments",
    [
        {"repo": "r", "title": "", "priority": "high", "extra": 1},
        {**BASE, "priority": 2.5, "flag": "maybe", "state": "gone", "size": "abc"},
        {**BASE, "meta": {"k": "v", "x": 1}, "either": "x", "tags": ["a", "b"], "code": "abc"},
        {"repo": 7, "title": "much too long", "priority": 9, "flag": 2, "meta": {}},
        {**BASE, "meta": {"n": "q"}, "tags": "a", "size": 0, "step": 3},
        {**BASE, "meta": [1], "priority": None, "flag": 0.5},
        {**BASE, "flag": 2.0, "size": [1], "step": {}},
    ],
)
def test_errors_read_as_pydantic_writes_them(arguments: dict[str, Any]) -> None:
    expected = _pydantic(arguments)
    assert expected is not None
    assert check_arguments("create_issue", arguments, SCHEMA) == expected


@pytest.mark.parametrize(
    ("arguments", "coerced"),
    [
        ({"priority": "3"}, {"priority": 3}),
        ({"priority": " +4 "}, {"priority": 4}),
        ({"priority": "2.00"}, {"priority": 2}),
        ({"priority": 2.0}, {"priority": 2}),
        ({"priority": True}, {"priority": 1}),
        ({"size": "1.5"}, {"size": 1.5}),
        ({"flag": "yes", "either": "4"}, {"flag": True, "either": 4}),
        ({"flag": "OFF"}, {"flag": False}),
        ({"flag": 1}, {"flag": True}),
        ({"meta": {"k": "v", "n": "2"}}, {"meta": {"k": "v", "n": 2}}),
    ],
)
def test_lax_mode_accepts_what_pydantic_converts(arguments: dict[str, Any], coerced: dict[str, Any]) -> None:
    arguments = {**BASE, **arguments}
    assert _pydantic(arguments) is None
    assert check_arguments("create_issue", arguments, SCHEMA) is None
    assert coerce_arguments(arguments, SCHEMA) == {**BASE, **coerced}


def test_coercion_leaves_the_callers_arguments_alone() -> None:
    arguments = {**BASE, "meta": {"k": "v", "n": "2"}}
    assert coerce_arguments(arguments, SCHEMA)["meta"]["n"] == 2
    assert arguments["meta"]["n"] == "2"
    fine = {**BASE, "priority": 1}
    assert coerce_arguments(fine, SCHEMA) is fine


def test_missing_required_argument() -> None:
    text = check_arguments("create_issue", {"repo": "acme/api"}, SCHEMA)
    assert text is not None
    assert text.splitlines()[:3] == [
        "Error calling tool 'create_issue': 1 validation error for call[create_issue]",
        "title",
        "  Field required [type=missing, input_value={'repo': 'acme/api'}, input_type=dict]",
    ]


def test_a_union_of_types_reports_its_likeliest_member() -> None:
    schema = {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}}}
    assert check_arguments("t", {"v": "7"}, schema) is None
    text = check_arguments("t", {"v": []}, schema)
    assert text is not None and "Input should be a valid integer [type=int_type" in text


def test_declared_order_follows_refs_and_all_of() -> None:
    schema = {
        "$defs": {"Base": {"type": "object", "properties": {"a": {"type": "string"}}}},
        "allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"b": {"type": "string"}}}],
        "required": ["b", "a"],
    }
    text = check_arguments("t", {"z": 1}, schema)
    assert text is not None
    assert [line for line in text.splitlines()[1:] if not line.startswith(" ")] == ["a", "b"]


@pytest.mark.parametrize(
    "schema",
    [
        None,
        {},
        {"type": "object", "properties": {"n": {"type": "no-such-type"}}},
        {"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}},
        {"type": "object", "properties": {"n": {"$ref": "https://example.com/elsewhere.json"}}},
    ],
)
def test_schemas_that_cannot_judge_accept_anything(schema: Any) -> None:
    assert check_arguments("t", {"n": 1}, schema) is None
    assert coerce_arguments({"n": 1}, schema) == {"n": 1}


def test_checkers_are_compiled_once_and_kept_apart_from_the_callers_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    checker = argument_checker(schema)
    assert isinstance(checker, ArgumentChecker)
    assert argument_checker(dict(schema)) is checker
    schema["required"] = []  # a caller changing its dict afterwards: a new schema, a new checker
    assert check_arguments("t", {}, schema) is None
    assert checker.check("t", {}) is not None


def test_the_cache_is_bounded() -> None:
    for n in range(tool_arguments._CACHE_SIZE + 5):
        argument_checker({"type": "object", "maxProperties": n})
    assert len(tool_arguments._CHECKERS) == tool_arguments._CACHE_SIZE


def test_unknown_error_types_still_get_the_layout() -> None:
    text = tool_arguments._render("call[t]", [{"type": "no_such_error", "loc": ("n",), "input": 1}])
    assert (
        text
        == "1 validation error for call[t]\nn\n  Invalid value [type=no_such_error, input_value=1, input_type=int]"
    )


def test_other_keywords_become_value_errors() -> None:
    schema = {"type": "object", "properties": {"ids": {"type": "array", "uniqueItems": True}}}
    text = check_arguments("t", {"ids": [1, 1]}, schema)
    assert text is not None
    assert "ids\n  Value error, [1, 1] has non-unique elements [type=value_error" in text


def test_a_python_union_is_written_as_an_any_of() -> None:
    def tool(v: Union[int, bool] = 0) -> None:  # noqa: UP007
        """pydantic reports each member of a real union; the likeliest one is what we show."""

    schema = TypeAdapter(tool).json_schema()
    assert check_arguments("tool", {"v": "3"}, schema) is None


def test_doctests() -> None:
    assert doctest.testmod(tool_arguments).failed == 0


def test_errors_show_the_arguments_as_sent_and_strict_mode_converts_nothing() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 5},
            "flag": {"type": "boolean"},
            "to": {"type": "string"},
        },
        "required": ["n", "to"],
    }
    lax = check_arguments("t", {"n": "3", "flag": "yes"}, schema)
    assert lax is not None
    assert "input_value={'n': '3', 'flag': 'yes'}" in lax  # not the converted {'n': 3, 'flag': True}
    assert "greater than or equal to 5 [type=greater_than_equal, input_value='3'" in lax
    assert check_arguments("t", {"n": "7", "flag": "yes", "to": "x"}, schema) is None
    strict = check_arguments("t", {"n": "7", "flag": "yes", "to": "x"}, schema, strict=True)
    assert strict is not None and strict.startswith("Error calling tool 't': 2 validation errors")
    assert "Input should be a valid integer [type=int_type, input_value='7'" in strict
    assert "Input should be a valid boolean [type=bool_type, input_value='yes'" in strict
    assert check_arguments("t", {"n": 7, "flag": True, "to": "x"}, schema, strict=True) is None
