"""The notations an android screen may be written in, read into element dicts and written back alike.

The android prompt shows ``UI element N: {json}`` lines, and tells the model to follow the
screens already in the conversation when they use other keys or another form. Three are read:

- ``json``: ``UI element N: {"text": ..., ...}`` (the prompt's own);
- ``uielement``: AndroidWorld's ``UIElement(text='OK', ..., bbox_pixels=BoundingBox(x_min=...))``
  dataclass repr, alone or after a ``UI element N:`` number;
- ``attrs``: a class name then ``key=value`` pairs, uiautomator style:
  ``TextView text='OK' clickable=true bounds=[0,0][100,50]``, alone or numbered (``3:``, ``[3]``).

A screen is rendered back in the notation it was read in (same numbering, keys, quoting), so the
world's answer looks like the screens before it. Text in none of these is a ``None`` notation:
the world carries it forward unchanged and marks the step's effect unknown.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ... import pyast
from ...domains.formats.android import parse_android_screen, render_android_screen
from ...domains.formats.lines import split_lines

Notation = dict[str, Any]

_NUMBER = r"(?P<prefix>UI element (?P<n1>\d+):\s*|\[(?P<n2>\d+)\]\s*|(?P<n3>\d+)[:.)]\s+)?"
_UIELEMENT_LINE = re.compile(r"^\s*" + _NUMBER + r"(?P<body>UIElement\(.*\))\s*$")
_ATTR = r"[A-Za-z_][\w-]*=(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\[[^\s]*\]|[^\s'\"]+)"
_ATTRS_LINE = re.compile(
    r"^\s*" + _NUMBER + r"(?P<cls>[A-Za-z_][\w.$]*)(?P<attrs>(?:\s+" + _ATTR + r")+)\s*$"
)
_ONE_ATTR = re.compile(r"(?P<key>[A-Za-z_][\w-]*)=(?P<value>" + _ATTR.split("=", 1)[1] + ")")
_BOUNDS = re.compile(r"^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$")
_BOX_KEYS = ("x_min", "x_max", "y_min", "y_max")
#: the element keys the world reads, by the attribute names a screen may give them
_ALIASES = {
    "text": "text",
    "content-desc": "content_description",
    "content_desc": "content_description",
    "content_description": "content_description",
    "desc": "content_description",
    "description": "content_description",
    "resource-id": "resource_name",
    "resource_id": "resource_name",
    "resource_name": "resource_name",
    "id": "resource_name",
    "class": "class_name",
    "class_name": "class_name",
    "hint": "hint_text",
    "hint_text": "hint_text",
    "bounds": "bbox",
    "bbox": "bbox",
}
_FLAGS = ("clickable", "editable", "checkable", "checked", "focused", "scrollable", "selected")
_ALIASES.update({flag: f"is_{flag}" for flag in _FLAGS})
_ALIASES.update({f"is_{flag}": f"is_{flag}" for flag in _FLAGS})


def read_android_screen(text: str) -> tuple[list[dict[str, Any]], Notation | None]:
    """The elements of ``text`` and the notation to write them back in (``None``: no notation
    known here; an empty text is an empty ``json`` screen)."""
    elements = parse_android_screen(text)
    if elements or not text.strip():
        return elements, {"kind": "json"}
    lines = [line for line in split_lines(text) if line.strip()]
    for reader in (_read_uielements, _read_attrs):
        found = reader(lines)
        if found is not None:
            return found
    return [], None


def write_android_screen(elements: list[dict[str, Any]], notation: Notation) -> str:
    """``elements`` written in ``notation`` (as :func:`read_android_screen` returned it)."""
    kind = notation.get("kind")
    if kind == "uielement":
        return "\n".join(_numbered(notation, i) + _uielement_repr(el) for i, el in enumerate(elements))
    if kind == "attrs":
        names = {canonical: given for given, canonical in notation.get("names", {}).items()}
        return "\n".join(
            _numbered(notation, i) + _attrs_line(el, names, notation) for i, el in enumerate(elements)
        )
    return render_android_screen(elements)


def _prefix_style(match: re.Match[str]) -> str:
    if match.group("n1") is not None:
        return "UI element {n}: "
    if match.group("n2") is not None:
        return "[{n}] "
    if match.group("n3") is not None:
        return match.group("prefix").replace(match.group("n3"), "{n}", 1)
    return ""


def _numbered(notation: Notation, index: int) -> str:
    return str(notation.get("prefix", "")).replace("{n}", str(index))


# -- AndroidWorld's UIElement repr ---------------------------------------------------------------


def _read_uielements(lines: list[str]) -> tuple[list[dict[str, Any]], Notation] | None:
    elements: list[dict[str, Any]] = []
    prefix: str | None = None
    for line in lines:
        match = _UIELEMENT_LINE.match(line)
        element = _uielement(match.group("body")) if match else None
        if match is None or element is None:
            return None
        prefix = _prefix_style(match) if prefix is None else prefix
        elements.append(element)
    return elements, {"kind": "uielement", "prefix": prefix or ""}


def _uielement(source: str) -> dict[str, Any] | None:
    try:
        node = pyast.parse(source, mode="eval").body
        return _call_value(node, "UIElement")
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None


def _call_value(node: ast.AST, name: str) -> dict[str, Any] | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
        return None
    if node.args:
        return None
    fields: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        value = keyword.value
        if isinstance(value, ast.Call):
            box = _call_value(value, "BoundingBox")
            if box is None:
                return None
            fields[keyword.arg] = box
        else:
            fields[keyword.arg] = pyast.literal_eval(value)
    return fields


def _uielement_repr(element: dict[str, Any]) -> str:
    return "UIElement(" + ", ".join(f"{k}={_python_value(v)}" for k, v in element.items()) + ")"


def _python_value(value: Any) -> str:
    if isinstance(value, dict) and set(value) == set(_BOX_KEYS):
        return "BoundingBox(" + ", ".join(f"{k}={value[k]!r}" for k in _BOX_KEYS) + ")"
    return repr(value)


# -- class name and key=value pairs --------------------------------------------------------------


def _read_attrs(lines: list[str]) -> tuple[list[dict[str, Any]], Notation] | None:
    elements: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    styles: dict[str, str] = {}
    prefix: str | None = None
    for line in lines:
        match = _ATTRS_LINE.match(line)
        if match is None:
            return None
        prefix = _prefix_style(match) if prefix is None else prefix
        element: dict[str, Any] = {"class_name": match.group("cls")}
        for pair in _ONE_ATTR.finditer(match.group("attrs")):
            given, raw = pair.group("key"), pair.group("value")
            key = _ALIASES.get(given, given)
            names.setdefault(given, key)
            value, style = _attr_value(raw)
            styles.setdefault(given, style)
            element[key] = value
        elements.append(element)
    return elements, {"kind": "attrs", "prefix": prefix or "", "names": names, "styles": styles}


def _attr_value(raw: str) -> tuple[Any, str]:
    if raw[:1] in "'\"":
        return re.sub(r"\\(.)", r"\1", raw[1:-1]), raw[0]
    bounds = _BOUNDS.match(raw)
    if bounds is not None:
        return [int(v) for v in bounds.groups()], "bounds"
    if raw in ("true", "false", "True", "False"):
        return raw.lower() == "true", "lower" if raw.islower() else "title"
    if re.fullmatch(r"-?\d+", raw):
        return int(raw), "bare"
    return raw, "bare"


def _attrs_line(element: dict[str, Any], names: dict[str, str], notation: Notation) -> str:
    styles: dict[str, str] = notation.get("styles", {})
    parts = [str(element.get("class_name") or "View")]
    for key, value in element.items():
        if key == "class_name":  # the line's leading name
            continue
        given = names.get(key) or _default_name(key)
        parts.append(f"{given}={_attr_text(value, styles.get(given, ''))}")
    return " ".join(parts)


def _default_name(key: str) -> str:
    return key[3:] if key.startswith("is_") else key


def _attr_text(value: Any, style: str) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
        return text.title() if style == "title" else text
    if value is None:
        return "null"
    if isinstance(value, list) and len(value) == 4 and style != "json":
        return "[{},{}][{},{}]".format(*value)
    if isinstance(value, (int, float)):
        return str(value)
    quote = '"' if style == '"' else "'"
    escaped = str(value).replace("\\", "\\\\").replace(quote, "\\" + quote)
    return f"{quote}{escaped}{quote}"
