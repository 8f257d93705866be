"""The resources a tool set acts on, and the fields their items can hold.

The ledger makes a resource's bucket on the first call that touches it. Readers of a finished
session's state (the rollout's ``sql`` reward) want every resource the tools name, fields
included, before any item exists: "no issue was created" is ``SELECT count(*) FROM issue``
answering 0, not "no such table". The resources are found the way :func:`.world.mcp_step`
files a call, so the two agree.

>>> known_resources([{"name": "create_note", "inputSchema": {"type": "object",
...     "properties": {"text": {"type": "string"}}}}])
{'note': ['id', 'text']}
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .classify import family_of
from .document import Schema
from .families.records import FREE_TIME, create_defaults, record_kind
from .ledger import Classifier, find_id_field, name_kind, object_props, tool_index
from .naming import classify_tool, is_id_name, norm
from .shaping import item_slot, list_slot, sub_schema
from .typed import action_kind, filed_action, typed_fields
from .world import ENGINES


def _filed_under(tool: dict[str, Any]) -> tuple[str, str, str, Classifier] | None:
    """``(family, kind, resource, classifier)`` a call of ``tool`` is filed under in the ledger
    (None: an engine's tool, a key-value store, free slots or an unclassified name)."""
    family, _ = family_of(tool)
    if family in ENGINES or family == "kv":
        return None
    name = str(tool["name"])
    kind_of: Classifier = name_kind
    if family == "ledger":
        kind, resource, _ = classify_tool(name)
    else:
        kind, resource = record_kind(tool)
        kind_of = record_kind
        if resource in FREE_TIME:
            return None
        if kind is None or resource is None:  # the record family hands it to the plain ledger
            kind, resource, _ = classify_tool(name)
            kind_of = name_kind
    if kind is None or resource is None:
        acted = filed_action(tool)  # an ad-hoc action verb (write_note): see .typed
        if acted is None:
            return None
        return family, "create", acted, action_kind
    return family, kind, resource, kind_of


def _item_fields(tool: dict[str, Any], kind: str, resource: str, known: set[str]) -> set[str]:
    """The fields of ``resource`` that ``tool``'s output schema shows (and the ledger keeps)."""
    out = tool.get("outputSchema")
    if not isinstance(out, dict) or not out:
        return set()
    schema = Schema(out, 0)
    if kind == "list":
        slot = list_slot(schema, resource)
        node = schema.resolve(sub_schema(schema, slot)) if slot is not None else None
        node = node.get("items") if isinstance(node, dict) else None
    else:
        node = sub_schema(schema, item_slot(schema, dict.fromkeys(known), resource))
    return set(object_props(schema, node))


def _referred_fields(resource: str, others: dict[str, set[str]]) -> set[str]:
    """Fields a ``resource`` record made from a reference gets (``customer_email`` on an invoice
    gives its customer an ``email``; see ``families.records``)."""
    head = norm(resource.split("_")[-1])
    ids = {norm(resource) + "id", norm(resource) + "number", head + "id"}
    return {
        key.split("_", 1)[1]
        for names in others.values()
        for key in names
        if "_" in key and norm(key.split("_")[0]) == head and norm(key) not in ids
    }


def known_resources(tools: Any) -> dict[str, list[str]]:
    """Every resource ``tools`` act on (and the noun a tool used where its family folded it:
    ``create_appointment`` files under ``event``), with the fields its items can hold: the id,
    the arguments of its create and update tools, the item fields of its tools' output schemas
    and what the server fills in on a new item (sorted)."""
    index = tool_index(tools) or {}
    filed = [(tool, found) for tool in index.values() if (found := _filed_under(tool))]
    fields: dict[str, set[str]] = {}
    aliases: dict[str, str] = {}
    for tool, (family, kind, resource, kind_of) in filed:
        mine = fields.setdefault(resource, set())
        id_field = find_id_field(resource, tool, index, kind_of)[0]
        mine.add(id_field)
        schema = tool.get("inputSchema")
        if kind in ("create", "update") and isinstance(schema, dict):
            props = object_props(Schema(schema, 0), schema)
            mine.update(p for p in props if kind == "create" or not is_id_name(p, resource))
        mine.update(_item_fields(tool, kind, resource, mine))
        mine.update(typed_fields(tool, kind, resource))
        if family != "ledger" and kind == "create":
            stub = {"calls": 0, "resources": {}}
            mine.update(create_defaults(stub, family, resource, {id_field: 1}, index, {}))
        own = classify_tool(str(tool["name"]))[1]
        if family != "ledger" and own and own != resource:
            aliases[own] = resource
    for resource in list(fields):  # a new issue_comment counts on its issue (``comments``)
        parent, _, child = resource.rpartition("_")
        counters = (child + "s", f"{child}_count", f"{child}s_count")
        if parent in fields and not fields[parent] & set(counters):
            fields[parent].add(counters[0])
    for resource, mine in fields.items():  # what other records say of one they refer to
        mine.update(_referred_fields(resource, {r: f for r, f in fields.items() if r != resource}))
    known = {resource: sorted(names) for resource, names in fields.items()}
    for alias, resource in aliases.items():
        known.setdefault(alias, known[resource])
    return dict(sorted(known.items()))


def world_tables(context: dict[str, Any]) -> tuple[dict[str, list[str]], bool]:
    """The tables a session with ``context`` has whatever its calls (its :func:`known_resources`),
    and whether calls can make tables of other names (the ``sql`` family's tools run any SQL)."""
    try:
        text = json.dumps(context.get("tools"), sort_keys=True)
    except (TypeError, ValueError):  # tool objects rather than JSON: not worth a cache
        return _world_tables(context.get("tools"))
    tables, more = _cached_tables(text)
    return {name: list(columns) for name, columns in tables.items()}, more


@lru_cache(maxsize=256)
def _cached_tables(text: str) -> tuple[dict[str, list[str]], bool]:
    # every episode's reward reads them, and a task file's episodes share their tools
    return _world_tables(json.loads(text))


def _world_tables(tools: Any) -> tuple[dict[str, list[str]], bool]:
    more = any(family_of(tool)[0] == "sql" for tool in (tool_index(tools) or {}).values())
    return known_resources(tools), more
