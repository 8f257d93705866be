"""Oracle: BrowserGym's real ``HighLevelActionSet`` and ours read every agent output alike.

The corpus (data/browsergym_actions.json) holds well-formed, malformed and tricky agent outputs
(prose, code fences, several calls, comments, wrong argument types, unknown functions). Each runs
through the real ``to_python_code`` and through :class:`BrowserGymActionSet` under the default
options and under ``strict``/``multiaction``/``coord`` variants: same verdict, same exception
class (same message for ``ValueError``/``NameError``), and the same calls where accepted. Then
the real generated code runs against the real functions' signatures and annotations: the same
calls take effect before the same failing one. (One looseness on purpose: ``scroll_at``'s
coordinates are annotated ``int`` but Playwright takes any number, and so do we; the corpus
does not pin that down.)
"""

from __future__ import annotations

import functools
import inspect
import json
import random
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from agentworld_plugins.adapters.gui.web_actions import (
    ACTION_SUBSETS,
    BrowserGymActionError,
    BrowserGymActionSet,
)
from browsergym.core.action import functions
from browsergym.core.action.highlevel import ACTION_SUBSETS as REAL_SUBSETS
from browsergym.core.action.highlevel import HighLevelActionSet

# BrowserGym evaluates "\\d" and the like with Python's own warning
pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")

CORPUS: list[str] = json.loads((Path(__file__).parent / "data" / "browsergym_actions.json").read_text())
ALL = ["chat", "infeas", "bid", "coord", "nav", "tab"]
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "strict": {"strict": True},
    "single": {"multiaction": False},
    "strict-single": {"strict": True, "multiaction": False},
    "coord": {"subsets": ALL},
}


@functools.cache
def _real_set(config: str) -> HighLevelActionSet:
    return HighLevelActionSet(**CONFIGS[config])


def _real(config: str, text: str) -> tuple[str, str]:
    actions = _real_set(config)
    try:
        code = actions.to_python_code(text)
    except Exception as exc:  # the real parser's verdict, whatever it raises
        return type(exc).__name__, str(exc)
    return "ok", code[len(actions.python_includes) :].strip("\n")


def _ours(options: dict[str, Any], text: str) -> tuple[str, str]:
    opts = dict(options)
    subsets = opts.pop("subsets", None)
    actions = BrowserGymActionSet.of(subsets, **opts) if subsets else BrowserGymActionSet(**opts)
    try:
        calls = actions.read(text)
    except BrowserGymActionError as exc:
        return exc.kind, exc.message
    return "ok", "\n".join(call.source() for call in calls)


def test_corpus_is_large_and_varied() -> None:
    assert len(CORPUS) >= 100 and len(set(CORPUS)) == len(CORPUS)
    verdicts = {_real("default", text)[0] for text in CORPUS}
    assert {"ok", "ValueError", "NameError"} <= verdicts


def test_subsets_are_browsergyms() -> None:
    for name, ours in ACTION_SUBSETS.items():
        assert tuple(f.__name__ for f in REAL_SUBSETS[name]) == ours
    assert BrowserGymActionSet().names == set(HighLevelActionSet().action_set)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_same_verdict_and_calls_as_the_real_action_set(config: str) -> None:
    options = CONFIGS[config]
    differ = []
    for text in CORPUS:
        real, ours = _real(config, text), _ours(options, text)
        same = real[0] == ours[0] and (real[0] in ("ParseException", "SyntaxError") or real[1] == ours[1])
        if not same:
            differ.append((text, real, ours))
    assert differ == [], f"{len(differ)}/{len(CORPUS)} differ"


def _accepts(hint: Any, value: Any) -> bool:
    """Whether ``value`` fits the real function's annotation (a float one: int or float, not bool)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(h, value) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is list:  # Playwright takes any sequence where a list is annotated
        (item,) = typing.get_args(hint)
        return isinstance(value, (list, tuple)) and all(_accepts(item, v) for v in value)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _checker(name: str) -> Any:
    func = getattr(functions, name)
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func)

    def run(*args: Any, **kwargs: Any) -> None:
        bound = signature.bind(*args, **kwargs)  # TypeError, as calling the real one
        for key, value in bound.arguments.items():
            if key in hints and not _accepts(hints[key], value):
                raise ValueError(f"{name}() argument {key}={value!r} does not fit {hints[key]}")

    return run


def _real_effect(code: str) -> tuple[int, bool]:
    """How many calls of BrowserGym's code run before one fails, and whether one fails."""
    lines = code.splitlines()
    try:
        compile(code, "<action>", "exec")
    except SyntaxError:
        return 0, True
    namespace = {name: _checker(name) for name in _real_set("coord").action_set}
    for done, line in enumerate(lines):
        try:
            exec(line, dict(namespace))
        except Exception:
            return done, True
    return len(lines), False


@pytest.mark.parametrize("config", ["default", "coord"])
def test_same_effect_as_running_the_real_code(config: str) -> None:
    options = CONFIGS[config]
    opts = dict(options)
    subsets = opts.pop("subsets", None)
    actions = BrowserGymActionSet.of(subsets, **opts) if subsets else BrowserGymActionSet(**opts)
    differ = []
    checked = 0
    for text in CORPUS:
        verdict, code = _real(config, text)
        ran, error = actions.plan(text)
        if verdict != "ok":
            if ran or not error:
                differ.append((text, "refused by BrowserGym", ran, error))
            continue
        checked += 1
        done, fails = _real_effect(code)
        ours_done = len(ran.splitlines()) if ran else 0
        if (done, fails) != (ours_done, bool(error)) or ran != "\n".join(code.splitlines()[:done]):
            differ.append((text, (done, fails), ran, error))
    assert checked >= 50
    assert differ == [], f"{len(differ)} differ"


_TOKENS = [
    *("click", "fill", "noop", "scroll", "x", "bid", "value", "page.", "é", "_", "·", "$", "0x"),
    *("(", ")", "()", "[", "]", "{", "}", ",", "=", ":", "#", ".", "+", "'", '"', "\\"),
    *("'1'", '"a b"', "'''q'''", "True", "None", "False", "Truex", "1", "-2.5", "1e3"),
    *(" ", "\n", "\t"),
]


@pytest.mark.parametrize("config", ["default", "strict"])
def test_random_token_soup_reads_alike(config: str) -> None:
    """3,000 texts made of the grammar's tokens at random (fixed seed): no verdict differs."""
    rng = random.Random(7)
    options = CONFIGS[config]
    differ = []
    for _ in range(3000):
        text = "".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 14)))
        real, ours = _real(config, text), _ours(options, text)
        if real[0] != ours[0] or (real[0] not in ("ParseException", "SyntaxError") and real[1] != ours[1]):
            differ.append((text, real, ours))
    assert differ == []
