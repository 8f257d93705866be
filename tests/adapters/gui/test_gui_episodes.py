"""Scripted 10-step episodes of every bundled Android and web task on the offline world.

Each step names what the real app or site shows after it (texts that must appear, texts that
must be gone); a step counts when all of that holds and the world knew the step's effect. Every
task needs at least 9 of its 10 steps right; the scripts below expect all 10.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentworld_plugins.adapters.gui.androidworld import AgentWorldAndroidEnv
from agentworld_plugins.adapters.gui.browsergym import AgentWorldBrowserEnv

Step = tuple[Any, list[str], list[str]]  # (action, shown after it, gone after it)

ON = '"7:00 AM alarm", "class_name": "android.widget.Switch", "resource_name": "com.google.android.deskclock:id/onoff", "is_clickable": true, "is_editable": false, "is_scrollable": false, "is_checked": true'
OFF_830 = '"8:30 AM alarm", "class_name": "android.widget.Switch", "resource_name": "com.google.android.deskclock:id/onoff", "is_clickable": true, "is_editable": false, "is_scrollable": false, "is_checked": false'
HOME = '"text": "Tue, Jun 3"'


def _a(kind: str, **fields: Any) -> dict[str, Any]:
    return {"action_type": kind, **fields}


ANDROID: dict[str, list[Step]] = {
    "clock-set-alarm": [
        (_a("open_app", app_name="Clock"), ['"7:00 AM"'], [HOME]),
        (_a("click", index=3), [ON], []),
        (_a("navigate_back"), [HOME], ['"7:00 AM"']),
        (_a("open_app", app_name="Clock"), [ON], [HOME]),  # the alarm survived Back
        (_a("click", index=5), [OFF_830, ON], []),
        (_a("navigate_home"), [HOME], ['"7:00 AM"']),
        (_a("click", index=2), [ON, OFF_830], [HOME]),  # the Clock icon: the app as it was left
        (_a("navigate_back"), [HOME], []),
        (_a("open_app", app_name="clock"), [ON, OFF_830], [HOME]),
        (_a("status", goal_status="complete"), [ON], []),
    ],
    "contacts-search": [
        (
            _a("click", index=1),
            [
                'search_view", "is_clickable": true, "is_editable": true, "is_scrollable": false, "is_checked": false, "is_selected": false, "is_focused": true'
            ],
            [],
        ),
        (_a("input_text", text="Dana", index=1), ['"text": "Dana"', "Omar Castell"], []),
        (_a("keyboard_enter"), ["Dana Whitfield"], ["Omar Castell"]),  # the list is filtered
        (_a("click", index=2), ["(555) 014-2277"], ["search_view"]),  # the contact's card
        (_a("navigate_back"), ["Dana Whitfield", "search_view"], ["Omar Castell", "555"]),
        (_a("navigate_home"), [HOME], ["Dana Whitfield"]),
        (_a("open_app", app_name="Contacts"), ["Dana Whitfield", '"text": "Dana"'], [HOME, "Omar"]),
        (_a("click", x=600, y=470), ["(555) 014-2277"], []),
        (_a("answer", text="Dana's mobile is (555) 014-2277."), ["(555) 014-2277"], []),
        (_a("status", goal_status="complete"), ["(555) 014-2277"], []),
    ],
    "notes-new-note": [
        (_a("click", index=4), ["new_file_dialog__name"], ["todo.md"]),
        (_a("click", index=2), ['"is_focused": true, "bbox": [84, 830'], []),
        (_a("input_text", text="groceries", index=2), ['"text": "groceries"'], []),
        (_a("click", index=5), ["groceries.md", "Start writing"], ["new_file_dialog__name"]),
        (_a("click", index=4), ['"is_focused": true, "bbox": [0, 260'], []),
        (_a("input_text", text="oat milk", index=4), ['"text": "oat milk"'], []),
        (_a("keyboard_enter"), ['"text": "oat milk\\n"'], []),
        (_a("navigate_home"), [HOME], ["groceries.md"]),
        (_a("open_app", app_name="Markor"), ['"text": "oat milk\\n"', "groceries.md"], [HOME]),
        (_a("status", goal_status="complete"), ["oat milk"], []),
    ],
}


def _right(text: str, shown: list[str], gone: list[str], unknown: bool) -> bool:
    return not unknown and all(s in text for s in shown) and not any(g in text for g in gone)


@pytest.mark.parametrize("task", list(ANDROID))
def test_android_episode(task: str) -> None:
    env = AgentWorldAndroidEnv(task=f"android/{task}", backend="offline")
    env.reset(go_home=False)
    right = []
    for action, shown, gone in ANDROID[task]:
        env.execute_action(action)
        meta = env._outcome.metadata if env._outcome is not None else {}
        unknown = bool(meta.get("offline_unknown_effect")) or bool(env.last_action_error)
        right.append(_right(env.episode.text, shown, gone, unknown))
    assert sum(right) >= 9, right
    assert right == [True] * 10, right
    env.close()


WEB: dict[str, list[Step]] = {
    "shop-find-mouse": [
        ("fill('14', 'wireless mouse')", ["value='wireless mouse'"], []),
        ("press('14', 'Enter')", ["URL: https://shop.example.com/search?q=wireless+mouse", "$14.99"], []),
        ("click('34')", ["[42] button 'Add to cart'", "Price: $14.99"], ["$24.95"]),
        ("click('42')", ["Added to cart (1 item in your cart)"], []),
        ("go_back()", ['Results for "wireless mouse"'], ["Add to cart"]),
        ("go_back()", ["[13] link 'Cart (1)'", "value='wireless mouse'"], ["Cart (0)"]),
        ("click('23')", ["checked='true'"], ["checked='false'"]),
        ("click('15')", ["URL: https://shop.example.com/search?q=wireless+mouse"], ["Popular categories"]),
        ("select_option('31', 'Price: low to high')", ["value='Price: low to high'"], []),
        ("send_msg_to_user('The cheapest is $14.99')", ["value='Price: low to high'"], []),
    ],
    "newsletter-signup": [
        ("click('11')", ["[7] textbox 'Email address', focused"], []),  # required and empty
        ("fill('7', 'jane@example.org')", ["value='jane@example.org'"], []),
        (
            "click('8')",
            [
                "[8] radio 'Weekly', focused, clickable, checked='true'",
                "[9] radio 'Monthly', clickable, checked='false'",
            ],
            [],
        ),
        ("click('10')", ["privacy policy', focused, clickable, checked='true'"], []),
        ("click('12')", ["URL: https://riverside-library.example.org/privacy"], ["Stay in the loop"]),
        ("go_back()", ["value='jane@example.org'", "'Weekly', clickable, checked='true'"], []),  # kept
        (
            "click('9')",
            ["[9] radio 'Monthly', focused, clickable, checked='true'"],
            ["'Weekly', clickable, checked='true'"],
        ),
        ("click('8')", ["'Weekly', focused, clickable, checked='true'"], []),
        ("press('7', 'Backspace')", ["value='jane@example.or'"], []),
        ("send_msg_to_user('Almost done')", ["value='jane@example.or'"], []),
    ],
    "recipe-search": [
        ("fill('5', 'vegetarian lasagna')", ["value='vegetarian lasagna'"], []),
        ("press('5', 'Enter')", ["URL: https://cooking.example.net/search?q=vegetarian+lasagna"], []),
        ("click('21')", ["Spinach and Ricotta Lasagna", "Total time: 55 min"], ["Results for"]),
        ("go_back()", ['Results for "vegetarian lasagna"'], ["Total time"]),
        ("go_forward()", ["Total time: 55 min"], []),
        ("click('31')", ["[31] checkbox 'Metric units', focused, clickable, checked='true'"], []),
        ("go_back()", ['Results for "vegetarian lasagna"'], []),
        ("click('23')", ["Mushroom Lasagna", "Total time: 1 h 20 min"], []),
        ("go_back()", ['Results for "vegetarian lasagna"'], []),
        ("send_msg_to_user('Spinach and Ricotta Lasagna, 55 min')", ["Results for"], []),
    ],
}


@pytest.mark.parametrize("task", list(WEB))
def test_web_episode(task: str) -> None:
    env = AgentWorldBrowserEnv(task=f"web/{task}", backend="offline")
    env.reset(seed=0)
    right = []
    for action, shown, gone in WEB[task]:
        _obs, _r, _t, _tr, info = env.step(action)
        unknown = bool(info["agentworld"].get("metadata", {}).get("offline_unknown_effect"))
        right.append(_right(env.page_text, shown, gone, unknown or bool(_obs["last_action_error"])))
    assert sum(right) >= 9, right
    assert right == [True] * 10, right
    env.close()
