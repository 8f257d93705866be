"""The offline backend: the embedded default, sessions, chains, and conversations without a session."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from agentworld_plugins import World
from agentworld_plugins.backends.base import Sampling
from agentworld_plugins.backends.offline import OfflineBackend
from agentworld_plugins.errors import BackendError
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.turns import extract_action


def keys(text: str) -> list[dict]:
    return [{"keystrokes": text + "\n", "duration": 0.1}]


def test_default_backend_is_offline_with_one_notice(monkeypatch):
    for var in ("AGENTWORLD_BASE_URL", "AGENTWORLD_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    code = (
        "from agentworld_plugins import World\n"
        "w = World()\n"
        "a = w.session('terminal'); b = w.session('terminal')\n"
        "a.step([{'keystrokes': 'pwd\\n'}]); b.step([{'keystrokes': 'pwd\\n'}])\n"
        "print(w.backend.describe())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "offline"
    assert done.stderr.count("using the embedded offline world") == 1


def test_session_state_is_kept_and_marked_offline():
    session = World(backend="offline").session("terminal")
    session.step(keys("mkdir -p /srv/data && cd /srv/data"))
    session.step(keys("echo hello > greeting.txt"))
    obs = session.step(keys("cat greeting.txt; pwd"))
    assert obs.metadata["offline"] is True
    assert "hello\n/srv/data" in obs.text
    other = World(backend="offline").session("terminal")
    assert "No such file" in other.step(keys("cat /srv/data/greeting.txt")).text


def test_offline_error_flag_wins_over_text_heuristics():
    session = World(backend="offline").session("terminal")
    assert session.step(keys("false")).is_error
    assert not session.step(keys("echo 'command not found is just text'")).is_error


def test_chain_scenario_then_offline_replays_missed_turns(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text(
        yaml.safe_dump(
            {"steps": [{"match": {"regex": "touch /tmp/made-by-scenario"}, "observation": "scripted answer"}]}
        )
    )
    world = World(backend=f"scenario:{script},offline")
    session = world.session("terminal")
    session.step(keys("mkdir /work"))
    scripted = session.step(keys("touch /tmp/made-by-scenario"))
    assert scripted.text == "scripted answer"
    listing = session.step(keys("ls /tmp /work -d"))
    # the offline world caught up with the turn the scenario answered
    assert listing.metadata["offline"] is True
    assert "No such file" not in session.step(keys("ls /tmp/made-by-scenario")).text


def test_stateless_conversations_replay_and_cache():
    """What `agentworld serve` does: rebuild the state from the turns in the messages."""
    backend = OfflineBackend(get_plugin_manager().registry)
    session = World(backend=backend).session("terminal")
    session.step(keys("echo one > /tmp/a"))
    session.step(keys("echo two >> /tmp/a"))
    prompt = session.domain.render_turn(3, session.domain.validate_action(keys("cat /tmp/a")))
    messages, _ = session.messages(prompt)
    fresh = OfflineBackend(get_plugin_manager().registry)  # no cache: replays the two turns
    answer = fresh.complete(messages, Sampling())
    assert "one\ntwo" in answer.text
    again = fresh.complete(
        [
            *messages,
            {"role": "assistant", "content": answer.text},
            {
                "role": "user",
                "content": session.domain.render_turn(
                    4, session.domain.validate_action(keys("wc -l /tmp/a"))
                ),
            },
        ],
        Sampling(),
    )
    assert "2 /tmp/a" in again.text


def test_domain_detection_from_the_system_prompt_and_action_shape():
    backend = OfflineBackend(get_plugin_manager().registry)
    registry = get_plugin_manager().registry
    for name in ("mcp", "search", "swe", "android", "web", "os", "terminal"):
        system = registry.domain(name).system_prompt({})
        assert (
            backend.detect_domain(
                [{"role": "system", "content": system}, {"role": "user", "content": "x"}]
            ).name
            == name
        )
    bare = [
        {"role": "user", "content": '### Turn 1\n**Action:**\n```json\n{"action_type": "navigate_home"}\n```'}
    ]
    assert backend.detect_domain(bare).name == "android"
    with pytest.raises(BackendError, match="cannot tell which domain"):
        backend.detect_domain([{"role": "user", "content": "hello"}])


def test_extract_action_takes_the_last_action_block():
    assert extract_action("### Turn 1\n**Action:**\n```json\n[1]\n```") == ("json", "[1]")
    assert extract_action("### Turn 2\n**Action:**\nclick('3')") == (None, "click('3')")
    assert extract_action("no action") is None


def test_every_domain_answers_offline():
    world = World(backend="offline")
    actions = {
        "mcp": {"tool_name": "create_ticket", "arguments": {"title": "x"}},
        "search": {"name": "web_search", "arguments": {"query": "vLLM"}},
        "terminal": keys("ls /"),
        "swe": {"tool_name": "list_directory", "arguments": {"path": "/app"}},
        "android": {"action_type": "wait"},
        "web": "noop()",
        "os": "WAIT",
    }
    for domain, action in actions.items():
        obs = world.session(domain).step(action)
        assert obs.metadata["offline"] is True, domain
        assert obs.text.strip(), domain
        assert json.dumps(obs.model_dump())  # serialisable


def test_an_action_stopped_by_a_fault_never_reaches_the_offline_world():
    world = World(backend="offline", perturbations=["faults:kinds=rate_limit,tools=delete_*"])
    session = world.session("mcp")
    session.step({"tool_name": "create_note", "arguments": {"title": "keep me"}})
    refused = session.step({"tool_name": "delete_note", "arguments": {"id": 1}})
    assert refused.is_error and refused.metadata["short_circuit"]
    still_there = session.step({"tool_name": "get_note", "arguments": {"id": 1}})
    assert not still_there.is_error and "keep me" in still_there.text
