"""Reading JSON Schema nodes: pointers, types, ``allOf`` merges and small value tests."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 8
LIST_LEN = 3


def dict_at(node: Any, key: str) -> dict[str, Any]:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, dict) else {}


def list_at(node: Any, key: str) -> list[Any]:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, list) else []


def int_at(node: Any, key: str) -> int | None:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number_at(node: Any, key: str) -> float | None:
    value = node.get(key) if isinstance(node, dict) else None
    return value if is_number(value) else None


def resolve_pointer(root: Any, ref: str) -> Any:
    node = root
    for part in ref.lstrip("#").split("/"):
        if part == "":
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return {}
    return node


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def types_of(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and declared:
        return [t for t in declared if isinstance(t, str)]
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return ["object"]
    if "items" in schema or "prefixItems" in schema:
        return ["array"]
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return ["string"]
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return ["number"]
    return []


def merge_all_of(node: dict[str, Any], resolve: Callable[[Any], Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    for part in node.get("allOf") or []:
        part = resolve(part)
        if not isinstance(part, dict):
            continue
        if "allOf" in part:
            part = merge_all_of(part, resolve)
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged.setdefault(key, value)
    return merged


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pattern_search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def seed_of(*parts: Any) -> int:
    return int(hashlib.sha256(canonical(parts).encode()).hexdigest()[:16], 16)
