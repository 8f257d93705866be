"""A tool's schema as one object: resolved, checked with jsonschema, faked and repaired until it validates."""

from __future__ import annotations

import copy
import math
import random
from collections import OrderedDict
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from ...kept import KeptByObject
from .fakes import (
    FAILED,
    FORMATS,
    PROBES,
    WORDS,
    fit_length,
    jsf_generate,
    named_string,
    number_value,
    string_value,
    xeger,
)
from .naming import singular_of
from .schema import (
    LIST_LEN,
    MAX_DEPTH,
    canonical,
    dict_at,
    int_at,
    json_type,
    list_at,
    merge_all_of,
    number_at,
    pattern_search,
    resolve_pointer,
    types_of,
)

_SCHEMA_CHECKS: OrderedDict[str, bool] = OrderedDict()
#: schema checks and validators by the identity of the schema objects (see Schema._validator)
_CHECKED_OBJECTS: KeptByObject[bool] = KeptByObject(512)
_VALIDATORS: KeptByObject[Any] = KeptByObject(4096)


class Schema:
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
        seen = _CHECKED_OBJECTS.get(self.root)
        if seen is not None:
            return seen
        ok = self._checkable_by_text()
        return _CHECKED_OBJECTS.put(ok, self.root) if isinstance(self.root, dict) else ok

    def _checkable_by_text(self) -> bool:
        key = canonical(self.root)
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
            target = resolve_pointer(self.root, node["$ref"]) if node["$ref"].startswith("#") else {}
            target = self.resolve(target, depth + 1)
            if isinstance(target, dict):
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                node = {**target, **siblings}
            else:
                node = target
        if isinstance(node, dict) and "allOf" in node:
            node = merge_all_of(node, lambda n: self.resolve(n, depth + 1))
        return node

    def valid(self, value: Any, node: Any = None) -> bool:
        if not self.checkable:
            return True
        schema = self.root if node is None else node
        if isinstance(schema, dict) and node is not None and self._defs:
            schema = {**schema, **{k: v for k, v in self._defs.items() if k not in schema}}
        try:
            return bool(self._validator(schema, node).is_valid(value))
        except Exception:
            return False

    def _validator(self, schema: Any, node: Any) -> Any:
        """The validator of ``node`` (None: the root), made once per (root, node) object pair: a
        session's output schemas are the same objects on every call, and making a validator
        costs more than most checks."""
        kept = _VALIDATORS.get(self.root, node)
        if kept is None:
            kept = _VALIDATORS.put(self.cls(schema, format_checker=self.cls.FORMAT_CHECKER), self.root, node)
        return kept

    # generation

    def fake(self) -> Any:
        """A value for the whole schema from jsf (seeded); our own generator when jsf fails."""
        value = jsf_generate(self, self.seed)
        if value is FAILED:
            value = self.synth(self.root)
        return value

    def synth(self, node: Any, name: str = "", depth: int = 0) -> Any:
        """A value for ``node`` from our own deterministic generator."""
        rnd = self.rng
        node = self.resolve(node)
        if node is True or node is None or node == {}:
            return named_string(name, rnd)
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
        types = [t for t in types_of(node) if t != "null"] or types_of(node) or ["string"]
        kind = types[0]
        if kind == "object":
            props = dict_at(node, "properties")
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
            prefix: list[Any] | None = list_at(node, "prefixItems") or None
            if isinstance(items, list):
                prefix, items = items, node.get("additionalItems", {})
            low = int_at(node, "minItems") or 0
            high = int_at(node, "maxItems")
            count = rnd.randint(1, LIST_LEN) if depth < 4 else 0
            count = max(low, count if high is None else min(count, high))
            result = [self.synth(p, name, depth + 1) for p in (prefix or [])][:count]
            item_name = singular_of(name)
            while len(result) < count:
                result.append(self.synth(items if items is not None else {}, item_name, depth + 1))
            return result
        if kind in ("integer", "number"):
            return number_value(name, node, rnd, kind)
        if kind == "boolean":
            return rnd.random() < 0.5
        if kind == "null":
            return None
        return string_value(name, node, rnd)

    # repair

    def repair(self, value: Any, node: Any = None, name: str = "", depth: int = 0) -> Any:
        """``value`` changed as little as we can so that it validates against ``node``."""
        node = self.root if node is None else node
        resolved = self.resolve(node)
        if self.valid(value, node) or depth > MAX_DEPTH + 4:
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
                    key=lambda i: 0 if json_type(value) in types_of(self.resolve(branches[i])) else 1,
                )
                candidate = value
                for i in order:
                    branch = self.resolve(branches[i])
                    merged = {**siblings, **branch} if isinstance(branch, dict) else branch
                    candidate = self.repair(value, merged, name, depth + 1)
                    if self.valid(candidate, node):
                        return candidate
                return candidate
        types = types_of(resolved)
        actual = json_type(value)
        if types and actual not in types and not (actual == "integer" and "number" in types):
            value = self._convert(value, types, resolved, name, depth)
            actual = json_type(value)
        if actual == "object" and isinstance(value, dict):
            value = self._repair_object(value, resolved, depth)
        elif actual == "array" and isinstance(value, list):
            value = self._repair_array(value, resolved, name, depth)
        elif actual == "string" and isinstance(value, str):
            value = self._repair_string(value, resolved, name)
        elif actual in ("integer", "number"):
            value = self._repair_number(value, resolved, name, types)
        if not self.valid(value, node) and depth <= MAX_DEPTH:
            for _ in range(3):
                fresh = self.synth(resolved, name, depth)
                if self.valid(fresh, node):
                    return fresh
            # keywords we do not generate for (not, if/then, contains...) may still accept a plain value
            for probe in (value, *PROBES):
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
        props = dict_at(node, "properties")
        patterns = dict_at(node, "patternProperties")
        extra = node.get("additionalProperties", True)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in props:
                out[key] = self.repair(item, props[key], key, depth + 1)
                continue
            matched = [p for p in patterns if pattern_search(p, key)]
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
        word = WORDS[n % len(WORDS)] + (str(n // len(WORDS)) if n >= len(WORDS) else "")
        if isinstance(names, dict) and not self.valid(word, names):
            pattern = names.get("pattern")
            made = xeger(pattern, self.rng) if isinstance(pattern, str) else None
            return made if made is not None else word
        return word

    def _repair_array(self, value: list[Any], node: dict[str, Any], name: str, depth: int) -> list[Any]:
        items = node.get("items")
        prefix = list_at(node, "prefixItems")
        if isinstance(items, list):
            prefix, items = items, node.get("additionalItems", {})
        item_name = singular_of(name)
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
                key = canonical(item)
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
            if node.get("uniqueItems") is True and any(canonical(fresh) == canonical(o) for o in out):
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
            value = FORMATS[fmt](self.rng) if fmt in FORMATS else value
        if isinstance(pattern, str) and not pattern_search(pattern, value):
            value = xeger(pattern, self.rng) or value
        return fit_length(value, node, self.rng)

    def _repair_number(self, value: Any, node: dict[str, Any], name: str, types: list[str]) -> Any:
        integer = "number" not in types and "integer" in types
        if integer and isinstance(value, float):
            value = round(value)
        low, high = number_at(node, "minimum"), number_at(node, "maximum")
        ex_low, ex_high = number_at(node, "exclusiveMinimum"), number_at(node, "exclusiveMaximum")
        fine = (
            (low is None or value >= low)
            and (high is None or value <= high)
            and (ex_low is None or value > ex_low)
            and (ex_high is None or value < ex_high)
        )
        multiple = number_at(node, "multipleOf")
        if multiple is not None and multiple > 0 and not float(value / multiple).is_integer():
            fine = False
        if fine:
            return value
        return number_value(name, node, self.rng, "integer" if integer else "number")
