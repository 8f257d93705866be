"""The os (OSWorld) domain: pyautogui code actions, turn prompts, output parsing and errors."""

from __future__ import annotations

import pytest

from agentworld_plugins.domains.os import OsAction, OsDomain, clean_code
from agentworld_plugins.errors import ActionValidationError
from agentworld_plugins.plugins import new_plugin_manager

TREE = (
    "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
    "push-button\tFiles\t\t\t\t(0, 120)\t(70, 64)\n"
    "label\tActivities\tActivities\t\t\t(0, 0)\t(100, 27)"
)


@pytest.fixture(scope="module")
def dom() -> OsDomain:
    pm = new_plugin_manager(load_entrypoints=False)
    domain = pm.registry.domain("os")
    assert isinstance(domain, OsDomain)
    return domain


def test_registered_with_its_settings(dom: OsDomain) -> None:
    assert dom.name == "os"
    assert dom.action_fence == "python"
    assert dom.has_state and dom.requires_block
    assert dom.sampling.max_tokens == 8192
    assert dom.description and OsDomain.__doc__
    dom.validate_action(dom.example_action)


VALID = [
    "pyautogui.click(960, 540)",
    "import pyautogui\nimport time\npyautogui.hotkey('ctrl', 'alt', 't')\ntime.sleep(1)\npyautogui.write('ls')",
    "pyautogui.moveTo(100, 200)\npyautogui.dragTo(300, 400, duration=0.5)",
    "for _ in range(3):\n    pyautogui.press('down')",
    "    pyautogui.scroll(-5)\n    pyautogui.press('enter')",
    "WAIT",
    "FAIL",
    "DONE",
]


@pytest.mark.parametrize("code", VALID)
def test_valid_actions(dom: OsDomain, code: str) -> None:
    action = dom.validate_action(code)
    assert isinstance(action, OsAction)
    assert dom.render_action(action) == clean_code(code)


def test_special_words_render_alone(dom: OsDomain) -> None:
    for word in ("WAIT", "FAIL", "DONE"):
        action = dom.validate_action(f"  {word}\n")
        assert dom.render_action(action) == word
        assert action.special == word
    assert dom.validate_action("pyautogui.click(1, 2)").special is None


def test_fence_is_stripped(dom: OsDomain) -> None:
    action = dom.validate_action("```python\npyautogui.click(10, 20)\n```")
    assert dom.render_action(action) == "pyautogui.click(10, 20)"
    action = dom.validate_action("```\nDONE\n```")
    assert dom.render_action(action) == "DONE"


@pytest.mark.parametrize(
    ("code", "needles"),
    [
        ("pyautogui.click(10, 20", ["line 1", "column", "never closed"]),
        ("pyautogui.click(1, 2)\nif True\n    pass", ["line 2", "column"]),
        ("", ["empty"]),
        ("   \n ", ["empty"]),
        ("```python\n```", ["empty"]),
        ("print('a'\x00)", ["does not parse"]),
    ],
)
def test_invalid_actions(dom: OsDomain, code: str, needles: list[str]) -> None:
    with pytest.raises(ActionValidationError) as info:
        dom.validate_action(code)
    err = info.value
    assert err.domain == "os"
    (error,) = err.errors
    for needle in needles:
        assert needle in error["msg"], (needle, error["msg"])
    assert "pyautogui" in error["expected"]


def test_non_string_rejected(dom: OsDomain) -> None:
    with pytest.raises(ActionValidationError):
        dom.validate_action(["pyautogui.click(1, 2)"])


def test_render_turn_sections_in_order(dom: OsDomain) -> None:
    action = dom.validate_action("pyautogui.doubleClick(35, 152)")
    text = dom.render_turn(1, action, TREE)
    positions = [text.index("### Turn 1"), text.index("**Current State:**"), text.index("**Action:**")]
    assert positions == sorted(positions)
    assert TREE in text
    assert text.endswith("**Action:**\n```python\npyautogui.doubleClick(35, 152)\n```")


def test_parse_output_with_block(dom: OsDomain) -> None:
    answer = f"<think>Files opens.</think>\n<predicted_observation>\n{TREE}\n</predicted_observation>"
    parsed = dom.parse_output(answer)
    assert parsed.text == TREE
    assert parsed.warnings == []


def test_parse_output_without_block_warns(dom: OsDomain) -> None:
    parsed = dom.parse_output(f"<think>x</think>\n{TREE}")
    assert parsed.text == TREE
    assert any("predicted_observation" in w for w in parsed.warnings)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (TREE, False),
        ("bash: foo: command not found", False),
        (
            "Traceback (most recent call last):\n  File \"<string>\", line 1\nNameError: name 'x' is not defined",
            True,
        ),
        ("pyautogui.FailSafeException: fail-safe triggered", True),
        ("label\tError messages\t\t\t\t(0, 0)\t(1, 1)", False),
        ("Error: the display is not available", True),
        ("ValueError: bad coordinates", True),
    ],
)
def test_is_error(dom: OsDomain, text: str, expected: bool) -> None:
    action = dom.validate_action("WAIT")
    assert dom.is_error(text, action) is expected
