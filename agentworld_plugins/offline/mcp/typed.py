"""Typed, plausible answers for ad-hoc tools that no engine or family knows (#24 item 5).

The ledger answers CRUD tools whose names carry its verbs (``create_issue``, ``list_issues``).
Tools outside that vocabulary used to get an echo of their arguments. This module answers them
by what their name, description and input schema say, and keeps what they write in the same
ledger, so a matching get/list tool reads it back:

- **clock tools** (``get_time``, ``current_time``, ``get_date``, ``now``): the time on the offline
  world's frozen clock (2026-01-15 09:30:00 UTC, one second later each call), in the zone asked
  for (an IANA name), with ``datetime``, ``date``, ``time``, ``day_of_week`` and ``is_dst``;
- **action verbs** (``write_note``, ``place_order``, ``book_room``, ``submit_report``,
  ``save_draft``, ``log_workout``, ...): a new record of the noun, and an acknowledgement carrying
  ``status``, the record's id (``order_id``) and the fields written;
- **read-only lists of known things** (``list_commits``, ``list_branches``, ``list_users``,
  ``list_products``, ...) on an empty ledger, when no tool of the set creates them: a few records
  of that kind (a commit has a 40-hex ``sha``, a ``message``, an ``author`` and a ``date``), kept
  in the ledger so that ``get_commit`` finds the same ones;
- **weather look-ups** (``get_weather``, ``get_forecast``): the conditions for the place asked,
  the same for the same place;
- **key-value lists without a ``key`` argument** (``list_keys`` beside ``set_value(key, value)``):
  the keys the store holds.

Anything else returns None and goes on to the families. Tools with an ``outputSchema`` are left to
the schema shaping, which already types them. The hook in :mod:`.world` is one call.
"""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ...domains.base import OfflineResult
from ...jsontext import dumps_indented
from .classify import family_of
from .families import preview
from .families.records import apply_record, record_kind
from .ledger import _PAGING, apply, bucket_for
from .naming import classify_tool, singular_of

__all__ = ["action_kind", "filed_action", "typed_answer", "typed_fields"]

#: the offline world's clock starts here (the time server engine's start too)
CLOCK_START = datetime(2026, 1, 15, 9, 30, tzinfo=timezone.utc)

#: verbs of writing that the ledger's vocabulary lacks, each creating a record of its noun
ACTION_VERBS = {
    "write": "written",
    "place": "placed",
    "submit": "submitted",
    "book": "booked",
    "schedule": "scheduled",
    "save": "saved",
    "record": "recorded",
    "log": "logged",
    "register": "registered",
    "reserve": "reserved",
    "publish": "published",
    "store": "stored",
    "put": "stored",
    "send": "sent",
    "post": "posted",
    "file": "filed",
    "report": "reported",
    "order": "ordered",
    "buy": "ordered",
    "purchase": "ordered",
    "subscribe": "subscribed",
    "request": "requested",
}
_CLOCK_WORDS = {"time", "date", "datetime", "now", "clock", "timestamp", "today"}
#: the other words a clock tool's name may hold (``get_current_time``, ``what_time_is_it``)
_CLOCK_NAME = _CLOCK_WORDS | {"get", "current", "local", "utc", "system", "server", "what", "is", "it", "the"}
_WEATHER_WORDS = {"weather", "forecast"}
_KV_LIST_NOUNS = {"key", "value", "entry", "item", "memory", "setting", "variable", "var", "secret", "config"}
_ZONE_ARGS = ("timezone", "time_zone", "tz", "zone", "timezone_name")
_PLACE_ARGS = ("city", "location", "place", "q", "query", "address", "region", "country")


def _tokens(name: str) -> list[str]:
    out, word = [], ""
    for ch in name:
        if ch.isupper() and word and not word[-1].isupper():
            out.append(word.lower())
            word = ch
        elif ch.isalnum():
            word += ch
        else:
            if word:
                out.append(word.lower())
            word = ""
    if word:
        out.append(word.lower())
    return out


def _props(tool: dict[str, Any] | None) -> dict[str, Any]:
    schema = (tool or {}).get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _pick(options: tuple[Any, ...], *parts: Any) -> Any:
    return options[int(_digest(*parts)[:8], 16) % len(options)]


def _now(world: dict[str, Any]) -> datetime:
    return CLOCK_START + timedelta(seconds=int(world.get("calls", 0)))


def _stamp(world: dict[str, Any]) -> str:
    return _now(world).strftime("%Y-%m-%dT%H:%M:%SZ")


def _result(data: Any, metadata: dict[str, Any], is_error: bool = False) -> OfflineResult:
    text = data if isinstance(data, str) else dumps_indented(data, ensure_ascii=False, default=str)
    return OfflineResult(text=text, is_error=is_error, metadata=metadata)


# -- clock ------------------------------------------------------------------------------------------


def _clock(world: dict[str, Any], args: dict[str, Any], name: str) -> OfflineResult:
    key = next((args[k] for k in _ZONE_ARGS if isinstance(args.get(k), str) and args[k].strip()), "UTC")
    meta = {"offline_family": "typed", "offline_operation": "clock"}
    try:
        zone = ZoneInfo(key.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return _result(f"Error executing tool {name}: Invalid timezone: {key}", meta, is_error=True)
    moment = _now(world).astimezone(zone)
    return _result(
        {
            "timezone": key.strip(),
            "datetime": moment.isoformat(timespec="seconds"),
            "date": moment.date().isoformat(),
            "time": moment.strftime("%H:%M:%S"),
            "day_of_week": moment.strftime("%A"),
            "is_dst": bool(moment.dst()),
        },
        meta,
    )


# -- weather ----------------------------------------------------------------------------------------


def _weather(args: dict[str, Any]) -> dict[str, Any]:
    place = next((args[k] for k in _PLACE_ARGS if isinstance(args.get(k), str) and args[k].strip()), "")
    seed = int(_digest("weather", place.lower())[:8], 16)
    celsius = round(-5 + (seed % 300) / 10, 1)
    units = str(args.get("units") or args.get("unit") or "").lower()
    out: dict[str, Any] = {"location": place or "unknown"}
    if units in ("imperial", "fahrenheit", "f"):
        out["temperature_f"] = round(celsius * 9 / 5 + 32, 1)
    else:
        out["temperature_c"] = celsius
    out["conditions"] = _pick(("clear", "partly cloudy", "overcast", "light rain", "showers", "fog"), seed)
    out["humidity_percent"] = 35 + seed % 55
    out["wind_kph"] = round((seed >> 8) % 300 / 10, 1)
    return out


# -- made-up records of read-only kinds --------------------------------------------------------

_NAMES = ("Ana Silva", "Ben Okafor", "Chen Wei", "Dana Levi", "Emil Novak", "Farah Khan")
_SUBJECTS = ("parser", "cache", "README", "login flow", "CI config", "date handling", "API client")
_VERBS_DONE = ("Fix", "Add", "Update", "Refactor", "Remove", "Document")


def _person(seed: str, n: int) -> tuple[str, str]:
    name = _pick(_NAMES, seed, n)
    return name, name.split()[0].lower() + "@example.com"


def _made_up(noun: str, n: int, seed: str, when: datetime) -> dict[str, Any] | None:
    """Record ``n`` of a read-only kind of thing, or None for a kind this module does not know."""
    who, email = _person(seed, n)
    day = (when - timedelta(days=n, hours=3 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if noun == "commit":
        message = f"{_pick(_VERBS_DONE, seed, n, 'v')} {_pick(_SUBJECTS, seed, n, 's')}"
        return {
            "sha": _digest(seed, "commit", n)[:40],
            "message": message,
            "author": who,
            "email": email,
            "date": day,
        }
    if noun == "branch":
        return {
            "name": ("main", "develop", "feature/search", "fix/login")[n % 4],
            "commit_sha": _digest(seed, n)[:40],
        }
    if noun in ("user", "member", "contact", "employee", "customer"):
        return {"id": n + 1, "name": who, "email": email}
    if noun in ("repo", "repository", "project"):
        slug = ("web-app", "data-pipeline", "docs", "cli-tools")[n % 4]
        return {"name": slug, "full_name": f"acme/{slug}", "description": f"The {slug.replace('-', ' ')}"}
    if noun in ("product", "item"):
        label = ("Desk lamp", "Notebook", "Water bottle", "USB-C cable", "Backpack")[n % 5]
        return {
            "id": f"prod_{n + 1}",
            "name": label,
            "price": round(5 + (n * 7.25) % 60, 2),
            "currency": "USD",
        }
    if noun in ("tag", "label"):
        return {"name": ("bug", "enhancement", "documentation", "question")[n % 4]}
    if noun == "channel":
        return {"id": f"C0{n + 1:04d}", "name": ("general", "random", "engineering", "support")[n % 4]}
    if noun in ("notification", "alert"):
        return {
            "id": n + 1,
            "title": f"{_pick(_VERBS_DONE, seed, n)} {_pick(_SUBJECTS, seed, n)}",
            "date": day,
        }
    return None


_MADE_UP_KINDS = {
    "commit",
    "branch",
    "user",
    "member",
    "contact",
    "employee",
    "customer",
    "repo",
    "repository",
    "project",
    "product",
    "item",
    "tag",
    "label",
    "channel",
    "notification",
    "alert",
}


def _referenced(world: dict[str, Any], resource: str, noun: str) -> bool:
    """Whether records of other kinds name this kind (``customer_id`` on an invoice): then the
    ledger knows of such records, and made-up ones would contradict them."""
    for other, bucket in world.get("resources", {}).items():
        if other == resource:
            continue
        for record in bucket.get("items", {}).values():
            if any(k == noun or k.startswith(noun + "_") for k in record):
                return True
    return False


def kind_is_list(name: str) -> bool:
    return classify_tool(name)[0] == "list"


def _creates(tools: dict[str, dict[str, Any]] | None, resource: str) -> bool:
    for other in (tools or {}).values():
        kind, noun = record_kind(other)
        action = _action(other)
        if (kind == "create" and noun == resource) or (action and action[1] == resource):
            return True
    return False


def _seeded_list(
    world: dict[str, Any],
    name: str,
    args: dict[str, Any],
    tool: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]] | None,
    resource: str,
) -> OfflineResult | None:
    noun = resource.split("_")[-1]
    if noun not in _MADE_UP_KINDS or _creates(tools, resource) or _referenced(world, resource, noun):
        return None
    bucket = bucket_for(world, resource, tool, tools, record_kind)
    field = bucket["id_field"]
    # the call's filters (``repo``) are what the made-up records belong to; paging is not
    scope = {
        k: v
        for k, v in sorted(args.items())
        if isinstance(v, (str, int)) and not isinstance(v, bool) and k not in _PAGING and k != field
    }
    if kind_is_list(name) and not any(
        all(i.get(k) == v for k, v in scope.items()) for i in bucket["items"].values()
    ):
        seed = f"{resource}:{json.dumps(scope)}"
        for n in range(3):
            record = _made_up(noun, n, seed, CLOCK_START)
            if record is None:
                return None
            record.update(scope)
            ident = record.get(field, record.get("sha", record.get("name")))
            if field not in record:
                record = {field: ident, **record}
            bucket["items"][str(ident)] = record
    return None  # the ledger lists (and gets) them from here on


# -- action verbs -----------------------------------------------------------------------------------


def _action(tool: dict[str, Any]) -> tuple[str, str] | None:
    """``(verb, resource)`` of a tool named by an action verb the ledger does not know."""
    name = str(tool.get("name") or "")
    if classify_tool(name)[0] is not None:
        return None
    tokens = _tokens(name)
    if not tokens or tokens[0] not in ACTION_VERBS or len(tokens) < 2:
        return None
    noun = [t for t in tokens[1:] if t not in ("a", "an", "the", "new", "my")]
    for i, t in enumerate(noun):
        if t in ("to", "for", "in", "on", "with", "by") and i > 0:
            noun = noun[:i]
            break
    if not noun:
        return None
    return tokens[0], "_".join([*noun[:-1], singular_of(noun[-1])])


def action_kind(tool: dict[str, Any]) -> tuple[str | None, str | None]:
    found = _action(tool)
    return ("create", found[1]) if found else record_kind(tool)


def _act(
    world: dict[str, Any],
    name: str,
    args: dict[str, Any],
    tool: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]] | None,
    verb: str,
    resource: str,
) -> OfflineResult:
    meta = {"offline_family": "typed", "offline_operation": "create", "offline_kind": "create"}
    meta["offline_resource"] = resource
    outcome = apply(world, name, args, tool, tools, "create", resource, action_kind)
    if outcome.error or outcome.item_key is None:
        return _result(outcome.error or f"Error: {name} failed", meta, is_error=True)
    bucket = world["resources"][resource]
    stored = bucket["items"][outcome.item_key]
    stamp_key = f"{ACTION_VERBS[verb]}_at" if verb not in ("put", "store") else "stored_at"
    stored.setdefault("created_at", _stamp(world))
    field = bucket["id_field"]
    ident = stored[field]
    ack: dict[str, Any] = {"status": ACTION_VERBS[verb], field: ident}
    noun = resource.split("_")[-1]
    if field == "id":
        ack[f"{noun}_id"] = ident
    ack.update(
        {k: preview(copy.deepcopy(v)) for k, v in stored.items() if k not in ack and k != "created_at"}
    )
    ack[stamp_key] = stored["created_at"]
    return _result(ack, meta)


def _untyped(tool: dict[str, Any]) -> bool:
    out = tool.get("outputSchema")
    return not (isinstance(out, dict) and out) and family_of(tool)[0] in ("ledger", "records")


def filed_action(tool: dict[str, Any]) -> str | None:
    """The resource a call of ``tool`` creates a record of here (``write_note``: ``note``)."""
    found = _action(tool) if _untyped(tool) else None
    return found[1] if found else None


def typed_fields(tool: dict[str, Any], kind: str, resource: str) -> set[str]:
    """The fields this module puts on ``resource`` records for calls of ``tool`` (so that readers
    of a session's state, such as ``sql`` rewards, know them before any call)."""
    if not _untyped(tool):
        return set()
    if kind == "create" and filed_action(tool) == resource:
        return {"created_at"}
    noun = resource.split("_")[-1]
    if kind in ("list", "get") and noun in _MADE_UP_KINDS:
        record = _made_up(noun, 0, "", CLOCK_START) or {}
        return set(record) | {p for p in _props(tool) if p not in _PAGING}
    return set()


# -- the hook -----------------------------------------------------------------------------------


def _kv_tools(tools: dict[str, dict[str, Any]] | None) -> bool:
    return any(family_of(t)[0] == "kv" for t in (tools or {}).values())


def typed_answer(
    world: dict[str, Any],
    name: str,
    args: dict[str, Any],
    tool: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]] | None,
    context: dict[str, Any],
) -> OfflineResult | None:
    """A typed answer for an ad-hoc tool, or None to let the families answer it."""
    definition = tool or {"name": name}
    if isinstance(definition.get("outputSchema"), dict) and definition["outputSchema"]:
        return None
    family, _ = family_of(definition)
    if family not in ("ledger", "records", "kv"):
        return None
    words = set(_tokens(name))
    kind, resource, _ = classify_tool(name)
    if words & _CLOCK_WORDS and words <= _CLOCK_NAME:
        return _clock(world, args, name)
    if words & _WEATHER_WORDS and kind in (None, "get"):
        return _result(_weather(args), {"offline_family": "typed", "offline_operation": "weather"})
    action = _action(definition)
    if action is not None and family != "kv":
        return _act(world, name, args, tool, tools, *action)
    if kind == "list" and family != "kv" and _kv_tools(tools):
        noun = resource.split("_")[-1] if resource else None
        if noun is None or noun in _KV_LIST_NOUNS:
            outcome = apply_record(world, name, args, tool, tools, "kv", context)
            return _result(outcome.data, {"offline_family": "kv", "offline_operation": "list"})
    if kind in ("list", "get") and resource and family == "records":
        return _seeded_list(world, name, args, tool, tools, resource)
    return None
