"""The offline worlds of the GUI domains (web, android, os): the current screen, carried forward.

The observation text is parsed into a plain model (dicts, lists and strings, so a session store
can keep it as JSON), each action applies its deterministic local edits to it (a filled field, a
toggled checkbox, moved focus), and the model is rendered back in the format the domain's prompt
prescribes. What cannot be known without a model (the page behind a link, the screen an app
opens, a shell command's output) leaves the state unchanged and sets
``metadata["offline_unknown_effect"]``; ``metadata["offline_unknown_action"]`` names the call.

An action made of several calls (web lines, os statements) runs them in order; each call is all
or nothing, and the first one that fails or has an unknown effect stops the rest.

>>> from agentworld_plugins.domains.web import WebAction
>>> state: dict = {}
>>> page = "URL: https://a.test/\\nTitle: A\\n\\nRootWebArea 'A', focused\\n\\t[5] textbox 'Name'"
>>> result = web_step(state, WebAction("fill('5', 'Ada')"), {"initial_state": page})
>>> result.text.splitlines()[-2:]
["RootWebArea 'A'", "\\t[5] textbox 'Name', focused, value='Ada'"]
"""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from ..domains.android import AndroidAction
from ..domains.base import OfflineResult
from ..domains.os import OsAction
from ..domains.web import WebAction
from ..errors import ConfigError

__all__ = [
    "DEFAULT_ANDROID_SCREEN",
    "DEFAULT_OS_DESKTOP",
    "DEFAULT_WEB_PAGE",
    "UNKNOWN_EFFECT",
    "android_step",
    "os_step",
    "parse_android_screen",
    "parse_os_table",
    "parse_web_page",
    "render_android_screen",
    "render_os_table",
    "render_web_page",
    "web_step",
]

#: metadata key: the action's effect could not be known offline, so the state was left as it was
UNKNOWN_EFFECT = "offline_unknown_effect"

WEB_STATE_KEY = "web_world"
ANDROID_STATE_KEY = "android_world"
OS_STATE_KEY = "os_world"


# -- shared machinery ----------------------------------------------------------------------------


class _Unknown(Exception):
    """The offline world cannot tell what this call does; the message says why."""


class _Failed(Exception):
    """The call fails as the real environment would report it; the message is that report."""


def _run_calls(
    world: dict[str, Any], calls: Sequence[Any], apply: Callable[[dict[str, Any], Any], None]
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Apply ``calls`` in order, each on a copy that is kept only when the call succeeds.

    Returns the new world, the metadata (unknown effect, skipped calls) and the error message of
    the call that failed, if one did.
    """
    meta: dict[str, Any] = {UNKNOWN_EFFECT: False}
    error: str | None = None
    for position, (shown, call) in enumerate(calls):
        trial = copy.deepcopy(world)
        try:
            apply(trial, call)
        except _Unknown as exc:
            meta.update({UNKNOWN_EFFECT: True, "offline_unknown_action": shown, "offline_reason": str(exc)})
        except _Failed as exc:
            meta["offline_failed_action"] = shown
            error = str(exc)
        else:
            world = trial
            continue
        if position + 1 < len(calls):
            meta["offline_skipped_calls"] = len(calls) - position - 1
        break
    return world, meta, error


def _split_lines(text: str) -> list[str]:
    """Lines split at newlines only: ``str.splitlines`` also splits at U+2028 and friends, which
    may appear inside a name or a text."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _initial_text(context: dict[str, Any], default: str) -> str:
    state = context.get("initial_state")
    return default if state is None else str(state)


def _lookup(mapping: Any, key: str, *, fold: Callable[[str], str] = lambda s: s) -> str | None:
    """The text ``mapping`` (a user's ``pages`` / ``screens``) gives for ``key``, if any."""
    if not isinstance(mapping, dict):
        return None
    wanted = fold(key)
    for name, text in mapping.items():
        if isinstance(name, str) and fold(name) == wanted and text is not None:
            return str(text)
    return None


# -- web: the page model -------------------------------------------------------------------------

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
        value = ast.literal_eval(token)
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
    for line in _split_lines(text):
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


def _blank_page() -> dict[str, Any]:
    return parse_web_page("URL: about:blank\nTitle: \n\nRootWebArea '', focused")


# -- web: node properties ------------------------------------------------------------------------

_MISSING = object()
_EDITABLE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
_TOGGLE_ROLES = frozenset({"checkbox", "switch", "menuitemcheckbox"})
_RADIO_ROLES = frozenset({"radio", "menuitemradio"})
_SELECT_ROLES = frozenset({"combobox", "listbox"})
_ACTIVE_ROLES = frozenset(
    {"link", "button", "tab", "menuitem", "option", "treeitem", "slider", "LabelText", "label"}
)


def _prop_index(node: dict[str, Any], key: str) -> int | None:
    for i, (name, _) in enumerate(node["props"]):
        if name == key:
            return i
    return None


def _get(node: dict[str, Any], key: str, default: Any = _MISSING) -> Any:
    """A property's value: ``True`` for a bare flag, the literal for ``key=literal``."""
    i = _prop_index(node, key)
    if i is None:
        return default
    raw = node["props"][i][1]
    if raw is None:
        return True
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def _set(node: dict[str, Any], key: str, value: Any, *, flag: bool = False, first: bool = False) -> None:
    raw = None if flag else repr(value)
    i = _prop_index(node, key)
    if i is not None:
        node["props"][i][1] = raw
    elif first:
        node["props"].insert(0, [key, raw])
    else:
        node["props"].append([key, raw])


def _drop(node: dict[str, Any], key: str) -> None:
    node["props"] = [p for p in node["props"] if p[0] != key]


def _value(node: dict[str, Any]) -> str:
    value = _get(node, "value", "")
    return value if isinstance(value, str) else str(value)


def _set_value(node: dict[str, Any], value: str) -> None:
    if value:
        _set(node, "value", value)
    else:
        _drop(node, "value")


def _editable(node: dict[str, Any]) -> bool:
    return node["role"] in _EDITABLE_ROLES or _get(node, "editable", None) not in (None, False, "false")


def _disabled(node: dict[str, Any]) -> bool:
    return _get(node, "disabled", False) not in (False, "false")


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _set_checked(node: dict[str, Any], checked: bool) -> None:
    """Write ``checked`` in the notation the node already uses (``'true'`` or ``True``)."""
    current = _get(node, "checked", None)
    _set(node, "checked", checked if isinstance(current, bool) else ("true" if checked else "false"))


def _subtree(nodes: list[dict[str, Any]], index: int) -> range:
    end = index + 1
    while end < len(nodes) and nodes[end]["depth"] > nodes[index]["depth"]:
        end += 1
    return range(index + 1, end)


def _parent(nodes: list[dict[str, Any]], index: int) -> int | None:
    for j in range(index - 1, -1, -1):
        if nodes[j]["depth"] < nodes[index]["depth"]:
            return j
    return None


# -- web: the world ------------------------------------------------------------------------------


def _web_world(state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The session's browser: ``{tabs: [{history, index[, title]}], active, select_all}``."""
    world = state.get(WEB_STATE_KEY)
    if world is not None:
        return world
    page = parse_web_page(_initial_text(context, DEFAULT_WEB_PAGE))
    if not page["nodes"]:
        raise ConfigError(
            "the web initial_state holds no accessibility tree",
            hint="give the page as the web prompt shows it: URL:, Title:, a blank line, then "
            "lines such as \"[12] link 'Cart'\"",
        )
    titles, active = page["tabs"], page["active_tab"]
    page.update(error=None, tabs=None, active_tab=None)
    if titles and len(titles) > 1 and active is not None:
        # the other tabs are known by title only: switching to them has an unknown effect
        tabs = [
            {"history": [page], "index": 0} if i == active else {"history": [], "index": -1, "title": t}
            for i, t in enumerate(titles)
        ]
    else:
        tabs, active = [{"history": [page], "index": 0}], 0
    world = {"tabs": tabs, "active": active, "select_all": False}
    state[WEB_STATE_KEY] = world
    return world


def _tab_page(tab: dict[str, Any]) -> dict[str, Any] | None:
    return tab["history"][tab["index"]] if tab["history"] else None


def _page(world: dict[str, Any]) -> dict[str, Any]:
    page = _tab_page(world["tabs"][world["active"]])
    if page is None:  # the active tab is only known by title
        raise _Unknown("the content of this tab is not known offline")
    return page


def _web_observation(world: dict[str, Any], error: str | None) -> str:
    shown = dict(_tab_page(world["tabs"][world["active"]]) or _blank_page())
    shown["error"] = error
    if len(world["tabs"]) > 1:
        # a tab without a title (about:blank) is listed by its URL
        shown["tabs"] = [(page := _tab_page(t) or t)["title"] or page.get("url", "") for t in world["tabs"]]
        shown["active_tab"] = world["active"]
    return render_web_page(shown)


def _find(page: dict[str, Any], bid: str) -> int:
    for i, node in enumerate(page["nodes"]):
        if node["bid"] == bid:
            return i
    raise _Failed(f'ValueError: Could not find element with bid "{bid}"')


def _require_enabled(node: dict[str, Any], verb: str) -> None:
    if _disabled(node):
        raise _Failed(f"TimeoutError: Locator.{verb}: Timeout 500ms exceeded.")


def _focus(world: dict[str, Any], page: dict[str, Any], index: int | None) -> None:
    """Move focus to ``nodes[index]``, or to the page itself (``RootWebArea``) when None."""
    nodes = page["nodes"]
    for node in nodes:
        _drop(node, "focused")
    if index is None:
        roots = [i for i, n in enumerate(nodes) if n["role"] == "RootWebArea"]
        index = roots[0] if roots else (0 if nodes else None)
    if index is not None:
        _set(nodes[index], "focused", True, flag=True, first=True)
    world["select_all"] = False


def _focused(page: dict[str, Any]) -> int | None:
    for i, node in enumerate(page["nodes"]):
        if _prop_index(node, "focused") is not None:
            return i
    return None


def _known_page(context: dict[str, Any], url: str) -> str | None:
    """The page text ``context["pages"]`` holds for ``url`` (a trailing slash does not matter)."""
    return _lookup(context.get("pages"), url, fold=lambda u: u.rstrip("/"))


def _navigate(world: dict[str, Any], url: str, context: dict[str, Any]) -> None:
    """Open ``url`` in the active tab when ``context["pages"]`` knows it; else unknown effect."""
    text = _known_page(context, url)
    if text is None:
        raise _Unknown(f"the page at {url} is not known offline (context['pages'] can supply it)")
    page = parse_web_page(text)
    page.update(error=None, tabs=None, active_tab=None, url=page["url"] or url)
    tab = world["tabs"][world["active"]]
    del tab["history"][tab["index"] + 1 :]
    tab["history"].append(page)
    tab["index"] = len(tab["history"]) - 1
    world["select_all"] = False


def _type(world: dict[str, Any], node: dict[str, Any] | None, text: str) -> None:
    """Type ``text`` at the end of the focused field (replacing it after select-all)."""
    if node is None or not _editable(node):
        raise _Unknown("the keys go to no text field; what they do on the page is not known offline")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" in text and not _get(node, "multiline", False):
        raise _Unknown("Enter in a single-line field may submit its form")
    current = "" if world["select_all"] else _value(node)
    _set_value(node, current + text)
    world["select_all"] = False


def _toggle(page: dict[str, Any], index: int) -> None:
    node = page["nodes"][index]
    if node["role"] in _RADIO_ROLES:
        parent = _parent(page["nodes"], index)
        siblings = _subtree(page["nodes"], parent) if parent is not None else range(len(page["nodes"]))
        for j in siblings:
            other = page["nodes"][j]
            same_group = j != index and other["role"] == node["role"] and other["depth"] == node["depth"]
            if same_group and _prop_index(other, "checked") is not None:
                _set_checked(other, False)
        _set_checked(node, True)
    else:
        _set_checked(node, not _truthy(_get(node, "checked", False)))


def _select(page: dict[str, Any], index: int, wanted: list[str]) -> None:
    nodes = page["nodes"]
    node = nodes[index]
    options = [j for j in _subtree(nodes, index) if nodes[j]["role"] == "option"]
    if node["role"] not in _SELECT_ROLES and not options:
        raise _Failed("Element is not a <select> element")
    labels = list(wanted)
    if options:
        chosen = [j for j in options if (nodes[j]["name"] or "").strip() in {w.strip() for w in wanted}]
        if not chosen:
            raise _Unknown(f"none of the options {wanted!r} is shown on the page")
        for j in options:
            if j in chosen:
                _set(nodes[j], "selected", True)
            elif _prop_index(nodes[j], "selected") is not None:
                _set(nodes[j], "selected", False)
        labels = [nodes[j]["name"] or "" for j in chosen]
    if node["role"] == "combobox" or _prop_index(node, "value") is not None:
        _set_value(node, ", ".join(labels))


def _click(
    world: dict[str, Any], page: dict[str, Any], index: int, args: dict[str, Any], context: dict[str, Any]
) -> None:
    node = page["nodes"][index]
    _require_enabled(node, "click")
    role = node["role"]
    if args.get("button", "left") != "left":
        raise _Unknown(f"what a {args['button']} click on {role} does is not known offline")
    if role in _TOGGLE_ROLES or role in _RADIO_ROLES:
        _toggle(page, index)
        _focus(world, page, index)
    elif _editable(node):
        _focus(world, page, index)
    elif role == "option":
        owner = _parent(page["nodes"], index)
        while owner is not None and page["nodes"][owner]["role"] not in _SELECT_ROLES:
            owner = _parent(page["nodes"], owner)
        if owner is None:
            raise _Unknown("the option belongs to no select shown on the page")
        _select(page, owner, [node["name"] or ""])
    elif role == "link":
        url = _get(node, "url", None)
        if not isinstance(url, str):
            raise _Unknown(f"the target of link {node['name']!r} is not known offline")
        _navigate(world, url, context)
    elif role in _ACTIVE_ROLES or _prop_index(node, "clickable") is not None:
        raise _Unknown(f"what clicking {role} {node['name']!r} does is not known offline")
    else:  # plain content: the click only takes the focus away from any field
        _focus(world, page, None)


def _split_keys(key_comb: str) -> tuple[frozenset[str], str]:
    if key_comb.endswith("++") or key_comb == "+":
        return frozenset(key_comb[:-2].split("+")) - {""}, "+"
    *mods, key = key_comb.split("+")
    return frozenset(mods), key


_SELECT_ALL = (frozenset({"Control"}), frozenset({"Meta"}), frozenset({"ControlOrMeta"}))


def _press(world: dict[str, Any], page: dict[str, Any], key_comb: str) -> None:
    """A key press on the focused node, modelled for editing keys, Tab and Space."""
    mods, key = _split_keys(key_comb)
    index = _focused(page)
    node = page["nodes"][index] if index is not None else None
    field = node if node is not None and _editable(node) else None
    if len(key) == 1 and mods <= {"Shift"}:
        _type(world, node, key.upper() if mods else key)
    elif mods in _SELECT_ALL and key.lower() == "a":
        if field is not None:
            world["select_all"] = True
    elif mods:
        raise _Unknown(f"the shortcut {key_comb} is not known offline")
    elif key in ("Enter", "NumpadEnter"):
        _type(world, node, "\n")
    elif key in ("Backspace", "Delete"):
        if field is not None and (world["select_all"] or key == "Backspace"):
            _set_value(field, "" if world["select_all"] else _value(field)[:-1])
            world["select_all"] = False
    elif key == "Tab":
        order = [
            i
            for i, n in enumerate(page["nodes"])
            if n["bid"] is not None
            and not _disabled(n)
            and (
                _editable(n)
                or n["role"] in _TOGGLE_ROLES | _RADIO_ROLES | _ACTIVE_ROLES - {"LabelText", "label"}
                or _prop_index(n, "clickable") is not None
            )
        ]
        later = [i for i in order if index is None or i > index]
        if not later:
            raise _Unknown("Tab leaves the page's last field")
        _focus(world, page, later[0])
    elif key == "Space":
        if index is not None and page["nodes"][index]["role"] in _TOGGLE_ROLES | _RADIO_ROLES:
            _toggle(page, index)
        else:
            _type(world, node, " ")
    else:
        raise _Unknown(f"what {key_comb} does is not known offline")


def _web_call(
    world: dict[str, Any], call: tuple[str, dict[str, Any]], context: dict[str, Any], meta: dict[str, Any]
) -> None:
    name, args = call
    if name in ("noop", "scroll", "scroll_at", "mouse_move", "keyboard_down", "keyboard_up"):
        return
    if name in ("send_msg_to_user", "report_infeasible"):
        meta[f"offline_{name}"] = args.get("text", args.get("reason"))
        return
    if name == "new_tab":
        world["tabs"].append({"history": [_blank_page()], "index": 0})
        world["active"] = len(world["tabs"]) - 1
        world["select_all"] = False
        return
    if name == "tab_focus":
        count, index = len(world["tabs"]), args["index"]
        if not -count <= index < count:
            raise _Failed("IndexError: list index out of range")
        world["active"] = index % count
        world["select_all"] = False
        _page(world)
        return
    if name == "tab_close":
        del world["tabs"][world["active"]]
        if not world["tabs"]:
            world["tabs"].append({"history": [_blank_page()], "index": 0})
        world["active"] = len(world["tabs"]) - 1
        world["select_all"] = False
        _page(world)
        return
    page = _page(world)
    tab = world["tabs"][world["active"]]
    if name in ("go_back", "go_forward"):
        step = -1 if name == "go_back" else 1
        if 0 <= tab["index"] + step < len(tab["history"]):
            tab["index"] += step
            world["select_all"] = False
        return
    if name == "goto":
        url = args["url"]
        if url.rstrip("/") == page["url"].rstrip("/") and _known_page(context, url) is None:
            return  # the page already shown: nothing new to show
        _navigate(world, url, context)
        return
    if name in ("keyboard_type", "keyboard_insert_text"):
        index = _focused(page)
        _type(world, page["nodes"][index] if index is not None else None, args["text"])
        return
    if name == "keyboard_press":
        _press(world, page, args["key"])
        return
    if "bid" not in args and name != "drag_and_drop":
        raise _Unknown(f"{name} acts on screen coordinates, which the offline page does not have")
    if name == "drag_and_drop":
        _find(page, args["from_bid"])
        _find(page, args["to_bid"])
        raise _Unknown("what a drag and drop does is not known offline")
    index = _find(page, args["bid"])
    node = page["nodes"][index]
    if name == "click":
        _click(world, page, index, args, context)
    elif name == "dblclick":
        _require_enabled(node, "dblclick")
        if not _editable(node) and node["role"] not in _TOGGLE_ROLES:
            raise _Unknown(f"what double-clicking {node['role']} {node['name']!r} does is not known offline")
        _focus(world, page, index)
    elif name == "focus":
        _focus(world, page, index)
    elif name == "hover":
        if _prop_index(node, "hasPopup") is not None:
            raise _Unknown("hovering may open this element's popup")
    elif name in ("fill", "clear"):
        _require_enabled(node, name)
        if not _editable(node):
            raise _Failed("Element is not an <input>, <textarea> or [contenteditable] element")
        _set_value(node, args.get("value", ""))
        _focus(world, page, index)
    elif name == "select_option":
        _require_enabled(node, "select_option")
        options = args["options"]
        _select(page, index, [options] if isinstance(options, str) else list(options))
    elif name == "press":
        _require_enabled(node, "press")
        _focus(world, page, index)
        _press(world, page, args["key_comb"])
    else:  # upload_file
        raise _Unknown(f"what {name} does is not known offline")


def web_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline web world's answer to a :class:`~agentworld_plugins.domains.web.WebAction`."""
    web_action = WebAction.model_validate(action)
    world = _web_world(state, context)
    extra: dict[str, Any] = {}
    source = web_action.root
    lines = [ast.get_source_segment(source, stmt) or "" for stmt in ast.parse(source).body]
    calls = list(zip(lines, web_action.calls()))
    world, meta, error = _run_calls(world, calls, lambda w, call: _web_call(w, call, context, extra))
    state[WEB_STATE_KEY] = world
    meta.update(extra)
    return OfflineResult(text=_web_observation(world, error), is_error=error is not None, metadata=meta)


# -- android -------------------------------------------------------------------------------------


def _android_element(
    text: str | None,
    description: str | None,
    class_name: str,
    resource: str | None,
    bbox: list[int],
    *,
    clickable: bool = True,
) -> dict[str, Any]:
    return {
        "text": text,
        "content_description": description,
        "class_name": class_name,
        "resource_name": resource,
        "is_clickable": clickable,
        "is_editable": False,
        "is_scrollable": False,
        "is_checked": False,
        "is_selected": False,
        "is_focused": False,
        "bbox": bbox,
    }


_LAUNCHER = "com.google.android.apps.nexuslauncher:id/"
_ICON = "android.widget.TextView"

_DEFAULT_HOME: list[dict[str, Any]] = [
    _android_element(
        "9:41", "9:41", _ICON, "com.android.systemui:id/clock", [66, 0, 176, 110], clickable=False
    ),
    _android_element("Tue, Jun 3", None, _ICON, _LAUNCHER + "date", [79, 263, 553, 341]),
    _android_element("Clock", "Clock", _ICON, None, [63, 1640, 271, 1880]),
    _android_element("Settings", "Settings", _ICON, None, [309, 1640, 517, 1880]),
    _android_element("Contacts", "Contacts", _ICON, None, [563, 1640, 771, 1880]),
    _android_element("Phone", "Phone", _ICON, None, [63, 1915, 271, 2169]),
    _android_element("Messages", "Messages", _ICON, None, [309, 1915, 517, 2169]),
    _android_element("Chrome", "Chrome", _ICON, None, [563, 1915, 771, 2169]),
    _android_element("Camera", "Camera", _ICON, None, [809, 1915, 1017, 2169]),
    _android_element(
        None,
        "Search",
        "android.widget.FrameLayout",
        _LAUNCHER + "search_container_hotseat",
        [63, 2205, 1017, 2337],
    ),
]

_ANDROID_LINE = re.compile(r"^\s*UI element (?P<index>\d+):\s*(?P<json>\{.*\})\s*$")
_CHECKABLE_CLASSES = ("CheckBox", "Switch", "ToggleButton", "RadioButton", "CheckedTextView")


def parse_android_screen(text: str) -> list[dict[str, Any]]:
    """The UI elements of an android observation (``UI element N: {json}`` lines), in order."""
    elements: list[dict[str, Any]] = []
    for line in _split_lines(text):
        match = _ANDROID_LINE.match(line)
        if not match:
            continue
        try:
            element = json.loads(match.group("json"))
        except json.JSONDecodeError:
            continue
        if isinstance(element, dict):
            elements.append(element)
    return elements


def render_android_screen(elements: list[dict[str, Any]]) -> str:
    """The element list as the android prompt writes it: one numbered JSON object per line."""
    return "\n".join(f"UI element {i}: {_json_line(el)}" for i, el in enumerate(elements))


def _json_line(element: dict[str, Any]) -> str:
    """``json.dumps`` without ASCII escapes, but with the characters that break a line escaped."""
    text = json.dumps(element, ensure_ascii=False)
    for char in _LINE_BREAKERS:
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


_LINE_BREAKERS = ("\x85", "\u2028", "\u2029")


#: the built-in starting screen: the launcher's home screen
DEFAULT_ANDROID_SCREEN = render_android_screen(_DEFAULT_HOME)


def _android_screen_text(text: str, what: str) -> list[dict[str, Any]]:
    elements = parse_android_screen(text)
    if not elements and text.strip():
        raise ConfigError(
            f"the android {what} holds no UI element lines",
            hint='write lines such as UI element 0: {"text": "OK", ...} as the android prompt shows',
        )
    return elements


def _android_world(state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The phone: ``{screen, app, stack: [{screen, app}], apps: {app: last screen}, home}``."""
    world = state.get(ANDROID_STATE_KEY)
    if world is not None:
        return world
    given = context.get("initial_state")
    screen = _android_screen_text(_initial_text(context, DEFAULT_ANDROID_SCREEN), "initial_state")
    home_text = _lookup(context.get("screens"), "home", fold=str.casefold)
    home = parse_android_screen(home_text) if home_text is not None else None
    if home is None and given is None:
        home = copy.deepcopy(screen)
    world = {"screen": screen, "app": None, "stack": [], "apps": {}, "home": home}
    state[ANDROID_STATE_KEY] = world
    return world


def _bbox(element: dict[str, Any]) -> tuple[float, float, float, float] | None:
    box = element.get("bbox")
    if isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box):
        return (box[0], box[1], box[2], box[3])
    if isinstance(box, dict):  # AndroidWorld's BoundingBox(x_min, x_max, y_min, y_max)
        try:
            return (box["x_min"], box["y_min"], box["x_max"], box["y_max"])
        except KeyError:
            return None
    return None


def _contains(element: dict[str, Any], x: float, y: float) -> bool:
    box = _bbox(element)
    return box is not None and box[0] <= x < box[2] and box[1] <= y < box[3]


def _area(element: dict[str, Any]) -> float:
    box = _bbox(element)
    return (box[2] - box[0]) * (box[3] - box[1]) if box else float("inf")


def _checkable(element: dict[str, Any]) -> bool:
    if element.get("is_checkable") is True:
        return True
    cls = str(element.get("class_name") or "").rsplit(".", 1)[-1]
    return any(kind in cls for kind in _CHECKABLE_CLASSES)


def _android_editable(element: dict[str, Any]) -> bool:
    return element.get("is_editable") is True or "EditText" in str(element.get("class_name") or "")


def _interactive(element: dict[str, Any]) -> bool:
    return element.get("is_clickable") is True or _android_editable(element) or _checkable(element)


def _label(element: dict[str, Any]) -> str:
    return str(element.get("text") or element.get("content_description") or "")


def _android_target(world: dict[str, Any], action: AndroidAction) -> int | None:
    """The element an action aims at: by index (error when out of range) or by point."""
    elements = world["screen"]
    if action.index is not None:
        if action.index >= len(elements):
            count = len(elements)
            known = f" (indices 0-{count - 1})" if count else ""
            raise _Failed(
                f"Error: UI element index {action.index} is out of range; the screen has "
                f"{count} UI element{'s' if count != 1 else ''}{known}"
            )
        return int(action.index)
    if action.x is not None and action.y is not None:
        hits = [i for i, el in enumerate(elements) if _contains(el, action.x, action.y)]
        if hits:
            return min(hits, key=lambda i: (not _interactive(elements[i]), _area(elements[i]), -i))
    return None


def _receiver(elements: list[dict[str, Any]], index: int) -> int | None:
    """The element a tap on ``elements[index]`` lands on: itself, or the smallest interactive
    element under its centre (a tap on a row's label goes to the row)."""
    element = elements[index]
    if _interactive(element):
        return index
    box = _bbox(element)
    if box is None:
        return None
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    under = [i for i, el in enumerate(elements) if _interactive(el) and _contains(el, cx, cy)]
    return min(under, key=lambda i: (_area(elements[i]), -i)) if under else None


def _android_focus(elements: list[dict[str, Any]], index: int) -> None:
    for i, element in enumerate(elements):
        if "is_focused" in element or i == index:
            element["is_focused"] = i == index


def _open_screen(world: dict[str, Any], elements: list[dict[str, Any]], app: str | None) -> None:
    world["stack"].append({"screen": world["screen"], "app": world["app"]})
    world["screen"], world["app"] = elements, app


def _leave_app(world: dict[str, Any]) -> None:
    if world["app"] is not None:
        world["apps"][world["app"].casefold()] = world["screen"]


def _android_apply(world: dict[str, Any], action: AndroidAction, context: dict[str, Any]) -> None:
    kind = action.action_type
    elements = world["screen"]
    if kind in ("status", "answer", "wait"):
        return
    if kind in ("click", "double_tap", "long_press"):
        target = _android_target(world, action)
        receiver = None if target is None else _receiver(elements, target)
        if receiver is None:  # a tap on nothing interactive changes nothing
            return
        element = elements[receiver]
        if kind == "long_press":
            raise _Unknown(f"what a long press on {_label(element)!r} opens is not known offline")
        if _checkable(element) and kind == "click":
            radio = "RadioButton" in str(element.get("class_name"))
            element["is_checked"] = True if radio else not element.get("is_checked", False)
        elif _android_editable(element):
            _android_focus(elements, receiver)
        else:
            screen = _lookup(context.get("screens"), _label(element), fold=str.casefold)
            if screen is None or kind != "click":
                raise _Unknown(
                    f"what {kind} on {_label(element) or element.get('class_name')!r} opens is not known offline"
                )
            _leave_app(world)
            _open_screen(world, _android_screen_text(screen, f"screen {_label(element)!r}"), _label(element))
        return
    if kind == "input_text":
        target = _android_target(world, action)
        if target is None:
            focused = [i for i, el in enumerate(elements) if el.get("is_focused") and _android_editable(el)]
            if not focused:
                return  # no field has the focus: the keys go nowhere
            target = focused[0]
        element = elements[target]
        if not _android_editable(element):
            raise _Unknown(f"{_label(element)!r} is not a text field; tapping it has an unknown effect")
        old = element.get("text")
        if action.clear_text or old is None or old == element.get("hint_text"):
            old = ""
        element["text"] = str(old) + (action.text or "")
        _android_focus(elements, target)
        return
    if kind == "scroll":
        if not any(el.get("is_scrollable") for el in elements):
            return
        raise _Unknown("what a scroll reveals is not known offline")
    if kind == "open_app":
        name = (action.app_name or "").strip()
        remembered = world["apps"].pop(name.casefold(), None)
        screen = (
            remembered if remembered is not None else _lookup(context.get("screens"), name, fold=str.casefold)
        )
        if screen is None:
            raise _Unknown(
                f"the screens of {name} are not known offline (context['screens'] can supply them)"
            )
        _leave_app(world)
        parsed = screen if isinstance(screen, list) else _android_screen_text(screen, f"screen {name!r}")
        _open_screen(world, parsed, name)
        return
    if kind == "navigate_home":
        if world["home"] is None:
            raise _Unknown("the home screen is not known offline (context['screens']['home'] can supply it)")
        _leave_app(world)
        world.update(screen=copy.deepcopy(world["home"]), app=None, stack=[])
        return
    if kind == "navigate_back" and world["stack"]:
        previous = world["stack"].pop()
        world["screen"], world["app"] = previous["screen"], previous["app"]
        return
    raise _Unknown(f"what {kind} leads to is not known offline")


def android_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline android world's answer to an AndroidWorld JSON action."""
    phone_action = AndroidAction.model_validate(action)
    world = _android_world(state, context)
    shown = json.dumps(phone_action.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    world, meta, error = _run_calls(
        world, [(shown, phone_action)], lambda w, a: _android_apply(w, a, context)
    )
    state[ANDROID_STATE_KEY] = world
    if phone_action.action_type == "answer":
        meta["offline_answer"] = phone_action.text
    elif phone_action.action_type == "status":
        meta["offline_goal_status"] = phone_action.goal_status
    screen = render_android_screen(world["screen"])
    text = screen if error is None else f"{error}\n{screen}".rstrip("\n")
    return OfflineResult(text=text, is_error=error is not None, metadata=meta)


# -- os ------------------------------------------------------------------------------------------

OS_COLUMNS = ["tag", "name", "text", "class", "description", "position (top-left x&y)", "size (w&h)"]

DEFAULT_OS_DESKTOP = "\n".join(
    "\t".join(row)
    for row in [
        OS_COLUMNS,
        ["label", "Activities", "", "", "", "(16, 0)", "(90, 32)"],
        ["label", "Jun 3  09:41", "", "", "", "(893, 0)", "(134, 32)"],
        ["push-button", "Google Chrome", "", "", "", "(0, 39)", "(70, 64)"],
        ["push-button", "Files", "", "", "", "(0, 109)", "(70, 64)"],
        ["push-button", "Terminal", "", "", "", "(0, 179)", "(70, 64)"],
        ["push-button", "Text Editor", "", "", "", "(0, 249)", "(70, 64)"],
        ["push-button", "Show Applications", "", "", "", "(0, 1008)", "(70, 64)"],
        ["icon", "Home", "", "", "", "(1820, 50)", "(90, 90)"],
        ["icon", "Trash", "", "", "", "(1820, 150)", "(90, 90)"],
        ["frame", "user@ubuntu: ~", "", "", "", "(90, 60)", "(860, 560)"],
        ["label", "user@ubuntu: ~", "", "", "", "(420, 70)", "(200, 20)"],
        ["push-button", "Close", "", "", "", "(910, 64)", "(34, 34)"],
        ["terminal", "Terminal", '"user@ubuntu:~$ "', "", "", "(90, 106)", "(860, 514)"],
        ["frame", "Untitled Document 1 - Text Editor", "", "", "", "(980, 200)", "(820, 640)"],
        ["push-button", "Open", "", "", "", "(990, 206)", "(80, 34)"],
        ["push-button", "Save", "", "", "", "(1640, 206)", "(70, 34)"],
        ["push-button", "Close", "", "", "", "(1760, 206)", "(34, 34)"],
        ["text", "Untitled Document 1", "", "", "", "(980, 250)", "(820, 590)"],
    ]
)

_OS_EDITABLE = frozenset(
    {"entry", "text", "terminal", "password-text", "paragraph", "document-text", "spin-button"}
)
_OS_MULTILINE = frozenset({"text", "paragraph", "document-text"})
_OS_TOGGLES = frozenset({"check-box", "toggle-button", "check-menu-item"})
_OS_RADIOS = frozenset({"radio-button", "radio-menu-item"})
#: clicking these shows nothing new (it at most focuses their window)
_OS_INERT = frozenset(
    {
        "frame",
        "window",
        "panel",
        "filler",
        "section",
        "separator",
        "static",
        "heading",
        "scroll-pane",
        "status-bar",
        "tool-bar",
        "menu-bar",
        "page-tab-list",
        "table",
        "list",
        "image",
    }
)
_POINT = re.compile(r"^\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)$")
_UNESCAPE = {"n": "\n", "t": "\t", "\\": "\\"}


def parse_os_table(text: str) -> dict[str, Any]:
    """The accessibility table as ``{columns, rows}``: the header's column names, and each row's
    cells as written (``text`` keeps its quotes; see :func:`os_cell_text`)."""
    lines = [line for line in _split_lines(text) if line.strip()]
    if not lines:
        return {"columns": list(OS_COLUMNS), "rows": []}
    columns = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        cells = line.split("\t")
        cells += [""] * (len(columns) - len(cells))
        rows.append(cells)
    return {"columns": columns, "rows": rows}


def render_os_table(table: dict[str, Any]) -> str:
    """The table as the os prompt writes it: tab-separated, header first."""
    return "\n".join("\t".join(cells) for cells in [table["columns"], *table["rows"]])


def os_cell_text(cell: str) -> str:
    """A ``text`` cell's content: the quotes removed, ``""`` read as ``"``, ``\\n`` as a newline."""
    if not (len(cell) >= 2 and cell[0] == cell[-1] == '"'):
        return cell
    inner, out, i = cell[1:-1], [], 0
    while i < len(inner):
        pair = inner[i : i + 2]
        if pair[:1] == "\\" and pair[1:] in _UNESCAPE:
            out.append(_UNESCAPE[pair[1:]])
            i += 2
        elif pair == '""':
            out.append('"')
            i += 2
        else:
            out.append(inner[i])
            i += 1
    return "".join(out)


def os_text_cell(text: str) -> str:
    """The ``text`` cell for ``text``: in double quotes, empty when there is no text."""
    if not text:
        return ""
    escaped = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '""')
    return f'"{escaped}"'


def _column(table: dict[str, Any], name: str) -> int | None:
    for i, column in enumerate(table["columns"]):
        if column == name or column.startswith(name + " "):
            return i
    return None


def _cell(table: dict[str, Any], row: int, name: str) -> str:
    column = _column(table, name)
    return table["rows"][row][column] if column is not None else ""


def _box(table: dict[str, Any], row: int) -> tuple[float, float, float, float] | None:
    position = _POINT.match(_cell(table, row, "position").strip())
    size = _POINT.match(_cell(table, row, "size").strip())
    if not (position and size):
        return None
    x, y = float(position.group(1)), float(position.group(2))
    return (x, y, x + float(size.group(1)), y + float(size.group(2)))


def _os_world(state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The desktop: ``{table, focus, mouse, select_all, clipboard}``; focus is a row number, kept
    here because the table does not show it (it starts on the front window's last text field)."""
    world = state.get(OS_STATE_KEY)
    if world is not None:
        return world
    table = parse_os_table(_initial_text(context, DEFAULT_OS_DESKTOP))
    if len(table["columns"]) < 2:
        raise ConfigError(
            "the os initial_state is not an accessibility table",
            hint="give a tab-separated table with the header tag, name, text, class, description, "
            "position (top-left x&y), size (w&h), as the os prompt shows",
        )
    fields = [i for i in range(len(table["rows"])) if _cell(table, i, "tag") in _OS_EDITABLE]
    world = {
        "table": table,
        "focus": fields[-1] if fields else None,
        "mouse": None,
        "select_all": False,
        "clipboard": None,
    }
    state[OS_STATE_KEY] = world
    return world


def _os_hit(table: dict[str, Any], x: float, y: float) -> int | None:
    """The row under ``(x, y)``: the smallest box among the rows of the front-most window there."""
    candidates: list[int] = []
    for row in range(len(table["rows"]) - 1, -1, -1):
        box = _box(table, row)
        if box is None or not (box[0] <= x < box[2] and box[1] <= y < box[3]):
            continue
        candidates.append(row)
        if _cell(table, row, "tag") in ("frame", "window", "dialog", "alert"):
            break  # the window in front hides what lies behind it
    if not candidates:
        return None
    return min(candidates, key=lambda r: (_row_area(table, r), -r))


def _row_area(table: dict[str, Any], row: int) -> float:
    box = _box(table, row)
    return (box[2] - box[0]) * (box[3] - box[1]) if box else float("inf")


def _os_field(world: dict[str, Any]) -> tuple[int, str]:
    focus = world["focus"]
    tag = _cell(world["table"], focus, "tag") if focus is not None else ""
    if focus is None or tag not in _OS_EDITABLE:
        raise _Unknown("no text field is known to have the keyboard focus")
    return focus, tag


def _os_type(world: dict[str, Any], text: str) -> None:
    row, tag = _os_field(world)
    table = world["table"]
    column = _column(table, "text")
    if column is None:
        raise _Unknown("the table has no text column to show typed text in")
    current = "" if world["select_all"] else os_cell_text(table["rows"][row][column])
    for ch in text.replace("\r\n", "\n"):
        if ch in "\r\n\t" and tag not in _OS_MULTILINE:
            raise _Unknown(f"{'Tab' if ch == chr(9) else 'Enter'} in a {tag} has an effect not known offline")
        current = current[:-1] if ch == "\b" else current + ("\n" if ch == "\r" else ch)
    table["rows"][row][column] = os_text_cell(current)
    world["select_all"] = False


_KEY_TEXT = {"enter": "\n", "return": "\n", "tab": "\t", "space": " ", "backspace": "\b"}
_KEY_ALIASES = {
    "control": "ctrl",
    "ctrlleft": "ctrl",
    "ctrlright": "ctrl",
    "shiftleft": "shift",
    "shiftright": "shift",
}


def _os_key(world: dict[str, Any], key: str) -> None:
    lowered = key.lower()
    if len(key) == 1:
        _os_type(world, key)
    elif lowered in _KEY_TEXT:
        _os_type(world, _KEY_TEXT[lowered])
    elif lowered in ("delete", "del"):
        _os_field(world)
        if world["select_all"]:
            _os_type(world, "")  # typing nothing over a selection empties the field
    else:
        raise _Unknown(f"what the key {key!r} does is not known offline")


def _os_hotkey(world: dict[str, Any], keys: list[str]) -> None:
    combo = tuple(_KEY_ALIASES.get(k.lower(), k.lower()) for k in keys)
    if len(combo) == 1:
        _os_key(world, keys[0])
        return
    row, tag = _os_field(world)
    table = world["table"]
    terminal = tag == "terminal"
    if combo == ("ctrl", "a") and not terminal:
        world["select_all"] = True
    elif combo in (("ctrl", "c"), ("ctrl", "x")) and not terminal:
        if not world["select_all"]:
            if combo[1] == "x":
                raise _Unknown("what is selected, and so cut, is not known offline")
            world["clipboard"] = None  # copying an unknown selection
            return
        world["clipboard"] = os_cell_text(_cell(table, row, "text"))
        if combo[1] == "x":
            _os_type(world, "")
    elif combo == (("ctrl", "shift", "v") if terminal else ("ctrl", "v")):
        if world["clipboard"] is None:
            raise _Unknown("the clipboard's content is not known offline")
        _os_type(world, world["clipboard"])
    else:
        raise _Unknown(f"the shortcut {'+'.join(combo)} is not known offline")


def _os_click(world: dict[str, Any], x: float, y: float, clicks: int, button: str) -> None:
    world["mouse"] = [x, y]
    table = world["table"]
    row = _os_hit(table, x, y)
    if row is None:
        return  # empty desktop: nothing visible happens
    tag, name = _cell(table, row, "tag"), _cell(table, row, "name")
    if button not in ("left", "primary"):
        raise _Unknown(f"what a {button} click on {tag} {name!r} does is not known offline")
    if tag in _OS_EDITABLE:
        world["focus"], world["select_all"] = row, False
    elif tag in _OS_TOGGLES | _OS_RADIOS:
        column = _column(table, "description")
        if column is None:
            raise _Unknown("the table has no description column to show the checked state in")
        tokens = [t.strip() for t in table["rows"][row][column].split(",") if t.strip()]
        checked = "checked" in tokens
        if tag in _OS_RADIOS:
            checked = True
        elif clicks % 2:
            checked = not checked
        tokens = [t for t in tokens if t != "checked"] + (["checked"] if checked else [])
        table["rows"][row][column] = ", ".join(tokens)
    elif tag not in _OS_INERT:
        raise _Unknown(f"what clicking {tag} {name!r} does is not known offline")


_CLICKS = {"click": 1, "leftClick": 1, "doubleClick": 2, "tripleClick": 3, "rightClick": 1, "middleClick": 1}
_BUTTONS = {"rightClick": "right", "middleClick": "middle"}
_INERT_CALLS = frozenset(
    {
        "time.sleep",
        "pyautogui.sleep",
        "pyautogui.position",
        "pyautogui.size",
        "pyautogui.screenshot",
        "pyautogui.onScreen",
        "pyautogui.keyDown",
        "pyautogui.keyUp",
    }
)


def _bind(call: ast.Call, names: tuple[str, ...]) -> dict[str, Any]:
    """A call's literal arguments by parameter name; non-literal arguments are an unknown effect."""
    bound: dict[str, Any] = {}
    try:
        for name, node in zip(names, call.args):
            bound[name] = ast.literal_eval(node)
        for keyword in call.keywords:
            if keyword.arg is None:
                raise ValueError("** arguments")
            bound[keyword.arg] = ast.literal_eval(keyword.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Unknown("the arguments are not literal values") from None
    if len(call.args) > len(names) or any(isinstance(a, ast.Starred) for a in call.args):
        raise _Unknown("the arguments do not fit the function")
    return bound


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _point(world: dict[str, Any], args: dict[str, Any]) -> tuple[float, float]:
    x, y = args.get("x"), args.get("y")
    if isinstance(x, (tuple, list)) and len(x) >= 2:
        x, y = x[0], x[1]
    if x is None and y is None and world["mouse"] is not None:
        x, y = world["mouse"]
    if not (_number(x) and _number(y)):
        raise _Unknown("where the pointer is, is not known offline")
    return float(x), float(y)  # type: ignore[arg-type]


def _os_call(world: dict[str, Any], function: str, call: ast.Call) -> None:
    if function in _INERT_CALLS:
        return
    short = function.removeprefix("pyautogui.")
    if short in _CLICKS:
        args = _bind(call, ("x", "y", "clicks", "interval", "button"))
        x, y = _point(world, args)
        clicks = args.get("clicks", _CLICKS[short])
        if short != "click" or not isinstance(clicks, int):
            clicks = _CLICKS[short]
        _os_click(world, x, y, clicks, str(args.get("button", _BUTTONS.get(short, "left"))))
    elif short == "moveTo":
        world["mouse"] = list(_point(world, _bind(call, ("x", "y"))))
    elif short in ("moveRel", "move"):
        args = _bind(call, ("xOffset", "yOffset"))
        dx, dy = args.get("xOffset", 0), args.get("yOffset", 0)
        if world["mouse"] is None or not (_number(dx) and _number(dy)):
            raise _Unknown("where the pointer is, is not known offline")
        world["mouse"] = [world["mouse"][0] + dx, world["mouse"][1] + dy]
    elif short in ("write", "typewrite"):
        message = _bind(call, ("message", "interval")).get("message")
        if isinstance(message, str):
            _os_type(world, message)
        elif isinstance(message, (list, tuple)) and all(isinstance(k, str) for k in message):
            for key in message:
                _os_key(world, key)
        else:
            raise _Unknown("write() needs a string or a list of key names")
    elif short == "press":
        args = _bind(call, ("keys", "presses", "interval"))
        keys, presses = args.get("keys"), args.get("presses", 1)
        keys = [keys] if isinstance(keys, str) else keys
        if not (isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys)):
            raise _Unknown("press() needs a key name or a list of them")
        if not isinstance(presses, int) or presses < 0:
            raise _Unknown("press() needs a whole number of presses")
        for _ in range(presses):
            for key in keys:
                _os_key(world, key)
    elif short == "hotkey":
        keys = list(_bind(call, tuple(f"key{i}" for i in range(len(call.args)))).values())
        if len(keys) == 1 and isinstance(keys[0], (list, tuple)):
            keys = list(keys[0])
        if not keys or not all(isinstance(k, str) for k in keys):
            raise _Unknown("hotkey() needs key names")
        _os_hotkey(world, keys)
    else:
        raise _Unknown(f"what {function}() does is not known offline")


def _resolve(func: ast.expr, aliases: dict[str, str]) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases:
        return f"{aliases[func.value.id]}.{func.attr}"
    if isinstance(func, ast.Name):
        return aliases.get(func.id)
    return None


def _os_statement(world: dict[str, Any], stmt: ast.stmt, aliases: dict[str, str]) -> None:
    """Apply one statement; ``aliases`` maps the names in scope to what they import."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            top = alias.name.split(".")[0]
            aliases[alias.asname or top] = alias.name if alias.asname else top
    elif isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if alias.name != "*":
                aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    elif isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
        return
    elif isinstance(stmt, ast.Assign) and all(
        str(_resolve(t, aliases)).startswith("pyautogui.") for t in stmt.targets
    ):
        return  # pyautogui settings such as PAUSE or FAILSAFE
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        function = _resolve(stmt.value.func, aliases)
        if function is None:
            raise _Unknown("only pyautogui and time calls are modelled offline")
        _os_call(world, function, stmt.value)
    else:
        raise _Unknown("only pyautogui and time calls are modelled offline")


def os_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline os world's answer to pyautogui code (read with :mod:`ast`, never run) or
    ``WAIT``/``DONE``/``FAIL``."""
    world = _os_world(state, context)
    code = OsAction.model_validate(action).root
    if code in ("WAIT", "DONE", "FAIL"):
        meta: dict[str, Any] = {UNKNOWN_EFFECT: False, "offline_special": code}
    else:
        # OSWorld runs each action with pyautogui and time imported
        aliases = {"pyautogui": "pyautogui", "time": "time"}
        statements = [(ast.unparse(stmt), stmt) for stmt in ast.parse(code).body]
        world, meta, _ = _run_calls(world, statements, lambda w, stmt: _os_statement(w, stmt, aliases))
        state[OS_STATE_KEY] = world
    return OfflineResult(text=render_os_table(world["table"]), is_error=False, metadata=meta)
