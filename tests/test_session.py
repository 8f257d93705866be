"""Sessions end to end against the fake world-model server over real HTTP."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import ActionValidationError, ConfigError, ContextBudgetError, UnknownNameError
from agentworld_plugins.session import Trajectory, World

TOOLS = [{"name": "create_note", "description": "Create a note", "inputSchema": {"type": "object"}}]

# Five actions per domain, each valid for that domain's Action model.
EPISODES = {
    "mcp": [{"tool_name": "create_note", "arguments": {"title": f"n{i}"}} for i in range(5)],
    "search": [{"name": "web_search", "arguments": {"queries": [f"q{i}"]}} for i in range(4)]
    + [{"name": "web_extractor", "arguments": {"url": "https://example.com"}}],
    "terminal": [[{"keystrokes": f"echo {i}\n", "duration": 0.1}] for i in range(5)],
    "swe": [{"tool_name": "run_shell_command", "arguments": {"command": f"ls {i}"}} for i in range(5)],
    "android": [{"action_type": "click", "index": i} for i in range(5)],
    "web": [
        "click('12')",
        "fill('3', 'hello')",
        "scroll(0, 200)",
        "goto('https://example.com')",
        "go_back()",
    ],
    "os": [
        "import pyautogui\npyautogui.click(100, 200)",
        "pyautogui.write('hi')",
        "WAIT",
        "pyautogui.hotkey('ctrl', 's')",
        "DONE",
    ],
}


@pytest.mark.parametrize("domain", sorted(EPISODES))
def test_five_turn_session_over_http(domain, fake_world_server, tmp_path):
    world = World(base_url=fake_world_server.url, model="wm")
    session = world.session(domain, tools=TOOLS, initial_state="STATE-0", seed=7)
    observations = [session.step(action) for action in EPISODES[domain]]

    assert [o.text for o in observations] == [f"observation for Turn {i}" for i in range(1, 6)]
    requests = [r.body for r in fake_world_server.chat_requests]
    assert len(requests) == 5
    system = session.system_prompt
    assert "{tool_definitions}" not in system and "{demonstrations}" not in system
    for n, body in enumerate(requests, 1):
        messages = body["messages"]
        assert body["model"] == "wm"
        assert body["seed"] == 7
        assert body["temperature"] == session.domain.sampling.temperature
        assert body["max_tokens"] == session.domain.sampling.max_tokens
        assert messages[0] == {"role": "system", "content": system}
        assert len(messages) == 2 * n  # system + (n-1) pairs + current prompt
        assert messages[-1]["content"].startswith(f"### Turn {n}\n")
        assert "**Action:**" in messages[-1]["content"]
        # append-only: every request extends the previous one (prefix caching)
        if n > 1:
            previous = requests[n - 2]["messages"]
            assert messages[: len(previous)] == previous
            assert messages[len(previous)] == {
                "role": "assistant",
                "content": f"observation for Turn {n - 1}",
            }
    first = requests[0]["messages"][1]["content"]
    assert ("**Current State:**\nSTATE-0" in first) is session.domain.has_state
    if domain == "mcp":
        assert '"create_note"' in system

    path = session.trajectory.to_jsonl(tmp_path / "run.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["turn_idx"] for r in lines] == [1, 2, 3, 4, 5]
    assert all(r["task"] == domain and r["total_turns"] == 5 and r["system_str"] == system for r in lines)
    (loaded,) = Trajectory.from_jsonl(path)
    assert [t.prompt for t in loaded.turns] == [t.prompt for t in session.trajectory.turns]
    assert [t.observation.text for t in loaded.turns] == [o.text for o in observations]
    assert [t.action for t in loaded.turns] == [t.action for t in session.trajectory.turns]

    chat = session.trajectory.to_jsonl(tmp_path / "chat.jsonl", form="chat")
    (from_chat,) = Trajectory.from_jsonl(chat)
    assert [t.prompt for t in from_chat.turns] == [t.prompt for t in loaded.turns]


def test_records_replay_the_session_requests(fake_world_server, tmp_path):
    """A record's messages_for_record equals what the session sent for that turn."""
    from agentworld_plugins.turns import messages_for_record

    session = World(base_url=fake_world_server.url, model="wm").session("mcp", tools=TOOLS)
    for action in EPISODES["mcp"][:3]:
        session.step(action)
    sent = [r.body["messages"] for r in fake_world_server.chat_requests]
    assert [messages_for_record(rec) for rec in session.trajectory.records()] == sent


async def test_astep_matches_step(fake_world_server):
    world = World(base_url=fake_world_server.url, model="wm")
    session = world.session("terminal")
    obs = [await session.astep([{"keystrokes": "pwd\n", "duration": 0.1}]) for _ in range(3)]
    assert [o.text for o in obs] == [
        "observation for Turn 1",
        "observation for Turn 2",
        "observation for Turn 3",
    ]
    many = [world.session("mcp") for _ in range(8)]
    results = await asyncio.gather(*(s.astep({"tool_name": "t"}) for s in many))
    assert {r.text for r in results} == {"observation for Turn 1"}


def test_reasoning_and_warnings_reach_the_observation(fake_world_server):
    fake_world_server.enqueue(
        {"content": "<think>inline</think>no block here", "reasoning_content": "server side"},
    )
    obs = World(base_url=fake_world_server.url, model="wm").session("web").step("click('1')")
    assert obs.text == "no block here"
    assert obs.reasoning == "server side\n\ninline"
    assert obs.metadata["parse_warnings"]
    assert obs.raw == "<think>inline</think>no block here"


def test_bad_action_names_each_field():
    session = World(backend=FakeBackend()).session("mcp")
    with pytest.raises(ActionValidationError) as info:
        session.step({"tool": "x", "arguments": []})
    locs = {e["loc"] for e in info.value.errors}
    assert locs == {"tool_name", "arguments", "tool"}
    assert "a valid mcp action looks like" in str(info.value)
    assert session.trajectory.turns == []


def test_unknown_domain_and_backend_list_names():
    world = World(backend=FakeBackend())
    with pytest.raises(
        UnknownNameError, match="registered domains: android, mcp, os, search, swe, terminal, web"
    ):
        world.session("nope")
    with pytest.raises(UnknownNameError, match=r"registered backends:.*openai"):
        _ = World(backend="nope").backend


def test_invalid_settings_name_the_field(monkeypatch):
    monkeypatch.setenv("AGENTWORLD_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="timeout"):
        World(backend=FakeBackend())
    monkeypatch.delenv("AGENTWORLD_TIMEOUT")
    with pytest.raises(ConfigError, match="must start with http"):
        World(base_url="localhost:8000")


def test_constructor_overrides_environment(monkeypatch):
    monkeypatch.setenv("AGENTWORLD_MODEL", "from-env")
    monkeypatch.setenv("AGENTWORLD_BASE_URL", "http://127.0.0.1:1/v1")
    world = World(model="from-arg")
    assert world.settings.model == "from-arg"
    assert world.settings.base_urls == ["http://127.0.0.1:1/v1"]


def test_context_budget_drops_oldest_turns_after_the_first():
    backend = FakeBackend(responder=lambda messages: "x" * 400)
    session = World(backend=backend).session("mcp", max_context_tokens=2200, sampling={"max_tokens": 256})
    for i in range(12):
        obs = session.step({"tool_name": f"t{i}"})
    sent = backend.history[-1][0]
    turns_sent = [m["content"].split("\n")[0] for m in sent if m["role"] == "user"]
    dropped = obs.metadata["context_dropped_turns"]
    assert turns_sent[0] == "### Turn 1" and turns_sent[-1] == "### Turn 12"
    assert dropped == list(range(2, 2 + len(dropped)))  # the oldest after the first
    assert len(session.trajectory.turns) == 12  # the session keeps everything
    tiny = World(backend=FakeBackend()).session("mcp", max_context_tokens=300, sampling={"max_tokens": 256})
    with pytest.raises(ContextBudgetError, match="max_context_tokens"):
        tiny.step({"tool_name": "x"})


def test_sampling_overrides_and_seed_from_settings(monkeypatch):
    monkeypatch.setenv("AGENTWORLD_SEED", "11")
    backend = FakeBackend()
    session = World(backend=backend).session("swe", sampling={"temperature": 0.0})
    session.step({"tool_name": "glob", "arguments": {"pattern": "*.py"}})
    sampling = backend.history[0][1]
    assert (sampling.temperature, sampling.max_tokens, sampling.seed) == (0.0, 8192, 11)


def test_is_error_per_domain():
    backend = FakeBackend().enqueue(
        "Error calling tool 'x': 1 validation error for call[x]",
        "Command: false\nStdout: (empty)\nExit Code: 1",
        "root@box:/# foo\nbash: foo: command not found\nroot@box:/# ",
    )
    world = World(backend=backend)
    assert world.session("mcp").step({"tool_name": "x"}).is_error
    assert (
        world.session("swe")
        .step({"tool_name": "run_shell_command", "arguments": {"command": "false"}})
        .is_error
    )
    assert world.session("terminal").step([{"keystrokes": "foo\n"}]).is_error


def test_perturbations_from_the_environment_apply_to_every_session(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTWORLD_PERTURB", "faults:kinds=not_found,tools=get_*")
    world = World(backend="offline")
    session = world.session("mcp")
    session.step({"tool_name": "create_note", "arguments": {"title": "a"}})
    faulted = session.step({"tool_name": "get_note", "arguments": {"id": "note_1"}})
    assert faulted.is_error and faulted.metadata["short_circuit"] is True
    (record,) = [r for r in session.trajectory.records() if r["turn_idx"] == 2]
    assert record["perturbations"][0]["name"] == "faults"
    monkeypatch.delenv("AGENTWORLD_PERTURB")
    assert World(backend="offline").perturbations == []


def test_requests_are_the_trajectory_however_it_changes():
    """The history's messages are kept between requests; what is sent is always the trajectory as
    it stands: after a turn taken back and another put in its place, after a new trajectory list,
    and with a plugin editing messages in place (its edits reach that request only)."""
    from agentworld_plugins import hookimpl

    class EditsInPlace:
        @hookimpl
        def transform_messages(self, messages):
            for message in messages:
                message["content"] = message["content"].replace("secret", "[gone]")

    def expected(session):
        *earlier, last = session.trajectory.turns
        messages = [{"role": "system", "content": session.system_prompt}]
        for turn in earlier:
            messages.append({"role": "user", "content": turn.prompt})
            messages.append({"role": "assistant", "content": turn.observation.text})
        return [*messages, {"role": "user", "content": last.prompt}]

    backend = FakeBackend(responder=lambda messages: "ok secret")
    session = World(backend=backend).session("mcp")
    for name in ("a", "b", "c"):
        session.step({"tool_name": name})
        assert backend.history[-1][0] == expected(session)
    session.trajectory.turns.pop()  # a rejected turn taken back, another in its place
    session.step({"tool_name": "again"})
    assert backend.history[-1][0] == expected(session)
    session.trajectory.turns = session.trajectory.turns[:1]  # a new list
    session.step({"tool_name": "after"})
    assert backend.history[-1][0] == expected(session) and len(expected(session)) == 4
    editor = EditsInPlace()
    session.pm.register(editor)
    session.step({"tool_name": "edited"})
    sent = backend.history[-1][0]
    assert "[gone]" in sent[2]["content"] and not any("secret" in m["content"] for m in sent)
    session.pm.unregister(editor)
    session.step({"tool_name": "plain"})
    assert backend.history[-1][0] == expected(session)  # the edits changed no kept message
    assert "secret" in backend.history[-1][0][2]["content"]
