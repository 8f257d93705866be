"""The offline web world: a BrowserGym page carried forward through its actions."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel

from ... import pyast
from ...domains.base import OfflineResult
from ...domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page, render_web_page
from ...domains.web import WebAction
from ...errors import ConfigError
from .shared import WEB_STATE_KEY, Failed, Unknown, initial_text, lookup, run_calls


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
        return pyast.literal_eval(raw)
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
    page = parse_web_page(initial_text(context, DEFAULT_WEB_PAGE))
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
        raise Unknown("the content of this tab is not known offline")
    return page


def _web_observation(world: dict[str, Any], error: str | None) -> str:
    current = _tab_page(world["tabs"][world["active"]])
    if current is not None:
        _show_cart(world, current)
    shown = dict(current or _blank_page())
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
    raise Failed(f'ValueError: Could not find element with bid "{bid}"')


def _require_enabled(node: dict[str, Any], verb: str) -> None:
    if _disabled(node):
        raise Failed(f"TimeoutError: Locator.{verb}: Timeout 500ms exceeded.")


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
    return lookup(context.get("pages"), url, fold=lambda u: u.rstrip("/"))


def _navigate(world: dict[str, Any], url: str, context: dict[str, Any]) -> None:
    """Open ``url`` in the active tab when ``context["pages"]`` knows it; else unknown effect."""
    text = _known_page(context, url)
    if text is None:
        raise Unknown(f"the page at {url} is not known offline (context['pages'] can supply it)")
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
        raise Unknown("the keys go to no text field; what they do on the page is not known offline")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" in text and not _get(node, "multiline", False):
        raise Unknown("Enter in a single-line field may submit its form")
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
        raise Failed("Element is not a <select> element")
    labels = list(wanted)
    if options:
        chosen = [j for j in options if (nodes[j]["name"] or "").strip() in {w.strip() for w in wanted}]
        if not chosen:
            raise Unknown(f"none of the options {wanted!r} is shown on the page")
        for j in options:
            if j in chosen:
                _set(nodes[j], "selected", True)
            elif _prop_index(nodes[j], "selected") is not None:
                _set(nodes[j], "selected", False)
        labels = [nodes[j]["name"] or "" for j in chosen]
    if node["role"] == "combobox" or _prop_index(node, "value") is not None:
        _set_value(node, ", ".join(labels))


_ADD_TO_CART = re.compile(r"^add to (cart|basket|bag)\b", re.IGNORECASE)
_CART_LINK = re.compile(r"^(Cart|Basket|Bag) \((\d+)\)$")
_SUBMIT_NAMES = frozenset({"search", "go", "submit", "find"})


def _searchy(node: dict[str, Any]) -> bool:
    return node["role"] == "searchbox" or "search" in (node["name"] or "").casefold()


def _results_url(context: dict[str, Any], current: str, query: str) -> str | None:
    """The task's page whose URL carries ``query`` as a parameter (same site first)."""
    pages = context.get("pages")
    if not isinstance(pages, dict) or not query.strip():
        return None
    wanted = " ".join(query.split()).casefold()
    host = urlsplit(current).netloc
    found = [
        str(url)
        for url in pages
        if any(" ".join(v.split()).casefold() == wanted for _, v in parse_qsl(urlsplit(str(url)).query))
    ]
    found.sort(key=lambda url: urlsplit(url).netloc != host)
    return found[0] if found else None


def _in_form(nodes: list[dict[str, Any]], index: int) -> bool:
    owner = _parent(nodes, index)
    while owner is not None and nodes[owner]["role"] != "form":
        owner = _parent(nodes, owner)
    return owner is not None


def _submit(world: dict[str, Any], page: dict[str, Any], index: int, context: dict[str, Any]) -> None:
    """Submit the form (or search box) ``nodes[index]`` belongs to, as a browser does: an empty
    required field takes the focus instead; a search goes to the task's page for its query."""
    nodes = page["nodes"]
    owner = _parent(nodes, index)
    while owner is not None and nodes[owner]["role"] != "form":
        owner = _parent(nodes, owner)
    scope = _subtree(nodes, owner) if owner is not None else range(len(nodes))
    for j in scope:
        field = nodes[j]
        required = _prop_index(field, "required") is not None
        empty = (_editable(field) and not _value(field)) or (
            field["role"] in _TOGGLE_ROLES and not _truthy(_get(field, "checked", False))
        )
        if required and empty:
            _focus(world, page, j)  # the browser's "Please fill out this field."
            return
    boxes = [j for j in scope if _editable(nodes[j]) and _searchy(nodes[j])]
    box = index if _editable(nodes[index]) and _searchy(nodes[index]) else (boxes[0] if boxes else None)
    if box is None:
        raise Unknown("where the form is sent and what comes back is not known offline")
    query = _value(nodes[box])
    url = _results_url(context, page["url"], query)
    if url is None:
        raise Unknown(f"the results page for {query!r} is not known offline (context['pages'] can supply it)")
    _navigate(world, url, context)


def _add_to_cart(world: dict[str, Any], page: dict[str, Any], index: int) -> None:
    """The shop's server adds the item: the cart count grows, the page says so."""
    nodes = page["nodes"]
    quantity = 1
    for node in nodes:
        if node["role"] == "spinbutton" and "quantity" in (node["name"] or "").casefold():
            try:
                quantity = max(1, int(float(_value(node) or 1)))
            except ValueError:
                quantity = 1
    if world.get("cart") is None:  # the count the site showed so far
        seen = [
            int(m.group(2))
            for tab in world["tabs"]
            for shown in tab["history"]
            for n in shown["nodes"]
            if n["role"] == "link" and (m := _CART_LINK.match(n["name"] or "")) is not None
        ]
        world["cart"] = seen[-1] if seen else 0
    world["cart"] = int(world["cart"]) + quantity
    note = f"Added to cart ({world['cart']} item{'s' if world['cart'] != 1 else ''} in your cart)"
    after = index + 1
    if (
        after < len(nodes)
        and nodes[after]["role"] == "StaticText"
        and nodes[after]["name"].startswith("Added to")
    ):
        nodes[after]["name"] = note
    else:
        nodes.insert(
            after,
            {"depth": nodes[index]["depth"], "bid": None, "role": "StaticText", "name": note, "props": []},
        )


def _show_cart(world: dict[str, Any], page: dict[str, Any]) -> None:
    """Every page shows the cart as the server has it now."""
    if world.get("cart") is None:
        return
    for node in page["nodes"]:
        match = _CART_LINK.match(node["name"] or "")
        if match is not None and node["role"] == "link":
            node["name"] = f"{match.group(1)} ({world['cart']})"


def _click(
    world: dict[str, Any], page: dict[str, Any], index: int, args: dict[str, Any], context: dict[str, Any]
) -> None:
    node = page["nodes"][index]
    _require_enabled(node, "click")
    role = node["role"]
    if args.get("button", "left") != "left":
        raise Unknown(f"what a {args['button']} click on {role} does is not known offline")
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
            raise Unknown("the option belongs to no select shown on the page")
        _select(page, owner, [node["name"] or ""])
    elif role == "link":
        url = _get(node, "url", None)
        if not isinstance(url, str):
            raise Unknown(f"the target of link {node['name']!r} is not known offline")
        _navigate(world, url, context)
    elif role == "button" and _ADD_TO_CART.match(node["name"] or ""):
        _add_to_cart(world, page, index)
    elif role == "button" and (
        (node["name"] or "").strip().casefold() in _SUBMIT_NAMES or _in_form(page["nodes"], index)
    ):
        _submit(world, page, index, context)
    elif role in _ACTIVE_ROLES or _prop_index(node, "clickable") is not None:
        raise Unknown(f"what clicking {role} {node['name']!r} does is not known offline")
    else:  # plain content: the click only takes the focus away from any field
        _focus(world, page, None)


def _split_keys(key_comb: str) -> tuple[frozenset[str], str]:
    if key_comb.endswith("++") or key_comb == "+":
        return frozenset(key_comb[:-2].split("+")) - {""}, "+"
    *mods, key = key_comb.split("+")
    return frozenset(mods), key


_SELECT_ALL = (frozenset({"Control"}), frozenset({"Meta"}), frozenset({"ControlOrMeta"}))


def _press(world: dict[str, Any], page: dict[str, Any], key_comb: str, context: dict[str, Any]) -> None:
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
        raise Unknown(f"the shortcut {key_comb} is not known offline")
    elif key in ("Enter", "NumpadEnter"):
        if field is not None and index is not None and not _get(field, "multiline", False):
            _submit(world, page, index, context)  # Enter in a one-line field submits its form
        else:
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
            raise Unknown("Tab leaves the page's last field")
        _focus(world, page, later[0])
    elif key == "Space":
        if index is not None and page["nodes"][index]["role"] in _TOGGLE_ROLES | _RADIO_ROLES:
            _toggle(page, index)
        else:
            _type(world, node, " ")
    else:
        raise Unknown(f"what {key_comb} does is not known offline")


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
            raise Failed("IndexError: list index out of range")
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
        _press(world, page, args["key"], context)
        return
    if "bid" not in args and name != "drag_and_drop":
        raise Unknown(f"{name} acts on screen coordinates, which the offline page does not have")
    if name == "drag_and_drop":
        _find(page, args["from_bid"])
        _find(page, args["to_bid"])
        raise Unknown("what a drag and drop does is not known offline")
    index = _find(page, args["bid"])
    node = page["nodes"][index]
    if name == "click":
        _click(world, page, index, args, context)
    elif name == "dblclick":
        _require_enabled(node, "dblclick")
        if not _editable(node) and node["role"] not in _TOGGLE_ROLES:
            raise Unknown(f"what double-clicking {node['role']} {node['name']!r} does is not known offline")
        _focus(world, page, index)
    elif name == "focus":
        _focus(world, page, index)
    elif name == "hover":
        if _prop_index(node, "hasPopup") is not None:
            raise Unknown("hovering may open this element's popup")
    elif name in ("fill", "clear"):
        _require_enabled(node, name)
        if not _editable(node):
            raise Failed("Element is not an <input>, <textarea> or [contenteditable] element")
        _set_value(node, args.get("value", ""))
        _focus(world, page, index)
    elif name == "select_option":
        _require_enabled(node, "select_option")
        options = args["options"]
        _select(page, index, [options] if isinstance(options, str) else list(options))
    elif name == "press":
        _require_enabled(node, "press")
        _focus(world, page, index)
        _press(world, page, args["key_comb"], context)
    else:  # upload_file
        raise Unknown(f"what {name} does is not known offline")


def web_step(state: dict[str, Any], action: BaseModel, context: dict[str, Any]) -> OfflineResult:
    """The offline web world's answer to a :class:`~agentworld_plugins.domains.web.WebAction`."""
    web_action = WebAction.model_validate(action)
    world = _web_world(state, context)
    extra: dict[str, Any] = {}
    source = web_action.root
    lines = pyast.source_segments(source, pyast.parse(source).body)
    calls = list(zip(lines, web_action.calls()))
    world, meta, error = run_calls(world, calls, lambda w, call: _web_call(w, call, context, extra))
    state[WEB_STATE_KEY] = world
    meta.update(extra)
    return OfflineResult(text=_web_observation(world, error), is_error=error is not None, metadata=meta)
