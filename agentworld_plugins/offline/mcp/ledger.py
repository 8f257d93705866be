"""The session's ledger of resources, so that CRUD-style tools stay consistent with each other."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from typing import Any

from .document import Schema
from .families import preview
from .families.query import in_window, search
from .naming import SOFT_DELETE, classify_tool, is_id_name, norm, verb_of
from .schema import canonical, dict_at, seed_of, types_of

_PAGING = {
    "limit",
    "page",
    "per_page",
    "perpage",
    "page_size",
    "pagesize",
    "offset",
    "cursor",
    "after",
    "before",
    "sort",
    "sort_by",
    "order",
    "order_by",
    "direction",
    "max_results",
    "top_k",
    "count",
    "fields",
    "include",
}
_QUERY_ARGS = ("query", "q", "keyword", "keywords", "search", "term", "text")
COUNT_NAMES = {"total", "count", "total_count", "totalcount", "total_results", "totalresults", "num_results"}
LIST_SLOTS = ("items", "results", "data", "records", "entries", "list", "values", "rows", "objects")
ITEM_SLOTS = ("item", "data", "result", "record", "object", "resource", "entity")
FRESH_STATES = ("open", "active", "new", "pending", "todo", "draft", "created", "enabled")


def tool_index(tools: Any) -> dict[str, dict[str, Any]] | None:
    if not tools:
        return None
    if isinstance(tools, dict) and "tools" in tools:
        tools = tools["tools"]
    index: dict[str, dict[str, Any]] = {}
    for tool in tools if isinstance(tools, (list, tuple)) else []:
        if not isinstance(tool, dict):
            dump = getattr(tool, "model_dump", None)
            tool = dump(by_alias=True, exclude_none=True) if callable(dump) else {}
        if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
            fn = tool["function"]
            tool = {
                "name": fn.get("name"),
                "description": fn.get("description"),
                "inputSchema": fn.get("parameters"),
            }
        name = tool.get("name")
        if not isinstance(name, str):
            continue
        index[name] = {
            "name": name,
            "description": tool.get("description") if isinstance(tool.get("description"), str) else "",
            "inputSchema": tool.get("inputSchema", tool.get("input_schema")),
            "outputSchema": tool.get("outputSchema", tool.get("output_schema")),
        }
    return index


def object_props(schema: Schema, node: Any) -> dict[str, Any]:
    node = schema.resolve(node)
    if not isinstance(node, dict):
        return {}
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            props = object_props(schema, branch)
            if props:
                return props
    return dict_at(node, "properties")


def _id_style(name: str, node: Any, schema: Schema) -> tuple[str, str]:
    node = schema.resolve(node)
    kind = "integer"
    if isinstance(node, dict):
        types = types_of(node)
        if "string" in types and "integer" not in types:
            kind = "uuid" if node.get("format") == "uuid" else "string"
    return name, kind


def name_kind(tool: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(kind, resource)`` of a tool read from its name alone (see :func:`.naming.classify_tool`)."""
    return classify_tool(tool["name"])[:2]


Classifier = Callable[[dict[str, Any]], "tuple[str | None, str | None]"]


def find_id_field(
    resource: str,
    tool: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]] | None,
    kind_of: Classifier = name_kind,
) -> tuple[str, str]:
    """The field that holds a ``resource``'s id and its kind (integer, string or uuid)."""
    same = [t for t in (tools or {}).values() if kind_of(t)[1] == resource]
    lookups: list[str] = []
    for t in same:
        if kind_of(t)[0] in ("get", "update", "delete") and isinstance(t.get("inputSchema"), dict):
            lookups += [
                p
                for p in object_props(Schema(t["inputSchema"], 0), t["inputSchema"])
                if is_id_name(p, resource)
            ]
    style = "number" if any("number" in norm(p) for p in lookups) else "id"
    outputs = [t.get("outputSchema") for t in ([tool] if tool else []) + same]
    candidates: list[tuple[str, Any, Schema]] = []
    for out in outputs:
        if not isinstance(out, dict):
            continue
        schema = Schema(out, 0)
        props = object_props(schema, out)
        nested = [
            object_props(schema, sub)
            for key, sub in props.items()
            if norm(key) in (norm(resource), *ITEM_SLOTS)
        ]
        for group in [props, *nested]:
            candidates += [(p, sub, schema) for p, sub in group.items() if is_id_name(p, resource)]
    if candidates:
        styled = [c for c in candidates if style in norm(c[0])]
        own = [c for c in candidates if norm(c[0]).startswith(norm(resource.split("_")[-1]))]
        name, node, schema = (styled or own or candidates)[0]
        return _id_style(name, node, schema)
    if lookups:
        first = lookups[0]
        for t in same:
            if isinstance(t.get("inputSchema"), dict):
                props = object_props(Schema(t["inputSchema"], 0), t["inputSchema"])
                if first in props:
                    return _id_style(first, props[first], Schema(t["inputSchema"], 0))
    return "id", "integer"


def new_id(bucket: dict[str, Any], resource: str) -> Any:
    """The next free id of ``bucket`` in its id kind (integer, ``resource_N`` or a uuid)."""
    while True:  # skip ids that a caller chose explicitly
        n = bucket["next"]
        bucket["next"] = n + 1
        if bucket["id_kind"] == "string":
            made: Any = f"{resource}_{n}"
        elif bucket["id_kind"] == "uuid":
            made = str(uuid.UUID(int=(seed_of(resource, n) << 64 | n) & (2**128 - 1), version=4))
        else:
            made = n
        if str(made) not in bucket["items"]:
            return made


def _id_argument(args: dict[str, Any], bucket: dict[str, Any], resource: str) -> tuple[str, Any] | None:
    field = bucket["id_field"]
    if field in args:
        return field, args[field]
    for key, value in args.items():
        if is_id_name(key, resource) and isinstance(value, (str, int)) and not isinstance(value, bool):
            return key, value
    return None


def _names(value: Any) -> list[str]:
    """The entries of a list field as strings (``{"name": "bug"}`` counts as ``bug``)."""
    out = []
    for entry in value if isinstance(value, list) else [value]:
        if isinstance(entry, dict):
            entry = next((entry[k] for k in ("name", "login", "email", "id") if k in entry), entry)
        out.append(str(entry).lower())
    return out


def _match_one(have: Any, want: Any) -> bool:
    if canonical(have) == canonical(want) or str(have) == str(want):
        return True
    if isinstance(want, str) and want.lower() == "all":
        return True
    if isinstance(have, list):
        wanted = want.split(",") if isinstance(want, str) else want
        have_names = _names(have)
        return all(w.strip().lower() in have_names for w in _names(wanted))
    return False


def _matches(item: dict[str, Any], filters: dict[str, Any]) -> bool:
    return all(_match_one(item.get(k), v) for k, v in filters.items())


def _label(resource: str) -> str:
    return resource.replace("_", " ")


def _describe(filters: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in filters.items())


class Outcome:
    """What a call did to the ledger: ``data`` is the answer without an output schema, ``overlay``
    (default: ``data``) what is laid over generated values when there is one."""

    def __init__(
        self,
        mode: str,
        data: Any = None,
        error: str | None = None,
        item_key: str | None = None,
        overlay: Any = None,
    ) -> None:
        self.mode = mode  # item, list, delete, other
        self.data = data
        self.error = error
        self.item_key = item_key
        self.overlay = data if overlay is None else overlay


def _generic(name: str, args: dict[str, Any]) -> Outcome:
    """A call the ledger has nothing to say about: acknowledged, arguments echoed into the schema."""
    shown = preview(args)
    return Outcome(
        "other",
        {"status": "ok", "tool": name, "arguments": shown},
        overlay={"status": "ok", "success": True, "ok": True, **shown},
    )


def bucket_for(
    world: dict[str, Any], resource: str, tool: Any, tools: Any, kind_of: Classifier = name_kind
) -> dict[str, Any]:
    """The ledger's bucket of ``resource`` (made on first use, its id field read from the tools)."""
    buckets = world["resources"]
    if resource not in buckets:
        field, id_kind = find_id_field(resource, tool, tools, kind_of)
        buckets[resource] = {"next": 1, "id_field": field, "id_kind": id_kind, "items": {}}
    return buckets[resource]  # type: ignore[no-any-return]


def apply(
    world: dict[str, Any],
    name: str,
    args: dict[str, Any],
    tool: Any,
    tools: Any,
    kind: str | None = None,
    resource: str | None = None,
    kind_of: Classifier = name_kind,
    timed: bool = False,
) -> Outcome:
    """Apply a CRUD-style call to the ledger: ``kind`` and ``resource`` default to what the
    tool's name says; ``timed`` resources (events) are also filtered by a time window."""
    if kind is None and resource is None:
        kind, resource, _ = classify_tool(name)
    if kind is None or resource is None:
        return _generic(name, args)
    bucket = bucket_for(world, resource, tool, tools, kind_of)
    items: dict[str, dict[str, Any]] = bucket["items"]
    field = bucket["id_field"]

    if kind == "create":
        given = args.get(field)
        if isinstance(given, (str, int)) and not isinstance(given, bool):
            if str(given) in items:
                return Outcome("other", error=f"Error: {_label(resource)} {given} already exists")
            item_id: Any = given
        else:
            item_id = new_id(bucket, resource)
        item = {field: item_id, **{k: copy.deepcopy(v) for k, v in args.items() if k != field}}
        items[str(item_id)] = item
        return Outcome("item", preview(item), item_key=str(item_id))

    if kind == "list":
        filters = {k: v for k, v in args.items() if k not in _PAGING}
        found = list(items.values())
        field_filters = {k: v for k, v in filters.items() if any(k in it for it in found)}
        found = [it for it in found if _matches(it, field_filters)]
        for key in _QUERY_ARGS:
            text = filters.get(key)
            if isinstance(text, str) and text.strip() and key not in field_filters:
                found = search(found, text.strip())
        if timed:
            found = in_window(found, args)
        found = _page(found, args)
        return Outcome("list", [copy.deepcopy(it) for it in found])

    ident = _id_argument(args, bucket, resource)
    if ident is not None:
        key = str(ident[1])
        if key not in items:
            return Outcome("other", error=f"Error: {_label(resource)} {ident[1]} not found")
    else:
        filters = {
            k: v for k, v in args.items() if k not in _PAGING and any(k in it for it in items.values())
        }
        hits = [k for k, it in items.items() if filters and _matches(it, filters)]
        if not hits:
            if items and kind in ("update", "delete"):
                shown = _describe({k: v for k, v in args.items() if k not in _PAGING})
                return Outcome("other", error=f"Error: {_label(resource)} not found ({shown})")
            return _generic(name, args)
        key = hits[0]
        ident = (field, items[key][field])

    item = items[key]
    if kind == "get":
        return Outcome("item", copy.deepcopy(item), item_key=key)
    if kind == "update":
        changes = {k: copy.deepcopy(v) for k, v in args.items() if k != ident[0] and k != field}
        if verb_of(name) == "rename":
            new = next((changes.pop(k) for k in ("new_name", "newName", "to") if k in changes), None)
            if new is not None:
                changes["name"] = new
        item.update(changes)
        return Outcome("item", preview(copy.deepcopy(item)), item_key=key)
    verb = verb_of(name)
    if verb in SOFT_DELETE:
        mark = "status" if "status" in item and "state" not in item else "state"
        item[mark] = SOFT_DELETE[verb]
        return Outcome("item", copy.deepcopy(item), item_key=key)
    del items[key]
    message = f"{_label(resource).capitalize()} {item[field]} deleted"
    return Outcome("delete", {field: item[field], "success": True, "deleted": True, "message": message})


def _page(found: list[Any], args: dict[str, Any]) -> list[Any]:
    size = next(
        (
            args[k]
            for k in ("limit", "per_page", "perPage", "page_size", "pageSize", "max_results", "top_k")
            if k in args
        ),
        None,
    )
    size = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None
    offset = args.get("offset") if isinstance(args.get("offset"), int) else 0
    page = args.get("page")
    if isinstance(page, int) and not isinstance(page, bool) and page > 1 and size:
        offset = (page - 1) * size
    found = found[max(offset or 0, 0) :]
    return found[:size] if size else found
