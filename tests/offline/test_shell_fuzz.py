"""Fuzzing the terminal and swe domains' offline steps: random keystrokes (shell syntax soup,
control keys, escapes) and random tool calls give an observation or an ``ActionValidationError``,
never another exception, and never take longer than the step budget (with slack for a loaded
machine). Example counts are bounded so that this file stays within a few seconds."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentworld_plugins import World
from agentworld_plugins.config import load_settings
from agentworld_plugins.errors import ActionValidationError

#: the step budget these sessions run under (virtual seconds of work)
BUDGET = 0.5

_PIECES = [
    "echo", "ls", "cat", "grep -E", "sed -E", "printf", "seq", "git", "od -c", "dd", "(", ")", "{", "}",
    "$(", "${", "$((", "))", "`", "'", '"', "\\", "|", "||", "&&", ";", "&", ">", ">>", "<", "<<", "<<<",
    "EOF", "if", "then", "fi", "for", "do", "done", "while", "case", "esac", "*", "?", "[", "]", "~",
    "$?", "$#", "$@", "!", "=", "x", "a+", "(a+)+$", "%2000000000d", "{1..9}", "\n", " ", "\t",
    "\x03", "\x04", "\x7f", "\x1b[A", "\xc3\xa9", "\x00", "\udcff", "/dev/zero", "/dev/urandom",
]  # fmt: skip

keystrokes = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join) | st.text(max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_TOOLS = ["run_shell_command", "execute_bash", "read_file", "write_file", "edit", "replace", "list_directory",
          "glob", "grep_search", "str_replace_editor", "save_memory", "todo_write", "nope"]  # fmt: skip
_ARGS = ["command", "file_path", "path", "content", "old_string", "new_string", "pattern", "dir_path",
         "old_str", "new_str", "view_range", "insert_line", "todos", "fact", "offset", "limit"]  # fmt: skip
tool_calls = st.fixed_dictionaries(
    {
        "tool_name": st.sampled_from(_TOOLS) | st.text(max_size=10),
        "arguments": st.dictionaries(
            st.sampled_from(_ARGS),
            keystrokes | json_values | st.sampled_from(["/app/main.py", "/app", "*.py"]),
            max_size=4,
        ),
    }
)

_WORLD = World(
    backend="offline", settings=load_settings(offline_step_seconds=BUDGET, offline_step_memory_mb=32)
)


def _step(domain: str, action: Any) -> None:
    session = _WORLD.session(domain)
    try:
        observation = session.step(action)
    except ActionValidationError:
        return
    assert isinstance(observation.text, str)
    observation.text.encode("utf-8", "surrogatepass")  # printable to a client, whatever the bytes
    # bounded by its work budget, never by the host's clock (which would say so in the text)
    assert "wall-clock safety limit" not in observation.text, action


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(keystrokes, min_size=1, max_size=3))
def test_terminal_keystrokes(batches: list[str]) -> None:
    _step("terminal", [{"keystrokes": keys + "\n"} for keys in batches])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_terminal_malformed_actions(action: Any) -> None:
    _step("terminal", action)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_calls)
def test_swe_tool_calls(call: dict[str, Any]) -> None:
    _step("swe", call)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["run_shell_command", "execute_bash"]), keystrokes)
def test_swe_shell_commands(tool: str, command: str) -> None:
    _step("swe", {"tool_name": tool, "arguments": {"command": command}})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_swe_malformed_actions(action: Any) -> None:
    _step("swe", action)
