"""Every fault kind, written the way each domain's real system writes it."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import ERROR_KINDS, Faults
from agentworld_plugins.perturbations.faults import FaultContext, render_error
from agentworld_plugins.perturbations.targeting import describe_action
from agentworld_plugins.plugins import new_plugin_manager

TERMINAL_SCREEN = "root@box:/app# ls\nREADME.md  src\nroot@box:/app# "
WEB_PAGE = (
    "URL: https://shop.example.com/\nTitle: Shop\n\nRootWebArea 'Shop', focused\n"
    "\t[12] button 'Buy', clickable\n\t[13] link 'Cart', url='https://shop.example.com/cart'"
)
ANDROID_SCREEN = (
    'UI element 0: {"text": "Alarm", "content_description": null, "class_name": "android.widget.TextView", '
    '"resource_name": "com.google.android.deskclock:id/tab", "is_clickable": true, "bbox": [0, 0, 10, 10]}'
)
OS_TABLE = (
    "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
    "frame\tText Editor\t\t\t\t(90, 60)\t(860, 560)"
)

#: domain -> (action, session context)
CASES: dict[str, tuple[Any, dict[str, Any]]] = {
    "mcp": ({"tool_name": "get_note", "arguments": {"id": "n7"}}, {}),
    "terminal": ([{"keystrokes": "cat notes.txt\n", "duration": 0.5}], {"initial_state": TERMINAL_SCREEN}),
    "swe": ({"tool_name": "run_shell_command", "arguments": {"command": "python3 build.py"}}, {}),
    "search": ({"name": "web_extractor", "arguments": {"url": "https://example.org/a"}}, {}),
    "web": ("click('12')", {"initial_state": WEB_PAGE}),
    "android": ({"action_type": "click", "index": 0}, {"initial_state": ANDROID_SCREEN}),
    "os": ("pyautogui.click(300, 200)", {"initial_state": OS_TABLE}),
}

#: (domain, kind) -> a pattern the error text must contain
STYLE: dict[tuple[str, str], str] = {
    ("mcp", "permission_denied"): r"^Error executing tool get_note: 403 Forbidden",
    ("mcp", "not_found"): r"^Error executing tool get_note: 404 Not Found: note 'n7' does not exist$",
    ("mcp", "timeout"): r"^Error executing tool get_note: Timed out .* after 30 seconds$",
    (
        "mcp",
        "rate_limit",
    ): r"^Error executing tool get_note: 429 Too Many Requests: .*retry after 30 seconds$",
    ("mcp", "server_error"): r"^Error executing tool get_note: 500 Internal Server Error",
    ("mcp", "connection_reset"): r"^Error executing tool get_note: \[Errno 104\] Connection reset by peer$",
    (
        "terminal",
        "permission_denied",
    ): r"root@box:/app# cat notes.txt\ncat: notes.txt: Permission denied\nroot@box:/app# $",
    (
        "terminal",
        "not_found",
    ): r"root@box:/app# cat notes.txt\ncat: notes.txt: No such file or directory\nroot@box:/app# $",
    ("terminal", "timeout"): r"root@box:/app# cat notes.txt$",  # still running: no new prompt
    # cat makes no network request: the network kinds are shown on curl (CURL below)
    ("terminal", "rate_limit"): r"\ncurl: \(22\) The requested URL returned error: 429\nroot@box:/app# $",
    ("terminal", "server_error"): r"\ncurl: \(22\) The requested URL returned error: 500\nroot@box:/app# $",
    (
        "terminal",
        "connection_reset",
    ): r"\ncurl: \(56\) Recv failure: Connection reset by peer\nroot@box:/app# $",
    (
        "swe",
        "permission_denied",
    ): r"Stderr: python3: can't open file '/app/build.py': \[Errno 13\] Permission denied\nError: \(none\)\nExit Code: 2\n",
    (
        "swe",
        "not_found",
    ): r"Stderr: python3: can't open file '/app/build.py': \[Errno 2\] No such file or directory\n.*Exit Code: 2\n",
    (
        "swe",
        "timeout",
    ): r"Error: Command timed out after 30 seconds and was terminated.\nExit Code: \(none\)\nSignal: 15\n",
    (
        "swe",
        "rate_limit",
    ): r"Stderr: Traceback .*\nrequests.exceptions.HTTPError: 429 Client Error: Too Many Requests.*\nExit Code: 1\n",
    ("swe", "server_error"): r"HTTPError: 500 Server Error: Internal Server Error.*Exit Code: 1\n",
    (
        "swe",
        "connection_reset",
    ): r"ConnectionResetError: \[Errno 104\] Connection reset by peer\n.*Exit Code: 1\n",
    ("search", "permission_denied"): r"^Error: Failed to fetch https://example.org/a \(HTTP 403 Forbidden\)$",
    ("search", "not_found"): r"^Error: Failed to fetch https://example.org/a \(HTTP 404 Not Found\)$",
    ("search", "timeout"): r"^Error: Failed to fetch https://example.org/a \(timeout\)$",
    (
        "search",
        "rate_limit",
    ): r"^Error: Failed to fetch https://example.org/a \(HTTP 429 Too Many Requests; retry after 30s\)$",
    ("search", "server_error"): r"\(HTTP 500 Internal Server Error\)$",
    ("search", "connection_reset"): r"\(Connection reset by peer\)$",
    ("web", "permission_denied"): r"^URL: https://shop.example.com/\nTitle: 403 Forbidden\n",
    ("web", "not_found"): r"^URL: https://shop.example.com/\nTitle: 404 Not Found\n",
    (
        "web",
        "timeout",
    ): r"^URL: .*\nTitle: Shop\nError: TimeoutError: Locator.click: Timeout 500ms exceeded.\n\nRootWebArea 'Shop'",
    ("web", "rate_limit"): r"Title: 429 Too Many Requests\n",
    ("web", "server_error"): r"Title: 500 Internal Server Error\n",
    ("web", "connection_reset"): r"Error: net::ERR_CONNECTION_RESET at https://shop.example.com/\n",
    (
        "android",
        "permission_denied",
    ): r'UI element 1: \{"text": "Permission denied", .*"class_name": "android.widget.Toast"',
    ("android", "not_found"): r'"class_name": "android.widget.Toast"',
    (
        "android",
        "timeout",
    ): r'^UI element 0: \{"text": "Clock isn\'t responding".*\nUI element 1: \{"text": "Close app"',
    ("android", "rate_limit"): r'"text": "Too many requests. Try again in 30 seconds."',
    ("android", "server_error"): r'"text": "Clock keeps stopping"',
    ("android", "connection_reset"): r'"text": "Connection was reset.',
    ("os", "permission_denied"): r"\nalert\tCould not open “Documents”.\t",
    ("os", "not_found"): r"\nalert\tCould not find “Documents”.\t",
    ("os", "timeout"): r"\nalert\t“Text Editor” is not responding.\t.*\npush-button\tForce Quit\t",
    ("os", "rate_limit"): r"\ndocument-web\t429 Too Many Requests\t",
    ("os", "server_error"): r"\ndocument-web\t500 Internal Server Error\t",
    ("os", "connection_reset"): r"\nlabel\tERR_CONNECTION_RESET\t",
}
#: the terminal action of the network kinds (a local command such as cat cannot suffer them)
CURL = [{"keystrokes": "curl -fsS https://api.example.com/notes\n", "duration": 0.5}]
#: where the domain itself would flag the text (the harness flags every injected error anyway)
DOMAIN_FLAGS = {"mcp", "swe", "search"}


def make_world(backend: FakeBackend | None = None) -> World:
    return World(backend=backend or FakeBackend(), plugin_manager=new_plugin_manager(load_entrypoints=False))


@pytest.mark.parametrize("kind", ERROR_KINDS)
@pytest.mark.parametrize("domain", list(CASES))
def test_each_error_kind_renders_in_each_domains_style(domain: str, kind: str) -> None:
    backend = FakeBackend()
    action, context = CASES[domain]
    if domain == "terminal" and kind in ("rate_limit", "server_error", "connection_reset"):
        action = CURL
    session = make_world(backend).session(domain, perturbations=[Faults(kinds=kind)], **context)
    observation = session.step(action)

    assert re.search(STYLE[domain, kind], observation.text, re.DOTALL), observation.text
    assert observation.is_error is True
    assert observation.raw is None and backend.history == []  # the world model was not asked
    view = describe_action(domain, session.domain.validate_action(action))
    expected = {"name": "faults", "turn": 1, "kind": kind, "tool": view.tool, "replaced": True}
    if view.programs and view.tool not in view.programs:  # a shell tool: the program that failed
        expected["program"] = view.programs[0]
    assert observation.metadata["perturbations"] == [expected]
    assert session.trajectory.turns[0].observation.metadata["perturbations"][0]["kind"] == kind
    if domain in DOMAIN_FLAGS:
        assert session.domain.is_error(observation.text, session.domain.validate_action(action))


def test_terminal_screen_keeps_the_earlier_lines_and_the_prompt() -> None:
    session = make_world().session(
        "terminal", initial_state=TERMINAL_SCREEN, perturbations=["faults:kinds=not_found"]
    )
    text = session.step([{"keystrokes": "frobnicate\n", "duration": 0.1}]).text
    assert (
        text
        == "root@box:/app# ls\nREADME.md  src\nroot@box:/app# frobnicate\nbash: frobnicate: command not found\nroot@box:/app# "
    )


@pytest.mark.parametrize(
    ("command", "kind", "expected"),
    [
        (
            "curl -fsS https://api.example.com/v1",
            "rate_limit",
            "curl: (22) The requested URL returned error: 429",
        ),
        (
            "curl https://api.example.com/v1",
            "timeout",
            "curl: (28) Operation timed out after 30001 milliseconds",
        ),
        (
            "curl https://api.example.com/v1",
            "connection_reset",
            "curl: (56) Recv failure: Connection reset by peer",
        ),
        ("git push origin main", "permission_denied", "The requested URL returned error: 403"),
        (
            "git clone https://github.com/acme/x.git",
            "not_found",
            "fatal: repository 'https://github.com/acme/x.git' not found",
        ),
        ("pip install numpy", "not_found", "ERROR: No matching distribution found for numpy"),
        (
            "npm install express",
            "server_error",
            "npm ERR! 500 Internal Server Error - GET https://registry.npmjs.org/express",
        ),
        (
            "apt-get install -y jq",
            "permission_denied",
            "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)",
        ),
        ("wget https://example.org/f.tgz", "not_found", "ERROR 404: Not Found."),
        ("rm -rf build", "permission_denied", "rm: cannot remove 'build': Permission denied"),
        ("ls /srv", "not_found", "ls: cannot access '/srv': No such file or directory"),
        ("cd /root", "permission_denied", "bash: cd: /root: Permission denied"),
        ("./deploy.sh", "permission_denied", "bash: ./deploy.sh: Permission denied"),
    ],
)
def test_shell_errors_read_like_the_real_tools(command: str, kind: str, expected: str) -> None:
    view = describe_action("terminal", [{"keystrokes": command + "\n", "duration": 1}])
    text = render_error(kind, FaultContext("terminal", view, "user@host:~$ "))
    assert f"user@host:~$ {command}\n" in text and expected in text


def test_swe_file_tools_use_their_own_error_texts() -> None:
    cases = [
        (
            {"tool_name": "read_file", "arguments": {"absolute_path": "/app/a.py"}},
            "not_found",
            "File not found: /app/a.py",
        ),
        (
            {"tool_name": "write_file", "arguments": {"file_path": "/app/a.py", "content": "x"}},
            "permission_denied",
            "Error writing to file: EACCES: permission denied, open '/app/a.py'",
        ),
        (
            {"tool_name": "str_replace_editor", "arguments": {"command": "view", "path": "/app/a.py"}},
            "not_found",
            "ERROR:\nInvalid `path` parameter: /app/a.py. The path /app/a.py does not exist.",
        ),
        (
            {"tool_name": "execute_bash", "arguments": {"command": "ls /nope"}},
            "not_found",
            "ls: cannot access '/nope': No such file or directory\n[The command completed with exit code 2.]",
        ),
    ]
    for action, kind, expected in cases:
        session = make_world().session("swe", perturbations=[Faults(kinds=kind)])
        assert session.step(action).text.startswith(expected)


def test_search_web_search_errors_name_the_query_and_the_status() -> None:
    session = make_world().session("search", perturbations=["faults:kinds=rate_limit,retry_after=5"])
    text = session.step({"name": "web_search", "arguments": {"query": "qwen agentworld"}}).text
    assert (
        text
        == 'Error: web_search failed for query "qwen agentworld" (HTTP 429 Too Many Requests; retry after 5s)'
    )


def test_web_goto_faults_show_the_target_page() -> None:
    session = make_world().session("web", initial_state=WEB_PAGE, perturbations=["faults:kinds=not_found"])
    text = session.step("goto('https://shop.example.com/missing')").text
    assert text.startswith("URL: https://shop.example.com/missing\nTitle: 404 Not Found")
    assert session.domain.is_error(text, session.domain.validate_action("noop()"))


def test_fault_screens_follow_the_last_observation() -> None:
    backend = FakeBackend().enqueue("root@box:/srv# cd /srv\nroot@box:/srv# ")
    session = make_world(backend).session("terminal", perturbations=["faults:kinds=permission_denied,at=2"])
    session.step([{"keystrokes": "cd /srv\n", "duration": 0.1}])
    text = session.step([{"keystrokes": "cat secret\n", "duration": 0.1}]).text
    assert text.endswith("root@box:/srv# cat secret\ncat: secret: Permission denied\nroot@box:/srv# ")


# --- output faults --------------------------------------------------------------------------------


def test_truncated_output_cuts_the_real_observation() -> None:
    backend = FakeBackend().enqueue("0123456789" * 10)
    session = make_world(backend).session("mcp", perturbations=["faults:kinds=truncated_output,keep=0.25"])
    observation = session.step({"tool_name": "read_log", "arguments": {}})
    assert observation.text == ("0123456789" * 10)[:25]
    assert len(backend.history) == 1  # the world model was asked
    assert observation.metadata["perturbations"] == [
        {
            "name": "faults",
            "turn": 1,
            "kind": "truncated_output",
            "tool": "read_log",
            "replaced": False,
            "kept": 0.25,
        }
    ]
    assert observation.raw is not None and observation.is_error is False


def test_truncated_output_of_a_shell_tool_cuts_stdout_only() -> None:
    result = "Command: cat big.txt\nDirectory: (root)\nStdout: line one\nline two\nline three\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)"
    backend = FakeBackend().enqueue(result)
    session = make_world(backend).session("swe", perturbations=["faults:kinds=truncated_output,keep=0.5"])
    text = session.step({"tool_name": "run_shell_command", "arguments": {"command": "cat big.txt"}}).text
    assert text.startswith(
        "Command: cat big.txt\nDirectory: (root)\nStdout: line one\nline \nStderr: (empty)\n"
    )
    assert text.endswith("Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)")


@pytest.mark.parametrize(
    ("domain", "action", "answer", "expected", "is_error"),
    [
        ("mcp", {"tool_name": "list_notes", "arguments": {}}, '[{"id": 1}]', "[]", False),
        ("mcp", {"tool_name": "get_note", "arguments": {"id": 1}}, '{"id": 1}', "{}", False),
        (
            "search",
            {"name": "web_search", "arguments": {"queries": ["a", "b"]}},
            "Results for query: ...",
            'No results found for query: "a"\n\nNo results found for query: "b"',
            False,
        ),
        (
            "swe",
            {"tool_name": "run_shell_command", "arguments": {"command": "ls"}},
            "Command: ls\nDirectory: (root)\nStdout: a\nb\nStderr: (empty)\nError: (none)\nExit Code: 0",
            "Command: ls\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 0",
            False,
        ),
        (
            "terminal",
            [{"keystrokes": "ls\n", "duration": 0.1}],
            "root@box:/app# ls\na  b\nroot@box:/app# ",
            "root@box:/app# ls\nroot@box:/app#",
            False,
        ),
        (
            "web",
            "click('3')",
            WEB_PAGE,
            "URL: https://shop.example.com/\nTitle: Shop\n\nRootWebArea 'Shop', focused",
            False,
        ),
        ("os", "pyautogui.click(1, 1)", OS_TABLE, OS_TABLE.splitlines()[0], False),
    ],
)
def test_empty_result_empties_the_way_the_domain_shows_nothing(
    domain: str, action: Any, answer: str, expected: str, is_error: bool
) -> None:
    backend = FakeBackend().enqueue(f"<predicted_observation>{answer}</predicted_observation>")
    session = make_world(backend).session(domain, perturbations=["faults:kinds=empty_result"])
    observation = session.step(action)
    assert observation.text == expected and observation.is_error is is_error
    assert observation.metadata["perturbations"][0]["kind"] == "empty_result"


# --- sessions, state and backends -------------------------------------------------------------------


def test_one_faults_object_serves_many_sessions_with_separate_counts() -> None:
    faults = Faults(first=1)
    world = World(
        backend=FakeBackend(),
        plugin_manager=new_plugin_manager(load_entrypoints=False),
        perturbations=[faults],
    )
    for _ in range(3):
        session = world.session("mcp")
        first = session.step({"tool_name": "a", "arguments": {}})
        second = session.step({"tool_name": "a", "arguments": {}})
        assert first.is_error and not second.metadata.get("perturbations")
        assert json.dumps(session.state)  # the state stays JSON, for session stores


def test_async_steps_are_faulted_too() -> None:
    session = make_world().session("mcp", perturbations=["faults:kinds=timeout"])
    observation = asyncio.run(session.astep({"tool_name": "ping", "arguments": {}}))
    assert observation.is_error and "Timed out" in observation.text


def test_the_offline_world_does_not_apply_a_faulted_action() -> None:
    world = World(backend="offline", plugin_manager=new_plugin_manager(load_entrypoints=False))
    tools = [
        {
            "name": "create_note",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        },
        {"name": "list_notes", "inputSchema": {"type": "object", "properties": {}}},
    ]
    session = world.session("mcp", tools=tools, perturbations=["faults:kinds=server_error,at=1+3"])
    assert session.step({"tool_name": "create_note", "arguments": {"title": "lost"}}).is_error
    session.step({"tool_name": "create_note", "arguments": {"title": "kept"}})
    assert session.step({"tool_name": "create_note", "arguments": {"title": "lost too"}}).is_error
    listing = session.step({"tool_name": "list_notes", "arguments": {}}).text
    assert "kept" in listing and "lost" not in listing


@pytest.mark.parametrize(
    ("kind", "command"), [("not_found", "curl https://api.test/x"), ("timeout", "python3 train.py")]
)
def test_offline_terminal_keeps_a_faulted_command_in_the_next_screen(kind: str, command: str) -> None:
    session = World(backend="offline").session("terminal", perturbations=[f"faults:kinds={kind},turns=2"])
    session.step([{"keystrokes": "echo one\n", "duration": 0.1}])
    faulted = session.step([{"keystrokes": command + "\n", "duration": 0.1}])
    after = session.step(
        [{"keystrokes": "C-c", "duration": 0.1}, {"keystrokes": "echo three\n", "duration": 0.1}]
    )
    kept = [line.rstrip() for line in faulted.text.splitlines() if line.strip()]
    if kept[-1].endswith("#"):  # a new prompt: the next keys are typed on it
        kept.pop()
    assert any(line.endswith(f"# {command}") for line in kept)
    # the faulted screen is where the next one starts
    assert [line.rstrip() for line in after.text.splitlines()][: len(kept)] == kept
    assert after.text.rstrip().endswith("echo three\nthree\nroot@agentworld:/app#")
