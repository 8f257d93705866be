"""Fuzzing the offline worlds of the mcp, search, web, android and os domains with hypothesis.

Random action sequences, some well formed and some not, go through a real offline session:
every step gives an observation or an ``ActionValidationError``, never another exception. The
per-example deadline is generous on purpose: it catches a step that hangs or loops, not a slow
machine.
"""

from __future__ import annotations

import json
from datetime import timedelta
from importlib import resources
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins import World
from agentworld_plugins.errors import ActionValidationError
from agentworld_plugins.observation import Observation

FUZZ = settings(
    max_examples=30,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

WORLD = World(backend="offline")

text = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), text)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)


def _pack_tools() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for name in ("filesystem", "sql_database", "calendar_email", "github_issues"):
        data = json.loads(
            resources.files("agentworld_plugins.toolpacks").joinpath(f"{name}.json").read_text()
        )
        tools += data["tools"]
    return tools


TOOLS = _pack_tools()
_OUTPUT = {t["name"]: t["outputSchema"] for t in TOOLS if t.get("outputSchema")}
_PROPS = {t["name"]: list(t["inputSchema"].get("properties", {})) for t in TOOLS}
_SQL = st.sampled_from(
    [
        "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)",
        "INSERT INTO t (b) VALUES ('x'), ('y')",
        "SELECT * FROM t",
        "UPDATE t SET b = 'z'",
        "DELETE FROM t WHERE a = 1",
        "SELECT * FROM t; DROP TABLE t",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000) SELECT x FROM c",
        "SELEC 1",
        "'; --",
    ]
)
_PATHS = st.sampled_from(
    ["/app", "/app/a.txt", "/tmp", "a.txt", "../../etc/passwd", "", "/app/d/e", "~", "/dev/null"]
)


@st.composite
def mcp_calls(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)  # not even a tool call
    name = draw(st.sampled_from([*_PROPS, "no_such_tool"]))
    arguments: dict[str, Any] = {}
    for prop in _PROPS.get(name, []):
        if draw(st.booleans()):
            if prop in ("path", "source", "destination"):
                arguments[prop] = draw(_PATHS)
            elif prop == "query" and name.endswith(("query", "table")):
                arguments[prop] = draw(_SQL)
            else:
                arguments[prop] = draw(json_values)
    if draw(st.booleans()):
        arguments.update(draw(st.dictionaries(text, json_values, max_size=2)))
    return {"tool_name": name, "arguments": arguments}


@st.composite
def search_calls(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    name = draw(st.sampled_from(["web_search", "web_extractor", "dict_memory", "other"]))
    keys = st.sampled_from(["queries", "query", "url", "urls", "goal", "action", "key", "value", "k"])
    return {"name": name, "arguments": draw(st.dictionaries(keys, json_values, max_size=4))}


_WEB_CALLS = ("click", "dblclick", "fill", "hover", "press", "focus", "clear", "select_option", "scroll", "goto",
              "go_back", "go_forward", "new_tab", "tab_close", "tab_focus", "send_msg_to_user", "noop", "check")  # fmt: skip
_OS_CALLS = ("pyautogui.click", "pyautogui.write", "pyautogui.typewrite", "pyautogui.press", "pyautogui.hotkey",
             "pyautogui.moveTo", "pyautogui.scroll", "pyautogui.doubleClick", "time.sleep", "print")  # fmt: skip
_ARG = st.one_of(
    st.integers(-5, 2000).map(str),
    text.map(repr),
    st.sampled_from(["'12'", "'Enter'", "'ctrl'", "'https://example.com'", "x=1", "1e309", "[1, 2]"]),
)


def _code(calls: tuple[str, ...], extra: tuple[str, ...]) -> st.SearchStrategy[str]:
    call = st.builds(
        lambda fn, args: f"{fn}({', '.join(args)})", st.sampled_from(calls), st.lists(_ARG, max_size=3)
    )
    line = st.one_of(call, call, text, st.sampled_from(extra))
    return st.lists(line, min_size=1, max_size=4).map("\n".join)


web_actions = st.one_of(_code(_WEB_CALLS, ("", "click(", "))", "import os")), json_values)
os_actions = st.one_of(
    _code(
        _OS_CALLS, ("WAIT", "DONE", "FAIL", "import os", "while True: pass", "x = [1] * 10**12", "def f(:")
    ),
    json_values,
)


@st.composite
def android_actions(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    kinds = ["click", "double_tap", "long_press", "scroll", "swipe", "input_text", "navigate_home",
             "navigate_back", "keyboard_enter", "open_app", "status", "wait", "answer", "fly"]  # fmt: skip
    action: dict[str, Any] = {"action_type": draw(st.sampled_from(kinds))}
    for key, values in (
        ("index", st.integers(-2, 60)),
        ("x", st.integers(-5, 5000)),
        ("y", st.integers(-5, 5000)),
        ("text", text),
        ("direction", st.sampled_from(["up", "down", "left", "right", "sideways"])),
        ("app_name", st.sampled_from(["Settings", "Chrome", "Nope", ""])),
        ("goal_status", st.sampled_from(["complete", "infeasible"])),
    ):
        if draw(st.booleans()):
            action[key] = draw(values)
    return action


def _run(domain: str, actions: list[Any], **context: Any) -> None:
    session = WORLD.session(domain, **context)
    for action in actions:
        try:
            observation = session.step(action)
        except ActionValidationError:
            continue
        assert isinstance(observation, Observation)
        assert isinstance(observation.text, str)
        assert not observation.metadata.get("offline_internal_error"), observation.text
        schema = _OUTPUT.get(action.get("tool_name")) if domain == "mcp" and context.get("tools") else None
        if schema is not None and not observation.is_error:
            jsonschema.validate(observation.metadata["structured_content"], schema)


@FUZZ
@given(st.lists(mcp_calls(), min_size=1, max_size=8))
def test_mcp_world_never_raises(actions: list[Any]) -> None:
    _run("mcp", actions, tools=TOOLS)


@FUZZ
@given(st.lists(mcp_calls(), min_size=1, max_size=6))
def test_mcp_world_without_tool_definitions_never_raises(actions: list[Any]) -> None:
    _run("mcp", actions)


@FUZZ
@given(st.lists(search_calls(), min_size=1, max_size=6))
def test_search_world_never_raises(actions: list[Any]) -> None:
    _run("search", actions)


@FUZZ
@given(st.lists(web_actions, min_size=1, max_size=6))
def test_web_world_never_raises(actions: list[Any]) -> None:
    _run("web", actions)


@FUZZ
@given(st.lists(android_actions(), min_size=1, max_size=6))
def test_android_world_never_raises(actions: list[Any]) -> None:
    _run("android", actions)


@FUZZ
@given(st.lists(os_actions, min_size=1, max_size=6))
def test_os_world_never_raises(actions: list[Any]) -> None:
    _run("os", actions)
