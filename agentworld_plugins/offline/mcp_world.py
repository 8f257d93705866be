"""The offline MCP world: tool calls answered deterministically, without a model.

A session keeps a small ledger in its ``state`` so that CRUD-style tools stay consistent: what
``create_issue`` made, ``get_issue`` returns, ``list_issues`` lists, ``update_issue`` changes and
``delete_issue`` removes. Tools are classified by the verb and noun in their name. Results obey
the tool's ``outputSchema`` when it has one: ledger data is laid over values generated with jsf
(seeded from the call, so the same calls give the same answers), then checked with jsonschema and
repaired until they validate. Argument errors read like FastMCP's pydantic errors.

>>> state: dict = {}
>>> tools = [{"name": "create_note", "inputSchema": {"type": "object",
...           "properties": {"text": {"type": "string"}}, "required": ["text"]}}]
>>> print(mcp_step(state, "create_note", {"text": "hi"}, {"tools": tools}).text)
{
  "id": 1,
  "text": "hi"
}
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import re
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from ..domains.base import OfflineResult
from ..tool_arguments import argument_checker, check_arguments

__all__ = ["STATE_KEY", "check_arguments", "classify_tool", "mcp_step"]

#: the key of this world's ledger inside a session's ``state``
STATE_KEY = "mcp_world"

_VERBS: dict[str, tuple[str, ...]] = {
    "create": ("create", "add", "new", "insert", "post", "make", "upload"),
    "get": ("get", "read", "fetch", "show", "describe", "view"),
    "list": ("list", "search", "find", "query"),
    "update": ("update", "edit", "set", "modify", "patch", "rename"),
    "delete": ("delete", "remove", "drop", "archive", "close"),
}
_VERB_KIND = {verb: kind for kind, verbs in _VERBS.items() for verb in verbs}
#: verbs of the delete class that keep the item and mark it instead
_SOFT_DELETE = {"archive": "archived", "close": "closed"}
_NOUN_STOP = {"by", "for", "with", "from", "in", "on", "of", "to", "using"}
_NOUN_FILLER = {"all", "my", "the", "a", "an", "new", "details", "detail", "info", "many", "one"}
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
_COUNT_NAMES = {"total", "count", "total_count", "totalcount", "total_results", "totalresults", "num_results"}
_LIST_SLOTS = ("items", "results", "data", "records", "entries", "list", "values", "rows", "objects")
_ITEM_SLOTS = ("item", "data", "result", "record", "object", "resource", "entity")
_FRESH_STATES = ("open", "active", "new", "pending", "todo", "draft", "created", "enabled")

_MAX_DEPTH = 8
_LIST_LEN = 3

# -- tool names -----------------------------------------------------------------------------------


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("ses") and not word.endswith("uses"):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def classify_tool(name: str) -> tuple[str | None, str | None, bool]:
    """``(kind, resource, plural)`` of a tool name: ``list_issues`` -> ``("list", "issue", True)``.

    ``kind`` is create/get/list/update/delete (None when no known verb is in the name) and
    ``resource`` the singular noun after the verb (before it when the verb comes last).
    """
    tokens = _tokens(name)
    index = next((i for i, t in enumerate(tokens) if t in _VERB_KIND), None)
    if index is None:
        return None, None, False
    kind = _VERB_KIND[tokens[index]]
    noun = tokens[index + 1 :] or tokens[:index]
    for i, token in enumerate(noun):
        if token in _NOUN_STOP and i > 0:
            noun = noun[:i]
            break
    noun = [t for t in noun if t not in _NOUN_FILLER and t not in _VERB_KIND]
    if not noun:
        return kind, None, False
    singular = _singular(noun[-1])
    plural = singular != noun[-1]
    resource = "_".join([*noun[:-1], singular])
    if kind == "get" and plural:
        kind = "list"
    return kind, resource, plural


def _verb(name: str) -> str:
    return next((t for t in _tokens(name) if t in _VERB_KIND), "")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _is_id_name(prop: str, resource: str) -> bool:
    """Whether an argument or field name identifies an item of ``resource``."""
    n = _norm(prop)
    if n in ("id", "number", "uid", "uuid"):
        return True
    heads = {_norm(resource), _norm(resource.split("_")[-1])}
    return any(n in (h + "id", h + "number", h + "uuid", h + "key") for h in heads)


# -- small deterministic value makers (``rnd`` is a random.Random or the random module) ---------

_FIRST = ("Ada", "Liam", "Mei", "Omar", "Sofia", "Jonas", "Priya", "Mateo", "Hana", "Noah", "Lena", "Kofi")
_LAST = ("Lovelace", "Okafor", "Tanaka", "Haddad", "Rossi", "Berg", "Sharma", "Alvarez", "Kim", "Novak")
_WORDS = (
    "update",
    "config",
    "release",
    "report",
    "server",
    "build",
    "deploy",
    "review",
    "schedule",
    "draft",
    "customer",
    "invoice",
    "dashboard",
    "login",
    "search",
    "cache",
    "backup",
    "migration",
    "timeout",
    "budget",
    "meeting",
    "roadmap",
    "feature",
    "request",
    "design",
    "docs",
    "test",
    "pipeline",
    "account",
    "order",
)
_NAMES = (
    "Atlas",
    "Harbor",
    "Juniper",
    "Beacon",
    "Summit",
    "Orchid",
    "Granite",
    "Meridian",
    "Falcon",
    "Willow",
)
_TAGS = ("bug", "enhancement", "docs", "urgent", "backend", "frontend", "question", "security")
_STATUS = ("active", "open", "pending", "completed")
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)
_SPAN_SECONDS = 730 * 86400


def _when(rnd: Any) -> datetime:
    return _EPOCH + timedelta(seconds=rnd.randint(0, _SPAN_SECONDS))


def _sentence(rnd: Any, low: int, high: int, period: bool = True) -> str:
    words = [rnd.choice(_WORDS) for _ in range(rnd.randint(low, high))]
    text = " ".join(words).capitalize()
    return text + "." if period else text


def _person(rnd: Any) -> tuple[str, str]:
    return rnd.choice(_FIRST), rnd.choice(_LAST)


def _hex(rnd: Any, n: int) -> str:
    return "".join(rnd.choice("0123456789abcdef") for _ in range(n))


def _uuid(rnd: Any) -> str:
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


_FORMATS: dict[str, Callable[[Any], str]] = {
    "date-time": lambda r: _when(r).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "date": lambda r: _when(r).strftime("%Y-%m-%d"),
    "time": lambda r: _when(r).strftime("%H:%M:%SZ"),
    "duration": lambda r: f"P{r.randint(1, 30)}DT{r.randint(0, 23)}H",
    "email": lambda r: "{}.{}@example.com".format(*_person(r)).lower(),
    "idn-email": lambda r: "{}.{}@example.com".format(*_person(r)).lower(),
    "hostname": lambda r: f"{r.choice(_NAMES).lower()}.example.com",
    "idn-hostname": lambda r: f"{r.choice(_NAMES).lower()}.example.com",
    "ipv4": lambda r: f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
    "ipv6": lambda r: f"2001:db8::{_hex(r, 4)}:{_hex(r, 4)}",
    "uri": lambda r: f"https://example.com/{r.choice(_WORDS)}/{r.randint(1, 999)}",
    "iri": lambda r: f"https://example.com/{r.choice(_WORDS)}/{r.randint(1, 999)}",
    "url": lambda r: f"https://example.com/{r.choice(_WORDS)}/{r.randint(1, 999)}",
    "uri-reference": lambda r: f"/{r.choice(_WORDS)}/{r.randint(1, 999)}",
    "iri-reference": lambda r: f"/{r.choice(_WORDS)}/{r.randint(1, 999)}",
    "uri-template": lambda r: f"https://example.com/{r.choice(_WORDS)}/{{id}}",
    "uuid": _uuid,
    "json-pointer": lambda r: f"/{r.choice(_WORDS)}/{r.randint(0, 9)}",
    "relative-json-pointer": lambda r: f"{r.randint(0, 3)}/{r.choice(_WORDS)}",
    "regex": lambda r: "^[a-z]+$",
    "byte": lambda r: "c2FtcGxl",
    "binary": lambda r: _hex(r, 16),
    "password": lambda r: "********",
}


def _named_string(name: str, rnd: Any) -> str:
    n = name.lower()
    tail = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())[-1]
    if "email" in n or tail == "mail":
        return _FORMATS["email"](rnd)
    if any(k in n for k in ("url", "uri", "link", "href", "website", "homepage")):
        return _FORMATS["uri"](rnd)
    if n.endswith(("_at", "date", "time", "timestamp")) or n in ("created", "updated", "modified"):
        return _FORMATS["date-time"](rnd)
    if tail in ("uuid", "guid"):
        return _uuid(rnd)
    if tail == "id" or n == "id":
        return f"{tail if tail != 'id' else 'id'}_{_hex(rnd, 8)}"
    if tail in ("username", "login", "handle", "user", "owner", "assignee", "creator", "reporter"):
        first, last = _person(rnd)
        return (first + last[0]).lower()
    if "first" in n and "name" in n:
        return _person(rnd)[0]
    if ("last" in n or "sur" in n) and "name" in n:
        return _person(rnd)[1]
    if n in ("author", "full_name", "fullname", "display_name", "displayname", "contact", "customer"):
        return "{} {}".format(*_person(rnd))
    if tail == "name":
        return f"{rnd.choice(_NAMES)} {rnd.choice(_WORDS).capitalize()}"
    if tail in ("title", "subject", "summary", "headline", "caption"):
        return _sentence(rnd, 3, 6, period=False)
    if tail in ("description", "body", "content", "text", "message", "comment", "note", "notes", "reason"):
        return _sentence(rnd, 8, 16)
    if tail in ("label", "labels", "tag", "tags", "category", "topic", "keyword"):
        return rnd.choice(_TAGS)
    if tail in ("status", "state"):
        return rnd.choice(_STATUS)
    if "phone" in n:
        return f"+1-555-{rnd.randint(100, 999)}-{rnd.randint(1000, 9999)}"
    if tail in ("sha", "hash", "digest", "commit"):
        return _hex(rnd, 40)
    if tail in ("token", "secret", "key"):
        return _hex(rnd, 32)
    if tail in ("path", "file", "filename"):
        return f"src/{rnd.choice(_WORDS)}_{rnd.randint(1, 99)}.py"
    if tail == "version":
        return f"{rnd.randint(0, 4)}.{rnd.randint(0, 20)}.{rnd.randint(0, 9)}"
    if tail in ("currency",):
        return rnd.choice(("USD", "EUR", "GBP", "JPY"))
    if tail in ("language", "lang", "locale"):
        return rnd.choice(("en", "de", "fr", "ja"))
    if tail in ("color", "colour"):
        return "#" + _hex(rnd, 6)
    if tail == "city":
        return rnd.choice(("Lisbon", "Osaka", "Toronto", "Nairobi", "Berlin"))
    if tail == "country":
        return rnd.choice(("Portugal", "Japan", "Canada", "Kenya", "Germany"))
    return " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(1, 3)))


def _xeger(pattern: str, rnd: Any) -> str | None:
    try:
        import rstr

        return str(rstr.Rstr(rnd).xeger(pattern))
    except Exception:
        return None


def _fit_length(text: str, schema: dict[str, Any], rnd: Any) -> str:
    low = schema.get("minLength")
    high = schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        while len(text) < low:
            text = (text + " " + rnd.choice(_WORDS)).strip()
    if isinstance(high, int) and high >= 0 and len(text) > high:
        text = text[:high].rstrip() if high > 0 else ""
        if isinstance(low, int) and len(text) < low:
            text = text + "x" * (low - len(text))
    return text


def _string_value(name: str, schema: dict[str, Any], rnd: Any) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        made = _xeger(pattern, rnd)
        if made is not None:
            return made
    text = _FORMATS[fmt](rnd) if isinstance(fmt, str) and fmt in _FORMATS else _named_string(name, rnd)
    return _fit_length(text, schema, rnd)


def _number_range(name: str, kind: str) -> tuple[float, float]:
    n = name.lower()
    tail = re.split(r"[^a-z0-9]+", n)[-1]
    if tail in ("id", "number") or n.endswith("id"):
        return 1, 5000
    if any(k in n for k in ("count", "total", "size", "num", "quantity", "length")):
        return 0, 50
    if "year" in n:
        return 1990, 2026
    if any(k in n for k in ("price", "amount", "cost", "balance", "salary")):
        return 1, 500
    if any(k in n for k in ("percent", "pct", "progress")):
        return 0, 100
    if any(k in n for k in ("rating", "score")):
        return 0, 5 if kind == "number" else 100
    if n in ("lat", "latitude"):
        return -90, 90
    if n in ("lon", "lng", "longitude"):
        return -180, 180
    if "port" in n:
        return 1024, 65535
    if tail == "age":
        return 18, 80
    return 0, 1000


def _number_value(name: str, schema: dict[str, Any], rnd: Any, kind: str) -> int | float:
    integer = kind == "integer"
    step: float = 1 if integer else 0.01
    low_d, high_d = _number_range(name, kind)
    low, high = _number_at(schema, "minimum"), _number_at(schema, "maximum")
    ex_low, ex_high = _number_at(schema, "exclusiveMinimum"), _number_at(schema, "exclusiveMaximum")
    if ex_low is not None:
        low = ex_low + step if low is None else max(low, ex_low + step)
    if ex_high is not None:
        high = ex_high - step if high is None else min(high, ex_high - step)
    if low is None and high is None:
        lo, hi = low_d, high_d
    elif low is None:
        assert high is not None
        lo, hi = (low_d if low_d <= high else high - 100), high
    elif high is None:
        lo, hi = low, (high_d if high_d >= low else low + 100)
    else:
        lo, hi = low, high
    multiple = _number_at(schema, "multipleOf")
    if multiple is not None and multiple > 0:
        first, last = math.ceil(lo / multiple), math.floor(hi / multiple)
        k = rnd.randint(first, last) if first <= last else first
        value = k * multiple
        return int(value) if integer and float(value).is_integer() else value
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        return int(rnd.randint(first, last)) if first <= last else first
    return round(lo + (hi - lo) * rnd.random(), 2)


# -- schemas ------------------------------------------------------------------------------------


def _dict_at(node: Any, key: str) -> dict[str, Any]:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, dict) else {}


def _list_at(node: Any, key: str) -> list[Any]:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, list) else []


def _int_at(node: Any, key: str) -> int | None:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number_at(node: Any, key: str) -> float | None:
    value = node.get(key) if isinstance(node, dict) else None
    return value if _num(value) else None


def _pointer(root: Any, ref: str) -> Any:
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


def _json_type(value: Any) -> str:
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


def _types_of(schema: dict[str, Any]) -> list[str]:
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


def _merge_all_of(node: dict[str, Any], resolve: Callable[[Any], Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    for part in node.get("allOf") or []:
        part = resolve(part)
        if not isinstance(part, dict):
            continue
        if "allOf" in part:
            part = _merge_all_of(part, resolve)
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged.setdefault(key, value)
    return merged


_SCHEMA_CHECKS: OrderedDict[str, bool] = OrderedDict()


class _Schema:
    """One output or input schema with its resolver, validators, generator and repairer."""

    def __init__(self, root: Any, seed: int) -> None:
        self.root = root if isinstance(root, (dict, bool)) else {}
        self.rng = random.Random(seed)
        self.seed = seed
        base = self.root if isinstance(self.root, dict) else {}
        self.cls = validator_for(base, default=jsonschema.Draft202012Validator)
        self.checkable = self._checkable()
        self._defs = {k: base[k] for k in ("$defs", "definitions") if isinstance(base.get(k), dict)}

    def _checkable(self) -> bool:
        key = _canonical(self.root)
        if key not in _SCHEMA_CHECKS:
            try:
                self.cls.check_schema(self.root)
                ok = True
            except Exception:
                ok = False
            _SCHEMA_CHECKS[key] = ok
            if len(_SCHEMA_CHECKS) > 512:
                _SCHEMA_CHECKS.popitem(last=False)
        return _SCHEMA_CHECKS[key]

    # resolution

    def resolve(self, node: Any, depth: int = 0) -> Any:
        """``node`` with a local ``$ref`` followed (sibling keywords kept) and ``allOf`` merged."""
        if not isinstance(node, dict):
            return node
        if "$ref" in node and isinstance(node["$ref"], str) and depth < 16:
            target = _pointer(self.root, node["$ref"]) if node["$ref"].startswith("#") else {}
            target = self.resolve(target, depth + 1)
            if isinstance(target, dict):
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                node = {**target, **siblings}
            else:
                node = target
        if isinstance(node, dict) and "allOf" in node:
            node = _merge_all_of(node, lambda n: self.resolve(n, depth + 1))
        return node

    def valid(self, value: Any, node: Any = None) -> bool:
        if not self.checkable:
            return True
        schema = self.root if node is None else node
        if isinstance(schema, dict) and node is not None and self._defs:
            schema = {**schema, **{k: v for k, v in self._defs.items() if k not in schema}}
        try:
            validator = self.cls(schema, format_checker=self.cls.FORMAT_CHECKER)
            return bool(validator.is_valid(value))
        except Exception:
            return False

    # generation

    def fake(self) -> Any:
        """A value for the whole schema from jsf (seeded); our own generator when jsf fails."""
        value = _jsf_generate(self, self.seed)
        if value is _FAILED:
            value = self.synth(self.root)
        return value

    def synth(self, node: Any, name: str = "", depth: int = 0) -> Any:
        """A value for ``node`` from our own deterministic generator."""
        rnd = self.rng
        node = self.resolve(node)
        if node is True or node is None or node == {}:
            return _named_string(name, rnd)
        if node is False or not isinstance(node, dict):
            return None
        if "const" in node:
            return copy.deepcopy(node["const"])
        if isinstance(node.get("enum"), list) and node["enum"]:
            return copy.deepcopy(rnd.choice(node["enum"]))
        for key in ("anyOf", "oneOf"):
            branches = node.get(key)
            if isinstance(branches, list) and branches:
                siblings = {k: v for k, v in node.items() if k != key}
                usable = [b for b in branches if self.resolve(b) != {"type": "null"}] or branches
                branch = self.resolve(usable[0] if depth > 2 else rnd.choice(usable))
                if isinstance(branch, dict):
                    return self.synth({**siblings, **branch}, name, depth)
                return self.synth(branch, name, depth)
        types = [t for t in _types_of(node) if t != "null"] or _types_of(node) or ["string"]
        kind = types[0]
        if kind == "object":
            props = _dict_at(node, "properties")
            required = [r for r in node.get("required") or [] if isinstance(r, str)]
            out: dict[str, Any] = {}
            for key, sub in props.items():
                if key in required or (depth < 4 and rnd.random() < 0.7):
                    out[key] = self.synth(sub, key, depth + 1)
            for key in required:
                if key not in out:
                    out[key] = self.synth(props.get(key, {}), key, depth + 1)
            return out
        if kind == "array":
            items = node.get("items")
            prefix: list[Any] | None = _list_at(node, "prefixItems") or None
            if isinstance(items, list):
                prefix, items = items, node.get("additionalItems", {})
            low = _int_at(node, "minItems") or 0
            high = _int_at(node, "maxItems")
            count = rnd.randint(1, _LIST_LEN) if depth < 4 else 0
            count = max(low, count if high is None else min(count, high))
            result = [self.synth(p, name, depth + 1) for p in (prefix or [])][:count]
            item_name = _singular(name)
            while len(result) < count:
                result.append(self.synth(items if items is not None else {}, item_name, depth + 1))
            return result
        if kind in ("integer", "number"):
            return _number_value(name, node, rnd, kind)
        if kind == "boolean":
            return rnd.random() < 0.5
        if kind == "null":
            return None
        return _string_value(name, node, rnd)

    # repair

    def repair(self, value: Any, node: Any = None, name: str = "", depth: int = 0) -> Any:
        """``value`` changed as little as we can so that it validates against ``node``."""
        node = self.root if node is None else node
        resolved = self.resolve(node)
        if self.valid(value, node) or depth > _MAX_DEPTH + 4:
            return value
        if resolved is False or not isinstance(resolved, dict):
            return value
        if "const" in resolved:
            return copy.deepcopy(resolved["const"])
        if isinstance(resolved.get("enum"), list) and resolved["enum"]:
            return copy.deepcopy(self.rng.choice(resolved["enum"]))
        for key in ("anyOf", "oneOf"):
            branches = resolved.get(key)
            if isinstance(branches, list) and branches:
                siblings = {k: v for k, v in resolved.items() if k != key}
                order = sorted(
                    range(len(branches)),
                    key=lambda i: 0 if _json_type(value) in _types_of(self.resolve(branches[i])) else 1,
                )
                candidate = value
                for i in order:
                    branch = self.resolve(branches[i])
                    merged = {**siblings, **branch} if isinstance(branch, dict) else branch
                    candidate = self.repair(value, merged, name, depth + 1)
                    if self.valid(candidate, node):
                        return candidate
                return candidate
        types = _types_of(resolved)
        actual = _json_type(value)
        if types and actual not in types and not (actual == "integer" and "number" in types):
            value = self._convert(value, types, resolved, name, depth)
            actual = _json_type(value)
        if actual == "object" and isinstance(value, dict):
            value = self._repair_object(value, resolved, depth)
        elif actual == "array" and isinstance(value, list):
            value = self._repair_array(value, resolved, name, depth)
        elif actual == "string" and isinstance(value, str):
            value = self._repair_string(value, resolved, name)
        elif actual in ("integer", "number"):
            value = self._repair_number(value, resolved, name, types)
        if not self.valid(value, node) and depth <= _MAX_DEPTH:
            for _ in range(3):
                fresh = self.synth(resolved, name, depth)
                if self.valid(fresh, node):
                    return fresh
            # keywords we do not generate for (not, if/then, contains...) may still accept a plain value
            for probe in (value, *_PROBES):
                if self.valid(probe, node):
                    return copy.deepcopy(probe)
        return value

    def _convert(self, value: Any, types: list[str], node: dict[str, Any], name: str, depth: int) -> Any:
        for kind in types:
            if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
                return str(value)
            if kind in ("integer", "number") and isinstance(value, str):
                try:
                    number = float(value)
                    if math.isfinite(number):
                        return int(number) if kind == "integer" and number.is_integer() else number
                except ValueError:
                    pass
            if kind == "integer" and isinstance(value, float) and value.is_integer():
                return int(value)
            if kind == "null":
                return None
        return self.synth({**node, "type": types[0]}, name, depth)

    def _repair_object(self, value: dict[str, Any], node: dict[str, Any], depth: int) -> dict[str, Any]:
        props = _dict_at(node, "properties")
        patterns = _dict_at(node, "patternProperties")
        extra = node.get("additionalProperties", True)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in props:
                out[key] = self.repair(item, props[key], key, depth + 1)
                continue
            matched = [p for p in patterns if _search(p, key)]
            if matched:
                out[key] = self.repair(item, patterns[matched[0]], key, depth + 1)
            elif extra is False:
                continue
            elif isinstance(extra, dict):
                out[key] = self.repair(item, extra, key, depth + 1)
            else:
                out[key] = item
        required = [r for r in node.get("required") or [] if isinstance(r, str)]
        for key in required:
            if key not in out:
                sub = props.get(key, extra if isinstance(extra, dict) else {})
                out[key] = self.repair(self.synth(sub, key, depth + 1), sub, key, depth + 1)
        high = node.get("maxProperties")
        if isinstance(high, int):
            for key in [k for k in out if k not in required][::-1]:
                if len(out) <= high:
                    break
                del out[key]
        low = node.get("minProperties")
        if isinstance(low, int):
            for key, sub in props.items():
                if len(out) >= low:
                    break
                out.setdefault(key, self.synth(sub, key, depth + 1))
            for n in range(low * 4 + 8):
                if len(out) >= low or extra is False:
                    break
                sub = extra if isinstance(extra, dict) else {}
                key = self._key(node, n)
                if key not in out:
                    out[key] = self.repair(self.synth(sub, key, depth + 1), sub, key, depth + 1)
        names = node.get("propertyNames")
        if isinstance(names, dict):
            out = {k: v for k, v in out.items() if k in required or self.valid(k, names)}
        return out

    def _key(self, node: dict[str, Any], n: int) -> str:
        """A name for an extra property: a plain word, or one made from ``propertyNames``."""
        names = node.get("propertyNames")
        word = _WORDS[n % len(_WORDS)] + (str(n // len(_WORDS)) if n >= len(_WORDS) else "")
        if isinstance(names, dict) and not self.valid(word, names):
            pattern = names.get("pattern")
            made = _xeger(pattern, self.rng) if isinstance(pattern, str) else None
            return made if made is not None else word
        return word

    def _repair_array(self, value: list[Any], node: dict[str, Any], name: str, depth: int) -> list[Any]:
        items = node.get("items")
        prefix = _list_at(node, "prefixItems")
        if isinstance(items, list):
            prefix, items = items, node.get("additionalItems", {})
        item_name = _singular(name)
        out = []
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            if sub is False:
                break
            out.append(item if sub is None else self.repair(item, sub, item_name, depth + 1))
        if node.get("uniqueItems") is True:
            seen: set[str] = set()
            unique = []
            for item in out:
                key = _canonical(item)
                if key not in seen:
                    seen.add(key)
                    unique.append(item)
            out = unique
        high = node.get("maxItems")
        if isinstance(high, int):
            out = out[:high]
        low = node.get("minItems")
        tries = 0
        while isinstance(low, int) and len(out) < low and tries < low * 4 + 8:
            tries += 1
            sub = prefix[len(out)] if len(out) < len(prefix) else items
            fresh = self.synth(sub if sub is not None else {}, item_name, depth + 1)
            if node.get("uniqueItems") is True and any(_canonical(fresh) == _canonical(o) for o in out):
                continue
            out.append(fresh)
        contains = node.get("contains")
        if isinstance(contains, dict) and not any(self.valid(o, contains) for o in out):
            wanted = self.repair(self.synth(contains, item_name, depth + 1), contains, item_name, depth + 1)
            if isinstance(high, int) and len(out) >= high and out:
                out[-1] = wanted
            else:
                out.append(wanted)
        return out

    def _repair_string(self, value: str, node: dict[str, Any], name: str) -> str:
        fmt = node.get("format")
        pattern = node.get("pattern")
        if isinstance(fmt, str) and not self.valid(value, {"type": "string", "format": fmt}):
            value = _FORMATS[fmt](self.rng) if fmt in _FORMATS else value
        if isinstance(pattern, str) and not _search(pattern, value):
            value = _xeger(pattern, self.rng) or value
        return _fit_length(value, node, self.rng)

    def _repair_number(self, value: Any, node: dict[str, Any], name: str, types: list[str]) -> Any:
        integer = "number" not in types and "integer" in types
        if integer and isinstance(value, float):
            value = round(value)
        low, high = _number_at(node, "minimum"), _number_at(node, "maximum")
        ex_low, ex_high = _number_at(node, "exclusiveMinimum"), _number_at(node, "exclusiveMaximum")
        fine = (
            (low is None or value >= low)
            and (high is None or value <= high)
            and (ex_low is None or value > ex_low)
            and (ex_high is None or value < ex_high)
        )
        multiple = _number_at(node, "multipleOf")
        if multiple is not None and multiple > 0 and not float(value / multiple).is_integer():
            fine = False
        if fine:
            return value
        return _number_value(name, node, self.rng, "integer" if integer else "number")


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _seed(*parts: Any) -> int:
    return int(hashlib.sha256(_canonical(parts).encode()).hexdigest()[:16], 16)


# -- jsf ----------------------------------------------------------------------------------------

_FAILED = object()
_PROBES: tuple[Any, ...] = (0, 1, True, False, None, "", "value", [], {})
_JSF_LOCK = threading.RLock()
_JSF_CACHE: OrderedDict[str, Any] = OrderedDict()


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed the global generators jsf, Faker and rstr draw from; restore them afterwards."""
    with _JSF_LOCK:
        faker_random: Any
        try:
            from faker.generator import random as faker_random
        except Exception:  # pragma: no cover - faker comes with jsf
            faker_random = None
        saved = random.getstate()
        saved_faker = faker_random.getstate() if faker_random is not None else None
        random.seed(seed)
        if faker_random is not None:
            faker_random.seed(seed)
        try:
            yield
        finally:
            random.setstate(saved)
            if faker_random is not None and saved_faker is not None:
                faker_random.setstate(saved_faker)


class _Providers:
    """Value makers that the prepared schema calls through jsf's ``$provider`` hook."""

    def __init__(self) -> None:
        self.makers: list[Callable[[], Any]] = []

    def add(self, maker: Callable[[], Any]) -> str:
        self.makers.append(maker)
        return f"lambda: _aw_make({len(self.makers) - 1})"

    def __call__(self, index: int) -> Any:
        return self.makers[index]()


def _prepare(schema: _Schema, node: Any, makers: _Providers, name: str, depth: int) -> dict[str, Any]:
    """A copy of ``node`` that jsf can parse: refs inlined, strings and numbers from our makers."""
    node = schema.resolve(node)
    if node is True or node == {} or node is None:
        node = {"type": "string"}
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return {"type": "null"}
    values = [node["const"]] if "const" in node else node.get("enum")
    if isinstance(values, list):
        if not values:
            return {"type": "null"}
        choices = copy.deepcopy(values)
        # a "null" node hands the provider's value back unchanged (a "string" one would str() it)
        return {"type": "null", "$provider": makers.add(lambda: copy.deepcopy(random.choice(choices)))}
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list) and node[key]:
            siblings = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
            branches = []
            for branch in node[key]:
                branch = schema.resolve(branch)
                merged = {**siblings, **branch} if isinstance(branch, dict) else branch
                branches.append(_prepare(schema, merged, makers, name, depth + 1))
            return {key: branches}
    types = _types_of(node) or ["string"]
    nullable = "null" in types and len(types) > 1
    kind = next((t for t in types if t != "null"), "null")
    out: dict[str, Any]
    if kind == "object":
        props = _dict_at(node, "properties")
        out = {
            "type": "object",
            "properties": {k: _prepare(schema, v, makers, k, depth + 1) for k, v in props.items()},
        }
        if isinstance(node.get("required"), list):
            out["required"] = [r for r in node["required"] if isinstance(r, str)]
    elif kind == "array":
        items = node.get("items")
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            items = prefix[0]
        elif isinstance(items, list):
            items = items[0] if items else {}
        low = _int_at(node, "minItems") or 0
        high = _int_at(node, "maxItems")
        high = _LIST_LEN if high is None else high
        # lists shrink with depth so that nested and recursive schemas stay small
        cap = _LIST_LEN if depth < 3 else (1 if depth < 6 else 0)
        high = max(low, min(high, cap))
        if depth < 3:
            low = max(low, min(1, high))
        out = {
            "type": "array",
            "items": _prepare(schema, items if items is not None else {}, makers, _singular(name), depth + 1),
            "minItems": low,
            "maxItems": high,
        }
    elif kind in ("integer", "number"):
        frozen = dict(node)
        out = {"type": kind, "$provider": makers.add(lambda: _number_value(name, frozen, random, kind))}
    elif kind == "boolean":
        out = {"type": "boolean"}
    elif kind == "null":
        return {"type": "null"}
    else:
        frozen = dict(node)
        out = {"type": "string", "$provider": makers.add(lambda: _string_value(name, frozen, random))}
    if nullable:
        out["type"] = [out["type"], "null"]
    return out


def _jsf_generate(schema: _Schema, seed: int) -> Any:
    try:
        key = _canonical(schema.root)
        with _JSF_LOCK:
            built = _JSF_CACHE.get(key)
            if built is None:
                from jsf import JSF
                from jsf.parser import faker as jsf_faker

                makers = _Providers()
                prepared = _prepare(schema, schema.root, makers, "", 0)
                context = {
                    "faker": jsf_faker,
                    "random": random,
                    "datetime": datetime,
                    "__internal__": {"List": list, "Union": Any, "Tuple": tuple},
                    "_aw_make": makers,
                }
                with _seeded(0):
                    built = JSF(prepared, context=context, allow_none_optionals=0.2, max_recursive_depth=4)
                _JSF_CACHE[key] = built
                if len(_JSF_CACHE) > 256:
                    _JSF_CACHE.popitem(last=False)
            else:
                _JSF_CACHE.move_to_end(key)
            with _seeded(seed):
                return copy.deepcopy(built.generate())
    except Exception:
        return _FAILED


# -- the ledger -----------------------------------------------------------------------------------


def _tool_index(tools: Any) -> dict[str, dict[str, Any]] | None:
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
            tool = {"name": fn.get("name"), "inputSchema": fn.get("parameters")}
        name = tool.get("name")
        if not isinstance(name, str):
            continue
        index[name] = {
            "name": name,
            "inputSchema": tool.get("inputSchema", tool.get("input_schema")),
            "outputSchema": tool.get("outputSchema", tool.get("output_schema")),
        }
    return index


def _object_props(schema: _Schema, node: Any) -> dict[str, Any]:
    node = schema.resolve(node)
    if not isinstance(node, dict):
        return {}
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            props = _object_props(schema, branch)
            if props:
                return props
    return _dict_at(node, "properties")


def _id_style(name: str, node: Any, schema: _Schema) -> tuple[str, str]:
    node = schema.resolve(node)
    kind = "integer"
    if isinstance(node, dict):
        types = _types_of(node)
        if "string" in types and "integer" not in types:
            kind = "uuid" if node.get("format") == "uuid" else "string"
    return name, kind


def _find_id_field(
    resource: str, tool: dict[str, Any] | None, tools: dict[str, dict[str, Any]] | None
) -> tuple[str, str]:
    """The field that holds a ``resource``'s id and its kind (integer, string or uuid)."""
    same = [t for t in (tools or {}).values() if classify_tool(t["name"])[1] == resource]
    lookups: list[str] = []
    for t in same:
        if classify_tool(t["name"])[0] in ("get", "update", "delete") and isinstance(
            t.get("inputSchema"), dict
        ):
            lookups += [
                p
                for p in _object_props(_Schema(t["inputSchema"], 0), t["inputSchema"])
                if _is_id_name(p, resource)
            ]
    style = "number" if any("number" in _norm(p) for p in lookups) else "id"
    outputs = [t.get("outputSchema") for t in ([tool] if tool else []) + same]
    candidates: list[tuple[str, Any, _Schema]] = []
    for out in outputs:
        if not isinstance(out, dict):
            continue
        schema = _Schema(out, 0)
        props = _object_props(schema, out)
        nested = [
            _object_props(schema, sub)
            for key, sub in props.items()
            if _norm(key) in (_norm(resource), *_ITEM_SLOTS)
        ]
        for group in [props, *nested]:
            candidates += [(p, sub, schema) for p, sub in group.items() if _is_id_name(p, resource)]
    if candidates:
        styled = [c for c in candidates if style in _norm(c[0])]
        own = [c for c in candidates if _norm(c[0]).startswith(_norm(resource.split("_")[-1]))]
        name, node, schema = (styled or own or candidates)[0]
        return _id_style(name, node, schema)
    if lookups:
        first = lookups[0]
        for t in same:
            if isinstance(t.get("inputSchema"), dict):
                props = _object_props(_Schema(t["inputSchema"], 0), t["inputSchema"])
                if first in props:
                    return _id_style(first, props[first], _Schema(t["inputSchema"], 0))
    return "id", "integer"


def _new_id(bucket: dict[str, Any], resource: str) -> Any:
    while True:  # skip ids that a caller chose explicitly
        n = bucket["next"]
        bucket["next"] = n + 1
        if bucket["id_kind"] == "string":
            made: Any = f"{resource}_{n}"
        elif bucket["id_kind"] == "uuid":
            made = str(uuid.UUID(int=(_seed(resource, n) << 64 | n) & (2**128 - 1), version=4))
        else:
            made = n
        if str(made) not in bucket["items"]:
            return made


def _id_argument(args: dict[str, Any], bucket: dict[str, Any], resource: str) -> tuple[str, Any] | None:
    field = bucket["id_field"]
    if field in args:
        return field, args[field]
    for key, value in args.items():
        if _is_id_name(key, resource) and isinstance(value, (str, int)) and not isinstance(value, bool):
            return key, value
    return None


def _matches(item: dict[str, Any], filters: dict[str, Any]) -> bool:
    return all(
        _canonical(item.get(k)) == _canonical(v) or str(item.get(k)) == str(v) for k, v in filters.items()
    )


def _label(resource: str) -> str:
    return resource.replace("_", " ")


def _describe(filters: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in filters.items())


class _Outcome:
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


def _generic(name: str, args: dict[str, Any]) -> _Outcome:
    """A call the ledger has nothing to say about: acknowledged, arguments echoed into the schema."""
    return _Outcome(
        "other",
        {"status": "ok", "tool": name, "arguments": args},
        overlay={"status": "ok", "success": True, "ok": True, **args},
    )


def _apply(world: dict[str, Any], name: str, args: dict[str, Any], tool: Any, tools: Any) -> _Outcome:
    kind, resource, _ = classify_tool(name)
    if kind is None or resource is None:
        return _generic(name, args)
    buckets = world["resources"]
    if resource not in buckets:
        field, id_kind = _find_id_field(resource, tool, tools)
        buckets[resource] = {"next": 1, "id_field": field, "id_kind": id_kind, "items": {}}
    bucket = buckets[resource]
    items: dict[str, dict[str, Any]] = bucket["items"]
    field = bucket["id_field"]

    if kind == "create":
        given = args.get(field)
        if isinstance(given, (str, int)) and not isinstance(given, bool):
            if str(given) in items:
                return _Outcome("other", error=f"Error: {_label(resource)} {given} already exists")
            item_id: Any = given
        else:
            item_id = _new_id(bucket, resource)
        item = {field: item_id, **{k: copy.deepcopy(v) for k, v in args.items() if k != field}}
        items[str(item_id)] = item
        return _Outcome("item", item, item_key=str(item_id))

    if kind == "list":
        filters = {k: v for k, v in args.items() if k not in _PAGING}
        found = list(items.values())
        field_filters = {k: v for k, v in filters.items() if any(k in it for it in found)}
        found = [it for it in found if _matches(it, field_filters)]
        for key in _QUERY_ARGS:
            text = filters.get(key)
            if isinstance(text, str) and text.strip() and key not in field_filters:
                needle = text.strip().lower()
                found = [it for it in found if needle in _canonical(list(it.values())).lower()]
        found = _page(found, args)
        return _Outcome("list", [copy.deepcopy(it) for it in found])

    ident = _id_argument(args, bucket, resource)
    if ident is not None:
        key = str(ident[1])
        if key not in items:
            return _Outcome("other", error=f"Error: {_label(resource)} {ident[1]} not found")
    else:
        filters = {
            k: v for k, v in args.items() if k not in _PAGING and any(k in it for it in items.values())
        }
        hits = [k for k, it in items.items() if filters and _matches(it, filters)]
        if not hits:
            if items and kind in ("update", "delete"):
                shown = _describe({k: v for k, v in args.items() if k not in _PAGING})
                return _Outcome("other", error=f"Error: {_label(resource)} not found ({shown})")
            return _generic(name, args)
        key = hits[0]
        ident = (field, items[key][field])

    item = items[key]
    if kind == "get":
        return _Outcome("item", copy.deepcopy(item), item_key=key)
    if kind == "update":
        changes = {k: copy.deepcopy(v) for k, v in args.items() if k != ident[0] and k != field}
        if _verb(name) == "rename":
            new = next((changes.pop(k) for k in ("new_name", "newName", "to") if k in changes), None)
            if new is not None:
                changes["name"] = new
        item.update(changes)
        return _Outcome("item", copy.deepcopy(item), item_key=key)
    verb = _verb(name)
    if verb in _SOFT_DELETE:
        mark = "status" if "status" in item and "state" not in item else "state"
        item[mark] = _SOFT_DELETE[verb]
        return _Outcome("item", copy.deepcopy(item), item_key=key)
    del items[key]
    message = f"{_label(resource).capitalize()} {item[field]} deleted"
    return _Outcome("delete", {field: item[field], "success": True, "deleted": True, "message": message})


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


# -- shaping results to an output schema -----------------------------------------------------------


def _get(value: Any, path: list[str]) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _set(value: Any, path: list[str], new: Any) -> Any:
    if not path:
        return new
    value = value if isinstance(value, dict) else {}
    value[path[0]] = _set(value.get(path[0]), path[1:], new)
    return value


def _sub(schema: _Schema, path: list[str]) -> Any:
    node: Any = schema.root
    for key in path:
        node = _object_props(schema, node).get(key, {})
    return node


def _item_slot(schema: _Schema, data: dict[str, Any], resource: str | None) -> list[str]:
    keys = set(data)
    props = _object_props(schema, schema.root)
    best, best_score = [], len(keys & set(props))
    names = {_norm(resource or ""), *_ITEM_SLOTS}
    for key, sub in props.items():
        inner = _object_props(schema, sub)
        if not inner:
            continue
        score = len(keys & set(inner)) + (2 if _norm(key) in names else 0)
        if score > best_score:
            best, best_score = [key], score
    return best


def _list_slot(schema: _Schema, resource: str | None) -> list[str] | None:
    root = schema.resolve(schema.root)
    if isinstance(root, dict) and "array" in _types_of(root):
        return []
    props = _object_props(schema, root)
    arrays = [
        k
        for k, v in props.items()
        if isinstance(schema.resolve(v), dict) and "array" in _types_of(schema.resolve(v))
    ]
    if not arrays:
        return None
    wanted = {
        _norm(resource or ""),
        _norm(resource or "") + "s",
        _norm(_plural(resource or "")),
        *_LIST_SLOTS,
    }
    for key in arrays:
        if _norm(key) in wanted:
            return [key]
    with_objects = [k for k in arrays if _object_props(schema, schema.resolve(props[k]).get("items", {}))]
    return [(with_objects or arrays)[0]]


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def _overlay(schema: _Schema, base: Any, data: Any, node: Any) -> Any:
    """``data`` laid over the generated ``base`` wherever it fits ``node``.

    Only fields the schema declares are laid over, unless the object declares none at all.
    """
    resolved = schema.resolve(node)
    if isinstance(data, dict):
        out = copy.deepcopy(base) if isinstance(base, dict) else {}
        props = _object_props(schema, resolved)
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
    return copy.deepcopy(data) if schema.valid(data, node) else base


def _convert_scalar(value: Any, node: Any) -> Any:
    if not isinstance(node, dict):
        return None
    types = _types_of(node)
    if "string" in types and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if "integer" in types and isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _fresh_defaults(schema: _Schema, node: Any) -> dict[str, Any]:
    """Values a server sets on a new item: schema defaults and an open/active state."""
    out: dict[str, Any] = {}
    for key, sub in _object_props(schema, node).items():
        sub = schema.resolve(sub)
        if not isinstance(sub, dict):
            continue
        if "default" in sub:
            out[key] = copy.deepcopy(sub["default"])
        elif key in ("state", "status") and isinstance(sub.get("enum"), list):
            fresh = [v for v in _FRESH_STATES if v in sub["enum"]]
            if fresh:
                out[key] = fresh[0]
    return out


def _shape(
    out_schema: dict[str, Any], outcome: _Outcome, resource: str | None, seed: int, fresh: bool
) -> tuple[Any, list[str] | None]:
    """A value valid against ``out_schema`` that carries the outcome's data; and the item's path."""
    schema = _Schema(out_schema, seed)
    generated = schema.fake()
    data = outcome.overlay
    path: list[str] | None = None
    if outcome.mode == "item" and isinstance(data, dict):
        path = _item_slot(schema, data, resource)
        node = _sub(schema, path)
        if fresh:
            data = {**_fresh_defaults(schema, node), **data}
        shaped = _set(generated, path, _overlay(schema, _get(generated, path), data, node))
    elif outcome.mode == "list" and isinstance(data, list):
        slot = _list_slot(schema, resource)
        path = slot
        if slot is None:
            shaped = generated
        else:
            node = _sub(schema, slot) if slot else schema.root
            shaped = _set(generated, slot, _overlay(schema, _get(generated, slot), data, node))
            if slot and isinstance(shaped, dict):
                for key, sub in _object_props(schema, schema.root).items():
                    if _norm(key) in _COUNT_NAMES and schema.valid(len(data), sub):
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


def _ordered(schema: _Schema, value: Any, node: Any, depth: int = 0) -> Any:
    """``value`` with object keys in the schema's property order (undeclared keys last)."""
    if depth > _MAX_DEPTH * 2:
        return value
    if isinstance(value, dict):
        props = _object_props(schema, node)
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: _ordered(schema, value[k], props.get(k, {}), depth + 1) for k in keys}
    if isinstance(value, list):
        resolved = schema.resolve(node)
        items = resolved.get("items", {}) if isinstance(resolved, dict) else {}
        return [_ordered(schema, v, items if isinstance(items, dict) else {}, depth + 1) for v in value]
    return value


def _remember(bucket: dict[str, Any], outcome: _Outcome, shown: Any) -> None:
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


# -- the step -------------------------------------------------------------------------------------


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def mcp_step(
    state: dict[str, Any], tool_name: str, arguments: dict[str, Any] | None, context: dict[str, Any]
) -> OfflineResult:
    """Answer one ``tools/call`` from the session's ledger; never raises."""
    try:
        return _step(state, tool_name, arguments if isinstance(arguments, dict) else {}, context or {})
    except Exception as exc:  # the world must answer something
        return OfflineResult(
            text=f"Error executing tool {tool_name}: {type(exc).__name__}: {exc}",
            is_error=True,
            metadata={"offline_internal_error": True},
        )


def _step(
    state: dict[str, Any], name: str, arguments: dict[str, Any], context: dict[str, Any]
) -> OfflineResult:
    world = state.setdefault(STATE_KEY, {"calls": 0, "resources": {}})
    world["calls"] += 1
    turn = world["calls"]
    tools = _tool_index(context.get("tools"))
    tool = tools.get(name) if tools is not None else None
    if tools is not None and tool is None:
        return OfflineResult(text=f"Unknown tool: {name}", is_error=True)
    args = copy.deepcopy(arguments)
    input_schema = tool.get("inputSchema") if tool else None
    if isinstance(input_schema, dict):
        checker = argument_checker(input_schema)
        args = checker.coerce(args)  # the values the tool's function would get ("3" -> 3)
        problem = checker.check(name, args)
        if problem:
            return OfflineResult(text=problem, is_error=True, metadata={"offline_invalid_arguments": True})

    kind, resource, _ = classify_tool(name)
    outcome = _apply(world, name, args, tool, tools)
    metadata: dict[str, Any] = {"offline_kind": kind or "other"}
    if resource:
        metadata["offline_resource"] = resource
    if outcome.error:
        return OfflineResult(text=outcome.error, is_error=True, metadata=metadata)

    reads = kind in ("get", "list")
    seed = _seed(name, args, None if reads else turn)
    out_schema = tool.get("outputSchema") if tool else None
    if not isinstance(out_schema, dict) or not out_schema:
        return OfflineResult(text=_dump(outcome.data), is_error=False, metadata=metadata)

    structured, path = _shape(out_schema, outcome, resource, seed, fresh=kind == "create")
    if path is not None and resource in world["resources"]:
        _remember(world["resources"][resource], outcome, _get(structured, path))
    metadata["structured_content"] = structured
    return OfflineResult(text=_dump(structured), is_error=False, metadata=metadata)
