"""The SWE-ReX-compatible HTTP runtime speaks SWE-ReX's JSON and error shapes."""

from __future__ import annotations

import io
import zipfile

from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from starlette.testclient import TestClient

from agentworld_plugins import World

KEY = {"X-API-Key": "s3cret"}


def client(world: World) -> TestClient:
    return TestClient(swerex_app(VirtualTerminal(world), token="s3cret"))


def test_auth_and_liveness(world: World) -> None:
    http = client(world)
    assert http.get("/is_alive").status_code == 401
    assert http.get("/is_alive", headers={"X-API-Key": "wrong"}).json() == {"detail": "Invalid API Key"}
    assert http.get("/is_alive", headers=KEY).json() == {"is_alive": True, "message": ""}


def test_sessions_run_in_one_persistent_shell(world: World) -> None:
    http = client(world)
    assert (
        http.post("/create_session", json={"session": "default"}, headers=KEY).json()["session_type"]
        == "bash"
    )
    again = http.post("/create_session", json={"session": "default"}, headers=KEY)
    assert again.status_code == 511
    assert again.json()["swerexception"]["class_path"] == "swerex.exceptions.SessionExistsError"
    http.post("/run_in_session", json={"command": "cd /tmp && export X=5", "session": "default"}, headers=KEY)
    ran = http.post(
        "/run_in_session", json={"command": "echo $X; pwd", "session": "default"}, headers=KEY
    ).json()
    assert (ran["output"], ran["exit_code"]) == ("5\n/tmp", 0)
    failed = http.post("/run_in_session", json={"command": "false", "session": "default"}, headers=KEY)
    assert failed.status_code == 511
    assert failed.json()["swerexception"]["class_path"] == "swerex.exceptions.NonZeroExitCodeError"
    silent = http.post("/run_in_session", json={"command": "false", "check": "silent"}, headers=KEY).json()
    assert silent["exit_code"] == 1
    missing = http.post("/run_in_session", json={"command": "ls", "session": "other"}, headers=KEY)
    assert missing.json()["swerexception"]["class_path"] == "swerex.exceptions.SessionDoesNotExistError"
    assert http.post("/run_in_session", json={"session": "default"}, headers=KEY).status_code == 422
    assert http.post("/close_session", json={"session": "default"}, headers=KEY).json()["success"]


def test_execute_and_files(world: World) -> None:
    http = client(world)
    done = http.post(
        "/execute", json={"command": ["bash", "-c", "echo a; echo b >&2; exit 4"]}, headers=KEY
    ).json()
    assert (done["stdout"], done["stderr"], done["exit_code"]) == ("a\n", "b\n", 4)
    assert http.post("/execute", json={"command": "false", "check": True}, headers=KEY).status_code == 511
    assert http.post("/write_file", json={"path": "/srv/x.txt", "content": "hello\n"}, headers=KEY).json()[
        "success"
    ]
    assert http.post("/read_file", json={"path": "/srv/x.txt"}, headers=KEY).json()["content"] == "hello\n"
    gone = http.post("/read_file", json={"path": "/nope"}, headers=KEY)
    assert (
        gone.status_code == 511 and gone.json()["swerexception"]["class_path"] == "builtins.FileNotFoundError"
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("repo/a.py", "A = 1\n")
    sent = http.post(
        "/upload",
        files={"file": ("t.zip", archive.getvalue())},
        data={"target_path": "/work", "unzip": "true"},
        headers=KEY,
    )
    assert sent.json()["success"]
    assert (
        http.post("/execute", json={"command": "cat /work/repo/a.py"}, headers=KEY).json()["stdout"]
        == "A = 1\n"
    )
    assert http.post("/execute", content=b"not json", headers=KEY).status_code == 422
    assert http.post("/close", headers=KEY).json()["success"]
