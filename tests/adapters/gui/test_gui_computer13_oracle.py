"""Oracle: desktop-env's real ``PythonController.execute_action`` and ours agree on computer_13.

desktop-env (installed with ``--no-deps``: only ``desktop_env.controllers.python`` and
``desktop_env.actions`` are imported, they need ``requests`` alone) sends each pyautogui command
to the VM's HTTP server; here that server is a real one on 127.0.0.1 that records them. For every
action of the corpus (data/computer13_actions.json: well-formed, flat parameters, malformed)
the commands sent, or the exception raised, must be ours.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from agentworld_plugins.adapters.gui.computer13 import KEYBOARD_KEYS, Computer13Error, computer13_commands

DESKTOP_ENV = "desktop-env==1.0.2"


def _desktop_env_on_path() -> None:
    """desktop-env without its dependencies (a VM stack we never start), installed once into the
    conformance cache (the README's test command alone runs this test) and put on ``sys.path``."""
    import os
    import subprocess
    import sys

    cache = Path(
        os.environ.get("AGENTWORLD_CONFORMANCE_CACHE") or Path.home() / ".cache" / "agentworld-conformance"
    )
    target = cache / DESKTOP_ENV.replace("==", "-")
    if not (target / "desktop_env" / "controllers" / "python.py").exists():
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), DESKTOP_ENV],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"pip could not install {DESKTOP_ENV}: {done.stderr[-1000:]}"
    sys.path.insert(0, str(target))


_desktop_env_on_path()
from desktop_env.actions import KEYBOARD_KEYS as REAL_KEYS  # noqa: E402
from desktop_env.controllers.python import PythonController  # noqa: E402

CORPUS: list[Any] = json.loads((Path(__file__).parent / "data" / "computer13_actions.json").read_text())
_PREFIX = "pyautogui.FAILSAFE = False; "
_EASING = re.compile(r"^(pyautogui\.moveTo\(.*), [0-9.e-]+, pyautogui\.ease\w+\)$")


class _VM(BaseHTTPRequestHandler):
    received: list[str] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        command = body["command"][2]
        self.received.append(command[command.index(_PREFIX) + len(_PREFIX) :])
        payload = json.dumps({"status": "success", "output": "", "error": ""}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def controller() -> Iterator[PythonController]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield PythonController(vm_ip="127.0.0.1", server_port=server.server_address[1])
    server.shutdown()
    server.server_close()


def _real(controller: PythonController, action: Any) -> tuple[str, Any]:
    _VM.received = []
    try:
        controller.execute_action(action)
    except Exception as exc:  # the controller's verdict, whatever it raises
        return type(exc).__name__, str(exc)
    return "sent", [_EASING.sub(r"\1)", c) for c in _VM.received]


def _ours(action: Any) -> tuple[str, Any]:
    try:
        return "sent", computer13_commands(action)
    except Computer13Error as exc:
        return exc.kind, exc.message


def test_corpus_covers_every_action_type_and_malformed_ones(controller: PythonController) -> None:
    assert len(CORPUS) >= 100
    kinds = {a.get("action_type") for a in CORPUS if isinstance(a, dict)}
    assert {"MOVE_TO", "CLICK", "DRAG_TO", "SCROLL", "TYPING", "PRESS", "HOTKEY", "KEY_UP"} <= kinds
    verdicts = [_real(controller, a)[0] for a in CORPUS]
    assert verdicts.count("sent") >= 40 and len(verdicts) - verdicts.count("sent") >= 40


def test_keys_are_desktop_envs() -> None:
    assert list(KEYBOARD_KEYS) == list(REAL_KEYS)


def test_same_commands_or_error_as_the_real_controller(controller: PythonController) -> None:
    differ = []
    for action in CORPUS:
        real, ours = _real(controller, action), _ours(action)
        # the controller's own messages must match; Python's own (TypeError, ...) by class
        same = real[0] == ours[0] and (real[0] not in ("sent", "Exception") or real[1] == ours[1])
        if not same:
            differ.append((action, real, ours))
    assert differ == [], f"{len(differ)}/{len(CORPUS)} differ"


def test_the_issues_cases() -> None:
    with pytest.raises(Computer13Error, match="Keys must be a list of keys"):
        computer13_commands({"action_type": "HOTKEY", "parameters": {"keys": "ctrl+s"}})
    assert computer13_commands({"action_type": "HOTKEY", "parameters": {"keys": ["ctrl", "s"]}}) == [
        "pyautogui.hotkey('ctrl', 's')"
    ]
    assert computer13_commands({"action_type": "DRAG_TO", "parameters": {}}) == []


def test_random_actions_go_alike(controller: PythonController) -> None:
    """2,000 actions of random types and parameters (fixed seed): no verdict or command differs."""
    types = ["MOVE_TO", "CLICK", "MOUSE_DOWN", "RIGHT_CLICK", "DRAG_TO", "SCROLL", "TYPING", "PRESS"]
    types += ["KEY_UP", "HOTKEY", "WAIT", "DONE", "click", "X"]
    keys = ["x", "y", "button", "num_clicks", "dx", "dy", "text", "key", "keys", "foo"]
    values: list[Any] = [1, 2.5, -3, "left", "a", "ctrl", "ctrl+s", "Enter", None, True, ["ctrl", "s"]]
    values += [["a", 1], [], "", "x'y", {"a": 1}]
    rng = random.Random(3)
    differ = []
    for _ in range(2000):
        params = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 4))}
        action: dict[str, Any] = {"action_type": rng.choice(types)}
        if rng.random() < 0.8:
            action["parameters"] = params
        else:
            action.update(params)
        real, ours = _real(controller, action), _ours(action)
        if real[0] != ours[0] or (real[0] in ("sent", "Exception") and real[1] != ours[1]):
            differ.append((action, real, ours))
    assert differ == []
