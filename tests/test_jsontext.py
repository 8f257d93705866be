"""The fast indented JSON writer against ``json.dumps`` itself, on seeded random data."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agentworld_plugins.jsontext import MAX_DEPTH, dumps_indented

_TEXTS = ["", "a", "é", "日本", '"quoted"', "back\\slash", "tab\t", "line\nbreak", "\x00\x1f", "\ud83d", "😀"]


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 5 else 6)
    if kind == 0:
        return rng.choice(_TEXTS) + str(rng.randrange(100))
    if kind == 1:
        return rng.choice([None, True, False])
    if kind == 2:
        return rng.randrange(-(10**20), 10**20)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 1e-300, 3.141592653589793, rng.random()])
    if kind == 4:
        return rng.choice([[], {}, ()])
    if kind == 5:
        return rng.choice(_TEXTS)
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(1, 4))]
    if kind == 7:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randrange(1, 3)))
    return {rng.choice(_TEXTS) + str(i): _value(rng, depth + 1) for i in range(rng.randrange(1, 4))}


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_it_writes_what_json_dumps_writes(ensure_ascii: bool) -> None:
    rng = random.Random(7)
    for _ in range(2000):
        value = _value(rng, 0)
        assert dumps_indented(value, ensure_ascii=ensure_ascii) == json.dumps(
            value, indent=2, ensure_ascii=ensure_ascii
        )


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key"},
        {None: 1, True: 2, 2.5: 3},
        [float("nan"), float("inf"), -float("inf")],
        {"deep": [[[[{"x": [1]}]]]]},
    ],
)
def test_what_it_leaves_to_json_dumps_reads_the_same(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_default_and_errors_are_json_dumps_own() -> None:
    class Thing:
        def __str__(self) -> str:
            return "thing"

    assert dumps_indented({"a": Thing()}, default=str) == json.dumps({"a": Thing()}, indent=2, default=str)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"a": Thing()})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_indented(loop)
    deep: Any = "x"
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    assert dumps_indented(deep) == json.dumps(deep, indent=2)


def test_a_request_body_is_json_dumps_however_its_messages_change() -> None:
    """Messages' JSON is kept by the message object; the body is ``json.dumps``'s, whatever
    happened to a message since it was last encoded."""
    from agentworld_plugins.jsontext import dumps_body

    system = {"role": "system", "content": "You simulate a server. " * 40}
    turn = {"role": "user", "content": "### Turn 1\n**Action:**\n" + "é" * 300}
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "x"}}]}
    messages = [system, turn, call]

    def body() -> dict[str, Any]:
        return {"model": "wm", "messages": messages, "temperature": 0.6, "max_tokens": 64}

    assert dumps_body(body()) == json.dumps(body())
    assert dumps_body(body()) == json.dumps(body())  # from what was kept
    turn["content"] = "### Turn 1\nchanged " * 20  # a new string
    assert dumps_body(body()) == json.dumps(body())
    turn["name"] = "agent"  # another key
    assert dumps_body(body()) == json.dumps(body())
    content = turn.pop("content")
    turn["text"] = content  # the same value under another key
    assert dumps_body(body()) == json.dumps(body())
    call["tool_calls"].append({"id": "c2", "function": {"name": "y"}})  # changed inside: never kept
    assert dumps_body(body()) == json.dumps(body())
    rng = random.Random(3)
    for _ in range(300):
        payload = {"model": rng.choice(["a", "é"]), "messages": [_value(rng, 3) for _ in range(3)], "n": 1}
        assert dumps_body(payload) == json.dumps(payload)
    assert dumps_body({1: "a"}) == json.dumps({1: "a"})
