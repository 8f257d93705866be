"""The offline GUI worlds (web, android, os): screens carried forward with deterministic local edits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentworld_plugins.domains.android import AndroidDomain
from agentworld_plugins.domains.base import Domain, OfflineResult
from agentworld_plugins.domains.os import OsDomain
from agentworld_plugins.domains.web import WebDomain
from agentworld_plugins.offline.gui import (
    DEFAULT_ANDROID_SCREEN,
    DEFAULT_OS_DESKTOP,
    DEFAULT_WEB_PAGE,
    UNKNOWN_EFFECT,
    os_cell_text,
    os_text_cell,
    parse_android_screen,
    parse_os_table,
    parse_web_page,
    render_android_screen,
    render_os_table,
    render_web_page,
)
from agentworld_plugins.plugins import new_plugin_manager


@pytest.fixture(scope="module")
def domains() -> dict[str, Domain]:
    pm = new_plugin_manager(load_entrypoints=False)
    return {name: pm.registry.domain(name) for name in ("web", "android", "os")}


@pytest.fixture(scope="module")
def web(domains: dict[str, Domain]) -> Domain:
    assert isinstance(domains["web"], WebDomain)
    return domains["web"]


@pytest.fixture(scope="module")
def android(domains: dict[str, Domain]) -> Domain:
    assert isinstance(domains["android"], AndroidDomain)
    return domains["android"]


@pytest.fixture(scope="module")
def desktop(domains: dict[str, Domain]) -> Domain:
    assert isinstance(domains["os"], OsDomain)
    return domains["os"]


class Episode:
    """One offline session of a domain: validate each action, answer it with ``offline_step``."""

    def __init__(self, domain: Domain, **context: Any) -> None:
        self.domain = domain
        self.context = context
        self.state: dict[str, Any] = {}

    def step(self, action: Any) -> OfflineResult:
        result = self.domain.offline_step(self.state, self.domain.validate_action(action), self.context)
        assert isinstance(result, OfflineResult)
        assert isinstance(result.metadata[UNKNOWN_EFFECT], bool)
        json.dumps(self.state)  # the world stays storable in a session store
        return result

    def run(self, actions: list[Any]) -> list[str]:
        return [self.step(a).text for a in actions]


def _lines(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


# -- web -----------------------------------------------------------------------------------------

CHECKOUT = """\
URL: https://shop.example.com/checkout
Title: Checkout | Example Shop

RootWebArea 'Checkout | Example Shop', focused
\t[31] navigation 'Main'
\t\t[32] link 'Cart (2)', url='https://shop.example.com/cart'
\t[40] heading 'Shipping address', level=2
\tStaticText 'All fields are required.'
\t[45] textbox 'Full name', clickable, required
\t[46] textbox 'Notes', clickable, multiline
\t[50] checkbox 'Gift wrap', clickable, checked='false'
\t[52] combobox 'Country', hasPopup='listbox', expanded=False
\t\t[53] option 'France', selected=False
\t\t[54] option 'Japan', selected=False
\t[56] radio 'Standard', checked='true'
\t[57] radio 'Express', checked='false'
\t[60] button 'Continue', clickable
\t[61] button 'Pay', disabled"""

CART = """\
URL: https://shop.example.com/cart
Title: Cart | Example Shop

RootWebArea 'Cart | Example Shop', focused
\t[70] heading 'Your cart (2 items)', level=1
\t[71] link 'Back to checkout', url='https://shop.example.com/checkout'"""


def _node(text: str, bid: str) -> str:
    (line,) = _lines(text, f"[{bid}] ")
    return line.strip()


def test_web_episode_carries_edits_forward(web: Domain) -> None:
    ep = Episode(web, initial_state=CHECKOUT)

    filled = ep.step("fill('45', 'Ada Lovelace')")
    assert filled.is_error is False and not filled.metadata[UNKNOWN_EFFECT]
    assert (
        _node(filled.text, "45")
        == "[45] textbox 'Full name', focused, clickable, required, value='Ada Lovelace'"
    )
    assert _lines(filled.text, "RootWebArea")[0] == "RootWebArea 'Checkout | Example Shop'"

    on = ep.step("click('50')")
    assert _node(on.text, "50") == "[50] checkbox 'Gift wrap', focused, clickable, checked='true'"
    assert "focused" not in _node(on.text, "45")

    typed = ep.step("focus('46')\nkeyboard_type('Leave at\\nthe door')")
    assert (
        _node(typed.text, "46")
        == "[46] textbox 'Notes', focused, clickable, multiline, value='Leave at\\nthe door'"
    )

    chosen = ep.step("select_option('52', 'Japan')")
    assert _node(chosen.text, "54") == "[54] option 'Japan', selected=True"
    assert _node(chosen.text, "53") == "[53] option 'France', selected=False"
    assert "value='Japan'" in _node(chosen.text, "52")

    express = ep.step("click('57')")
    assert "checked='true'" in _node(express.text, "57")
    assert "checked='false'" in _node(express.text, "56")

    off = ep.step("click('50')")
    assert _node(off.text, "50") == "[50] checkbox 'Gift wrap', focused, clickable, checked='false'"
    # the earlier fill is still there, several observations later
    assert "value='Ada Lovelace'" in _node(off.text, "45")

    cleared = ep.step("clear('45')")
    assert _node(cleared.text, "45") == "[45] textbox 'Full name', focused, clickable, required"


def test_web_unknown_effects_leave_the_page_unchanged(web: Domain) -> None:
    ep = Episode(web, initial_state=CHECKOUT)
    before = ep.step("fill('45', 'Ada')").text
    for action in [
        "click('60')",
        "press('45', 'Enter')",
        "goto('https://elsewhere.example.org/')",
        "click('32')",
        "mouse_click(10, 10)",
    ]:
        result = ep.step(action)
        assert result.metadata[UNKNOWN_EFFECT] is True, action
        assert result.metadata["offline_unknown_action"] == action
        assert result.text == before, action
        assert result.is_error is False
    # press moved no focus either: the whole call was left out
    assert "focused" in _node(before, "45")
    for action in ["noop()", "scroll(0, 300)", "goto('https://shop.example.com/checkout')"]:
        result = ep.step(action)
        assert result.text == before and not result.metadata[UNKNOWN_EFFECT], action

    said = ep.step("send_msg_to_user('The order is ready.')")
    assert said.text == before and said.metadata["offline_send_msg_to_user"] == "The order is ready."
    infeasible = ep.step("report_infeasible('No such product')")
    assert infeasible.metadata["offline_report_infeasible"] == "No such product"


def test_web_errors_name_the_missing_bid(web: Domain) -> None:
    ep = Episode(web, initial_state=CHECKOUT)
    result = ep.step("click('99')")
    assert result.is_error is True
    assert web.is_error(result.text, web.validate_action("click('99')"))
    header = result.text.split("\n\n", 1)[0].splitlines()
    assert header == [
        "URL: https://shop.example.com/checkout",
        "Title: Checkout | Example Shop",
        'Error: ValueError: Could not find element with bid "99"',
    ]
    assert result.text.replace(header[2] + "\n", "") == CHECKOUT
    # the error is not carried forward
    assert ep.step("noop()").text == CHECKOUT

    not_a_field = ep.step("fill('60', 'x')")
    assert "Error: Element is not an <input>, <textarea> or [contenteditable] element" in not_a_field.text
    disabled = ep.step("click('61')")
    assert "Error: TimeoutError: Locator.click: Timeout 500ms exceeded." in disabled.text

    several = ep.step("fill('45', 'Ada')\nclick('98')\nfill('46', 'never')")
    assert several.is_error and several.metadata["offline_skipped_calls"] == 1
    assert "value='Ada'" in _node(several.text, "45")
    assert "value=" not in _node(several.text, "46")


def test_web_navigation_with_known_pages_and_history(web: Domain) -> None:
    pages = {"https://shop.example.com/cart": CART}
    ep = Episode(web, initial_state=CHECKOUT, pages=pages)
    ep.step("fill('45', 'Ada')")
    cart = ep.step("click('32')")
    assert not cart.metadata[UNKNOWN_EFFECT]
    assert cart.text == CART
    back = ep.step("go_back()")
    assert back.text.startswith("URL: https://shop.example.com/checkout")
    assert "value='Ada'" in _node(back.text, "45")  # the page comes back with its state
    assert ep.step("go_forward()").text == CART
    assert ep.step("go_forward()").text == CART  # nothing further: no change
    assert ep.step("goto('https://shop.example.com/cart/')").text == CART


def test_web_tabs(web: Domain) -> None:
    ep = Episode(web, initial_state=CHECKOUT)
    blank = ep.step("new_tab()")
    assert blank.text.splitlines()[:3] == [
        "URL: about:blank",
        "Title: ",
        "Tabs: [0] Checkout | Example Shop, [1] about:blank (active)",
    ]
    first = ep.step("tab_focus(0)")
    assert "Tabs: [0] Checkout | Example Shop (active), [1] about:blank" in first.text
    bad = ep.step("tab_focus(5)")
    assert bad.is_error and "Error: IndexError: list index out of range" in bad.text
    closed = ep.step("tab_close()")
    assert closed.text.startswith("URL: about:blank") and "Tabs:" not in closed.text

    # a page given with several tabs knows the others by title only
    with_tabs = CHECKOUT.replace(
        "Title: Checkout | Example Shop\n",
        "Title: Checkout | Example Shop\nTabs: [0] Mail, [1] Checkout | Example Shop (active)\n",
    )
    ep = Episode(web, initial_state=with_tabs)
    assert ep.step("noop()").text == with_tabs
    assert ep.step("tab_focus(0)").metadata[UNKNOWN_EFFECT] is True


def test_web_keyboard(web: Domain) -> None:
    ep = Episode(web, initial_state=CHECKOUT)
    ep.step("click('45')")
    ep.step("keyboard_type('Ad')\nkeyboard_press('a')")
    assert "value='Ada'" in _node(ep.step("noop()").text, "45")
    ep.step("keyboard_press('Backspace')")
    assert "value='Ad'" in _node(ep.step("noop()").text, "45")
    ep.step("keyboard_press('ControlOrMeta+a')\nkeyboard_insert_text('Grace')")
    assert "value='Grace'" in _node(ep.step("noop()").text, "45")
    tabbed = ep.step("keyboard_press('Tab')")
    assert "focused" in _node(tabbed.text, "46")
    assert ep.step("keyboard_press('Escape')").metadata[UNKNOWN_EFFECT] is True


def test_web_default_page(web: Domain) -> None:
    ep = Episode(web)
    first = ep.step("noop()")
    assert first.text == DEFAULT_WEB_PAGE
    roles = {node["role"] for node in parse_web_page(first.text)["nodes"]}
    assert {"searchbox", "button", "checkbox", "link"} <= roles
    filled = ep.step("fill('21', 'wireless mouse')")
    assert "value='wireless mouse'" in _node(filled.text, "21")


WEB_SCRIPT = [
    "fill('45', 'Ada')",
    "click('50')",
    "select_option('52', ['France'])",
    "click('60')",
    "click('77')",
    "keyboard_type(' Lovelace')",
    "click('50')",
]


def test_web_is_deterministic(web: Domain) -> None:
    first = Episode(web, initial_state=CHECKOUT).run(WEB_SCRIPT)
    second = Episode(web, initial_state=CHECKOUT).run(WEB_SCRIPT)
    assert first == second
    assert len(set(first)) > 2


def test_web_round_trip() -> None:
    for text in (DEFAULT_WEB_PAGE, CHECKOUT, CART):
        page = parse_web_page(text)
        assert render_web_page(page) == text
        assert parse_web_page(render_web_page(page)) == page
    spaced = "URL: u\nTitle: t\n\nRootWebArea 't'\n  [1] link 'a'\n    StaticText 'b'"
    page = parse_web_page(spaced)
    assert [n["depth"] for n in page["nodes"]] == [0, 1, 2]
    assert render_web_page(page) == spaced
    page = parse_web_page("URL: u\nTitle: t\nError: boom\nTabs: [0] a, [1] t (active)\n\nRootWebArea 't'")
    assert (page["error"], page["tabs"], page["active_tab"]) == ("boom", ["a", "t"], 1)
    assert parse_web_page(render_web_page(page)) == page


_LINE_SAFE = st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",))
_LITERAL = st.one_of(
    st.text(max_size=12).map(repr),
    st.integers(-5, 5).map(repr),
    st.booleans().map(repr),
)
_PROP = st.one_of(
    st.tuples(st.sampled_from(["focused", "clickable", "required", "disabled"]), st.none()),
    st.tuples(st.sampled_from(["value", "checked", "level", "url", "hasPopup"]), _LITERAL),
).map(list)
_NODE = st.fixed_dictionaries(
    {
        "depth": st.integers(0, 4),
        "bid": st.one_of(st.none(), st.integers(0, 999).map(str)),
        "role": st.sampled_from(["RootWebArea", "link", "button", "StaticText", "textbox", "option"]),
        "name": st.one_of(st.none(), st.text(max_size=15)),
        "props": st.lists(_PROP, max_size=4),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    url=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")), max_size=20),
    title=st.text(_LINE_SAFE, max_size=20),
    nodes=st.lists(_NODE, min_size=1, max_size=8),
)
def test_web_parse_render_round_trip(url: str, title: str, nodes: list[dict[str, Any]]) -> None:
    page = {
        "url": url,
        "title": title,
        "error": None,
        "tabs": None,
        "active_tab": None,
        "indent": "\t",
        "nodes": nodes,
    }
    text = render_web_page(page)
    assert parse_web_page(text) == page
    assert render_web_page(parse_web_page(text)) == text


# -- android -------------------------------------------------------------------------------------


def _el(text: Any, cls: str, bbox: list[int], **flags: Any) -> dict[str, Any]:
    element = {
        "text": text,
        "content_description": None,
        "class_name": cls,
        "resource_name": None,
        "is_clickable": True,
        "is_editable": False,
        "is_scrollable": False,
        "is_checked": False,
        "is_selected": False,
        "is_focused": False,
        "bbox": bbox,
    }
    element.update(flags)
    return element


SETTINGS = render_android_screen(
    [
        _el("Network", "android.widget.TextView", [40, 100, 1040, 200], is_clickable=False),
        _el(None, "android.widget.EditText", [40, 220, 1040, 340]),
        _el("Wi-Fi", "android.widget.Switch", [880, 400, 1040, 480]),
        _el("Connect", "android.widget.Button", [40, 520, 500, 640]),
        _el(None, "android.widget.EditText", [40, 700, 1040, 820], is_editable=True),
        _el("Saved networks", "android.widget.LinearLayout", [0, 880, 1080, 1040]),
        _el("Saved networks", "android.widget.TextView", [40, 900, 600, 1000], is_clickable=False),
    ]
)


def _element(text: str, index: int) -> dict[str, Any]:
    return parse_android_screen(text)[index]


def test_android_episode_carries_edits_forward(android: Domain) -> None:
    ep = Episode(android, initial_state=SETTINGS)
    typed = ep.step({"action_type": "input_text", "text": "HomeNet", "index": 1})
    assert not typed.is_error and not typed.metadata[UNKNOWN_EFFECT]
    assert _element(typed.text, 1)["text"] == "HomeNet"
    assert _element(typed.text, 1)["is_focused"] is True

    on = ep.step({"action_type": "click", "index": 2})
    assert _element(on.text, 2)["is_checked"] is True

    focused = ep.step({"action_type": "click", "index": 4})
    assert _element(focused.text, 4)["is_focused"] is True
    assert _element(focused.text, 1)["is_focused"] is False

    more = ep.step({"action_type": "input_text", "text": "pass"})
    more = ep.step({"action_type": "input_text", "text": "word"})
    assert _element(more.text, 4)["text"] == "password"

    replaced = ep.step({"action_type": "input_text", "text": "Office", "index": 1, "clear_text": True})
    assert _element(replaced.text, 1)["text"] == "Office"

    off = ep.step({"action_type": "click", "x": 960, "y": 440})  # the switch, by its position
    assert _element(off.text, 2)["is_checked"] is False
    assert _element(off.text, 4)["text"] == "password"  # still there later
    expected = parse_android_screen(SETTINGS)
    expected[1].update(text="Office", is_focused=True)
    expected[4].update(text="password")
    assert parse_android_screen(off.text) == expected


def test_android_unknown_effects_and_unchanged_actions(android: Domain) -> None:
    ep = Episode(android, initial_state=SETTINGS)
    for action in [
        {"action_type": "click", "index": 3},
        {"action_type": "click", "index": 6},  # a label inside a clickable row: the row takes the tap
        {"action_type": "open_app", "app_name": "Clock"},
        {"action_type": "long_press", "index": 3},
        {"action_type": "swipe", "direction": "up"},
        {"action_type": "keyboard_enter"},
    ]:
        result = ep.step(action)
        assert result.metadata[UNKNOWN_EFFECT] is True, action
        assert result.text == SETTINGS and result.is_error is False, action
    for action in [
        {"action_type": "click", "index": 0},  # plain text: nothing happens
        {"action_type": "click", "x": 1070, "y": 2300},  # empty space
        {"action_type": "scroll", "direction": "down"},  # nothing scrollable
        {"action_type": "wait"},
        {"action_type": "status", "goal_status": "complete"},
        {"action_type": "answer", "text": "42"},
    ]:
        result = ep.step(action)
        assert not result.metadata[UNKNOWN_EFFECT] and result.text == SETTINGS, action
    assert result.metadata["offline_answer"] == "42"
    # a task that starts inside an app: Back and Home lead to the stock launcher
    changed = ep.step({"action_type": "navigate_back"})
    assert changed.text == DEFAULT_ANDROID_SCREEN and not changed.metadata[UNKNOWN_EFFECT]
    assert ep.step({"action_type": "navigate_back"}).text == DEFAULT_ANDROID_SCREEN  # nothing behind home
    assert ep.step({"action_type": "navigate_home"}).text == DEFAULT_ANDROID_SCREEN


def test_android_index_out_of_range_is_an_error(android: Domain) -> None:
    ep = Episode(android, initial_state=SETTINGS)
    action = {"action_type": "click", "index": 12}
    result = ep.step(action)
    assert result.is_error is True
    assert android.is_error(result.text, android.validate_action(action))
    first, rest = result.text.split("\n", 1)
    assert first == "Error: UI element index 12 is out of range; the screen has 7 UI elements (indices 0-6)"
    assert rest == SETTINGS
    typed = ep.step({"action_type": "input_text", "text": "x", "index": 7})
    assert typed.is_error and "index 7" in typed.text
    assert ep.step({"action_type": "wait"}).text == SETTINGS


def test_android_screens_open_apps_and_go_back(android: Domain) -> None:
    clock = render_android_screen([_el("Alarm", "android.widget.TextView", [0, 200, 270, 330])])
    ep = Episode(android, screens={"Clock": clock})  # built-in home screen
    home = ep.step({"action_type": "wait"}).text
    assert home == DEFAULT_ANDROID_SCREEN
    labels = [el["text"] for el in parse_android_screen(home)]
    assert {"Clock", "Settings", "Phone", "Chrome"} <= set(labels)

    opened = ep.step({"action_type": "click", "index": labels.index("Clock")})
    assert opened.text == clock and not opened.metadata[UNKNOWN_EFFECT]
    assert ep.step({"action_type": "navigate_back"}).text == home
    assert ep.step({"action_type": "open_app", "app_name": "clock"}).text == clock
    assert ep.step({"action_type": "navigate_home"}).text == home
    assert ep.step({"action_type": "open_app", "app_name": "Settings"}).metadata[UNKNOWN_EFFECT] is True


def test_android_is_deterministic(android: Domain) -> None:
    script = [
        {"action_type": "input_text", "text": "a", "index": 1},
        {"action_type": "click", "index": 2},
        {"action_type": "click", "index": 3},
        {"action_type": "click", "index": 40},
        {"action_type": "input_text", "text": "b"},
        {"action_type": "click", "index": 2},
    ]
    assert Episode(android, initial_state=SETTINGS).run(script) == Episode(
        android, initial_state=SETTINGS
    ).run(script)


_JSON_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-5000, 5000), st.text(max_size=12))
_ELEMENT = st.dictionaries(
    st.sampled_from(["text", "content_description", "class_name", "is_checked", "is_focused", "hint_text"]),
    _JSON_VALUE,
).map(lambda d: {**d, "bbox": [0, 0, 10, 10]})


@settings(max_examples=150, deadline=None)
@given(st.lists(_ELEMENT, max_size=6))
def test_android_parse_render_round_trip(elements: list[dict[str, Any]]) -> None:
    text = render_android_screen(elements)
    assert parse_android_screen(text) == elements
    assert render_android_screen(parse_android_screen(text)) == text


def test_android_round_trip_of_the_prompt_format() -> None:
    for text in (DEFAULT_ANDROID_SCREEN, SETTINGS):
        assert render_android_screen(parse_android_screen(text)) == text


# -- os ------------------------------------------------------------------------------------------

HEADER = "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)"
PREFERENCES = "\n".join(
    [
        HEADER,
        "label\tActivities\t\t\t\t(16, 0)\t(90, 32)",
        "frame\tPreferences\t\t\t\t(400, 200)\t(800, 600)",
        'entry\tUser name\t"guest"\t\t\t(500, 300)\t(400, 34)',
        "check-box\tDark mode\t\t\t\t(500, 360)\t(200, 30)",
        "push-button\tApply\t\t\t\t(1000, 700)\t(90, 34)",
        "text\tNotes\t\t\t\t(500, 420)\t(600, 200)",
    ]
)


def _row(text: str, name: str, tag: str | None = None) -> list[str]:
    (row,) = [r for r in parse_os_table(text)["rows"] if r[1] == name and tag in (None, r[0])]
    return row


def test_os_episode_carries_edits_forward(desktop: Domain) -> None:
    ep = Episode(desktop, initial_state=PREFERENCES)
    typed = ep.step("pyautogui.click(600, 310)\npyautogui.write('-ada')")
    assert not typed.metadata[UNKNOWN_EFFECT] and typed.is_error is False
    assert _row(typed.text, "User name")[2] == '"guest-ada"'

    on = ep.step("pyautogui.click(510, 370)")
    assert _row(on.text, "Dark mode")[4] == "checked"

    notes = ep.step('pyautogui.click(700, 500)\npyautogui.typewrite("line one\\nline \\"two\\"")')
    assert _row(notes.text, "Notes")[2] == '"line one\\nline ""two"""'
    assert os_cell_text(_row(notes.text, "Notes")[2]) == 'line one\nline "two"'

    off = ep.step("pyautogui.click(510, 370)")
    assert _row(off.text, "Dark mode") == _row(PREFERENCES, "Dark mode")
    assert _row(off.text, "User name")[2] == '"guest-ada"'  # still there

    ep.step("pyautogui.click(600, 310)")
    replaced = ep.step(
        "pyautogui.hotkey('ctrl', 'a')\npyautogui.write('root')\npyautogui.press('backspace', presses=2)"
    )
    assert _row(replaced.text, "User name")[2] == '"ro"'

    copied = ep.step(
        "pyautogui.hotkey('ctrl', 'a')\npyautogui.hotkey('ctrl', 'c')\npyautogui.click(700, 500)\npyautogui.hotkey('ctrl', 'v')"
    )
    assert os_cell_text(_row(copied.text, "Notes")[2]) == 'line one\nline "two"ro'

    twice = ep.step("pyautogui.doubleClick(510, 370)")
    assert _row(twice.text, "Dark mode") == _row(PREFERENCES, "Dark mode")


def test_os_unknown_effects_leave_the_table_unchanged(desktop: Domain, tmp_path: Any) -> None:
    ep = Episode(desktop, initial_state=PREFERENCES)
    before = ep.step("pyautogui.click(600, 310)").text
    target = tmp_path / "never"
    for action in [
        "pyautogui.click(1010, 710)",
        "pyautogui.press('enter')",
        "pyautogui.hotkey('alt', 'f4')",
        "pyautogui.rightClick(600, 310)",
        "pyautogui.scroll(-5)",
        "pyautogui.click(20, 10)",
        f"open({str(target)!r}, 'w').write('x')",
        f"import os\nos.system('touch {target}')",
        "x = 600\npyautogui.click(x, 310)",
    ]:
        result = ep.step(action)
        assert result.metadata[UNKNOWN_EFFECT] is True, action
        assert result.text == before and result.is_error is False, action
    assert not target.exists()  # the code was read, never run
    for action in [
        "WAIT",
        "DONE",
        "FAIL",
        "import time\ntime.sleep(1)",
        "pyautogui.moveTo(5, 5)",
        "pyautogui.click(1500, 1000)",
    ]:
        result = ep.step(action)
        assert not result.metadata[UNKNOWN_EFFECT] and result.text == before, action
    assert ep.step("DONE").metadata["offline_special"] == "DONE"


def test_os_partial_code_keeps_what_ran_before_the_unknown_call(desktop: Domain) -> None:
    ep = Episode(desktop, initial_state=PREFERENCES)
    result = ep.step(
        "pyautogui.click(600, 310)\npyautogui.write('!')\npyautogui.press('enter')\npyautogui.write('?')"
    )
    assert result.metadata[UNKNOWN_EFFECT] and result.metadata["offline_skipped_calls"] == 1
    assert result.metadata["offline_unknown_action"] == "pyautogui.press('enter')"
    assert _row(result.text, "User name")[2] == '"guest!"'


def test_os_default_desktop(desktop: Domain) -> None:
    ep = Episode(desktop)
    first = ep.step("WAIT").text
    assert first == DEFAULT_OS_DESKTOP and first.splitlines()[0] == HEADER
    tags = [row[0] for row in parse_os_table(first)["rows"]]
    assert {"terminal", "text", "push-button", "frame"} <= set(tags)
    # the text editor, the front window, has the focus at first
    editor = ep.step("pyautogui.write('hello')")
    assert _row(editor.text, "Untitled Document 1")[2] == '"hello"'
    terminal = ep.step("pyautogui.click(500, 400)\npyautogui.write('ls -la')")
    assert _row(terminal.text, "Terminal", "terminal")[2] == '"user@ubuntu:~$ ls -la"'
    assert ep.step("pyautogui.press('enter')").metadata[UNKNOWN_EFFECT] is True


def test_os_is_deterministic(desktop: Domain) -> None:
    script = [
        "pyautogui.click(600, 310)",
        "pyautogui.write('x')",
        "pyautogui.click(510, 370)",
        "pyautogui.click(1010, 710)",
        "pyautogui.hotkey('ctrl', 'a')\npyautogui.write('y')",
        "WAIT",
    ]
    assert Episode(desktop, initial_state=PREFERENCES).run(script) == Episode(
        desktop, initial_state=PREFERENCES
    ).run(script)


def test_os_round_trip() -> None:
    for text in (DEFAULT_OS_DESKTOP, PREFERENCES):
        table = parse_os_table(text)
        assert render_os_table(table) == text
        assert parse_os_table(render_os_table(table)) == table


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_os_text_cells_round_trip(text: str) -> None:
    cell = os_text_cell(text)
    assert "\t" not in cell and "\n" not in cell
    assert os_cell_text(cell) == text
    assert cell == "" or (cell.startswith('"') and cell.endswith('"'))


# -- shared --------------------------------------------------------------------------------------


def test_an_unreadable_initial_state(android: Domain, desktop: Domain) -> None:
    """An android screen in no notation known offline is carried forward, marked (the prompt lets
    a conversation choose its notation); an os table without a header is a config error."""
    from agentworld_plugins.errors import ConfigError

    answer = Episode(android, initial_state="a screen with nothing on it").step({"action_type": "wait"})
    assert answer.text == "a screen with nothing on it" and answer.metadata["offline_unknown_effect"]
    with pytest.raises(ConfigError, match="os"):
        Episode(desktop, initial_state="nothing").step("WAIT")
