"""One named world behind every front: MCP over stdio (a process per client, killed and
restarted), the bash shim, the SWE-ReX look-alike, the CLI's `world` commands and the
``agent_world`` fixture."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from click.testing import CliRunner
from mcp import Client
from starlette.testclient import TestClient

from agentworld_plugins import World
from agentworld_plugins.cli import cli
from agentworld_plugins.harness import WorldHarness
from agentworld_plugins.worlds import load_world

KEY = {"X-API-Key": "k"}


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _bash(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


async def test_mcp_file_tools_the_shim_and_swerex_share_one_machine(tmp_path: Path) -> None:
    with WorldHarness(tmp_path, name="machine") as harness:
        server = harness.mcp_stdio(pack="filesystem", name="files")
        async with Client(server.sdk()) as client:  # a client process of its own, as Claude's
            wrote = await client.call_tool("write_file", {"path": "/app/notes.md", "content": "# Notes\n"})
            assert not wrote.is_error, _text(wrote)
        shell = harness.shell_env()
        appended = _bash(shell, "echo 'from bash' >> /app/notes.md && cat /app/notes.md")
        assert appended.stdout == "# Notes\nfrom bash\n", appended.stderr
        world = World(backend="offline", name="machine", home=harness.home)
        http = TestClient(swerex_app(VirtualTerminal(world), token="k"))
        read = http.post("/read_file", json={"path": "/app/notes.md"}, headers=KEY).json()
        assert read["content"] == "# Notes\nfrom bash\n"
        ran = http.post(
            "/execute", json={"command": "echo swerex > /app/from-swerex.txt", "shell": True}, headers=KEY
        )
        assert ran.json()["exit_code"] == 0
        async with Client(server.sdk()) as again:  # a new server process: the same world
            seen = _text(await again.call_tool("read_text_file", {"path": "/app/from-swerex.txt"}))
            listing = _text(await again.call_tool("list_directory", {"path": "/app"}))
        assert seen == "swerex\n" and "[FILE] notes.md" in listing
        assert _bash(shell, "cat /app/from-swerex.txt").stdout == "swerex\n"
        fronts = {c.front for c in harness.calls()}
        assert fronts == {"mcp:files", "command"}
        assert harness.check({"type": "file_contains", "path": "/app/notes.md", "text": "from bash"})
        assert not harness.check({"type": "file_exists", "path": "/app/missing.txt"})
        assert harness.check({"type": "tool_called", "tool": "write_file"})


def _rpc(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    """One JSON-RPC message over the server's stdio (newline-delimited JSON); its answer."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its stdout"
        answer = json.loads(line)
        if answer.get("id") == message["id"]:
            return answer  # type: ignore[no-any-return]


def _started(harness: WorldHarness) -> subprocess.Popen[str]:
    server = harness.mcp_stdio(pack="filesystem")
    proc = subprocess.Popen(
        [server.command or sys.executable, *server.args],
        env={**os.environ, **server.env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    _rpc(
        proc,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc


def _call(proc: subprocess.Popen[str], tool: str, arguments: dict[str, Any]) -> str:
    answer = _rpc(
        proc,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    )
    assert answer is not None and "result" in answer, answer
    return str(answer["result"]["content"][0]["text"])


def test_a_killed_stdio_server_restarts_on_the_world_it_left(tmp_path: Path) -> None:
    with WorldHarness(tmp_path) as harness:
        proc = _started(harness)
        try:
            assert _call(
                proc, "write_file", {"path": "/app/a.txt", "content": "before the kill\n"}
            ).startswith("Successfully wrote")
        finally:
            proc.send_signal(signal.SIGKILL)  # no goodbye: the answer was only sent once stored
            proc.wait()
        restarted = _started(harness)
        try:
            assert _call(restarted, "read_text_file", {"path": "/app/a.txt"}) == "before the kill\n"
        finally:
            restarted.stdin.close()  # type: ignore[union-attr]
            restarted.wait(30)
            restarted.stdout.close()  # type: ignore[union-attr]


def test_world_commands(tmp_path: Path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path), "AGENTWORLD_BACKEND": "offline"}
    runner = CliRunner()
    made = runner.invoke(cli, ["shell", "--world", "cli", "-c", "echo hi > /app/hi.txt"], env=env)
    assert made.exit_code == 0, made.output
    listed = runner.invoke(cli, ["world", "ls", "--json"], env=env)
    assert [w["name"] for w in json.loads(listed.output)] == ["cli"]
    shown = runner.invoke(cli, ["world", "show", "cli"], env=env)
    assert shown.exit_code == 0 and "/app/hi.txt" in shown.output and "| hi" in shown.output
    out = tmp_path / "cli.json"
    exported = runner.invoke(cli, ["world", "export", "cli", "-o", str(out)], env=env)
    assert exported.exit_code == 0, exported.output
    data = json.loads(out.read_text())
    assert data["files"]["/app/hi.txt"] == "hi\n" and data["calls"][0]["front"] == "command"
    assert out.stat().st_mode & 0o777 == 0o600
    assert runner.invoke(cli, ["world", "reset", "cli"], env=env).exit_code == 0
    assert load_world("cli", tmp_path).calls == []
    assert runner.invoke(cli, ["world", "rm", "cli"], env=env).exit_code == 0
    missing = runner.invoke(cli, ["world", "show", "cli"], env=env)
    assert missing.exit_code == 1 and "There is no world 'cli'" in missing.output
    bad = runner.invoke(cli, ["world", "show", "a/b"], env=env)
    assert bad.exit_code == 1 and "not a valid world name" in bad.output


def test_agent_world_fixture_gives_configs_in_each_clients_form(agent_world: WorldHarness) -> None:
    server = agent_world.mcp_stdio(pack="filesystem", name="fs")
    config = server.claude()["mcpServers"]["fs"]
    assert config["command"] == sys.executable and "--pack" in config["args"]
    assert config["env"]["AGENTWORLD_WORLD"] == agent_world.name
    assert server.langchain()["transport"] == "stdio"
    http = agent_world.mcp_http(pack="filesystem", token="t0k")
    assert http.langchain() == {
        "transport": "streamable_http",
        "url": http.url,
        "headers": {"Authorization": "Bearer t0k"},
    }


def test_search_serve_attaches_to_the_world(agent_world: WorldHarness) -> None:
    from tavily import TavilyClient

    base = agent_world.search_http()
    client = TavilyClient(api_key="tvly-test", api_base_url=base)
    found = client.search("what does HTTP 404 mean")
    assert found["results"]
    calls = agent_world.calls()
    assert [c.front for c in calls] == ["search"] and calls[0].domain == "search"


def test_harness_lookalikes_attach_to_the_world_the_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Terminal-Bench's TmuxSession and mini-swe-agent's environment, built as their harnesses
    build them (no world passed), use AGENTWORLD_WORLD's machine whatever session they name."""
    from agentworld_plugins.adapters.shell.envs import MiniSweEnvironment
    from agentworld_plugins.adapters.shell.tmux import TmuxSession

    monkeypatch.setenv("AGENTWORLD_HOME", str(tmp_path))
    monkeypatch.setenv("AGENTWORLD_WORLD", "bench-task")
    pane = TmuxSession(session_name="agent", container="task-1")
    pane.send_keys(["echo from-tmux > /app/t.txt", "Enter"])
    env = MiniSweEnvironment(session="trial-7")
    done = env.execute({"command": "cat /app/t.txt"})
    assert (done["output"], done["returncode"]) == ("from-tmux\n", 0)
    assert {c.front for c in load_world("bench-task", tmp_path).calls} == {"screen", "command"}


def test_serve_runs_conversations_on_the_named_world(tmp_path: Path) -> None:
    """An OpenAI-API client's terminal conversation on `serve --world`: its files are the shell's,
    its calls are the world's; a conversation rewound by the client is answered without the world."""
    from agentworld_plugins.testing import clean_env, serve_process

    env = clean_env(AGENTWORLD_HOME=str(tmp_path))
    with (
        serve_process("--backend", "offline", "--world", "served", env=env) as url,
        World(base_url=f"{url}/v1", backend="openai") as client,
    ):
        term = client.session("terminal", initial_state="root@agentworld:/app# ")
        term.step([{"keystrokes": "echo served > /app/served.txt\n", "duration": 0.1}])
        screen = term.step([{"keystrokes": "cat /app/served.txt\n", "duration": 0.1}]).text
    assert screen.rstrip().splitlines()[-2] == "served"
    shell = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "shell", "--world", "served", "-c", "cat /app/served.txt"],
        env={**env, "AGENTWORLD_BACKEND": "offline"}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shell.stdout == "served\n", shell.stderr
    view = load_world("served", tmp_path)
    served = [f for f, d in view.fronts.items() if f.startswith("serve-")]
    assert len(served) == 1 and view.fronts[served[0]] == "terminal" and len(view.history(served[0])) == 2
