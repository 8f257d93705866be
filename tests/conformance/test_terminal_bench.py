"""Terminal-Bench 1's ``TmuxSession`` interface, as its Terminus agents call it.

terminal-bench needs Python >= 3.12 and Docker, so the package itself cannot run here: the
interface below was read from its source, ``terminal_bench/terminal/tmux_session.py`` (class
``TmuxSession``, terminal-bench 0.2.x), and our look-alike is checked against it; then a
Terminus-style loop (JSON keystroke batches, incremental output, asciinema markers) runs on it.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from agentworld_plugins.adapters.shell import TmuxSession

from agentworld_plugins import World

# Facts from terminal_bench/terminal/tmux_session.py: public name -> (kind, parameters with defaults)
TMUX_SESSION_INTERFACE: dict[str, tuple[str, list[tuple[str, object]]]] = {
    "__init__": (
        "method",
        [
            ("session_name", inspect.Parameter.empty),
            ("container", inspect.Parameter.empty),
            ("commands_path", None),
            ("disable_recording", False),
            ("user", ""),
        ],
    ),
    "from_container_name": (
        "classmethod",
        [("session_name", inspect.Parameter.empty), ("container_name", inspect.Parameter.empty)],
    ),
    "logging_path": ("property", []),
    "start": ("method", []),
    "stop": ("method", []),
    "get_asciinema_timestamp": ("method", []),
    "send_keys": (
        "method",
        [
            ("keys", inspect.Parameter.empty),
            ("block", False),
            ("min_timeout_sec", 0.0),
            ("max_timeout_sec", 180.0),
        ],
    ),
    "send_command": ("method", [("command", inspect.Parameter.empty)]),
    "is_session_alive": ("method", []),
    "capture_pane": ("method", [("capture_entire", False)]),
    "get_incremental_output": ("method", []),
    "copy_to_container": (
        "method",
        [("paths", inspect.Parameter.empty), ("container_dir", None), ("container_filename", None)],
    ),
    "clear_history": ("method", []),
}


def test_tmux_session_matches_terminal_bench_interface() -> None:
    for name, (kind, params) in TMUX_SESSION_INTERFACE.items():
        raw = inspect.getattr_static(TmuxSession, name, None)
        assert raw is not None, f"TmuxSession lacks {name}"
        if kind == "property":
            assert isinstance(raw, property), name
            continue
        if kind == "classmethod":
            assert isinstance(raw, classmethod), name
        signature = inspect.signature(getattr(TmuxSession, name))
        ours = [p for p in signature.parameters.values() if p.name != "self" and p.kind is not p.KEYWORD_ONLY]
        assert [p.name for p in ours][: len(params)] == [p for p, _ in params], name
        for parameter, (_, default) in zip(ours, params):
            if default is not inspect.Parameter.empty:
                assert parameter.default == default, f"{name}({parameter.name}=...)"
        # whatever we add beyond the real parameters has a default, so real calls still bind
        assert all(p.default is not p.empty for p in ours[len(params) :]), name


def test_terminus_style_loop(tmp_path: Path) -> None:
    """Terminus' episode loop: mark the cast, send each keystroke batch, read what is new."""
    replies = [
        {
            "analysis": "empty machine",
            "plan": "make the project",
            "commands": [
                {"keystrokes": "mkdir -p /app && cd /app\n", "duration": 0.1},
                {"keystrokes": "echo 'print(42)' > main.py\n", "duration": 0.1},
            ],
            "task_complete": False,
        },
        {
            "analysis": "file written",
            "plan": "check it",
            "commands": [{"keystrokes": "cat main.py\n", "duration": 0.1}],
            "task_complete": True,
        },
    ]
    with World(backend="offline") as world:
        session = TmuxSession.from_container_name("agent", "tb-task-1")
        session.terminal.close()
        session = TmuxSession("agent", container=None, world=world)
        session.start()
        markers: list[tuple[float, str]] = []
        prompt = session.get_incremental_output()
        assert prompt.startswith("Current Terminal Screen:\n")
        outputs = []
        for raw in map(json.dumps, replies):  # the model's answers, as text
            if not session.is_session_alive():
                break
            reply = json.loads(raw)
            markers.append((session.get_asciinema_timestamp(), reply["analysis"]))
            for command in reply["commands"]:
                session.send_keys(command["keystrokes"], block=False, min_timeout_sec=command["duration"])
            outputs.append(session.get_incremental_output())
            if reply["task_complete"]:
                break
        assert all(isinstance(t, float) and t >= 0.0 for t, _ in markers)
        assert markers[1][0] >= markers[0][0]
        assert outputs[-1].startswith("New Terminal Output:\n") and "print(42)" in outputs[-1]
        assert "cat main.py" in session.capture_pane(capture_entire=True)
        assert str(session.logging_path).endswith("agent.log")
        script = tmp_path / "run-tests.sh"
        script.write_text("echo tests-ran\n")
        session.copy_to_container(paths=[script], container_dir="/tests")
        session.send_keys(["bash /tests/run-tests.sh", "Enter"], block=True, max_timeout_sec=60)
        assert "tests-ran" in session.capture_pane()
        (tmp_path / "helpers").mkdir()
        (tmp_path / "helpers" / "check.sh").write_text("echo checked\n")
        session.copy_to_container(paths=tmp_path / "helpers", container_dir="/opt")
        session.send_keys(["bash /opt/helpers/check.sh", "Enter"], block=True, max_timeout_sec=60)
        assert "checked" in session.capture_pane()
        session.stop()
        assert TmuxSession("x", None, disable_recording=True, world=world).get_asciinema_timestamp() == 0.0
