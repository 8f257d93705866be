"""The WASI python3 through the harnesses, unchanged: the PATH shim (separate processes, one
session), mini-swe-agent's environment protocol and the SWE-ReX runtime's HTTP API."""

from __future__ import annotations

import subprocess

from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.envs import MiniSweEnvironment
from agentworld_plugins.adapters.shell.swerex import swerex_app
from starlette.testclient import TestClient

from agentworld_plugins import World

KEY = {"X-API-Key": "k"}


def test_python3_through_the_shim_keeps_the_session(shim_env: dict[str, str]) -> None:
    def bash(command: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", command], env=shim_env, input=stdin, capture_output=True,
                              text=True, timeout=300)  # fmt: skip

    wrote = bash("python3 -c \"open('made_by_python.txt', 'w').write('from wasi\\n')\"; echo $?")
    assert wrote.stdout == "0\n", wrote.stderr
    assert bash("cat made_by_python.txt").stdout == "from wasi\n"
    piped = bash("python3 -c 'import sys; print(sys.stdin.read().strip()[::-1])'", stdin="abc")
    assert piped.stdout == "cba\n"
    failed = bash("python3 -c 'raise SystemExit(4)'")
    assert failed.returncode == 4


def test_mini_swe_agent_environment_runs_python(world: World) -> None:
    env = MiniSweEnvironment(world=world, cwd="/testbed")  # as get_environment(config) builds it
    env.execute({"command": "printf 'def add(a, b):\\n    return a + b\\n' > calc.py"})
    result = env.execute({"command": "python3 -c 'from calc import add; print(add(2, 3))'"})
    assert (result["output"], result["returncode"]) == ("5\n", 0)
    error = env.execute({"command": "python3 -c 'import calc; calc.nope()'"})
    assert (
        error["returncode"] == 1
        and "AttributeError: module 'calc' has no attribute 'nope'" in error["output"]
    )


def test_swerex_runtime_runs_python(world: World) -> None:
    http = TestClient(swerex_app(VirtualTerminal(world), token="k"))
    http.post("/create_session", json={"session": "default"}, headers=KEY)
    ran = http.post(
        "/run_in_session",
        json={"command": "python3 -c 'print(sum(range(5)))'", "session": "default"},
        headers=KEY,
    ).json()
    assert (ran["output"], ran["exit_code"]) == ("10", 0)
    done = http.post(
        "/execute", json={"command": ["python3", "-c", "import sys; sys.exit(3)"]}, headers=KEY
    ).json()
    assert done["exit_code"] == 3
