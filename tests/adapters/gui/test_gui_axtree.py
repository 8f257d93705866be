"""Page text -> axtree_object (CDP shape) -> flattened text, and the other BrowserGym objects."""

from __future__ import annotations

import json

import pytest
from agentworld_plugins.adapters.gui.browsergym import (
    axtree_from_page,
    dom_from_page,
    extra_properties_from_page,
    flatten_axtree,
)
from agentworld_plugins.adapters.gui.task import bundled_tasks, load_task
from hypothesis import given, settings
from hypothesis import strategies as st

from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page, render_web_page

pytest.importorskip("gymnasium")


def _tree(page_text: str) -> str:
    """The tree part of a page (after the header lines and the blank line)."""
    return page_text.split("\n\n", 1)[1]


def _pages() -> list[str]:
    pages = [DEFAULT_WEB_PAGE]
    for key in bundled_tasks("web"):
        task = load_task(key)
        pages += [t for t in [task.initial_state, *(task.pages or {}).values()] if t]
    return pages


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.split("\n", 1)[0])
def test_page_flattens_back_to_the_same_lines(page: str) -> None:
    axtree = axtree_from_page(page)
    assert flatten_axtree(axtree) == _tree(page).rstrip("\n")


def test_axtree_has_cdp_shape() -> None:
    axtree = axtree_from_page(DEFAULT_WEB_PAGE)
    nodes = axtree["nodes"]
    json.dumps(axtree)  # plain JSON, like CDP's answer
    root = nodes[0]
    assert root["role"]["value"] == "RootWebArea" and root["name"]["value"] == "Example Search"
    by_id = {n["nodeId"]: n for n in nodes}
    for node in nodes:
        assert isinstance(node["nodeId"], str)
        assert set(node) >= {
            "nodeId",
            "ignored",
            "role",
            "name",
            "properties",
            "childIds",
            "backendDOMNodeId",
        }
        for child in node["childIds"]:
            assert by_id[child]["parentId"] == node["nodeId"]
        for prop in node["properties"]:
            assert set(prop) >= {"name", "value"} and set(prop["value"]) == {"type", "value"}
    search = next(n for n in nodes if n.get("browsergym_id") == "21")
    assert search["role"] == {"type": "role", "value": "searchbox"}
    assert search["name"] == {"type": "computedString", "value": "Search the web"}
    box = next(n for n in nodes if n.get("browsergym_id") == "23")
    checked = next(p for p in box["properties"] if p["name"] == "checked")
    assert checked["value"] == {"type": "tristate", "value": "false"}
    heading = next(n for n in nodes if n.get("browsergym_id") == "20")
    assert {"name": "level", "value": {"type": "integer", "value": 1}} in heading["properties"]
    assert all("browsergym_id" not in n for n in nodes if n["role"]["value"] == "StaticText")


def test_offline_pages_round_trip_after_actions() -> None:
    """Pages the offline world renders (focus moved first, values filled) flatten back exactly."""
    from agentworld_plugins import World

    session = World(backend="offline").session("web")
    for action in [
        "fill('21', 'mouse')",
        "click('23')",
        "keyboard_press('Tab')",
        "new_tab()",
        "tab_focus(0)",
    ]:
        text = session.step(action).text
        assert flatten_axtree(axtree_from_page(text)) == _tree(text)


def test_unusual_notation_is_kept() -> None:
    page = (
        "URL: https://a.test/\nTitle: A\n\n"
        "RootWebArea 'A', focused=True\n"
        '\t[3] combobox "Bob\'s menu", hasPopup=menu, expanded=False, value="x"\n'
        "\t[4] list\n"
        "\t\t[5] listitem 'one', atomic, disabled, size=(3, 4)\n"
        "\tthis line is not a node\n"
        "\t[6] button '', clickable"
    )
    axtree = axtree_from_page(page)
    assert flatten_axtree(axtree) == _tree(page)
    unnamed = next(n for n in axtree["nodes"] if n.get("browsergym_id") == "4")
    assert unnamed["name"]["value"] == "" and unnamed["agentworld_unnamed"] is True
    combo = next(n for n in axtree["nodes"] if n.get("browsergym_id") == "3")
    raw = {p["name"]: p.get("raw") for p in combo["properties"]}
    assert raw == {"hasPopup": "menu", "expanded": None, "value": '"x"'}


def test_several_top_nodes_get_an_ignored_root() -> None:
    page = "URL: u\nTitle: t\n\n[1] link 'a'\n[2] link 'b'\n\tStaticText 'c'"
    axtree = axtree_from_page(page)
    root = axtree["nodes"][0]
    assert root["ignored"] is True and "name" not in root and root["childIds"] == ["1", "2"]
    assert flatten_axtree(axtree) == "[1] link 'a'\n[2] link 'b'\n\tStaticText 'c'"


def test_indentation_jumps_and_empty_pages() -> None:
    assert flatten_axtree(axtree_from_page("URL: u\nTitle: t\n\nRootWebArea 'x'\n\t\t\t[1] link 'deep'")) == (
        "RootWebArea 'x'\n\t[1] link 'deep'"
    )
    empty = axtree_from_page("URL: u\nTitle: t\n")
    assert empty["nodes"][0]["ignored"] and flatten_axtree(empty) == ""


_names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=12)
_props = st.lists(
    st.one_of(
        st.sampled_from(["focused", "clickable", "required", "disabled"]).map(lambda k: (k, None)),
        st.tuples(st.sampled_from(["value", "url", "checked"]), _names.map(repr)),
        st.tuples(
            st.sampled_from(["level", "expanded"]), st.one_of(st.integers(0, 9), st.booleans()).map(repr)
        ),
    ),
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3), st.sampled_from(["link", "button", "StaticText", "textbox"]), _names, _props
        ),
        max_size=8,
    )
)
def test_generated_pages_round_trip(lines: list) -> None:
    body = ["RootWebArea 'Root'"]
    depth = 0
    for i, (jump, role, name, props) in enumerate(lines):
        depth = min(depth + 1, jump + 1)
        bid = "" if role == "StaticText" else f"[{i + 10}] "
        extra = "".join(f", {k}" if v is None else f", {k}={v}" for k, v in props)
        body.append("\t" * depth + f"{bid}{role} {name!r}{extra}")
    page = "URL: https://x.test/\nTitle: x\n\n" + "\n".join(body)
    canonical = _tree(render_web_page(parse_web_page(page)))
    assert flatten_axtree(axtree_from_page(page)) == canonical


def test_extra_properties_and_dom() -> None:
    page = parse_web_page(DEFAULT_WEB_PAGE)
    extra = extra_properties_from_page(page, viewport=(1280, 720))
    bids = {n["bid"] for n in page["nodes"] if n["bid"] is not None}
    assert set(extra) == bids
    for props in extra.values():
        assert set(props) == {"visibility", "bbox", "clickable", "set_of_marks"}
        assert 0.0 <= props["visibility"] <= 1.0 and len(props["bbox"]) == 4
    assert extra["22"]["clickable"] is True and extra["20"]["clickable"] is False
    scrolled = extra_properties_from_page(page, viewport=(1280, 720), scroll_y=5000)
    assert all(p["visibility"] == 0.0 for p in scrolled.values())

    dom = dom_from_page(page, url="https://www.example.com/")
    document, strings = dom["documents"][0], dom["strings"]
    nodes = document["nodes"]
    count = len(nodes["parentIndex"])
    assert all(
        len(nodes[key]) == count
        for key in ("nodeType", "nodeName", "nodeValue", "backendNodeId", "attributes")
    )
    assert strings[document["documentURL"]] == "https://www.example.com/"
    bids_in_dom = set()
    for attrs in nodes["attributes"]:
        pairs = dict(zip(attrs[::2], attrs[1::2]))
        for key, value in pairs.items():
            if strings[key] == "bid":
                bids_in_dom.add(strings[value])
    assert bids_in_dom == bids
    assert "#text" in {strings[i] for i in nodes["nodeName"]}
