"""Actions read out of an agent's text as BrowserGym's default action set reads them."""

from __future__ import annotations

import pytest
from agentworld_plugins.adapters.gui.web_actions import extract_web_actions, prepare_web_action


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("click('12')", "click('12')"),
        ("Sure. I'll click it: click('12'). Done.", "click('12')"),
        ("```python\nfill('14', 'a (b) \\'c\\'')\n```", "fill('14', 'a (b) \\'c\\'')"),
        (
            "fill('3', \"\"\"two\nlines)\"\"\") then press('3', 'Enter')",
            "fill('3', \"\"\"two\nlines)\"\"\")\npress('3', 'Enter')",
        ),
        ("select_option('7', ['a', 'b'])", "select_option('7', ['a', 'b'])"),
        ("page.click('a'); myclick('1'); click(the button)", None),
        ("no action here", None),
        ("click('12'", None),
    ],
)
def test_extract(text: str, calls: str | None) -> None:
    assert extract_web_actions(text) == calls


def test_prepare_keeps_clean_actions_decodes_bytes_and_leaves_the_rest() -> None:
    assert prepare_web_action("noop()\nclick('1')") == "noop()\nclick('1')"
    assert prepare_web_action(b"go_back()") == "go_back()"
    assert prepare_web_action("I think so.") == "I think so."
    assert prepare_web_action(None) is None
