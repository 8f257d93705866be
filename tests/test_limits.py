"""Size and depth limits on untrusted input, and the one redaction of secrets."""

from __future__ import annotations

import json

import pytest

from agentworld_plugins.errors import ActionValidationError, short_repr
from agentworld_plugins.limits import LimitError, check_depth, check_json_text, loads_limited
from agentworld_plugins.redaction import REDACTED, redact, redact_text, redact_url


def test_loads_limited_accepts_ordinary_json_and_brackets_inside_strings() -> None:
    text = json.dumps({"a": [1, 2.5, -3], "s": "[" * 500 + "{" * 500, "n": None})
    assert loads_limited(text) == json.loads(text)
    assert loads_limited(b'{"x": 1}') == {"x": 1}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 65 + "]" * 65, "nested deeper than 64"),
        ("[" * 100_000, "nested deeper"),
        ("1" * 1001, "1,001 digits"),
        ("-" + "9" * 4301, "4,301 digits"),
        ("1e999", "out of range"),
        ("[NaN]", "not a JSON number"),
        ("[1." + "1" * 2000 + "]", "characters"),
    ],
)
def test_loads_limited_refuses_what_would_crash_or_hang(text: str, words: str) -> None:
    with pytest.raises(LimitError, match=words):
        loads_limited(text)


def test_check_depth_measures_without_recursing() -> None:
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(LimitError, match="nested deeper"):
        check_depth(deep)
    with pytest.raises(LimitError, match="integer over"):
        check_depth({"n": [10**2000]})
    check_depth({"ok": [1, True, "x" * 100, {"k": 10**900}]})
    with pytest.raises(LimitError, match="characters"):
        check_json_text("x" * 11, max_chars=10)


def test_error_messages_show_inputs_cut_short() -> None:
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert len(short_repr(deep)) < 100
    assert short_repr(10**5000) in ("<int>",) or len(short_repr(10**5000)) < 100
    error = ActionValidationError("mcp", [{"loc": "x", "msg": "bad", "input": "y" * 10_000, "expected": ""}])
    assert len(str(error)) < 500


def test_one_redaction_for_text_urls_and_structures() -> None:
    assert redact_url("http://bob:hunter2@gpu:8000/v1?api_key=abc&x=1") == (
        f"http://{REDACTED}@gpu:8000/v1?api_key={REDACTED}&x=1"
    )
    assert redact_url("http://gpu:8000/v1") == "http://gpu:8000/v1"
    assert redact_url(None) is None
    assert "ghp_" not in redact_text("token ghp_" + "A" * 30)
    deep: dict = {"password": "p"}
    for _ in range(5000):
        deep = {"k": [deep]}
    copy, count = redact(deep)
    assert count == 1
    node = copy
    for _ in range(5000):
        node = node["k"][0]
    assert node == {"password": REDACTED}
