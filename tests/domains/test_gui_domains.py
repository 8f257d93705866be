"""What the android, os and web domains do alike: their settings, the turn prompt's sections and
the parse of the world model's answer (each domain's own rules are in its test file)."""

from __future__ import annotations

from typing import Any

import pytest
from gui_domain_cases import ANDROID_SCREEN, OS_TREE, WEB_PAGE, registered

from agentworld_plugins.domains.android import AndroidDomain
from agentworld_plugins.domains.base import Domain
from agentworld_plugins.domains.os import OsDomain
from agentworld_plugins.domains.web import WebDomain

#: name -> (domain class, action fence, an observation, an action, how the turn prompt ends)
CASES: dict[str, tuple[type[Domain], str | None, str, Any, str]] = {
    "android": (
        AndroidDomain,
        "json",
        ANDROID_SCREEN,
        {"action_type": "click", "index": 0},
        '**Action:**\n```json\n{"action_type": "click", "index": 0}\n```',
    ),
    "os": (
        OsDomain,
        "python",
        OS_TREE,
        "pyautogui.doubleClick(35, 152)",
        "**Action:**\n```python\npyautogui.doubleClick(35, 152)\n```",
    ),
    "web": (
        WebDomain,
        None,
        WEB_PAGE,
        "fill('14', 'wireless mouse')\nkeyboard_press('Enter')",
        "**Action:**\nfill('14', 'wireless mouse')\nkeyboard_press('Enter')",
    ),
}

pytestmark = pytest.mark.parametrize("name", list(CASES))


def test_registered_with_its_settings(name: str) -> None:
    kind, fence = CASES[name][:2]
    dom = registered(name, kind)
    assert dom.name == name
    assert dom.action_fence == fence
    assert dom.has_state and dom.requires_block
    assert dom.sampling.temperature == 0.6
    assert dom.sampling.max_tokens == 8192
    assert dom.description and kind.__doc__
    dom.validate_action(dom.example_action)


def test_render_turn_sections_in_order(name: str) -> None:
    kind, fence, state, raw, ending = CASES[name]
    dom = registered(name, kind)
    text = dom.render_turn(1, dom.validate_action(raw), state)
    positions = [text.index("### Turn 1"), text.index("**Current State:**"), text.index("**Action:**")]
    assert positions == sorted(positions)
    assert state in text
    assert text.endswith(ending)
    if fence is None:
        assert "```" not in text


def test_parse_output_with_block(name: str) -> None:
    kind, _, state = CASES[name][:3]
    dom = registered(name, kind)
    answer = f"<think>It opens.</think>\n<predicted_observation>\n{state}\n</predicted_observation>\n"
    parsed = dom.parse_output(answer)
    assert parsed.text == state
    assert parsed.warnings == []
    assert parsed.reasoning == "It opens."


def test_parse_output_without_block_warns(name: str) -> None:
    kind, _, state = CASES[name][:3]
    parsed = registered(name, kind).parse_output(f"<think>x</think>\n{state}")
    assert parsed.text == state
    assert any("predicted_observation" in w for w in parsed.warnings)
