"""Named worlds (agentworld_plugins.worlds): one state for every front, kept in the world store,
shared by processes, readable after the agent ran."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.testing import clean_env
from agentworld_plugins.worlds import (
    SharedWorld,
    list_worlds,
    load_world,
    remove_world,
    reset_world,
)

ISSUES: list[dict[str, Any]] = [
    {
        "name": "create_issue",
        "description": "Open an issue in a repository.",
        "inputSchema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "title": {"type": "string"}},
            "required": ["repo", "title"],
        },
    },
    {
        "name": "list_issues",
        "description": "List the issues of a repository.",
        "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"}}, "required": ["repo"]},
    },
]
FILES: list[dict[str, Any]] = [
    {
        "name": "write_file",
        "description": "Create a new file or overwrite an existing file with new content.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
    {
        "name": "read_text_file",
        "description": "Read the complete contents of a file as text.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
]


def _world(home: Path, name: str = "w", **kwargs: Any) -> World:
    return World(backend=kwargs.pop("backend", "offline"), name=name, home=home, **kwargs)


def _shell(world: World, command: str) -> str:
    session = world.session("swe", front="shell", tools=[{"name": "run_shell_command"}])
    return session.step({"tool_name": "run_shell_command", "arguments": {"command": command}}).text


def test_a_named_world_outlives_its_process_and_is_one_filesystem(tmp_path: Path) -> None:
    with _world(tmp_path) as first:
        wrote = first.session("mcp", tools=FILES).step(
            {"tool_name": "write_file", "arguments": {"path": "/app/notes.txt", "content": "from mcp\n"}}
        )
        assert not wrote.is_error, wrote.text
    with _world(tmp_path) as again:  # a new World: everything comes from the store
        assert "from mcp" in _shell(again, "cat /app/notes.txt")
        _shell(again, "echo 'from the shell' >> /app/notes.txt")
        read = again.session("mcp", tools=FILES).step(
            {"tool_name": "read_text_file", "arguments": {"path": "/app/notes.txt"}}
        )
    assert read.text == "from mcp\nfrom the shell\n"
    view = load_world("w", tmp_path)
    assert view.fronts == {"mcp": "mcp", "shell": "swe"}
    assert [c.front for c in view.calls] == ["mcp", "shell", "shell", "mcp"]
    assert view.files(changed=True)["/app/notes.txt"] == "from mcp\nfrom the shell\n"
    assert "/etc/passwd" in view.files() and "/etc/passwd" not in view.files(changed=True)


def test_a_fronts_history_continues_with_a_model_backend(tmp_path: Path) -> None:
    """With a world model, the world is each front's conversation: a new process continues it."""
    first_model = FakeBackend().enqueue("Issue #1 created: Login broken")
    with _world(tmp_path, backend=first_model) as first:
        first.session("mcp", tools=ISSUES).step(
            {"tool_name": "create_issue", "arguments": {"repo": "acme/api", "title": "Login broken"}}
        )
    second_model = FakeBackend().enqueue("#1 Login broken")
    with _world(tmp_path, backend=second_model) as again:
        session = again.session("mcp", tools=ISSUES)
        assert len(session.trajectory.turns) == 1
        session.step({"tool_name": "list_issues", "arguments": {"repo": "acme/api"}})
    messages, _ = second_model.history[0]
    history = "\n".join(str(m["content"]) for m in messages)
    assert "Login broken" in history and "Issue #1 created" in history
    view = load_world("w", tmp_path)
    assert [c.text for c in view.calls] == ["Issue #1 created: Login broken", "#1 Login broken"]
    assert view.states is None  # nothing offline to keep


def test_fronts_of_one_world_in_one_process_see_each_others_writes_at_once(tmp_path: Path) -> None:
    shared = SharedWorld(World(backend="offline"), "mem")  # in memory: no store
    mcp = shared.front("mcp:files", "mcp", tools=FILES)
    shell = shared.front("shell", "swe", tools=[{"name": "run_shell_command"}])
    shared.operate(
        lambda: mcp.step({"tool_name": "write_file", "arguments": {"path": "/srv/a.txt", "content": "x\n"}})
    )
    out = shared.operate(
        lambda: shell.step({"tool_name": "run_shell_command", "arguments": {"command": "cat /srv/a.txt"}})
    )
    assert "x" in out.text and not shared.persistent


def test_world_names_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a valid world name"):
        SharedWorld(World(backend="offline"), "../escape")
    with pytest.raises(ConfigError) as bad:
        World(backend="offline", name="a b")
    assert "world" in str(bad.value)
    with pytest.raises(ConfigError, match="needs a named world"):
        World(backend="offline").session("mcp", front="x", tools=FILES)


def test_one_front_name_keeps_one_domain(tmp_path: Path) -> None:
    with _world(tmp_path) as world:
        world.session("mcp", front="f", tools=FILES).step(
            {"tool_name": "write_file", "arguments": {"path": "/app/a", "content": "1"}}
        )
    with _world(tmp_path) as again, pytest.raises(ConfigError, match="already has a front 'f' of domain mcp"):
        again.session("swe", front="f").step(
            {"tool_name": "run_shell_command", "arguments": {"command": "ls"}}
        )


def test_ls_reset_and_rm(tmp_path: Path) -> None:
    with _world(tmp_path) as world:
        _shell(world, "echo 1 > /app/one")
    with _world(tmp_path, name="other") as other:
        _shell(other, "true")
    assert sorted(w["name"] for w in list_worlds(tmp_path)) == ["other", "w"]
    assert reset_world("w", tmp_path)
    assert load_world("w", tmp_path).calls == []
    with _world(tmp_path) as world:  # the next front finds it as it started
        assert "No such file" in _shell(world, "cat /app/one")
    assert remove_world("w", tmp_path) and not remove_world("w", tmp_path) and not reset_world("w", tmp_path)
    with pytest.raises(ConfigError, match="worlds there: other"):
        load_world("w", tmp_path)


def test_a_world_reset_elsewhere_is_seen_by_an_attached_process(tmp_path: Path) -> None:
    with _world(tmp_path) as world:
        _shell(world, "echo kept > /app/f")
        reset_world("w", tmp_path)  # as `agentworld world reset w` in another terminal
        assert "No such file" in _shell(world, "cat /app/f")


def test_the_world_store_file_is_private(tmp_path: Path) -> None:
    with _world(tmp_path) as world:
        _shell(world, "true")
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir() if p.is_file()}
    assert modes and all(mode == 0o600 for mode in modes.values()), modes


WRITER = textwrap.dedent(
    """
    import json, sys
    from agentworld_plugins import World
    home, who, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tools = json.loads(sys.argv[4])
    with World(backend="offline", name="busy", home=home) as world:
        session = world.session("mcp", tools=tools)
        for i in range(count):
            done = session.step({"tool_name": "create_issue",
                                 "arguments": {"repo": "acme/api", "title": f"{who}-{i}"}})
            assert not done.is_error, done.text
    """
)


def test_two_processes_writing_one_world_lose_no_update(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), who, "100", json.dumps(ISSUES)],
            env=clean_env(),
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
    view = load_world("busy", tmp_path)
    titles = sorted(item["title"] for item in view.ledger()["issue"])
    assert titles == sorted(f"{who}-{i}" for who in "ab" for i in range(100))
    assert len({item["id"] for item in view.ledger()["issue"]}) == 200  # numbered once each
    assert len(view.calls) == 200 and [c.seq for c in view.calls] == list(range(1, 201))


GIT_TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}}}
    for name in (
        "git_status", "git_diff_unstaged", "git_diff_staged", "git_diff", "git_commit", "git_add",
        "git_reset", "git_log", "git_create_branch", "git_checkout", "git_show", "git_branch",
    )
]  # fmt: skip


def test_a_commit_in_the_shell_is_seen_by_the_git_mcp_tools_and_back(tmp_path: Path) -> None:
    with _world(tmp_path, name="repo") as world:
        made = _shell(
            world,
            "git init -q /app/repo && cd /app/repo && echo a > a.txt && git add a.txt && "
            "git -c user.name=Dev -c user.email=dev@example.com commit -q -m 'first from bash'",
        )
        assert "Exit Code: 0" in made or "exit" not in made.lower(), made
    with _world(tmp_path, name="repo") as world:  # another process: the MCP git server
        git = world.session("mcp", tools=GIT_TOOLS)
        log = git.step({"tool_name": "git_log", "arguments": {"repo_path": "/app/repo"}}).text
        assert log.startswith("Commit history:\nCommit: ") and "Message: first from bash" in log
        _shell(world, "echo b > /app/repo/b.txt")
        status = git.step({"tool_name": "git_status", "arguments": {"repo_path": "/app/repo"}}).text
        assert status.startswith("Repository status:\n") and "b.txt" in status
        assert git.step(
            {"tool_name": "git_commit", "arguments": {"repo_path": "/app/repo", "message": "x"}}
        ).text == (
            "Error executing tool git_commit: No changes staged for commit. Use git_add to stage changes "
            "first; git_status shows what is currently staged."
        )
        added = git.step(
            {"tool_name": "git_add", "arguments": {"repo_path": "/app/repo", "files": ["b.txt"]}}
        )
        assert added.text == "Files staged successfully"
        done = git.step(
            {"tool_name": "git_commit", "arguments": {"repo_path": "/app/repo", "message": "second via mcp"}}
        )
        assert done.text.startswith("Changes committed successfully with hash ")
    with _world(tmp_path, name="repo") as world:
        oneline = _shell(world, "cd /app/repo && git log --format=%s")
    assert "second via mcp" in oneline and "first from bash" in oneline


def test_a_rollout_with_a_world_name_keeps_each_episode_as_a_world(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agentworld_plugins.cli import cli

    out = tmp_path / "episodes.jsonl"
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--group-size", "2"]
    env = {"AGENTWORLD_HOME": str(tmp_path)}
    done = CliRunner().invoke(cli, [*args, "--output", str(out), "--world", "rr"], env=env)
    assert done.exit_code == 0, done.output
    plain = tmp_path / "plain.jsonl"
    assert CliRunner().invoke(cli, [*args, "--output", str(plain)], env=env).exit_code == 0
    rewards = [json.loads(line)["reward"] for line in out.read_text().splitlines()]
    names = sorted(w["name"] for w in list_worlds(tmp_path))
    assert len(names) == len(rewards) == 6  # the same rewards as episodes kept in memory
    assert rewards == [json.loads(line)["reward"] for line in plain.read_text().splitlines()]
    assert "rr.greeting-file.1" in names
    view = load_world("rr.greeting-file.1", tmp_path)
    assert view.fronts == {"episode": "terminal"} and view.calls  # what the agent did, to inspect


def test_a_gym_environment_in_a_named_world_keeps_its_episode_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gym env made as an RL library makes it: AGENTWORLD_WORLD names where each episode is
    kept (fresh at every reset); the episode plays exactly as in memory."""
    import gymnasium as gym

    def play() -> list[Any]:
        env = gym.make("agentworld/terminal-v0", backend="offline")
        trace: list[Any] = [env.reset(seed=3, options={"task": "terminal/count-python-files"})[0]]
        for keys in ("ls src\n", "cat src/util.py\n"):
            trace.append(env.step(json.dumps([{"keystrokes": keys, "duration": 0.1}]))[:3])
        env.close()
        return trace

    in_memory = play()
    monkeypatch.setenv("AGENTWORLD_HOME", str(tmp_path))
    monkeypatch.setenv("AGENTWORLD_WORLD", "gym-run")
    assert play() == in_memory
    assert play() == in_memory  # a reset starts the world afresh
    view = load_world("gym-run", tmp_path)
    assert view.fronts == {"terminal": "terminal"} and len(view.calls) == 2
