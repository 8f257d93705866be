"""Tool-call arguments checked the way a FastMCP server checks them (pydantic v2, lax mode).

A FastMCP tool validates its arguments with pydantic before it runs, and what fails comes back as
the call's error text, which agents (and the world model, which saw it in training) know well::

    Error calling tool 'create_event': 1 validation error for call[create_event]
    start_time
      Field required [type=missing, input_value={'title': 'Standup'}, input_type=dict]
        For further information visit https://errors.pydantic.dev/2.13/v/missing

The tool's JSON ``inputSchema`` stands in for the Python signature behind it: the arguments get
pydantic's lax conversions ("3" or 3.0 for an integer, "yes" or 1 for a boolean), are checked with
jsonschema, and each jsonschema error becomes the pydantic error that a signature of that shape
raises. Compiling a schema costs far more than checking with it, so checkers are kept: hold one
from :func:`argument_checker`, or let :func:`check_arguments` find it in a small cache.

>>> schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
>>> check_arguments("count", {"n": "3"}, schema) is None
True
>>> print(check_arguments("count", {}, schema).splitlines()[0])
Error calling tool 'count': 1 validation error for call[count]
>>> coerce_arguments({"n": "3"}, schema)
{'n': 3}
"""

from __future__ import annotations

import copy
import json
import math
import re
import threading
from collections import OrderedDict
from typing import Any

import jsonschema
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for
from pydantic_core import ValidationError
from referencing import Registry

from .zod_errors import is_zod_schema, zod_errors

__all__ = ["ArgumentChecker", "argument_checker", "check_arguments", "coerce_arguments"]

_CACHE_SIZE = 256
#: how many of a checker's :meth:`ArgumentChecker.prepare` answers are kept, and the longest
#: arguments (characters of JSON) kept
_PREPARED_SIZE = 128
_PREPARED_CHARS = 16_384
_NOTHING = object()
#: strings pydantic reads as an integer: sign, digits, ``_`` between digits, a zero fraction
_INT_TEXT = re.compile(r"\s*([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0+)?\s*")
#: strings pydantic reads as a boolean (case aside; no surrounding spaces)
_BOOL_TEXT = {
    **dict.fromkeys(("true", "t", "yes", "y", "on", "1"), True),
    **dict.fromkeys(("false", "f", "no", "n", "off", "0"), False),
}
_BOUNDS = {
    "minimum": ("greater_than_equal", "ge"),
    "maximum": ("less_than_equal", "le"),
    "exclusiveMinimum": ("greater_than", "gt"),
    "exclusiveMaximum": ("less_than", "lt"),
    "multipleOf": ("multiple_of", "multiple_of"),
    "minLength": ("string_too_short", "min_length"),
    "maxLength": ("string_too_long", "max_length"),
    "pattern": ("string_pattern_mismatch", "pattern"),
}
_STRICT: dict[type, type] = {}


# -- compiling --------------------------------------------------------------------------------------


def _strict_integers(cls: type) -> type:
    """``cls`` where an integer is an int only: 2.0 fails the type and so gets the lax step (2)."""
    if cls not in _STRICT:
        checker = cls.TYPE_CHECKER.redefine(  # type: ignore[attr-defined]
            "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
        )
        _STRICT[cls] = extend(cls, type_checker=checker)  # type: ignore[arg-type]
    return _STRICT[cls]


def _compile(schema: dict[str, Any], *, int_only: bool = True) -> Validator | None:
    """A validator for the arguments; None for a schema that is not valid JSON Schema.

    ``int_only`` makes 2.0 fail ``integer`` (so that the lax step turns it into 2); without it
    the integer check is jsonschema's own, where 2.0 is an integer.
    """
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except Exception:
        return None
    # an empty registry: $refs resolve inside the schema only, and nothing is fetched
    validator: Validator = (_strict_integers(cls) if int_only else cls)(
        schema, registry=Registry(), format_checker=cls.FORMAT_CHECKER
    )
    return validator


def _pointer(root: Any, ref: str) -> Any:
    node = root
    for part in ref[1:].split("/")[1:]:
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node


def _expand(root: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    """``node`` and the schemas it stands for: its local ``$ref`` and its allOf/anyOf/oneOf members."""
    found: list[dict[str, Any]] = []
    pending = [node]
    while pending and len(found) < 64:
        node = pending.pop(0)
        if not isinstance(node, dict) or any(node is seen for seen in found):
            continue
        found.append(node)
        ref = node.get("$ref")
        inner = [_pointer(root, ref)] if isinstance(ref, str) and ref.startswith("#") else []
        for key in ("allOf", "anyOf", "oneOf"):
            inner.extend(node[key] if isinstance(node.get(key), list) else ())
        pending[:0] = inner  # depth first: the declaration order
    return found


def _place(root: dict[str, Any], loc: tuple[Any, ...]) -> tuple[int, ...]:
    """Where pydantic reports an error at ``loc``: fields in declaration order, level by level
    (undeclared names after the declared ones), list items by index."""
    places: list[int] = []
    node: Any = root
    for part in loc:
        nodes = _expand(root, node)
        if isinstance(part, int):
            places.append(part)
            node = next((n["items"] for n in nodes if isinstance(n.get("items"), dict)), None)
            continue
        fields: dict[str, Any] = {}
        for n in nodes:
            declared = n.get("properties")
            for name, sub in declared.items() if isinstance(declared, dict) else ():
                fields.setdefault(name, sub)
        names = list(fields)
        places.append(names.index(part) if part in fields else len(names))
        node = fields.get(part)
    return tuple(places)


# -- pydantic's lax mode ----------------------------------------------------------------------------


def _kinds(expected: Any) -> list[str]:
    """The wanted JSON types of a ``type`` keyword, ``null`` aside."""
    if isinstance(expected, str):
        return [expected]
    return [kind for kind in expected if kind != "null"] if isinstance(expected, list) else []


def _lax_value(kind: str, value: Any) -> Any:
    """``value`` as pydantic's lax mode turns it into a ``kind``; ``_NOTHING`` when it does not."""
    if kind == "integer":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        match = _INT_TEXT.fullmatch(value) if isinstance(value, str) else None
        return int(match.group(1)) if match else _NOTHING
    if kind == "number":
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                return _NOTHING
            return number if math.isfinite(number) else _NOTHING
    if kind == "boolean":
        if isinstance(value, str):
            return _BOOL_TEXT.get(value.lower(), _NOTHING)
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
    return _NOTHING


def _unwrapped(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """``error``; or, for a union of one type with null, that type's own errors: pydantic checks
    ``X | None`` as a nullable X and reports what is wrong with the X alone."""
    branches = error.validator_value
    if error.validator not in ("anyOf", "oneOf") or not isinstance(branches, list) or error.instance is None:
        return [error]
    kept = [
        i
        for i, branch in enumerate(branches)
        if not (isinstance(branch, dict) and branch.get("type") == "null")
    ]
    if len(kept) != 1:
        return [error]
    inner = [
        e for e in error.context or () if e.relative_schema_path and e.relative_schema_path[0] == kept[0]
    ]
    return [found for e in inner for found in _unwrapped(e)] or [error]


def _lax_fix(error: jsonschema.ValidationError) -> Any:
    """What lax mode makes of the value a ``type`` error (or a union of types) is about."""
    if error.validator == "type":
        kinds = _kinds(error.validator_value)
    elif error.validator in ("anyOf", "oneOf"):
        # int | str and the like: the branches that failed on the type alone
        kinds = [
            kind
            for branch in error.context or ()
            if branch.validator == "type" and not branch.relative_path
            for kind in _kinds(branch.validator_value)
        ]
    else:
        return _NOTHING
    for kind in kinds:
        value = _lax_value(kind, error.instance)
        if value is not _NOTHING:
            return value
    return _NOTHING


def _put(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return root


# -- pydantic's errors ------------------------------------------------------------------------------


def _literal(values: list[Any]) -> str:
    shown = [repr(v) for v in values]
    return " or ".join([", ".join(shown[:-1]), shown[-1]]) if len(shown) > 1 else "".join(shown)


def _type_error(kind: str, value: Any) -> str:
    """The pydantic error type for ``value`` (lax conversions failed) where ``kind`` was wanted."""
    if kind == "integer":
        if isinstance(value, float):
            return "int_from_float"
        return "int_parsing" if isinstance(value, str) else "int_type"
    if kind == "number":
        return "float_parsing" if isinstance(value, str) else "float_type"
    if kind == "boolean":
        whole = isinstance(value, (str, int)) or (isinstance(value, float) and value.is_integer())
        return "bool_parsing" if whole else "bool_type"
    return {"array": "list_type", "object": "dict_type", "null": "none_required"}.get(kind, "string_type")


def _matches(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return True


#: pydantic's strict-mode error for a value of the wrong JSON type (no conversion is tried)
_STRICT_TYPE = {"integer": "int_type", "number": "float_type", "boolean": "bool_type"}


def _line_errors(error: jsonschema.ValidationError, strict: bool = False) -> list[dict[str, Any]]:
    """pydantic line errors (``type``, ``loc``, ``input``, ``ctx``) for one jsonschema error."""
    loc = tuple(error.absolute_path)
    value, rule, expected = error.instance, error.validator, error.validator_value
    if rule == "required":
        missing = [name for name in expected if isinstance(value, dict) and name not in value]
        return [{"type": "missing", "loc": (*loc, name), "input": value} for name in missing]
    if rule == "type":
        kinds = _kinds(expected)
        kind = kinds[0] if kinds else "string"
        code = _STRICT_TYPE.get(kind) if strict else None
        code = code or _type_error(kind, value)
        title = error.schema.get("title") if isinstance(error.schema, dict) else None
        if code == "dict_type" and isinstance(title, str) and "properties" in error.schema:
            # a nested pydantic model (its schema is titled with the class name)
            return [{"type": "model_type", "loc": loc, "input": value, "ctx": {"class_name": title}}]
        return [{"type": code, "loc": loc, "input": value}]
    if rule in ("enum", "const"):
        values = list(expected) if rule == "enum" else [expected]
        return [{"type": "literal_error", "loc": loc, "input": value, "ctx": {"expected": _literal(values)}}]
    if rule in _BOUNDS:
        code, key = _BOUNDS[rule]
        return [{"type": code, "loc": loc, "input": value, "ctx": {key: expected}}]
    if rule in ("minItems", "maxItems") and isinstance(value, list):
        short = rule == "minItems"
        ctx = {
            "field_type": "List",
            "actual_length": len(value),
            ("min_length" if short else "max_length"): expected,
        }
        return [{"type": "too_short" if short else "too_long", "loc": loc, "input": value, "ctx": ctx}]
    if rule == "additionalProperties" and isinstance(value, dict) and isinstance(error.schema, dict):
        known = error.schema.get("properties") or {}
        patterns = error.schema.get("patternProperties") or {}
        extras = [k for k in value if k not in known and not any(_matches(p, k) for p in patterns)]
        # an argument the signature lacks, or a field a nested model forbids
        code = "extra_forbidden" if loc else "unexpected_keyword_argument"
        return [{"type": code, "loc": (*loc, k), "input": value[k]} for k in extras]
    if rule in ("anyOf", "oneOf") and error.context:  # a real union: its likeliest member
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            return _line_errors(best, strict)
    return [{"type": "value_error", "loc": loc, "input": value, "ctx": {"error": error.message}}]


def _render(title: str, errors: list[dict[str, Any]]) -> str:
    try:
        return str(ValidationError.from_exception_data(title, errors))  # type: ignore[arg-type]
    except Exception:  # an error this pydantic cannot build: the same layout, written here
        lines = [f"{len(errors)} validation error{'s' if len(errors) != 1 else ''} for {title}"]
        for err in errors:
            value = err["input"]
            lines.append(".".join(str(part) for part in err["loc"]))
            lines.append(
                f"  Invalid value [type={err['type']}, input_value={value!r}, input_type={type(value).__name__}]"
            )
        return "\n".join(lines)


# -- the checker ------------------------------------------------------------------------------------


def _show_sent(error: jsonschema.ValidationError, sent: Any) -> None:
    """Point ``error`` (found in the converted arguments) at the value as it was sent."""
    node = sent
    for key in error.absolute_path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return
    error.instance = node
    for inner in error.context or ():
        _show_sent(inner, sent)


class ArgumentChecker:
    """One tool's ``inputSchema``, compiled: lax conversions and FastMCP's error text for it.

    A schema that is empty or not valid JSON Schema accepts any arguments.
    """

    __slots__ = ("_plain", "_prepared", "_validator", "schema")

    def __init__(self, input_schema: Any) -> None:
        self.schema: dict[str, Any] = copy.deepcopy(input_schema) if isinstance(input_schema, dict) else {}
        self._validator = _compile(self.schema) if self.schema else None
        self._plain: Validator | None = None  # jsonschema's own integer rule, compiled on first use
        #: :meth:`prepare`'s answers by the tool name and the arguments' JSON: (coerced JSON, error)
        self._prepared: dict[tuple[str, str], tuple[str, str | None]] = {}

    def _lax(self, arguments: Any) -> tuple[Any, list[jsonschema.ValidationError]]:
        """``arguments`` after lax mode's conversions, and the errors left in them."""
        validator = self._validator
        if validator is None or validator.is_valid(arguments):
            return arguments, []
        found = list(validator.iter_errors(arguments))
        fixes = [
            (tuple(e.absolute_path), fixed)
            for error in found
            for e in _unwrapped(error)
            if (fixed := _lax_fix(e)) is not _NOTHING
        ]
        if fixes:
            arguments = copy.deepcopy(arguments)
            for path, fixed in fixes:
                arguments = _put(arguments, path, fixed)
            found = list(validator.iter_errors(arguments))
        return arguments, found

    def coerce(self, arguments: Any) -> Any:
        """``arguments`` as the tool's function would get them ("3" -> 3 for an integer); a copy
        when anything changed."""
        try:
            return self._lax(arguments)[0]
        except Exception:  # an unresolvable $ref and the like: leave the arguments be
            return arguments

    def prepare(self, tool_name: str, arguments: Any) -> tuple[Any, str | None]:
        """A private copy of ``arguments`` as the tool's function would get them (:meth:`coerce`)
        and the error text :meth:`check` gives for them as sent.

        Both depend on the arguments' JSON alone, so the answers for short arguments are kept:
        the same call checked again (by the server, then by its world) costs a lookup and a copy.
        """
        try:
            key = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):  # not JSON (a Python caller's object): checked as it is
            return self.coerce(copy.deepcopy(arguments)), self.check(tool_name, arguments)
        if len(key) > _PREPARED_CHARS:
            return self._prepare(tool_name, arguments, json.loads(key))
        found = self._prepared.get((tool_name, key))
        if found is not None:
            return json.loads(found[0]), found[1]
        copied = json.loads(key)
        coerced, problem = self._prepare(tool_name, arguments, copied)
        try:  # kept as JSON: each later answer is a fresh copy
            kept = key if coerced is copied else json.dumps(coerced, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            return coerced, problem
        if len(self._prepared) >= _PREPARED_SIZE:
            self._prepared.clear()
        self._prepared[(tool_name, key)] = (kept, problem)
        return coerced, problem

    def _prepare(self, tool_name: str, sent: Any, copied: Any) -> tuple[Any, str | None]:
        if is_zod_schema(self.schema):  # a TypeScript SDK server: zod converts nothing
            return copied, zod_errors(tool_name, sent, self.schema)
        try:
            coerced, found = self._lax(copied)
        except Exception:  # an unresolvable $ref and the like: the schema, not the call, is at fault
            return copied, None
        return coerced, (self.check(tool_name, sent) if found else None)

    def check(self, tool_name: str, arguments: Any, *, strict: bool = False) -> str | None:
        """FastMCP's error text for arguments that break the schema; None when they fit.

        ``strict`` checks with jsonschema alone ("yes" is not a boolean, "3" not an integer), for
        tools whose arguments reach the function unconverted. Errors show the input as sent.
        """
        if is_zod_schema(self.schema):  # a TypeScript SDK server: zod's checks and words
            return zod_errors(tool_name, arguments, self.schema)
        errors: list[dict[str, Any]] = []
        seen: set[tuple[str, tuple[Any, ...]]] = set()
        try:
            if strict:  # jsonschema's own rules, where 1.0 is an integer
                if self._plain is None and self._validator is not None:
                    self._plain = _compile(self.schema, int_only=False)
                validator = self._plain
                found = [] if validator is None else list(validator.iter_errors(arguments))
            else:
                found = self._lax(arguments)[1]
            for error in found:
                _show_sent(error, arguments)
            lines = (line for error in found for e in _unwrapped(error) for line in _line_errors(e, strict))
            for line in lines:
                key = (line["type"], tuple(line["loc"]))
                if key not in seen:
                    seen.add(key)
                    errors.append(line)
        except Exception:  # an unresolvable $ref and the like: the schema, not the call, is at fault
            return None
        if not errors:
            return None
        errors.sort(key=lambda err: _place(self.schema, err["loc"]) if err["loc"] else (math.inf,))
        title = self.schema.get("title")
        if isinstance(title, str) and title.endswith("Arguments"):
            # a Python SDK server's function tool (FastMCP, MCPServer): its argument model's name
            return f"Error executing tool {tool_name}: " + _render(title, errors)
        return f"Error calling tool '{tool_name}': " + _render(f"call[{tool_name}]", errors)


_CHECKERS: OrderedDict[str, ArgumentChecker] = OrderedDict()
_CHECKERS_LOCK = threading.Lock()


def argument_checker(input_schema: Any) -> ArgumentChecker:
    """The checker for ``input_schema``, compiled on first use and kept (the last 256 schemas)."""
    try:
        key = json.dumps(input_schema, sort_keys=True, default=str)
    except (TypeError, ValueError):  # a schema that cannot be written out (a cycle): not kept
        return ArgumentChecker(input_schema)
    with _CHECKERS_LOCK:
        checker = _CHECKERS.get(key)
        if checker is not None:
            _CHECKERS.move_to_end(key)
            return checker
    checker = ArgumentChecker(input_schema)
    with _CHECKERS_LOCK:
        _CHECKERS[key] = checker
        while len(_CHECKERS) > _CACHE_SIZE:
            _CHECKERS.popitem(last=False)
    return checker


def check_arguments(tool_name: str, arguments: Any, input_schema: Any, *, strict: bool = False) -> str | None:
    """FastMCP's error text for ``arguments`` that break ``input_schema``; None when they fit
    (``strict``: no lax conversions, see :meth:`ArgumentChecker.check`)."""
    return argument_checker(input_schema).check(tool_name, arguments, strict=strict)


def coerce_arguments(arguments: Any, input_schema: Any) -> Any:
    """``arguments`` after pydantic's lax conversions for ``input_schema``."""
    return argument_checker(input_schema).coerce(arguments)
