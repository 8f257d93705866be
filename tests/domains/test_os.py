"""The os (OSWorld) domain: pyautogui code actions, turn prompts, output parsing and errors."""

from __future__ import annotations

import pytest
from gui_domain_cases import OS_TREE as TREE
from gui_domain_cases import registered

from agentworld_plugins.domains.os import OsAction, OsDomain, clean_code
from agentworld_plugins.errors import ActionValidationError


@pytest.fixture(scope="module")
def dom() -> OsDomain:
    return registered("os", OsDomain)


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
