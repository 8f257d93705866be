"""Checking what crosses the fake MCP server: tool arguments in, structured content out.

Arguments are checked with jsonschema against the tool's ``inputSchema`` and reported the way a
FastMCP server reports a pydantic failure (the world model saw that text in training)::

    Error calling tool 'create_event': 1 validation error for call[create_event]
    start_time
      Field required [type=missing, input_value={'title': 'Standup'}, input_type=dict]
        For further information visit https://errors.pydantic.dev/2.13/v/missing

Results of tools with an ``outputSchema`` are parsed from the observation text and validated, so
the client (which rejects non-conforming ``structuredContent``) never sees a bad one.

>>> schemas = ToolSchemas({"type": "object", "properties": {"n": {"type": "integer"}},
...                        "required": ["n"]}, None)
>>> print(argument_errors("count", {}, schemas).splitlines()[0])
Error calling tool 'count': 1 validation error for call[count]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry

__all__ = ["StructuredOutput", "ToolSchemas", "argument_errors", "parse_structured", "schema_problem"]

_WRAP_RESULT = "x-fastmcp-wrap-result"
_RESULT_KEYS = frozenset({"content", "structuredContent", "isError", "_meta"})
_FENCE = re.compile(r"```[\w-]*\n(.*?)\n?```", re.DOTALL)


def _compile(schema: dict[str, Any], *, formats: bool = False) -> Validator:
    # an empty registry: $refs resolve inside the schema only, as the MCP client resolves them
    cls = validator_for(schema)
    checker = cls.FORMAT_CHECKER if formats else None
    return cls(schema, registry=Registry(), format_checker=checker)  # type: ignore[call-arg]


def schema_problem(schema: Any) -> tuple[str, str] | None:
    """``(JSON pointer inside the schema, message)`` when ``schema`` is not a valid JSON Schema."""
    if not isinstance(schema, dict):
        return "", f"must be a JSON object, not {type(schema).__name__}"
    try:
        validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        pointer = "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in exc.path)
        return pointer, exc.message
    return None


class ToolSchemas:
    """A tool's compiled input and output validators (compiling costs far more than validating)."""

    __slots__ = ("input", "input_schema", "output", "output_schema")

    def __init__(self, input_schema: dict[str, Any] | None, output_schema: dict[str, Any] | None) -> None:
        self.input_schema = input_schema or {"type": "object"}
        self.output_schema = output_schema
        # arguments: formats too, as pydantic checks EmailStr and datetime; output: only what the
        # client checks, so that no answer is rejected that the client would have accepted
        self.input = _compile(self.input_schema, formats=True)
        self.output = _compile(output_schema) if output_schema is not None else None


# -- arguments -------------------------------------------------------------------------------------


def _literal(values: list[Any]) -> str:
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _type_error(kind: str, value: Any) -> str:
    """The pydantic error type for ``value`` given where JSON-Schema type ``kind`` was wanted."""
    if kind == "integer":
        if isinstance(value, float):
            return "int_from_float"
        if isinstance(value, str):
            return "int_type" if re.fullmatch(r"\s*[-+]?\d+\s*", value) else "int_parsing"
        return "int_type"
    if kind == "number":
        return "float_parsing" if isinstance(value, str) else "float_type"
    if kind == "boolean":
        return "bool_parsing" if isinstance(value, str) else "bool_type"
    return {"array": "list_type", "object": "dict_type", "null": "none_required"}.get(kind, "string_type")


_BOUNDS = {
    "minimum": ("greater_than_equal", "ge"),
    "maximum": ("less_than_equal", "le"),
    "exclusiveMinimum": ("greater_than", "gt"),
    "exclusiveMaximum": ("less_than", "lt"),
    "multipleOf": ("multiple_of", "multiple_of"),
}


def _line_errors(error: jsonschema.ValidationError) -> list[dict[str, Any]]:
    """pydantic line errors (``type``, ``loc``, ``input``, ``ctx``) for one jsonschema error."""
    loc = tuple(error.absolute_path)
    value, rule, expected = error.instance, error.validator, error.validator_value
    if rule == "required":
        missing = [name for name in expected if isinstance(value, dict) and name not in value]
        return [{"type": "missing", "loc": (*loc, name), "input": value} for name in missing]
    if rule == "type":
        kinds = [expected] if isinstance(expected, str) else [k for k in expected if k != "null"]
        return [{"type": _type_error(kinds[0] if kinds else "string", value), "loc": loc, "input": value}]
    if rule in ("enum", "const"):
        values = list(expected) if rule == "enum" else [expected]
        return [{"type": "literal_error", "loc": loc, "input": value, "ctx": {"expected": _literal(values)}}]
    if rule in _BOUNDS:
        code, key = _BOUNDS[rule]
        return [{"type": code, "loc": loc, "input": value, "ctx": {key: expected}}]
    if rule in ("minLength", "maxLength"):
        code, key = (
            ("string_too_short", "min_length") if rule == "minLength" else ("string_too_long", "max_length")
        )
        return [{"type": code, "loc": loc, "input": value, "ctx": {key: expected}}]
    if rule == "pattern":
        return [{"type": "string_pattern_mismatch", "loc": loc, "input": value, "ctx": {"pattern": expected}}]
    if rule in ("minItems", "maxItems") and isinstance(value, list):
        short = rule == "minItems"
        ctx = {
            "field_type": "List",
            "actual_length": len(value),
            ("min_length" if short else "max_length"): expected,
        }
        return [{"type": "too_short" if short else "too_long", "loc": loc, "input": value, "ctx": ctx}]
    if rule == "additionalProperties" and isinstance(value, dict) and expected is False:
        known = set(error.schema.get("properties") or {}) if isinstance(error.schema, dict) else set()
        patterns = list(
            (error.schema.get("patternProperties") or {}) if isinstance(error.schema, dict) else {}
        )
        extras = [k for k in value if k not in known and not any(re.search(p, k) for p in patterns)]
        code = "unexpected_keyword_argument" if not loc else "extra_forbidden"
        return [{"type": code, "loc": (*loc, k), "input": value[k]} for k in extras]
    if rule in ("anyOf", "oneOf") and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            return _line_errors(best)
    return [{"type": "value_error", "loc": loc, "input": value, "ctx": {"error": error.message}}]


def _render(title: str, errors: list[dict[str, Any]]) -> str:
    from pydantic_core import ValidationError

    try:
        return str(ValidationError.from_exception_data(title, errors))  # type: ignore[arg-type]
    except Exception:  # an error type this pydantic does not know: write the lines ourselves
        lines = [f"{len(errors)} validation error{'s' if len(errors) != 1 else ''} for {title}"]
        for err in errors:
            value = err["input"]
            lines.append(".".join(str(p) for p in err["loc"]))
            lines.append(
                f"  Invalid value [type={err['type']}, input_value={value!r}, input_type={type(value).__name__}]"
            )
        return "\n".join(lines)


def argument_errors(tool_name: str, arguments: dict[str, Any], schemas: ToolSchemas) -> str | None:
    """FastMCP's error text for arguments that break the tool's ``inputSchema``; None when they fit."""
    try:
        if schemas.input.is_valid(arguments):
            return None
        found = list(schemas.input.iter_errors(arguments))
    except Exception:  # an unresolvable $ref and the like: the schema, not the call, is at fault
        return None
    errors: list[dict[str, Any]] = []
    seen: set[tuple[str, tuple[Any, ...]]] = set()
    for error in found:
        for line in _line_errors(error):
            key = (line["type"], tuple(line["loc"]))
            if key not in seen:
                seen.add(key)
                errors.append(line)
    order = list((schemas.input_schema.get("properties") or {}).keys())

    def position(err: dict[str, Any]) -> int:
        head = err["loc"][0] if err["loc"] else None
        return order.index(head) if head in order else len(order)

    errors.sort(key=position)  # pydantic reports fields in declaration order
    return f"Error calling tool '{tool_name}': " + _render(f"call[{tool_name}]", errors)


# -- structured output -----------------------------------------------------------------------------


@dataclass
class StructuredOutput:
    """The outcome of reading ``structuredContent`` from an observation.

    ``value`` is set when it parsed and validated; otherwise ``problem`` says why not.
    ``exact`` tells whether the observation text was the JSON itself (then it is also the text
    content) or the value had to be dug out of it.
    """

    value: Any = None
    problem: str | None = None
    exact: bool = True

    @property
    def ok(self) -> bool:
        return self.problem is None


def _candidates(text: str) -> list[tuple[Any, bool]]:
    """JSON values the observation may hold, best first: the whole text, a fenced block, the first
    object in it."""
    out: list[tuple[Any, bool]] = []
    stripped = text.strip()
    try:
        out.append((json.loads(stripped), True))
        return out
    except ValueError:
        pass
    for block in _FENCE.findall(stripped):
        try:
            out.append((json.loads(block), False))
        except ValueError:
            continue
    start = stripped.find("{")
    if start >= 0:
        try:
            out.append((json.JSONDecoder().raw_decode(stripped[start:])[0], False))
        except ValueError:
            pass
    return out


def _unwrap(value: Any, schema: dict[str, Any]) -> Any:
    """Undo the shapes a model may answer in: a whole MCP result, or FastMCP's unwrapped result."""
    if isinstance(value, dict) and "structuredContent" in value and set(value) <= _RESULT_KEYS:
        value = value["structuredContent"]
    if schema.get(_WRAP_RESULT) and not (isinstance(value, dict) and set(value) == {"result"}):
        value = {"result": value}
    return value


def parse_structured(text: str, schemas: ToolSchemas) -> StructuredOutput:
    """Parse the observation into a value that validates against the tool's ``outputSchema``."""
    assert schemas.output is not None and schemas.output_schema is not None
    candidates = _candidates(text)
    if not candidates:
        return StructuredOutput(
            problem="the response is not JSON; the tool's outputSchema requires a JSON object"
        )
    problem = ""
    for parsed, exact in candidates:
        value = _unwrap(parsed, schemas.output_schema)
        exact = exact and value is parsed
        try:
            if schemas.output.is_valid(value):
                return StructuredOutput(value=value, exact=exact)
            error = jsonschema.exceptions.best_match(schemas.output.iter_errors(value))
        except Exception as exc:  # an unresolvable $ref: nothing can satisfy the schema
            return StructuredOutput(problem=f"the outputSchema cannot be used ({exc})")
        if error is None:
            return StructuredOutput(value=value, exact=exact)
        where = "".join(f"[{p!r}]" for p in error.absolute_path) or "the top level"
        problem = problem or f"at {where}: {error.message}"
    return StructuredOutput(problem=problem)
