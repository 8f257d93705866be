"""The record families (``messages``, ``events``, ``issues``, ``kv``, ``records``) on the ledger.

The ledger (:mod:`..ledger`) keeps exactly the fields a call gave; this module adds what each
kind of record needs so that later calls agree with earlier ones:

- messages: ``send_email``/``search_emails``/``read_email`` share one bucket; a sent message gets
  ``label_ids: ["SENT"]``, a ``thread_id`` and a date; searches take Gmail-style terms;
- events: listed in start order and filtered by ``time_min``/``time_max``;
- issues: a new issue is ``open`` with 0 comments; adding a comment counts on its issue;
- kv: ``set``/``get``/``delete``/``list`` of keys;
- any record: a record referenced by id from another record (``customer_id`` on an invoice) is
  known to exist, so ``list_customers`` shows it.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from typing import Any

from ....kept import KeptByObject
from ..classify import family_of
from ..ledger import Outcome, apply, bucket_for, new_id
from ..naming import classify_tool, norm, singular_of
from . import preview
from .query import when_of

_MESSAGE_WORDS = {"email", "mail", "message", "inbox", "draft"}
_EVENT_WORDS = {"event", "calendar", "meeting", "appointment"}
_ISSUE_WORDS = {"issue", "ticket", "bug"}
_CRUD = ("create", "get", "list", "update", "delete")
_CLOCK = datetime(2026, 1, 15, 9, 30, tzinfo=timezone.utc)
_COUNTER_NAMES = ("comments", "comment_count", "comments_count", "reply_count", "replies")


def record_kind(tool: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(kind, resource)`` of a record tool: the name's verb and noun, with the aliases of its
    family folded (``send_email``, ``read_email`` and ``search_emails`` all act on ``message``)."""
    family, op = family_of(tool)
    kind, resource, _ = classify_tool(str(tool.get("name") or ""))
    if op in _CRUD:
        kind = op
    last = singular_of(resource.split("_")[-1]) if resource else None
    if family == "messages" and (resource is None or last in _MESSAGE_WORDS):
        resource = "message"
    elif family == "events" and (resource is None or last in _EVENT_WORDS or last in ("free_slot", "slot")):
        resource = "event" if last != "slot" else resource
    elif family == "issues" and resource is None:
        resource = "issue"
    return kind, resource


def _stamp(world: dict[str, Any]) -> str:
    return (_CLOCK + timedelta(minutes=world.get("calls", 0))).strftime("%Y-%m-%dT%H:%M:%SZ")


#: :func:`_server_fields` by resource and tool index (a session's index is one object, read only)
_SERVER_FIELDS: KeptByObject[dict[str, Any]] = KeptByObject(1024)


def _server_fields(resource: str, tools: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """What a server sets on a new ``resource`` where the call gave nothing, read from the output
    schemas of its tools: counters (``comments``, ``*_count``) start at 0, nullable fields
    (``body``) at null. Read once per tool index (the result is not to be changed)."""
    key = (resource, len(tools or ()))
    kept = _SERVER_FIELDS.get(tools, key=key)
    return (
        kept if kept is not None else _SERVER_FIELDS.put(_read_server_fields(resource, tools), tools, key=key)
    )


def _read_server_fields(resource: str, tools: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for tool in (tools or {}).values():
        if record_kind(tool)[1] != resource:
            continue
        out = tool.get("outputSchema")
        props = out.get("properties") if isinstance(out, dict) else None
        for key, node in (props or {}).items():
            types = node.get("type") if isinstance(node, dict) else None
            types = [types] if isinstance(types, str) else types if isinstance(types, list) else []
            lowered = norm(key)
            counter = key in _COUNTER_NAMES or lowered.endswith("count") or lowered.startswith("num")
            if "integer" in types and counter and "total" not in lowered:
                found.setdefault(key, 0)
            elif "null" in types and len(types) > 1:
                found.setdefault(key, None)
    return found


def _materialize_references(world: dict[str, Any], resource: str, bucket: dict[str, Any]) -> None:
    """Add to ``bucket`` the ``resource`` records that other records refer to: by id
    (``customer_id``, ``customer: {"id": ...}``), or by fields alone (``customer_email``,
    ``customer: {"name": ...}``), which make one record per distinct set of values."""
    field = bucket["id_field"]
    items = bucket["items"]
    head = norm(resource.split("_")[-1])
    id_keys = {norm(resource) + "id", norm(resource) + "number", head + "id"}
    for other, other_bucket in world["resources"].items():
        if other == resource:
            continue
        for record in list(other_bucket["items"].values()):
            ref: Any = None
            extra: dict[str, Any] = {}
            prefix = ""
            for key, value in record.items():
                n = norm(key)
                if n in id_keys and isinstance(value, (str, int)) and not isinstance(value, bool):
                    ref, prefix = value, key[: -len(key.split("_")[-1]) - 1] if "_" in key else resource
                elif n in (norm(resource), head) and isinstance(value, dict):
                    ref = value.get(field, value.get("id", ref))
                    extra.update({k: copy.deepcopy(v) for k, v in value.items() if k not in (field, "id")})
                    prefix = prefix or key
                elif (
                    n in (norm(resource), head)
                    and isinstance(value, (str, int))
                    and not isinstance(value, bool)
                ):
                    ref, prefix = value, key
            prefix = prefix or next(
                (k.split("_")[0] for k in record if norm(k.split("_")[0]) == head and "_" in k), ""
            )
            if prefix:
                for k, v in record.items():
                    if k.startswith(prefix + "_") and norm(k) not in id_keys:
                        extra.setdefault(k[len(prefix) + 1 :], copy.deepcopy(v))
            if ref is None and not extra:
                continue
            if ref is None:
                if any(all(item.get(k) == v for k, v in extra.items()) for item in items.values()):
                    continue
                ref = new_id(bucket, resource)
            if str(ref) not in items:
                items[str(ref)] = {field: ref, **extra}


def create_defaults(
    world: dict[str, Any],
    family: str,
    resource: str,
    item: dict[str, Any],
    tools: Any,
    context: dict[str, Any],
) -> dict[str, Any]:
    """The fields a server fills in on a new record, where the call did not give them."""
    filled: dict[str, Any] = {}
    if family == "messages" and resource == "message":
        ident = next(iter(item.values()))
        replied = item.get("in_reply_to") or item.get("reply_to_message_id")
        thread = None
        if replied is not None:
            parent = world["resources"].get("message", {}).get("items", {}).get(str(replied))
            thread = parent.get("thread_id") if isinstance(parent, dict) else None
        filled = {
            "thread_id": thread or f"thread_{str(ident).removeprefix('message_')}",
            "label_ids": ["SENT"],
            "from": str(context.get("user_email") or "me@example.com"),
            "date": _stamp(world),
        }
    elif family == "events" and resource == "event":
        filled = {"status": "confirmed", "created": _stamp(world)}
    elif family == "issues" and resource.split("_")[-1] in _ISSUE_WORDS:
        filled = {"state": "open", "created_at": _stamp(world), "updated_at": _stamp(world)}
    for key, value in _server_fields(resource, tools).items():
        filled.setdefault(key, value)
    return {k: v for k, v in filled.items() if k not in item}


def _count_on_parent(world: dict[str, Any], resource: str, args: dict[str, Any], step: int) -> None:
    """A new ``issue_comment`` counts on its issue's ``comments`` (any ``parent_child`` pair)."""
    parent, _, child = resource.rpartition("_")
    bucket = world["resources"].get(parent)
    if not parent or bucket is None:
        return
    ref = next(
        (
            v
            for k, v in args.items()
            if norm(k) in (norm(parent) + "id", norm(parent) + "number", "number", "id")
        ),
        None,
    )
    record = bucket["items"].get(str(ref)) if ref is not None else None
    if not isinstance(record, dict):
        return
    for key in (child + "s", f"{child}_count", f"{child}s_count"):
        if key in record and isinstance(record[key], int):
            record[key] += step
            return
    record[child + "s"] = max(step, 0)


def apply_record(
    world: dict[str, Any],
    name: str,
    args: dict[str, Any],
    tool: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]] | None,
    family: str,
    context: dict[str, Any],
) -> Outcome:
    """Answer one call of a record family from the ledger."""
    if family == "kv":
        return _kv(world, family_of(tool or {"name": name})[1], args)
    kind, resource = record_kind(tool or {"name": name})
    if resource in FREE_TIME:
        return free_slots(world, args)
    if kind is None or resource is None:
        return apply(world, name, args, tool, tools)
    if kind in ("get", "list"):
        _materialize_references(world, resource, bucket_for(world, resource, tool, tools, record_kind))
    outcome = apply(world, name, args, tool, tools, kind, resource, record_kind, timed=family == "events")
    _note_alias(world, resource, tool or {"name": name})
    if outcome.error or kind != "create" or outcome.item_key is None:
        if family == "events" and outcome.mode == "list" and isinstance(outcome.data, list):
            outcome.data.sort(key=lambda it: when_of(it, ("start", "start_time")) or _CLOCK)
        return outcome
    stored = world["resources"][resource]["items"][outcome.item_key]
    stored.update(create_defaults(world, family, resource, stored, tools, context))
    _count_on_parent(world, resource, args, 1)
    shown = preview(copy.deepcopy(stored))
    return Outcome("item", shown, item_key=outcome.item_key)


def _note_alias(world: dict[str, Any], resource: str, tool: dict[str, Any]) -> None:
    """Remember the noun the tool itself used when its family folded it into ``resource``
    (``create_appointment`` files under ``event``), so readers of the state (reward checks,
    ``list_appointments``' callers) can still find the items by the name the tools gave them."""
    own = classify_tool(str(tool.get("name") or ""))[1]
    bucket = world["resources"].get(resource)
    if not own or own == resource or not isinstance(bucket, dict):
        return
    aliases = bucket.setdefault("aliases", [])
    if own not in aliases:
        aliases.append(own)


FREE_TIME = {"free_slot", "slot", "free_time", "availability", "free_busy", "freebusy"}
_WORK_HOURS = (9, 17)  # the working day free slots are found in (UTC)
_MAX_DAYS = 62
_MAX_SLOTS = 50


def _attendee_names(value: Any) -> set[str]:
    out = set()
    for entry in value if isinstance(value, list) else [value] if value else []:
        if isinstance(entry, dict):
            entry = entry.get("email") or entry.get("name")
        if entry:
            out.add(str(entry).lower())
    return out


def free_slots(world: dict[str, Any], args: dict[str, Any]) -> Outcome:
    """Working-hours gaps of at least ``duration_minutes`` in ``[time_min, time_max)`` when none
    of the ``attendees`` is in a known event."""
    low, high = when_of(args, ("time_min", "timeMin", "start")), when_of(args, ("time_max", "timeMax", "end"))
    if low is None or high is None or high <= low:
        return Outcome("other", error="Error: time_min and time_max must be date-times, time_min first")
    minutes = args.get("duration_minutes")
    length = timedelta(minutes=minutes if isinstance(minutes, int) else 30)
    people = _attendee_names(args.get("attendees"))
    busy = []
    for event in world["resources"].get("event", {}).get("items", {}).values():
        start = when_of(event, ("start", "start_time"))
        end = when_of(event, ("end", "end_time"))
        if (
            start
            and end
            and (
                not people
                or not _attendee_names(event.get("attendees"))
                or people & _attendee_names(event.get("attendees"))
            )
        ):
            busy.append((start, end))
    busy.sort()
    slots: list[dict[str, str]] = []
    day = low.replace(hour=0, minute=0, second=0, microsecond=0)
    for _ in range(_MAX_DAYS):
        if day >= high or len(slots) >= _MAX_SLOTS:
            break
        cursor = max(low, day.replace(hour=_WORK_HOURS[0]))
        closing = min(high, day.replace(hour=_WORK_HOURS[1]))
        for start, end in busy:
            if end <= cursor:
                continue
            if start >= closing:
                break
            if start - cursor >= length:
                slots.append({"start": _iso(cursor), "end": _iso(start)})
            cursor = max(cursor, end)
        if closing - cursor >= length:
            slots.append({"start": _iso(cursor), "end": _iso(closing)})
        day += timedelta(days=1)
    return Outcome("list", slots[:_MAX_SLOTS])


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _kv(world: dict[str, Any], op: str, args: dict[str, Any]) -> Outcome:
    store: dict[str, Any] = world.setdefault("kv", {})
    key = next((args[k] for k in ("key", "name", "id") if k in args), None)
    if op == "list":
        prefix = str(args.get("prefix") or args.get("pattern") or "").rstrip("*")
        keys = sorted(k for k in store if k.startswith(prefix))
        return Outcome("other", {"keys": keys, "count": len(keys)})
    if not isinstance(key, (str, int)) or isinstance(key, bool):
        return Outcome("other", error="Error: a key is required")
    key = str(key)
    if op == "put":
        value = next((args[k] for k in ("value", "data", "content", "val") if k in args), None)
        store[key] = copy.deepcopy(value)
        return Outcome("other", {"key": key, "value": preview(value), "success": True})
    if key not in store:
        return Outcome("other", error=f"Error: key {json.dumps(key)} not found")
    if op == "delete":
        del store[key]
        return Outcome("other", {"key": key, "deleted": True, "success": True})
    return Outcome("other", {"key": key, "value": copy.deepcopy(store[key])})
