"""The web (BrowserGym) domain: action strings, turn prompts, output parsing and error detection."""

from __future__ import annotations

import pytest
from gui_domain_cases import WEB_PAGE as PAGE
from gui_domain_cases import registered
from hypothesis import given, settings
from hypothesis import strategies as st

from agentworld_plugins.domains.web import (
    WEB_ACTIONS,
    WebAction,
    WebActionError,
    WebDomain,
    parse_web_action,
)
from agentworld_plugins.errors import ActionValidationError


@pytest.fixture(scope="module")
def dom() -> WebDomain:
    return registered("web", WebDomain)


VALID = [
    "click('12')",
    "click('a51', button='right', modifiers=['Control', 'Shift'])",
    "dblclick('7')",
    "fill('14', 'wireless mouse')",
    "fill('14', 'abc', enable_autocomplete_menu=True)",
    "select_option('48', 'Blue')",
    "select_option('48', ['Blue', 'Red'])",
    "hover('3')",
    "press('14', 'ControlOrMeta+a')",
    "focus('14')",
    "clear('14')",
    "drag_and_drop('5', '9')",
    "upload_file('20', '/tmp/a.pdf')",
    "upload_file('20', ['/tmp/a.pdf', '/tmp/b.pdf'])",
    "scroll(0, 200)",
    "scroll(-50.5, 0)",
    "scroll_at(50, 100, -50, -100)",
    "noop()",
    "noop(wait_ms=500)",
    "send_msg_to_user('The cheapest item costs $12.')",
    "report_infeasible('The site has no such page')",
    "goto('https://example.com/page?q=1')",
    "go_back()",
    "go_forward()",
    "new_tab()",
    "tab_focus(1)",
    "tab_close()",
    "keyboard_press('Enter')",
    "keyboard_type('hello')",
    "keyboard_insert_text('hello')",
    "keyboard_down('Shift')",
    "keyboard_up('Shift')",
    "mouse_move(10, 20)",
    "mouse_click(10.5, 20, button='middle')",
    "mouse_dblclick(10, 20)",
    "mouse_down(1, 2)",
    "mouse_up(1, 2, 'right')",
    "mouse_drag_and_drop(1, 2, 3, 4)",
    "mouse_upload_file(5, 6, '/tmp/x.txt')",
    "fill('14', 'wireless mouse')\nkeyboard_press('Enter')",
    "  click('12')  \n",
    "# search first\nfill('3', 'x')",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_actions(dom: WebDomain, text: str) -> None:
    action = dom.validate_action(text)
    assert isinstance(action, WebAction)
    assert dom.render_action(action) == action.root
    assert action.root == action.root.strip()


def test_every_function_is_covered_by_the_valid_list() -> None:
    used = {name for text in VALID for name, _ in parse_web_action(text)}
    assert used == set(WEB_ACTIONS)


def test_parse_fills_defaults() -> None:
    assert parse_web_action("click('12')") == [("click", {"bid": "12", "button": "left", "modifiers": []})]
    assert parse_web_action("noop()") == [("noop", {"wait_ms": 1000})]
    calls = parse_web_action("fill('14', value='x')\nmouse_click(1, 2)")
    assert calls == [
        ("fill", {"bid": "14", "value": "x", "enable_autocomplete_menu": False}),
        ("mouse_click", {"x": 1, "y": 2, "button": "left"}),
    ]
    # defaults are fresh objects
    parse_web_action("click('1')")[0][1]["modifiers"].append("Alt")
    assert parse_web_action("click('1')")[0][1]["modifiers"] == []


def test_signatures_listed() -> None:
    assert len(WEB_ACTIONS) == 33  # the 33 functions of browsergym-core 0.14
    assert WEB_ACTIONS["click"] == "click(bid: str, button='left', modifiers=[])"
    assert WEB_ACTIONS["noop"] == "noop(wait_ms=1000)"


INVALID = [
    (
        "click()",
        ["click()", "missing required argument 'bid'", "click(bid: str, button='left', modifiers=[])"],
    ),
    ("clik('12')", ["unknown action 'clik'", "click"]),
    ("click(12)", ["click()", "'bid'", "str"]),
    ("click('1', button='top')", ["'button'", "'left'"]),
    ("click('1', modifiers=['Ctrl'])", ["'modifiers'", "'Control'"]),
    ("fill('1')", ["fill()", "'value'"]),
    ("fill('1', 'x', 'y', 'z')", ["fill()", "at most 3"]),
    ("fill('1', value=some_var)", ["fill()", "'value'", "literal"]),
    ("click('1', bid='2')", ["multiple values", "'bid'"]),
    ("click('1', colour='red')", ["unexpected keyword argument 'colour'"]),
    ("scroll('down', 100)", ["scroll()", "'delta_x'", "float"]),
    ("tab_focus('1')", ["tab_focus()", "'index'", "int"]),
    ("select_option('4', [1, 2])", ["select_option()", "'options'"]),
    ("fill('1', 'x', enable_autocomplete_menu='yes')", ["'enable_autocomplete_menu'", "bool"]),
    ("page.click('1')", ["page.click()", "not a BrowserGym action"]),
    ("click(*args)", ["unpacked"]),
    ("x = 1", ["expected a call"]),
    ("click('12'", ["line 1", "column"]),
    ("", ["empty"]),
    ("   \n  ", ["empty"]),
    ("click('1')\nhover()", ["line 2", "hover()", "'bid'"]),
]


@pytest.mark.parametrize(("text", "needles"), INVALID)
def test_invalid_actions(dom: WebDomain, text: str, needles: list[str]) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action(text)
    err = info.value
    assert err.domain == "web"
    assert len(err.errors) == 1
    msg = err.errors[0]["msg"]
    for needle in needles:
        assert needle in msg, (needle, msg)
    assert err.errors[0]["input"] == text


def test_invalid_error_carries_expected_signature(dom: WebDomain) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action("fill('1')")
    assert info.value.errors[0]["expected"] == WEB_ACTIONS["fill"]
    assert "click('12')" in (info.value.hint or "")


def test_non_string_action_is_rejected(dom: WebDomain) -> None:
    with pytest.raises(ActionValidationError):
        dom.validate_action({"action": "click('1')"})


def test_parse_web_action_raises_its_own_error() -> None:
    with pytest.raises(WebActionError) as info:
        parse_web_action("hover()\nclick()")
    assert len(info.value.problems) == 2
    assert isinstance(info.value, ValueError)


def test_state_only_on_first_turn(dom: WebDomain) -> None:
    assert dom.state_for_turn(1, {"initial_state": PAGE}) == PAGE
    assert dom.state_for_turn(2, {"initial_state": PAGE}) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PAGE, False),
        (
            "URL: https://x.test/\nTitle: X\nError: TimeoutError: Locator.click: Timeout 500ms exceeded.\n",
            True,
        ),
        ('ValueError: Could not find element with bid "99"', True),
        ("last_action_error: Element is not visible", True),
        ("last_action_error: ''\nURL: https://x.test/", False),
        (
            "URL: https://x.test/\nTitle: x.test\n\nRootWebArea 'x.test'\n\tStaticText 'net::ERR_NAME_NOT_RESOLVED'",
            True,
        ),
        ("URL: https://x.test/a\nTitle: 404 Not Found\n\nRootWebArea '404 Not Found'", True),
        ("RootWebArea 'Login'\n\t[5] StaticText 'Error: wrong password'", False),
        ("RootWebArea 'Blog'\n\tStaticText 'How we fixed 404 Not Found pages'", False),
    ],
)
def test_is_error(dom: WebDomain, text: str, expected: bool) -> None:
    action = dom.validate_action("click('1')")
    assert dom.is_error(text, action) is expected


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet="clickfill()'\"[]=,.0123456789_ \n*-+", max_size=40),
        st.builds(
            lambda name, args: f"{name}({args})", st.sampled_from(sorted(WEB_ACTIONS)), st.text(max_size=30)
        ),
    )
)
def test_validate_never_raises_anything_else(text: str) -> None:
    dom = WebDomain()
    try:
        action = dom.validate_action(text)
    except ActionValidationError:
        return
    assert isinstance(action, WebAction)
    parse_web_action(action.root)  # a validated action always parses again


def test_deeply_nested_input_is_a_validation_error(dom: WebDomain) -> None:
    for text in ["click(" + "[" * 500 + "]" * 500 + ")", "click('1', " + "-" * 100000 + "1)", "\x00"]:
        with pytest.raises(ActionValidationError):
            dom.validate_action(text)
