"""The web observation format: a page's accessibility tree as the web prompt writes it."""

from __future__ import annotations

import re
from typing import Any

from ... import pyast
from .lines import split_lines

DEFAULT_WEB_PAGE = """\
URL: https://www.example.com/
Title: Example Search

RootWebArea 'Example Search', focused
\t[10] navigation 'Main'
\t\t[11] link 'Home', url='https://www.example.com/'
\t\t[12] link 'About', url='https://www.example.com/about'
\t[20] heading 'Example Search', level=1
\t[21] searchbox 'Search the web', clickable
\t[22] button 'Search', clickable
\t[23] checkbox 'Safe search', clickable, checked='false'
\tStaticText 'Results open on a new page.'
\t[24] link 'Privacy policy', url='https://www.example.com/privacy'"""

_HEADER_LINE = re.compile(r"^(?P<key>URL|Title|Error|Tabs):[ ]?(?P<value>.*)$")
_NODE_LINE = re.compile(
    r"^(?:\[(?P<bid>[^\]\s]*)\]\s+)?(?P<role>[^\s,']+)"
    r"(?:\s+(?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(?P<rest>.*)$"
)
_PROP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)=(?P<value>.*)$", re.DOTALL)
_TAB_ENTRY = re.compile(r"^\[(?P<index>\d+)\] ?(?P<title>.*?)(?P<active> \(active\))?$")


def _split_props(rest: str) -> list[str]:
    """Split ``, a, b='x, y'`` at the commas outside quotes and brackets."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    depth = 0
    i = 0
    while i < len(rest):
        ch = rest[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and i + 1 < len(rest):
                buf.append(rest[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch in "([{":
            depth += 1
            buf.append(ch)
        elif ch in ")]}":
            depth -= 1
            buf.append(ch)
        elif ch == "," and depth <= 0:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


def _decode_name(token: str) -> str:
    try:
        value = pyast.literal_eval(token)
    except (ValueError, SyntaxError):
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


def _parse_node(line: str, depth: int) -> dict[str, Any]:
    body = line.strip()
    match = _NODE_LINE.match(body)
    rest = match.group("rest") if match else ""
    if match is None or (rest and not rest.lstrip().startswith(",")):
        # not a node line we understand: keep it whole so that it renders back as it was
        return {"depth": depth, "bid": None, "role": body, "name": None, "props": []}
    props: list[list[str | None]] = []
    for part in _split_props(rest)[1:]:
        part = part.strip()
        if not part:
            continue
        kv = _PROP_KEY.match(part)
        props.append([kv.group("key"), kv.group("value")] if kv else [part, None])
    name = match.group("name")
    return {
        "depth": depth,
        "bid": match.group("bid"),
        "role": match.group("role"),
        "name": None if name is None else _decode_name(name),
        "props": props,
    }


def _indent_unit(leads: list[str]) -> str:
    if any("\t" in lead for lead in leads):
        return "\t"
    widths = [len(lead) for lead in leads if lead]
    return " " * min(widths) if widths else "\t"


def parse_web_page(text: str) -> dict[str, Any]:
    """Parse a web observation into ``{url, title, error, tabs, active_tab, indent, nodes}``.

    ``nodes`` is the flattened accessibility tree in order, each ``{depth, bid, role, name,
    props}`` where ``props`` is a list of ``[key, raw value]`` pairs (raw value ``None`` for a
    bare flag such as ``focused``), so that :func:`render_web_page` writes the page back exactly.
    """
    page: dict[str, Any] = {
        "url": "",
        "title": "",
        "error": None,
        "tabs": None,
        "active_tab": None,
        "indent": "\t",
        "nodes": [],
    }
    tree: list[str] = []
    for line in split_lines(text):
        if not line.strip():
            continue
        header = None if tree else _HEADER_LINE.match(line)
        if header is None:
            tree.append(line)
            continue
        key, value = header.group("key"), header.group("value")
        if key == "URL":
            page["url"] = value.strip()
        elif key == "Title":
            page["title"] = value
        elif key == "Error":
            page["error"] = value
        else:
            titles, active = [], None
            for position, entry in enumerate(re.split(r", (?=\[\d+\])", value)):
                found = _TAB_ENTRY.match(entry.strip())
                titles.append(found.group("title") if found else entry.strip())
                if found and found.group("active"):
                    active = position
            page["tabs"], page["active_tab"] = titles, active
    leads = [line[: len(line) - len(line.lstrip(" \t"))] for line in tree]
    unit = _indent_unit(leads)
    page["indent"] = unit
    for line, lead in zip(tree, leads):
        depth = lead.count("\t") if unit == "\t" else len(lead) // len(unit)
        page["nodes"].append(_parse_node(line, depth))
    return page


def _render_node(node: dict[str, Any], indent: str) -> str:
    parts = [indent * node["depth"]]
    if node["bid"] is not None:
        parts.append(f"[{node['bid']}] ")
    parts.append(node["role"])
    if node["name"] is not None:
        parts.append(f" {node['name']!r}")
    for key, value in node["props"]:
        parts.append(f", {key}" if value is None else f", {key}={value}")
    return "".join(parts)


def render_web_page(page: dict[str, Any]) -> str:
    """Write a page model back as the web prompt's observation: header lines, a blank line, the tree."""
    lines = [f"URL: {page['url']}", f"Title: {page['title']}"]
    if page.get("error"):
        lines.append(f"Error: {page['error']}")
    tabs = page.get("tabs")
    if tabs and len(tabs) > 1:
        active = page.get("active_tab")
        entries = [f"[{i}] {title}" + (" (active)" if i == active else "") for i, title in enumerate(tabs)]
        lines.append("Tabs: " + ", ".join(entries))
    lines.append("")
    lines.extend(_render_node(node, page.get("indent") or "\t") for node in page["nodes"])
    return "\n".join(lines)
