"""Tool arguments checked the way a TypeScript MCP server (``@modelcontextprotocol/sdk`` with zod
4) checks them, and its error text::

    MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input:
    expected string, received undefined at message

The tool's JSON ``inputSchema`` (which the SDK wrote from the zod schema) stands in for the zod
schema: types, enums and constants, bounds, lengths, required keys, items and nested objects,
checked in the schema's key order, one issue a line, as the SDK joins them. Zod converts nothing
("3" is not a number) and strips keys it does not know (an extra argument is no error).

A schema written by the TypeScript SDK names its draft (``$schema``); :func:`is_zod_schema` tells.

>>> schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
...           "properties": {"message": {"type": "string"}}, "required": ["message"]}
>>> print(zod_errors("echo", {"message": 3}, schema))
MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received number at message
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

__all__ = ["is_zod_schema", "js_number", "zod_errors"]

_PREFIX = "MCP error -32602: Input validation error: Invalid arguments for tool {}: "
#: the SDK's JSON Schema drafts (zod-to-json-schema wrote draft-07, zod 4 writes 2020-12)
_DRAFTS = ("http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema")
_LIMIT = 100  # issues reported at most (zod reports them all; a huge argument is one issue)


def js_number(value: Any) -> str:
    """``String(value)`` for a JavaScript number (ECMAScript Number::toString)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        value = float(value) if abs(value) >= 2**53 else value
        if isinstance(value, int):
            return str(value)
    number = float(value)
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    digits_tuple = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(map(str, digits_tuple.digits))
    k = len(digits)
    n = int(digits_tuple.exponent) + k  # the decimal point sits after n digits
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exponent = n - 1
    mark = "+" if exponent >= 0 else "-"
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{mark}{abs(exponent)}"


def is_zod_schema(schema: Any) -> bool:
    """Whether ``schema`` is an input schema the TypeScript MCP SDK wrote from zod."""
    return isinstance(schema, dict) and schema.get("$schema") in _DRAFTS


def _kind(value: Any) -> str:
    """zod's ``parsedType`` of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number" if not (isinstance(value, float) and math.isnan(value)) else "NaN"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _primitive(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return js_number(value) if isinstance(value, (int, float)) else json.dumps(value)


def _path(path: list[Any]) -> str:
    out = ""
    for index, part in enumerate(path):
        if index == 0:
            out = str(part)
        elif isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}"
    return out


def _fits(kind: str, value: Any) -> bool:
    actual = _kind(value)
    if kind == "integer":
        return actual == "number"
    return actual == kind


def _check(schema: Any, value: Any, path: list[Any], issues: list[tuple[str, list[Any]]]) -> None:
    if len(issues) >= _LIMIT or not isinstance(schema, dict):
        return
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf") or []
        nullable = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
        if value is None and len(nullable) < len(options):
            return
        if len(nullable) == 1:
            _check(nullable[0], value, path, issues)
            return
        if not any(_valid(option, value) for option in options):
            issues.append(("Invalid input", path))
        return
    if "const" in schema:
        if value != schema["const"] or _kind(value) != _kind(schema["const"]):
            issues.append((f"Invalid input: expected {_primitive(schema['const'])}", path))
        return
    if "enum" in schema:
        values = schema["enum"]
        if not any(value == v and _kind(value) == _kind(v) for v in values):
            if len(values) == 1:
                issues.append((f"Invalid input: expected {_primitive(values[0])}", path))
            else:
                issues.append((f"Invalid option: expected one of {'|'.join(map(_primitive, values))}", path))
        return
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
    if kinds and not any(_fits(k, value) for k in kinds):
        if len([k for k in kinds if k != "null"]) > 1:
            issues.append(("Invalid input", path))
        else:
            expected = next(k for k in kinds if k != "null")
            issues.append((f"Invalid input: expected {'number' if expected == 'integer' else expected}, "
                           f"received {_kind(value)}", path))  # fmt: skip
        return
    actual = _kind(value)
    if actual == "number":
        _number(schema, value, path, issues)
    elif actual == "string":
        _sized(schema, len(value), "string", "characters", ("minLength", "maxLength"), path, issues)
    elif actual == "array":
        _sized(schema, len(value), "array", "items", ("minItems", "maxItems"), path, issues)
        for index, item in enumerate(value):
            _check(schema.get("items"), item, [*path, index], issues)
    elif actual == "object":
        properties = schema.get("properties")
        required = set(schema.get("required") or ())
        if isinstance(properties, dict):
            for key, sub in properties.items():
                if key in value:
                    _check(sub, value[key], [*path, key], issues)
                elif key in required and not (isinstance(sub, dict) and "default" in sub):
                    _missing(sub, [*path, key], issues)


def _missing(schema: Any, path: list[Any], issues: list[tuple[str, list[Any]]]) -> None:
    if isinstance(schema, dict) and ("enum" in schema or "const" in schema):
        _check(schema, None, path, issues)
        return
    declared = schema.get("type") if isinstance(schema, dict) else None
    kind = declared if isinstance(declared, str) else None
    if kind is None:
        issues.append(("Invalid input", path))
        return
    issues.append(
        (f"Invalid input: expected {'number' if kind == 'integer' else kind}, received undefined", path)
    )


def _number(
    schema: dict[str, Any], value: float, path: list[Any], issues: list[tuple[str, list[Any]]]
) -> None:
    kinds = schema.get("type")
    integer = kinds == "integer" or (isinstance(kinds, list) and "integer" in kinds and "number" not in kinds)
    if integer and not float(value).is_integer():
        issues.append(("Invalid input: expected int, received number", path))
        return
    bounds = (
        ("minimum", lambda b: value >= b, "Too small", ">="),
        ("exclusiveMinimum", lambda b: value > b, "Too small", ">"),
        ("maximum", lambda b: value <= b, "Too big", "<="),
        ("exclusiveMaximum", lambda b: value < b, "Too big", "<"),
    )
    for key, holds, words, sign in bounds:
        bound = schema.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and not holds(bound):
            if integer and abs(bound) == 9007199254740991:  # zod's safe-integer range
                issues.append((f"{words}: expected int to be {sign}{js_number(bound)}", path))
            else:
                issues.append((f"{words}: expected number to be {sign}{js_number(bound)}", path))


def _sized(
    schema: dict[str, Any],
    size: int,
    origin: str,
    unit: str,
    keys: tuple[str, str],
    path: list[Any],
    issues: list[tuple[str, list[Any]]],
) -> None:
    low, high = schema.get(keys[0]), schema.get(keys[1])
    if isinstance(low, int) and size < low:
        issues.append((f"Too small: expected {origin} to have >={low} {unit}", path))
    if isinstance(high, int) and size > high:
        issues.append((f"Too big: expected {origin} to have <={high} {unit}", path))


def _valid(schema: Any, value: Any) -> bool:
    found: list[tuple[str, list[Any]]] = []
    _check(schema, value, [], found)
    return not found


def zod_errors(tool_name: str, arguments: Any, schema: dict[str, Any]) -> str | None:
    """The TypeScript SDK's error text for ``arguments`` that break ``schema``; None when they fit."""
    issues: list[tuple[str, list[Any]]] = []
    _check({**schema, "type": "object"}, arguments if arguments is not None else {}, [], issues)
    if not issues:
        return None
    lines = [message if not path else f"{message} at {_path(path)}" for message, path in issues]
    return _PREFIX.format(tool_name) + "\n".join(lines)
