"""Record facts (issues, tickets, notes, contacts, ...): ``facts["records"][resource][id]`` is
``[fields, turn, source]``, ``fields`` a dict of the values an earlier turn fixed, or None (the
record is known to be deleted).

Values the world generates (timestamps, URLs, etags) are never compared.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .core import Contradiction

#: fields whose values the server generates: never checked
_GENERATED = re.compile(r"(_at|_on|date|time|timestamp|updated|created|etag|url|uri|href|node_id)$", re.I)
#: arguments that locate or page a list rather than filter it
_NOT_FILTERS = {
    "owner",
    "repo",
    "repository",
    "project",
    "page",
    "per_page",
    "perpage",
    "limit",
    "offset",
    "cursor",
    "sort",
    "order",
    "direction",
    "max_results",
    "page_size",
    "pagesize",
}
#: arguments that locate a record (never fields of it)
_LOCATORS = {"owner", "repo", "repository", "project"}


def table(facts: dict[str, Any], resource: str) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = facts.setdefault("records", {}).setdefault(resource, {})
    return found


def id_argument(args: dict[str, Any], resource: str) -> str | None:
    """The id a get/update/delete call names, as text."""
    last = resource.split("_")[-1] if resource else ""
    for key in (f"{last}_number", f"{last}_id", f"{resource}_id", "number", "id", "issue_number", "key"):
        value = args.get(key)
        if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def record_id(record: dict[str, Any], resource: str) -> str | None:
    last = resource.split("_")[-1] if resource else ""
    for key in ("number", "id", f"{last}_id", f"{last}_number", "key"):
        value = record.get(key)
        if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def fields_of(args: dict[str, Any], resource: str) -> dict[str, Any]:
    """The fields a create/update call sets: its arguments less locators and ids."""
    skip = set(_LOCATORS) | {"id", "number", f"{resource}_id", f"{resource.split('_')[-1]}_number"}
    return {k: v for k, v in args.items() if k not in skip and not _GENERATED.search(k)}


def parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
        if start < 0:
            return None
        try:
            return json.loads(text[start:])
        except ValueError:
            return None


def items_of(data: Any) -> list[dict[str, Any]] | None:
    """The records a list answer holds: a JSON list, or the first list of objects in an object."""
    if isinstance(data, list):
        return [item for item in data if isinstance(item, dict)]
    if isinstance(data, dict):
        for value in data.values():
            if isinstance(value, list) and all(isinstance(v, dict) for v in value):
                return value
    return None


def _same(expected: Any, observed: Any) -> bool:
    if isinstance(expected, (list, dict)) or isinstance(observed, (list, dict)):
        names = _label_names(observed)
        if names is not None and isinstance(expected, list):
            return sorted(map(str, expected)) == sorted(names)
        return json.dumps(expected, sort_keys=True, default=str) == json.dumps(
            observed, sort_keys=True, default=str
        )
    return str(expected).strip().casefold() == str(observed).strip().casefold()


def _label_names(value: Any) -> list[str] | None:
    """``[{"name": "bug"}, ...]`` -> ``["bug"]``: labels are shown as objects, set as names."""
    if isinstance(value, list) and all(isinstance(v, dict) and "name" in v for v in value):
        return [str(v["name"]) for v in value]
    return None


def check_record(
    facts: dict[str, Any], resource: str, rid: str, record: dict[str, Any]
) -> list[Contradiction]:
    fact = table(facts, resource).get(rid)
    if fact is None:
        return []
    fields, turn, source = fact
    subject = f"{resource} {rid}"
    if fields is None:
        return [Contradiction("absence", subject, "deleted", "shown", turn, source)]
    found = []
    for key, value in fields.items():
        if key in record and not _same(value, record[key]):
            found.append(Contradiction("field", f"{subject} {key}", value, record[key], turn, source))
    return found


def learn_record(facts: dict[str, Any], resource: str, rid: str, record: dict[str, Any], turn: int) -> None:
    bucket = table(facts, resource)
    fact = bucket.get(rid)
    if fact is not None and fact[0] is None:
        return
    facts.setdefault("shown", {}).setdefault(resource, {})[rid] = record  # as last shown, whole
    # scalars only: lists (labels, assignees) are compared where the agent set them
    fields = {
        k: v for k, v in record.items() if not _GENERATED.search(k) and isinstance(v, (str, int, float, bool))
    }
    if fact is None:
        bucket[rid] = [fields, turn, "model"]
    else:
        bucket[rid] = [{**fields, **fact[0]}, fact[1], fact[2]]


def is_filtered(args: dict[str, Any]) -> bool:
    return any(k not in _NOT_FILTERS and k != "state" and v not in (None, "", []) for k, v in args.items())


def limit_of(args: dict[str, Any]) -> int | None:
    for key in ("per_page", "limit", "max_results", "page_size", "perPage", "pageSize"):
        value = args.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def check_list(
    facts: dict[str, Any], resource: str, args: dict[str, Any], items: list[dict[str, Any]]
) -> list[Contradiction]:
    found: list[Contradiction] = []
    seen: dict[str, int] = {}
    for item in items:
        rid = record_id(item, resource)
        if rid is None:
            continue
        seen[rid] = seen.get(rid, 0) + 1
        found.extend(check_record(facts, resource, rid, item))
    for rid, count in seen.items():
        if count > 1:
            fact = table(facts, resource).get(rid)
            turn, source = (fact[1], fact[2]) if fact else (0, "model")
            found.append(
                Contradiction(
                    "duplicate-id", f"{resource} {rid}", "one record", f"{count} records", turn, source
                )
            )
    limit = limit_of(args)
    if (
        is_filtered(args)
        or (limit is not None and len(items) >= limit)
        or args.get("page", 1) not in (1, "1")
    ):
        return found
    wanted_state = str(args.get("state") or "open").lower()
    for rid, (fields, turn, source) in sorted(table(facts, resource).items()):
        if fields is None or rid in seen or source != "agent":
            continue
        state = str(fields.get("state") or "open").lower()
        if wanted_state != "all" and "state" in fields and state != wanted_state:
            continue
        found.append(
            Contradiction("presence", f"{resource} {rid}", "listed", "missing from the list", turn, source)
        )
    return found


def fixed_list(facts: dict[str, Any], resource: str, args: dict[str, Any], data: Any) -> Any:
    """``data`` (a list answer) with deleted and repeated records dropped, known fields put back
    and missing records added (with the fields the world knows)."""
    items = items_of(data)
    if items is None:
        return data
    known = table(facts, resource)
    kept: list[dict[str, Any]] = []
    seen = set()
    for item in items:
        rid = record_id(item, resource)
        fact = known.get(rid) if rid is not None else None
        if rid is not None and (rid in seen or (fact is not None and fact[0] is None)):
            continue
        if rid is not None:
            seen.add(rid)
        kept.append(fixed_record(facts, resource, rid, item) if rid is not None else item)
    problems = check_list(facts, resource, args, kept)
    for problem in problems:
        if problem.kind == "presence":
            rid = problem.subject.rsplit(" ", 1)[-1]
            fields = known[rid][0] or {}
            kept.append(
                {"number" if "number" in (items[0] if items else {}) else "id": _as_id(rid), **fields}
            )
    if isinstance(data, list):
        return kept
    out = dict(data)
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = kept
            break
    return out


def fixed_record(facts: dict[str, Any], resource: str, rid: str, record: dict[str, Any]) -> dict[str, Any]:
    fact = table(facts, resource).get(rid)
    if fact is None or fact[0] is None:
        return record
    fixed = dict(record)
    for key, value in fact[0].items():
        if key in fixed and not _same(value, fixed[key]):
            names = _label_names(fixed[key])
            fixed[key] = (
                [{"name": v} for v in value] if names is not None and isinstance(value, list) else value
            )
    return fixed


def _as_id(rid: str) -> Any:
    return int(rid) if rid.isdigit() else rid
