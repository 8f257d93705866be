"""Actions read out of an agent's text as BrowserGym's action sets read and run them."""

from __future__ import annotations

import pytest
from agentworld_plugins.adapters.gui.web_actions import BrowserGymActionSet
from browsergym.core.action.highlevel import HighLevelActionSet


@pytest.mark.parametrize(
    ("text", "code", "error"),
    [
        ("click('12')", "click('12')", ""),
        ("Sure. I'll click it: click('12'). Done.", "click('12')", ""),
        ("```python\nfill('14', 'a (b) \\'c\\'')\n```", "fill('14', \"a (b) 'c'\")", ""),
        ("page.click('a')", "click('a')", ""),
        ("page.click('a'); myclick('1')", "", "NameError: Invalid action type 'myclick'."),
        ("Step (1): click('12')", "", "NameError: Invalid action type 'Step'."),
        ("I'll use mouse_click(10, 20).", "", "NameError: Invalid action type 'mouse_click'."),
        ("no action here", "", "ValueError: Received an empty action."),
        ("# click('12')", "", "ValueError: Received an empty action."),
        ("click('12'", "", "ValueError: Received an empty action."),
        ("click(bid='1', bid='2')", "", "SyntaxError: keyword argument repeated: bid"),
    ],
)
def test_plan(text: str, code: str, error: str) -> None:
    assert BrowserGymActionSet().plan(text) == (code, error)


def test_calls_before_a_failing_one_run() -> None:
    code, error = BrowserGymActionSet().plan("fill('1', 'a')\nclick('2', foo=1)\nclick('3')")
    assert code == "fill('1', 'a')"
    assert error.startswith("TypeError: click() got an unexpected keyword argument 'foo'")


def test_options_of_a_real_action_set_are_used() -> None:
    strict = BrowserGymActionSet.from_mapping(
        HighLevelActionSet(strict=True, multiaction=False).to_python_code
    )
    assert strict == BrowserGymActionSet(BrowserGymActionSet().names, strict=True, multiaction=False)
    assert strict.plan("Do it: click('1')")[1].startswith("ParseException: ")
    assert strict.plan("click('1') click('2')")[1] == (
        "ValueError: Received a multi-action, only single-actions are allowed."
    )
    coord = BrowserGymActionSet.from_mapping(HighLevelActionSet(subsets=["coord"]).to_python_code)
    assert coord is not None and coord.plan("mouse_click(10, 20)") == ("mouse_click(10, 20)", "")
    assert BrowserGymActionSet.from_mapping("default") == BrowserGymActionSet()
    assert BrowserGymActionSet.from_mapping(None) is None
    with pytest.raises(ValueError, match="Unknown high-level action subspace: mouse"):
        BrowserGymActionSet.of(["mouse"])
