"""Search queries over records: free words plus ``field:value`` terms, as Gmail and GitHub write them.

``from:ana subject:"budget review" is:unread invoice`` keeps the records whose sender contains
``ana``, whose subject contains ``budget review``, that are unread, and that mention ``invoice``
somewhere. A ``field:value`` term whose field no record has is ignored rather than matching
nothing (``repo:acme/api`` on records that carry ``owner`` and ``repo`` apart still works).

>>> mails = [{"to": ["bo@x.org"], "subject": "Budget", "label_ids": ["SENT"]}]
>>> len(search(mails, "to:bo@x.org in:sent budget")), len(search(mails, "is:unread"))
(1, 0)
"""

from __future__ import annotations

import json
import re
import shlex
from datetime import datetime, timezone
from typing import Any

#: what a query key may be called in a record
_KEY_FIELDS: dict[str, tuple[str, ...]] = {
    "from": ("from", "sender", "from_address", "author"),
    "to": ("to", "recipients", "recipient", "to_address"),
    "cc": ("cc",),
    "bcc": ("bcc",),
    "subject": ("subject", "title", "summary"),
    "label": ("labels", "label_ids", "labelids", "label", "tags"),
    "in": ("label_ids", "labels", "folder", "mailbox"),
    "author": ("author", "user", "creator", "from"),
    "assignee": ("assignees", "assignee"),
    "title": ("title", "subject", "summary", "name"),
    "body": ("body", "text", "content", "description"),
    "state": ("state", "status"),
    "status": ("status", "state"),
}
_DATE_FIELDS = ("date", "sent_at", "created_at", "start", "created", "timestamp", "received_at")


def _text(value: Any) -> str:
    return (
        json.dumps(value, ensure_ascii=False, default=str).lower()
        if not isinstance(value, str)
        else value.lower()
    )


def _field(item: dict[str, Any], names: tuple[str, ...]) -> tuple[bool, Any]:
    lowered = {k.lower().replace("-", "_"): v for k, v in item.items()}
    for name in names:
        if name in lowered:
            return True, lowered[name]
    return False, None


def _when(value: Any) -> datetime | None:
    if isinstance(value, dict):
        value = value.get("dateTime") or value.get("date_time") or value.get("date")
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace("/", "-").replace("Z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def when_of(item: dict[str, Any], names: tuple[str, ...] = _DATE_FIELDS) -> datetime | None:
    """The first date among ``names`` in ``item`` (ISO strings, or ``{"dateTime": ...}``)."""
    for name in names:
        if name in item:
            found = _when(item[name])
            if found is not None:
                return found
    return None


def _term(items: list[dict[str, Any]], key: str, value: str) -> list[dict[str, Any]] | None:
    """The items a ``key:value`` term keeps; None when no item has a field for the key."""
    value_l = value.lower()
    if key == "is":
        flags = {
            "unread": lambda it: _flag(it, ("unread", "is_unread"), "UNREAD"),
            "read": lambda it: not _flag(it, ("unread", "is_unread"), "UNREAD"),
            "starred": lambda it: _flag(it, ("starred", "is_starred"), "STARRED"),
            "important": lambda it: _flag(it, ("important",), "IMPORTANT"),
            "open": lambda it: str(_field(it, ("state", "status"))[1]).lower() in ("open", "none"),
            "closed": lambda it: str(_field(it, ("state", "status"))[1]).lower() == "closed",
        }
        test = flags.get(value_l)
        return [it for it in items if test(it)] if test else None
    if key in ("after", "before", "since", "until"):
        limit = _when(value)
        if limit is None:
            return None
        later = key in ("after", "since")
        return [
            it for it in items if (w := when_of(it)) is not None and ((w >= limit) if later else (w < limit))
        ]
    if key == "repo" and "/" in value:
        owner, _, repo = value.partition("/")
        if any("owner" in it or "repo" in it for it in items):
            return [
                it
                for it in items
                if str(it.get("owner", owner)).lower() == owner.lower()
                and str(it.get("repo", repo)).lower() in (repo.lower(), value_l)
            ]
    names = _KEY_FIELDS.get(key, (key,))
    if not any(_field(it, names)[0] for it in items):
        return None
    return [it for it in items if value_l in _text(_field(it, names)[1])]


def _flag(item: dict[str, Any], names: tuple[str, ...], label: str) -> bool:
    found, value = _field(item, names)
    if found:
        return bool(value)
    labels = _field(item, ("label_ids", "labels", "labelids"))[1]
    return isinstance(labels, list) and label in [str(x).upper() for x in labels]


def search(items: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """The items that match every term of ``query``."""
    try:
        terms = shlex.split(query)
    except ValueError:
        terms = query.split()
    kept = list(items)
    for term in terms[:50]:
        match = re.fullmatch(r"(-?)([A-Za-z_]+):(.+)", term)
        if match:
            negate, key, value = match.group(1) == "-", match.group(2).lower(), match.group(3)
            found = _term(kept, key, value)
            if found is None:
                continue
            kept = [it for it in kept if (it in found) != negate]
            continue
        word = term.lower()
        kept = [it for it in kept if word in _text(it)]
    return kept


def in_window(items: list[dict[str, Any]], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Events that overlap the window of ``time_min``/``time_max`` (or ``start``/``end``-style) args."""
    low = next(
        (
            _when(args[k])
            for k in ("time_min", "timeMin", "start_after", "from", "after", "start_date")
            if k in args
        ),
        None,
    )
    high = next(
        (
            _when(args[k])
            for k in ("time_max", "timeMax", "end_before", "until", "before", "end_date")
            if k in args
        ),
        None,
    )
    if low is None and high is None:
        return items
    kept = []
    for item in items:
        start = when_of(item, ("start", "start_time", "starts_at", "date"))
        end = when_of(item, ("end", "end_time", "ends_at")) or start
        if start is None:
            kept.append(item)
            continue
        if (high is None or start < high) and (low is None or (end or start) > low or start >= low):
            kept.append(item)
    return kept
