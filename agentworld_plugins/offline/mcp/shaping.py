"""Shaping a result to the tool's ``outputSchema``: ledger data laid over generated values, then repaired."""

from __future__ import annotations

import copy
from typing import Any

from .document import Schema
from .ledger import COUNT_NAMES, FRESH_STATES, ITEM_SLOTS, LIST_SLOTS, Outcome, object_props
from .naming import norm
from .schema import MAX_DEPTH, types_of


def value_at(value: Any, path: list[str]) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _set(value: Any, path: list[str], new: Any) -> Any:
    if not path:
        return new
    value = value if isinstance(value, dict) else {}
    value[path[0]] = _set(value.get(path[0]), path[1:], new)
    return value


def sub_schema(schema: Schema, path: list[str]) -> Any:
    node: Any = schema.root
    for key in path:
        node = object_props(schema, node).get(key, {})
    return node


def item_slot(schema: Schema, data: dict[str, Any], resource: str | None) -> list[str]:
    keys = set(data)
    props = object_props(schema, schema.root)
    best, best_score = [], len(keys & set(props))
    names = {norm(resource or ""), *ITEM_SLOTS}
    for key, sub in props.items():
        inner = object_props(schema, sub)
        if not inner:
            continue
        score = len(keys & set(inner)) + (2 if norm(key) in names else 0)
        if score > best_score:
            best, best_score = [key], score
    return best


def list_slot(schema: Schema, resource: str | None) -> list[str] | None:
    root = schema.resolve(schema.root)
    if isinstance(root, dict) and "array" in types_of(root):
        return []
    props = object_props(schema, root)
    arrays = [
        k
        for k, v in props.items()
        if isinstance(schema.resolve(v), dict) and "array" in types_of(schema.resolve(v))
    ]
    if not arrays:
        return None
    wanted = {
        norm(resource or ""),
        norm(resource or "") + "s",
        norm(_plural(resource or "")),
        *LIST_SLOTS,
    }
    for key in arrays:
        if norm(key) in wanted:
            return [key]
    with_objects = [k for k in arrays if object_props(schema, schema.resolve(props[k]).get("items", {}))]
    return [(with_objects or arrays)[0]]


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def _overlay(schema: Schema, base: Any, data: Any, node: Any) -> Any:
    """``data`` laid over the generated ``base`` wherever it fits ``node``.

    Only fields the schema declares are laid over, unless the object declares none at all.
    """
    resolved = schema.resolve(node)
    if isinstance(data, dict):
        out = copy.deepcopy(base) if isinstance(base, dict) else {}
        props = object_props(schema, resolved)
        free = not props and not (
            isinstance(resolved, dict) and resolved.get("additionalProperties") is False
        )
        for key, value in data.items():
            if key in props:
                if schema.valid(value, props[key]):
                    out[key] = copy.deepcopy(value)
                elif isinstance(value, (dict, list)):
                    out[key] = _overlay(schema, out.get(key), value, props[key])
                else:
                    converted = _convert_scalar(value, schema.resolve(props[key]))
                    if converted is not None and schema.valid(converted, props[key]):
                        out[key] = converted
            elif free:
                out[key] = copy.deepcopy(value)
        return out
    if isinstance(data, list):
        items = resolved.get("items", {}) if isinstance(resolved, dict) else {}
        bases = base if isinstance(base, list) and base else []
        result = []
        for i, entry in enumerate(data):
            seed_item = bases[i % len(bases)] if bases else schema.synth(items)
            result.append(_overlay(schema, seed_item, entry, items))
        return result
    if schema.valid(data, node):
        return copy.deepcopy(data)
    props = object_props(schema, resolved)
    if isinstance(data, (str, int)) and not isinstance(data, bool) and props:
        # a label given as "bug" where the schema wants {"name": "bug", ...}
        slot = next((k for k in _SCALAR_SLOTS if k in props and schema.valid(data, props[k])), None)
        if slot is not None:
            return _overlay(schema, base, {slot: data}, node)
    return base


#: where a bare value goes when the schema wants an object (a label's name, a user's login)
_SCALAR_SLOTS = ("name", "login", "email", "title", "id", "value", "label")


def _convert_scalar(value: Any, node: Any) -> Any:
    if not isinstance(node, dict):
        return None
    types = types_of(node)
    if "string" in types and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if "integer" in types and isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _fresh_defaults(schema: Schema, node: Any) -> dict[str, Any]:
    """Values a server sets on a new item: schema defaults and an open/active state."""
    out: dict[str, Any] = {}
    for key, sub in object_props(schema, node).items():
        sub = schema.resolve(sub)
        if not isinstance(sub, dict):
            continue
        if "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
        elif "array" in types_of(sub) and not sub.get("minItems"):
            out[key] = []  # a new item has no labels, assignees or attachments it was not given
        elif "integer" in types_of(sub) and _is_counter(key) and schema.valid(0, sub):
            out[key] = 0  # and nothing counted yet
        elif key in ("state", "status") and isinstance(sub.get("enum"), list):
            fresh = [v for v in FRESH_STATES if v in sub["enum"]]
            if fresh:
                out[key] = fresh[0]
    return out


def _is_counter(key: str) -> bool:
    n = norm(key)
    return n in ("comments", "replies", "reactions", "attempts") or (n.endswith("count") and "total" not in n)


def shape_result(
    out_schema: dict[str, Any], outcome: Outcome, resource: str | None, seed: int, fresh: bool
) -> tuple[Any, list[str] | None]:
    """A value valid against ``out_schema`` that carries the outcome's data; and the item's path."""
    schema = Schema(out_schema, seed)
    generated = schema.fake()
    data = outcome.overlay
    path: list[str] | None = None
    if outcome.mode == "item" and isinstance(data, dict):
        path = item_slot(schema, data, resource)
        node = sub_schema(schema, path)
        if fresh:
            data = {**_fresh_defaults(schema, node), **data}
        shaped = _set(generated, path, _overlay(schema, value_at(generated, path), data, node))
    elif outcome.mode == "list" and isinstance(data, list):
        slot = list_slot(schema, resource)
        path = slot
        if slot is None:
            shaped = generated
        else:
            node = sub_schema(schema, slot) if slot else schema.root
            shaped = _set(generated, slot, _overlay(schema, value_at(generated, slot), data, node))
            if slot and isinstance(shaped, dict):
                for key, sub in object_props(schema, schema.root).items():
                    if norm(key) in COUNT_NAMES and schema.valid(len(data), sub):
                        shaped[key] = len(data)
    elif isinstance(data, dict):
        shaped = _overlay(schema, generated, data, schema.root)
    else:
        shaped = generated
    result = schema.repair(shaped)
    if not schema.valid(result):
        for candidate in (generated, schema.synth(schema.root)):
            candidate = schema.repair(candidate)
            if schema.valid(candidate):
                return _ordered(schema, candidate, schema.root), None
    return _ordered(schema, result, schema.root), path


def _ordered(schema: Schema, value: Any, node: Any, depth: int = 0) -> Any:
    """``value`` with object keys in the schema's property order (undeclared keys last)."""
    if depth > MAX_DEPTH * 2:
        return value
    if isinstance(value, dict):
        props = object_props(schema, node)
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: _ordered(schema, value[k], props.get(k, {}), depth + 1) for k in keys}
    if isinstance(value, list):
        resolved = schema.resolve(node)
        items = resolved.get("items", {}) if isinstance(resolved, dict) else {}
        return [_ordered(schema, v, items if isinstance(items, dict) else {}, depth + 1) for v in value]
    return value


def remember(bucket: dict[str, Any], outcome: Outcome, shown: Any) -> None:
    """Keep the fields the server "filled in", so later reads of the same items agree."""
    items = bucket["items"]
    field = bucket["id_field"]
    if outcome.mode == "item" and outcome.item_key is not None:
        stored = items.get(outcome.item_key)
        shown_id = shown.get(field) if isinstance(shown, dict) else None
        if (
            isinstance(stored, dict)
            and isinstance(shown_id, (str, int))
            and str(shown_id) != outcome.item_key
        ):
            # the schema wanted another id shape (a pattern, a format): the shown id is the real one
            if str(shown_id) in items:
                return
            stored[field] = shown_id
            items[str(shown_id)] = items.pop(outcome.item_key)
        pairs = [(stored, shown)]
    elif outcome.mode == "list" and isinstance(shown, list):
        pairs = [(items.get(str(entry.get(field))), entry) for entry in shown if isinstance(entry, dict)]
    else:
        return
    for stored, entry in pairs:
        if isinstance(stored, dict) and isinstance(entry, dict):
            for key, value in entry.items():
                stored.setdefault(key, copy.deepcopy(value))
