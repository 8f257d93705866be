"""Checking what crosses the fake MCP server: tool arguments in, structured content out.

Arguments are checked against the tool's ``inputSchema`` by :mod:`agentworld_plugins.tool_arguments`,
which answers the way a FastMCP server reports a pydantic failure (the world model saw that text in
training)::

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

from agentworld_plugins.tool_arguments import argument_checker

__all__ = [
    "StructuredOutput",
    "ToolSchemas",
    "argument_errors",
    "content_of",
    "parse_structured",
    "schema_problem",
]

_WRAP_RESULT = "x-fastmcp-wrap-result"
_RESULT_KEYS = frozenset({"content", "structuredContent", "isError", "_meta"})
_FENCE = re.compile(r"```[\w-]*\n(.*?)\n?```", re.DOTALL)


def _compile(schema: dict[str, Any]) -> Validator:
    # an empty registry: $refs resolve inside the schema only, as the MCP client resolves them;
    # no format checks: only what the client checks, so that no answer is rejected that the
    # client would have accepted
    cls = validator_for(schema)
    return cls(schema, registry=Registry())  # type: ignore[call-arg]


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
    """A tool's compiled argument checker and output validator (compiling costs far more than
    validating, and the server checks every call)."""

    __slots__ = ("input", "input_schema", "output", "output_schema")

    def __init__(self, input_schema: dict[str, Any] | None, output_schema: dict[str, Any] | None) -> None:
        self.input_schema = input_schema or {"type": "object"}
        self.output_schema = output_schema
        self.input = argument_checker(self.input_schema)
        self.output = _compile(output_schema) if output_schema is not None else None


def argument_errors(tool_name: str, arguments: dict[str, Any], schemas: ToolSchemas) -> str | None:
    """FastMCP's error text for arguments that break the tool's ``inputSchema``; None when they fit
    (kept for the same arguments: the world's step checks them again)."""
    return schemas.input.prepare(tool_name, arguments)[1]


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


# -- content blocks --------------------------------------------------------------------------------

#: the observation metadata key of a known server's content blocks (``servers.CONTENT_KEY``)
_CONTENT_KEY = "mcp_content"


def content_of(text: str, metadata: dict[str, Any] | None) -> list[Any]:
    """The result's MCP content: the blocks a known server's engine answered (images, embedded
    resources, links, annotations) while the observation is still its text, else one text."""
    import mcp_types as types
    from pydantic import ValidationError

    entry = (metadata or {}).get(_CONTENT_KEY)
    if isinstance(entry, dict) and entry.get("text") == text and isinstance(entry.get("blocks"), list):
        try:
            return list(_BLOCKS.validate_python(entry["blocks"]))
        except ValidationError:
            pass
    return [types.TextContent(type="text", text=text)]


def _blocks_adapter() -> Any:
    import mcp_types as types
    from pydantic import TypeAdapter

    return TypeAdapter(list[types.ContentBlock])


_BLOCKS = _blocks_adapter()
