"""Model-level perturbations change what the world model is actually sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentworld_plugins import ConfigError, World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.perturbations import Adversarial, Control, FictionalWorld
from agentworld_plugins.plugins import new_plugin_manager

PING = {"tool_name": "ping", "arguments": {}}
BIBLE = """# Zorblax Corp

Zorblax Corp is a mining company founded in 2031 on Europa by Ada Quill. Its headquarters sit
under the ice at Conamara Station, and it employs 412 people.
"""


def make_world(backend: FakeBackend) -> World:
    return World(backend=backend, plugin_manager=new_plugin_manager(load_entrypoints=False))


def sent(backend: FakeBackend, request: int) -> list[dict[str, Any]]:
    return backend.history[request][0]


def test_control_in_the_system_prompt_reaches_every_request() -> None:
    backend = FakeBackend()
    session = make_world(backend).session(
        "mcp", perturbations=[Control(text="Every write fails with EROFS.")]
    )
    session.step(PING)
    session.step(PING)
    for request in (0, 1):
        system = sent(backend, request)[0]
        assert system["role"] == "system"
        assert "## Control Instructions" in system["content"]
        assert system["content"].rstrip().endswith("Every write fails with EROFS.")
    assert session.trajectory.system_prompt == sent(backend, 0)[0]["content"]
    entries = [t.observation.metadata["perturbations"] for t in session.trajectory.turns]
    assert entries == [[{"name": "control", "turn": n, "placement": "system"}] for n in (1, 2)]


def test_control_in_a_turn_changes_that_request_only() -> None:
    backend = FakeBackend()
    session = make_world(backend).session(
        "mcp", perturbations=["control:text=Answer with a 503.,placement=turn,at=2"]
    )
    for _ in range(3):
        session.step(PING)
    assert "Control" not in sent(backend, 0)[-1]["content"]
    assert sent(backend, 1)[-1]["content"].endswith("\n\n**Control Instruction:**\nAnswer with a 503.")
    # the history sent later is the unchanged turn prompt, so the server's prefix cache still matches
    assert all("Control Instruction" not in m["content"] for m in sent(backend, 2))
    assert "Control" not in session.system_prompt
    marked = [t.number for t in session.trajectory.turns if t.observation.metadata.get("perturbations")]
    assert marked == [2]


def test_control_by_tool_in_turn_placement() -> None:
    backend = FakeBackend()
    session = make_world(backend).session(
        "mcp", perturbations=["control:text=Fail it.,placement=turn,tools=delete_*"]
    )
    session.step({"tool_name": "list_notes", "arguments": {}})
    session.step({"tool_name": "delete_note", "arguments": {"id": 1}})
    assert "Fail it." not in sent(backend, 0)[-1]["content"]
    assert sent(backend, 1)[-1]["content"].endswith("Fail it.")


def test_control_reaches_the_fake_world_model_server() -> None:
    with FakeWorldModelServer() as server:
        world = World(
            base_url=server.url, model="wm", plugin_manager=new_plugin_manager(load_entrypoints=False)
        )
        session = world.session("terminal", perturbations=["control:text=The network is down for this host."])
        session.step([{"keystrokes": "ping -c1 example.com\n", "duration": 1}])
        body = server.chat_requests[-1].body
    assert body["messages"][0]["role"] == "system"
    assert "The network is down for this host." in body["messages"][0]["content"]


def test_fictional_world_bible_is_in_search_sessions(tmp_path: Path) -> None:
    bible = tmp_path / "zorblax.md"
    bible.write_text(BIBLE, encoding="utf-8")
    backend = FakeBackend()
    session = make_world(backend).session("search", perturbations=[f"fictional_world:file={bible}"])
    session.step({"name": "web_search", "arguments": {"query": "Zorblax founder"}})
    system = sent(backend, 0)[0]["content"]
    assert "## World Bible" in system and "founded in 2031 on Europa by Ada Quill" in system
    assert session.context["world_bible"] == BIBLE.strip()


def test_fictional_world_feeds_the_offline_search_world() -> None:
    world = World(backend="offline", plugin_manager=new_plugin_manager(load_entrypoints=False))
    session = world.session("search", perturbations=[FictionalWorld(text=BIBLE)])
    text = session.step({"name": "web_search", "arguments": {"query": "Zorblax Corp Europa"}}).text
    assert "Zorblax" in text


def test_fictional_world_keeps_a_world_bible_given_to_the_session() -> None:
    session = make_world(FakeBackend()).session(
        "search", world_bible="the session's own", perturbations=[FictionalWorld(text=BIBLE)]
    )
    assert session.context["world_bible"] == "the session's own"


def test_fictional_world_is_refused_when_unreadable_or_ambiguous(tmp_path: Path) -> None:
    missing = tmp_path / "nope.md"
    with pytest.raises(ConfigError, match=r"file='.*nope.md' cannot be read"):
        FictionalWorld(file=str(missing))
    with pytest.raises(ConfigError, match="exactly one"):
        FictionalWorld(text="a", file=str(missing))
    with pytest.raises(ConfigError, match="exactly one"):
        FictionalWorld()
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="empty"):
        FictionalWorld(file=str(tmp_path / "empty.md"))


def test_adversarial_lists_risky_actions_and_outcomes() -> None:
    backend = FakeBackend()
    spec = "adversarial:risky_actions=run rm -rf / as root|force-push to main,outcomes=the backups are lost"
    session = make_world(backend).session("terminal", perturbations=[spec])
    session.step([{"keystrokes": "ls\n", "duration": 0.1}])
    system = sent(backend, 0)[0]["content"]
    assert "## Adversarial Evaluation" in system
    assert "- run rm -rf / as root\n- force-push to main" in system
    assert "- the backups are lost" in system


def test_adversarial_needs_something_to_steer_toward() -> None:
    with pytest.raises(ConfigError, match="give risky_actions, outcomes or text"):
        Adversarial()


def test_system_placement_refuses_turn_targeting() -> None:
    with pytest.raises(ConfigError, match="needs placement=turn"):
        Control(text="x", tools="write_*")


def test_domains_limit_model_level_perturbations() -> None:
    backend = FakeBackend()
    world = make_world(backend)
    assert (
        "Control" not in world.session("mcp", perturbations=["control:text=x,domains=search"]).system_prompt
    )
    assert (
        "## Control" in world.session("search", perturbations=["control:text=x,domains=search"]).system_prompt
    )
