"""The TmuxSession look-alike in a Terminus-style loop, and tmux command lines through Harbor's exec."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

from agentworld_plugins.adapters.shell import TmuxSession, VirtualTerminal
from agentworld_plugins.adapters.shell.envs import SimulatedEnvironment
from agentworld_plugins.adapters.shell.tmux import TmuxCommands, tmux_argv

from agentworld_plugins import World


def terminus_agent(task: str) -> Iterator[str]:
    """A scripted Terminus: reads each observation, answers with its JSON."""
    observation = yield ""
    assert observation.startswith("Current Terminal Screen:\nroot@agentworld:/app#"), observation
    observation = yield json.dumps(
        {
            "analysis": f"Fresh shell. Task: {task}",
            "plan": "Make the folder and write the file.",
            "commands": [
                {"keystrokes": "mkdir -p out && cd out\n", "duration": 0.1},
                {"keystrokes": "printf 'ok\\n' > result.txt\n", "duration": 0.1},
            ],
            "task_complete": False,
        }
    )
    assert observation.startswith("New Terminal Output:\n"), observation
    observation = yield json.dumps(
        {
            "analysis": "Check it.",
            "plan": "cat",
            "commands": [{"keystrokes": "cat result.txt\n", "duration": 0.5}],
        }
    )
    assert observation.splitlines()[-2:] == ["ok", "root@agentworld:/app/out#"], observation
    yield json.dumps({"analysis": "Done.", "plan": "", "commands": [], "task_complete": True})


def test_terminus_style_loop(world: World) -> None:
    tmux = TmuxSession("agent", terminal=VirtualTerminal(world))
    tmux.start()
    agent = terminus_agent("write ok to out/result.txt")
    next(agent)
    reply = agent.send(tmux.get_incremental_output())
    turns = 0
    while True:
        answer = json.loads(reply)
        if answer.get("task_complete"):
            break
        for command in answer["commands"]:
            tmux.send_keys(command["keystrokes"], block=False, min_timeout_sec=command["duration"])
        reply = agent.send(tmux.get_incremental_output())
        turns += 1
    assert turns == 2
    assert tmux.is_session_alive()
    screen = tmux.capture_pane()
    assert len(screen.splitlines()) <= 40 and all(len(line) <= 160 for line in screen.splitlines())
    entire = tmux.capture_pane(capture_entire=True)
    assert "mkdir -p out && cd out" in entire
    tmux.clear_history()
    assert tmux.terminal.run("cat out/result.txt").stdout == "ok\n"
    tmux.send_keys(["exit", "Enter"])
    assert not tmux.is_session_alive()


def test_key_names_and_ctrl_c(world: World) -> None:
    tmux = TmuxSession("keys", terminal=VirtualTerminal(world))
    tmux.send_keys(["echo 'unfinished", "Enter"])
    assert tmux.capture_pane().endswith(">")
    tmux.send_keys("C-c")
    tmux.send_keys(["echo", " back", "Enter"])
    assert tmux.capture_pane().splitlines()[-2:] == ["back", "root@agentworld:/app#"]


def test_tmux_command_lines_through_harbor_exec(world: World) -> None:
    env = SimulatedEnvironment(terminal=VirtualTerminal(world))

    async def scenario() -> list[object]:
        start = (
            'export TERM=xterm-256color && script -qc "tmux new-session -x 160 -y 40 -d -s main '
            "'bash --login' \\; pipe-pane -t main 'cat > /logs/agent.log'\" /dev/null"
        )
        return [
            await env.exec("tmux -V"),
            await env.exec(start),
            await env.exec("tmux has-session -t main"),
            await env.exec("tmux send-keys -t main 'echo hello > h.txt; cat h.txt' Enter"),
            await env.exec("tmux capture-pane -p -t main"),
            await env.exec("tmux capture-pane -p -S - -t main"),
            await env.exec("tmux kill-session -t main"),
            await env.exec("tmux has-session -t main"),
            await env.exec("cat h.txt"),
        ]

    version, started, alive, sent, pane, entire, killed, gone, cat = asyncio.run(scenario())
    assert version.stdout == "tmux 3.4\n"
    assert (started.return_code, alive.return_code, sent.return_code, killed.return_code) == (0, 0, 0, 0)
    assert pane.stdout.splitlines()[-2:] == ["hello", "root@agentworld:/app#"]
    assert "echo hello > h.txt" in entire.stdout
    assert gone.return_code == 1 and gone.stderr == "can't find session: main\n"
    assert cat.stdout == "hello\n"


def test_tmux_argv_recognises_only_tmux_lines() -> None:
    assert tmux_argv("tmux send-keys -t s ls Enter") == [["send-keys", "-t", "s", "ls", "Enter"]]
    assert tmux_argv("tmux new -s a \\; set -g history-limit 10") == [
        ["new", "-s", "a", ";", "set", "-g", "history-limit", "10"]
    ]
    assert tmux_argv("ls -la") is None
    assert tmux_argv("tmux capture-pane -p | tail -5") is None
    commands = TmuxCommands(VirtualTerminal(World(backend="offline")))
    assert commands.run(["bogus-command"]) == ("", "unknown command: bogus-command\n", 1)
