"""The swe domain's offline world: coding-agent tools answered by the simulated machine."""

from __future__ import annotations

from typing import Any

import pytest

from agentworld_plugins.domains.base import OfflineResult
from agentworld_plugins.domains.swe import SweDomain, exit_code_of


@pytest.fixture
def domain() -> SweDomain:
    return SweDomain()


@pytest.fixture
def state() -> dict[str, Any]:
    return {}


def call(
    domain: SweDomain,
    state: dict[str, Any],
    tool: str,
    context: dict[str, Any] | None = None,
    **arguments: Any,
) -> OfflineResult:
    return domain.offline_step(
        state, domain.validate_action({"tool_name": tool, "arguments": arguments}), context or {}
    )


def test_run_shell_command_fields(domain: SweDomain, state: dict[str, Any]) -> None:
    r = call(domain, state, "run_shell_command", command="ls && cat nope", description="look")
    assert r.text == (
        "Command: ls && cat nope\n"
        "Directory: (root)\n"
        "Stdout: README.md\nmain.py\nrequirements.txt\n"
        "Stderr: cat: nope: No such file or directory\n"
        "Error: (none)\n"
        "Exit Code: 1\n"
        "Signal: (none)\n"
        "Background PIDs: (none)"
    )
    assert r.is_error is True and r.metadata["exit_code"] == 1
    assert exit_code_of(r.text) == 1 and domain.is_error(r.text, domain.validate_action({"name": "x"}))
    ok = call(domain, state, "run_shell_command", command="true")
    assert "Stdout: (empty)\nStderr: (empty)" in ok.text and ok.is_error is False


def test_run_shell_command_is_a_fresh_shell_each_time(domain: SweDomain, state: dict[str, Any]) -> None:
    call(domain, state, "run_shell_command", command="mkdir -p pkg && cd pkg && export X=1 && touch made.txt")
    r = call(domain, state, "run_shell_command", command='pwd; echo "[$X]"; ls pkg')
    assert "Stdout: /app\n[]\nmade.txt\n" in r.text
    r = call(domain, state, "run_shell_command", command="pwd", directory="pkg")
    assert "Directory: pkg\nStdout: /app/pkg\n" in r.text
    missing = call(domain, state, "run_shell_command", command="pwd", directory="nope")
    assert missing.is_error is True
    # errors bash reports itself carry `bash -c`'s line prefix
    r = call(domain, state, "run_shell_command", command="nope")
    assert "Stderr: bash: line 1: nope: command not found\n" in r.text and "Exit Code: 127" in r.text


def test_unknown_effect_is_marked(domain: SweDomain, state: dict[str, Any]) -> None:
    r = call(domain, state, "run_shell_command", command="make test")
    assert r.metadata["offline_unknown_effect"] is True
    assert "Stderr: make: cannot run in the offline world" in r.text and "Exit Code: 126" in r.text


def test_execute_bash_keeps_one_session(domain: SweDomain, state: dict[str, Any]) -> None:
    r = call(domain, state, "execute_bash", command="cd /tmp && echo hi > f && pwd")
    assert r.text == "/tmp\n[Command finished with exit code 0]" and r.is_error is False
    r = call(domain, state, "execute_bash", command="cat f; ls nope")
    assert (
        r.text
        == "hi\nls: cannot access 'nope': No such file or directory\n[Command finished with exit code 2]"
    )
    assert r.is_error is True
    r = call(domain, state, "execute_bash", command="true")
    assert r.text == "[Command finished with exit code 0]"
    assert call(domain, state, "execute_bash", command="", is_input=True).is_error is True


def test_write_then_read_back(domain: SweDomain, state: dict[str, Any]) -> None:
    content = "".join(f"line {i}\n" for i in range(1, 11))
    r = call(domain, state, "write_file", file_path="/app/src/notes.txt", content=content)
    assert r.text == "Successfully created and wrote to new file: /app/src/notes.txt." and r.is_error is False
    r = call(domain, state, "write_file", file_path="/app/src/notes.txt", content=content)
    assert r.text == "Successfully overwrote file: /app/src/notes.txt."
    assert call(domain, state, "read_file", absolute_path="/app/src/notes.txt").text == content
    r = call(domain, state, "read_file", absolute_path="/app/src/notes.txt", offset=2, limit=3)
    assert r.text == (
        "[File content truncated: showing lines 3-5 of 10 total lines. Use offset/limit parameters to view more.]\n"
        "line 3\nline 4\nline 5"
    )
    shell = call(domain, state, "run_shell_command", command="wc -l src/notes.txt")
    assert "Stdout: 10 src/notes.txt" in shell.text
    assert (
        call(domain, state, "read_file", absolute_path="/app/nope.txt").text
        == "File not found: /app/nope.txt"
    )
    assert call(domain, state, "read_file", absolute_path="/app").is_error is True
    assert call(domain, state, "read_file", file_path="main.py").text.startswith('"""Entry point')


def test_edit_success_and_failure_texts(domain: SweDomain, state: dict[str, Any]) -> None:
    path = "/app/main.py"
    r = call(domain, state, "edit", file_path=path, old_string="Hello", new_string="Hi")
    assert r.text == f"Successfully modified file: {path} (1 replacements)." and r.is_error is False
    assert "Hi, {name}!" in call(domain, state, "read_file", absolute_path=path).text
    r = call(domain, state, "replace", file_path=path, old_string="Hello", new_string="Hi")
    assert r.is_error is True
    assert r.text.startswith(f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made.")
    assert r.text.endswith("Use read_file tool to verify.")
    r = call(domain, state, "edit", file_path=path, old_string="greet", new_string="salute")
    assert r.text == f"Failed to edit, Expected 1 occurrence but found 2 for old_string in file: {path}"
    r = call(
        domain,
        state,
        "edit",
        file_path=path,
        old_string="greet",
        new_string="salute",
        expected_replacements=2,
    )
    assert r.text == f"Successfully modified file: {path} (2 replacements)."
    r = call(
        domain,
        state,
        "edit",
        file_path=path,
        old_string="salute",
        new_string="salute",
        expected_replacements=2,
    )
    assert r.text == f"No changes to apply. The old_string and new_string are identical in file: {path}"
    assert call(domain, state, "edit", file_path="/app/x.py", old_string="a", new_string="b").text == (
        "File not found: /app/x.py"
    )
    r = call(domain, state, "edit", file_path="/app/new.py", old_string="", new_string="x = 1\n")
    assert r.text == "Created new file: /app/new.py with provided content."
    r = call(domain, state, "edit", file_path="/app/new.py", old_string="", new_string="x = 2\n")
    assert r.text == "File already exists, cannot create: /app/new.py" and r.is_error is True


def test_list_directory_glob_and_grep(domain: SweDomain, state: dict[str, Any]) -> None:
    call(domain, state, "write_file", file_path="/app/pkg/util.py", content="def helper():\n    return 42\n")
    r = call(domain, state, "list_directory", path="/app")
    assert r.text == "Directory listing for /app:\n[DIR] pkg\nmain.py\nREADME.md\nrequirements.txt"
    assert call(domain, state, "list_directory", path="/nope").is_error is True
    call(domain, state, "run_shell_command", command="mkdir empty")
    assert call(domain, state, "list_directory", path="/app/empty").text == "Directory /app/empty is empty."
    r = call(domain, state, "glob", pattern="**/*.py")
    assert r.text == (
        'Found 2 file(s) matching "**/*.py" within /app, sorted by modification time (newest first):\n'
        "/app/pkg/util.py\n/app/main.py"
    )
    assert (
        call(domain, state, "glob", pattern="*.rs").text
        == 'No files found matching pattern "*.rs" within /app'
    )
    r = call(domain, state, "grep_search", pattern=r"def \w+")
    assert r.text == (
        'Found 2 matches for pattern "def \\w+" in the workspace directory:\n'
        "---\nFile: main.py\nL4: def greet(name: str) -> str:\n---\n"
        "File: pkg/util.py\nL1: def helper():\n---"
    )
    r = call(domain, state, "search_file_content", pattern="return", path="pkg", include="*.py")
    assert r.text.startswith('Found 1 match for pattern "return" in path "pkg" (filter: "*.py"):')
    r = call(domain, state, "grep_search", pattern="zzz")
    assert r.text == 'No matches found for pattern "zzz" in the workspace directory.' and r.is_error is False


def test_str_replace_editor_commands(domain: SweDomain, state: dict[str, Any]) -> None:
    r = call(
        domain,
        state,
        "str_replace_editor",
        command="create",
        path="/app/calc.py",
        file_text="a = 1\nb = 2\nc = 3\n",
    )
    assert r.text == "File created successfully at: /app/calc.py"
    r = call(domain, state, "str_replace_editor", command="view", path="/app/calc.py")
    assert (
        r.text
        == "Here's the result of running `cat -n` on /app/calc.py:\n     1\ta = 1\n     2\tb = 2\n     3\tc = 3\n     4\t\n"
    )
    r = call(domain, state, "str_replace_editor", command="view", path="/app/calc.py", view_range=[2, 3])
    assert r.text == "Here's the result of running `cat -n` on /app/calc.py:\n     2\tb = 2\n     3\tc = 3\n"
    r = call(
        domain,
        state,
        "str_replace_editor",
        command="str_replace",
        path="/app/calc.py",
        old_str="b = 2",
        new_str="b = 20",
    )
    assert r.text.startswith(
        "The file /app/calc.py has been edited. Here's the result of running `cat -n` on a snippet of /app/calc.py:\n"
    )
    assert "     2\tb = 20\n" in r.text and r.text.endswith("Edit the file again if necessary.")
    r = call(
        domain,
        state,
        "str_replace_editor",
        command="str_replace",
        path="/app/calc.py",
        old_str="zz",
        new_str="y",
    )
    assert (
        r.text
        == "ERROR:\nNo replacement was performed, old_str `zz` did not appear verbatim in /app/calc.py."
    )
    assert r.is_error is True
    r = call(
        domain,
        state,
        "str_replace_editor",
        command="str_replace",
        path="/app/calc.py",
        old_str=" = ",
        new_str="=",
    )
    assert r.text.startswith(
        "ERROR:\nNo replacement was performed. Multiple occurrences of old_str ` = ` in lines [1, 2, 3]."
    )
    r = call(
        domain,
        state,
        "str_replace_editor",
        command="insert",
        path="/app/calc.py",
        insert_line=1,
        new_str="z = 0",
    )
    assert "     2\tz = 0\n" in r.text and r.is_error is False
    r = call(domain, state, "str_replace_editor", command="undo_edit", path="/app/calc.py")
    assert r.text.startswith("Last edit to /app/calc.py undone successfully.")
    assert "z = 0" not in r.text and "b = 20" in r.text
    call(domain, state, "str_replace_editor", command="undo_edit", path="/app/calc.py")
    r = call(domain, state, "str_replace_editor", command="undo_edit", path="/app/calc.py")
    assert r.text == "ERROR:\nNo edit history found for /app/calc.py."
    r = call(domain, state, "str_replace_editor", command="create", path="/app/calc.py", file_text="x")
    assert "Cannot overwrite files using command `create`." in r.text and r.is_error is True
    r = call(domain, state, "str_replace_editor", command="view", path="calc.py")
    assert r.text.startswith("ERROR:\nInvalid `path` parameter: calc.py. The path should be an absolute path")
    r = call(domain, state, "str_replace_editor", command="view", path="/app")
    assert r.text.startswith(
        "Here's the files and directories up to 2 levels deep in /app, excluding hidden items:\n/app/\n"
    )
    assert "/app/calc.py\n" in r.text


def test_memory_todos_and_unknown_tools(domain: SweDomain, state: dict[str, Any]) -> None:
    r = call(domain, state, "save_memory", fact="the tests use pytest")
    assert r.text == '{"success": true, "message": "Okay, I\'ve remembered that: \\"the tests use pytest\\""}'
    assert "- the tests use pytest" in state["vm"].fs.read_text("/root/.gemini/GEMINI.md")
    r = call(domain, state, "todo_write", todos=[{"id": "1", "content": "write tests", "status": "pending"}])
    assert r.text.startswith("Todos have been modified successfully.") and r.is_error is False
    r = call(domain, state, "write_todos", todos=[{"description": "ship", "status": "in_progress"}])
    assert r.text == "Successfully updated the todo list. The current list is now:\n1. [in_progress] ship"
    r = call(domain, state, "launch_rockets")
    assert r.text == 'Error: Tool "launch_rockets" not found in registry.' and r.is_error is True


def test_context_seeds_the_workspace(domain: SweDomain, state: dict[str, Any], tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "lib.py").write_text("VALUE = 7\n")
    context = {"files": str(tmp_path), "cwd": "/workspace"}
    r = call(domain, state, "run_shell_command", context, command="cat lib.py && pwd")
    assert "Stdout: VALUE = 7\n/workspace\n" in r.text
    call(domain, state, "write_file", context, file_path="/workspace/lib.py", content="VALUE = 8\n")
    assert (tmp_path / "lib.py").read_text() == "VALUE = 7\n"
