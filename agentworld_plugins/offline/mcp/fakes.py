"""Deterministic fake values (names, dates, ids, text) and jsf-generated documents that fit a schema."""

from __future__ import annotations

import copy
import math
import random
import re
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from .naming import singular_of
from .schema import LIST_LEN, MAX_DEPTH, canonical, dict_at, int_at, number_at, types_of

if TYPE_CHECKING:
    from .document import Schema

# -- small deterministic value makers (``rnd`` is a random.Random or the random module) ---------

_FIRST = ("Ada", "Liam", "Mei", "Omar", "Sofia", "Jonas", "Priya", "Mateo", "Hana", "Noah", "Lena", "Kofi")
_LAST = ("Lovelace", "Okafor", "Tanaka", "Haddad", "Rossi", "Berg", "Sharma", "Alvarez", "Kim", "Novak")
WORDS = (
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
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(low, high))]
    text = " ".join(words).capitalize()
    return text + "." if period else text


def _person(rnd: Any) -> tuple[str, str]:
    return rnd.choice(_FIRST), rnd.choice(_LAST)


def _hex(rnd: Any, n: int) -> str:
    return "".join(rnd.choice("0123456789abcdef") for _ in range(n))


def _uuid(rnd: Any) -> str:
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


FORMATS: dict[str, Callable[[Any], str]] = {
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
    "uri": lambda r: f"https://example.com/{r.choice(WORDS)}/{r.randint(1, 999)}",
    "iri": lambda r: f"https://example.com/{r.choice(WORDS)}/{r.randint(1, 999)}",
    "url": lambda r: f"https://example.com/{r.choice(WORDS)}/{r.randint(1, 999)}",
    "uri-reference": lambda r: f"/{r.choice(WORDS)}/{r.randint(1, 999)}",
    "iri-reference": lambda r: f"/{r.choice(WORDS)}/{r.randint(1, 999)}",
    "uri-template": lambda r: f"https://example.com/{r.choice(WORDS)}/{{id}}",
    "uuid": _uuid,
    "json-pointer": lambda r: f"/{r.choice(WORDS)}/{r.randint(0, 9)}",
    "relative-json-pointer": lambda r: f"{r.randint(0, 3)}/{r.choice(WORDS)}",
    "regex": lambda r: "^[a-z]+$",
    "byte": lambda r: "c2FtcGxl",
    "binary": lambda r: _hex(r, 16),
    "password": lambda r: "********",
}


def named_string(name: str, rnd: Any) -> str:
    n = name.lower()
    tail = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())[-1]
    if "email" in n or tail == "mail":
        return FORMATS["email"](rnd)
    if any(k in n for k in ("url", "uri", "link", "href", "website", "homepage")):
        return FORMATS["uri"](rnd)
    if n.endswith(("_at", "date", "time", "timestamp")) or n in ("created", "updated", "modified"):
        return FORMATS["date-time"](rnd)
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
        return f"{rnd.choice(_NAMES)} {rnd.choice(WORDS).capitalize()}"
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
        return f"src/{rnd.choice(WORDS)}_{rnd.randint(1, 99)}.py"
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
    if tail in ("conditions", "condition", "weather", "forecast", "sky"):
        return rnd.choice(("clear", "partly cloudy", "overcast", "light rain", "fog", "snow showers"))
    if tail == "country":
        return rnd.choice(("Portugal", "Japan", "Canada", "Kenya", "Germany"))
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 3)))


def xeger(pattern: str, rnd: Any) -> str | None:
    try:
        import rstr

        return str(rstr.Rstr(rnd).xeger(pattern))
    except Exception:
        return None


def fit_length(text: str, schema: dict[str, Any], rnd: Any) -> str:
    low = schema.get("minLength")
    high = schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        while len(text) < low:
            text = (text + " " + rnd.choice(WORDS)).strip()
    if isinstance(high, int) and high >= 0 and len(text) > high:
        text = text[:high].rstrip() if high > 0 else ""
        if isinstance(low, int) and len(text) < low:
            text = text + "x" * (low - len(text))
    return text


def string_value(name: str, schema: dict[str, Any], rnd: Any) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        made = xeger(pattern, rnd)
        if made is not None:
            return made
    text = FORMATS[fmt](rnd) if isinstance(fmt, str) and fmt in FORMATS else named_string(name, rnd)
    return fit_length(text, schema, rnd)


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
    if (
        tail in ("temp", "temperature", "celsius")
        or n.startswith(("temperature", "temp_"))
        or n in ("feels_like", "feelslike")
    ):  # °C
        return -10, 35
    if "humidity" in n:
        return 20, 95
    if tail in ("wind", "windspeed", "speed", "gust", "gusts"):
        return 0, 30
    return 0, 1000


def number_value(name: str, schema: dict[str, Any], rnd: Any, kind: str) -> int | float:
    integer = kind == "integer"
    step: float = 1 if integer else 0.01
    low_d, high_d = _number_range(name, kind)
    low, high = number_at(schema, "minimum"), number_at(schema, "maximum")
    ex_low, ex_high = number_at(schema, "exclusiveMinimum"), number_at(schema, "exclusiveMaximum")
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
    multiple = number_at(schema, "multipleOf")
    if multiple is not None and multiple > 0:
        first, last = math.ceil(lo / multiple), math.floor(hi / multiple)
        k = rnd.randint(first, last) if first <= last else first
        value = k * multiple
        return int(value) if integer and float(value).is_integer() else value
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        return int(rnd.randint(first, last)) if first <= last else first
    return round(lo + (hi - lo) * rnd.random(), 2)


# -- jsf ----------------------------------------------------------------------------------------

FAILED = object()
PROBES: tuple[Any, ...] = (0, 1, True, False, None, "", "value", [], {})
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


def _prepare(schema: Schema, node: Any, makers: _Providers, name: str, depth: int) -> dict[str, Any]:
    """A copy of ``node`` that jsf can parse: refs inlined, strings and numbers from our makers."""
    node = schema.resolve(node)
    if node is True or node == {} or node is None:
        node = {"type": "string"}
    if not isinstance(node, dict) or depth > MAX_DEPTH:
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
    types = types_of(node) or ["string"]
    nullable = "null" in types and len(types) > 1
    kind = next((t for t in types if t != "null"), "null")
    out: dict[str, Any]
    if kind == "object":
        props = dict_at(node, "properties")
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
        low = int_at(node, "minItems") or 0
        high = int_at(node, "maxItems")
        high = LIST_LEN if high is None else high
        # lists shrink with depth so that nested and recursive schemas stay small
        cap = LIST_LEN if depth < 3 else (1 if depth < 6 else 0)
        high = max(low, min(high, cap))
        if depth < 3:
            low = max(low, min(1, high))
        out = {
            "type": "array",
            "items": _prepare(
                schema, items if items is not None else {}, makers, singular_of(name), depth + 1
            ),
            "minItems": low,
            "maxItems": high,
        }
    elif kind in ("integer", "number"):
        frozen = dict(node)
        out = {"type": kind, "$provider": makers.add(lambda: number_value(name, frozen, random, kind))}
    elif kind == "boolean":
        out = {"type": "boolean"}
    elif kind == "null":
        return {"type": "null"}
    else:
        frozen = dict(node)
        out = {"type": "string", "$provider": makers.add(lambda: string_value(name, frozen, random))}
    if nullable:
        out["type"] = [out["type"], "null"]
    return out


_COMPILED: dict[str, Any] = {}


def _eval_compiled(source: Any, globals_: Any = None, locals_: Any = None) -> Any:
    """``eval`` for jsf's provider expressions (``lambda: _aw_make(3)``), each compiled once: jsf
    evaluates the same few strings on every value it generates, and compiling them was most of
    a generated result's cost."""
    if isinstance(source, str):
        code = _COMPILED.get(source)
        if code is None:
            if len(_COMPILED) >= 4096:
                _COMPILED.clear()
            code = _COMPILED[source] = compile(source, "<jsf provider>", "eval")
        source = code
    return eval(source, globals_, locals_)


def _compile_providers_once() -> None:
    """Point jsf's value generation at :func:`_eval_compiled` (the same results, computed once)."""
    from jsf.schema_types import base

    if getattr(base, "eval", None) is not _eval_compiled:
        base.eval = _eval_compiled  # type: ignore[attr-defined]


def jsf_generate(schema: Schema, seed: int) -> Any:
    try:
        key = canonical(schema.root)
        with _JSF_LOCK:
            built = _JSF_CACHE.get(key)
            if built is None:
                from jsf import JSF
                from jsf.parser import faker as jsf_faker

                _compile_providers_once()

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
        return FAILED
