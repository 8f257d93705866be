"""The offline backend's public state API (start_machine, state, snapshot, restore) and
``World.session(system_suffix=...)``: what fronts that keep sessions across processes use."""

from __future__ import annotations

import pytest

from agentworld_plugins.backends import offline as offline_backend
from agentworld_plugins.backends.offline import OfflineBackend
from agentworld_plugins.session import World


def _pair(world: World) -> dict:
    return {"command": world.session("swe"), "screen": world.session("terminal")}


def _run(session, command: str) -> str:
    return session.step({"tool_name": "run_shell_command", "arguments": {"command": command}}).text


def test_world_offline_finds_the_backend_and_none_for_a_model() -> None:
    assert isinstance(World(backend="offline").offline, OfflineBackend)
    assert World(base_url="http://127.0.0.1:9/v1", model="m", backend="openai").offline is None


def test_start_machine_shares_one_filesystem_between_two_shells() -> None:
    world = World(backend="offline")
    sessions = _pair(world)
    world.offline.start_machine(sessions, files={"seed.txt": "x\n"}, cwd="/srv", hostname="box", user="ann")
    _run(sessions["command"], "echo from-command > made.txt")
    screen = sessions["screen"].step([{"keystrokes": "cat made.txt seed.txt; cd /tmp\n", "duration": 0.1}])
    assert "from-command" in screen.text and "ann@box:/tmp$" in screen.text
    assert "/srv" in _run(sessions["command"], "pwd")  # cd stays in the shell where it was typed
    state = world.offline.state(sessions["screen"])
    assert state["terminal"].view() == screen.text


def test_snapshot_restores_into_new_sessions_and_replays_later_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(backend="offline")
    first = _pair(world)
    world.offline.start_machine(first)
    _run(first["command"], "echo one > a")
    blob = world.offline.snapshot(first)
    _run(first["command"], "echo two >> a")

    again = _pair(world)
    for name in again:
        again[name].trajectory.turns = list(first[name].trajectory.turns)
    assert world.offline.restore(again, blob)  # the second turn is replayed from the trajectory
    assert "one\ntwo" in _run(again["command"], "cat a")

    monkeypatch.setattr(offline_backend, "snapshot_tag", lambda: "another-version")
    assert not world.offline.restore(_pair(world), blob)


def test_system_suffix_is_appended_after_the_plugins() -> None:
    world = World(backend="offline")
    plain = world.session("swe").system_prompt
    suffixed = world.session("swe", system_suffix="\n## The Machine\nbox\n")
    assert suffixed.system_prompt == plain + "\n## The Machine\nbox\n"
    assert suffixed.trajectory.system_prompt == suffixed.system_prompt


def test_system_suffix_may_depend_on_the_prepared_prompt() -> None:
    world = World(backend="offline")
    seen: list[str] = []

    def suffix(prompt: str) -> str:
        seen.append(prompt)
        return "" if "## The Machine" in prompt else "\n## The Machine\n"

    session = world.session("terminal", system_suffix=suffix)
    assert session.system_prompt == seen[0] + "\n## The Machine\n"
