"""SkyRL: ``skyrl_gym.make("agentworld", ...)`` plays a task from raw model text (tool calls in the
Hermes/Qwen text form, fenced actions) and ends with the task's reward."""

from __future__ import annotations

import json

import pytest

from agentworld_plugins.rollout.skyrl import register_skyrl

skyrl_gym = pytest.importorskip("skyrl_gym", reason="the rl extra (skyrl-gym) is not installed")

ISSUE = {
    "id": "bug",
    "domain": "mcp",
    "tool_pack": "github-issues",
    "instruction": "Open a bug.",
    "max_turns": 4,
    "reward": [{"type": "ledger_item", "resource": "issue", "where": {"labels": "bug"}}],
}


def _call(name: str, arguments: dict) -> str:
    return f"Let me do it.\n<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def test_a_tool_domain_task_from_raw_text() -> None:
    register_skyrl()
    env = skyrl_gym.make("agentworld", env_config={"backend": "offline"}, extras={"task": json.dumps(ISSUE)})
    messages, info = env.init([])
    assert info == {"task_id": "bug"} and "<tool_call>" in messages[0]["content"]
    assert "create_issue" in messages[0]["content"]
    out = env.step(_call("create_issue", {"owner": "a", "repo": "b", "title": "x", "labels": ["bug"]}))
    assert not out["done"] and '"number": 1' in out["observations"][0]["content"]
    assert out["observations"][0]["content"].startswith("<tool_response>")
    bad = env.step("<tool_call>not json</tool_call>")
    assert "not JSON" in bad["observations"][0]["content"]
    end = env.step("<answer>Opened #1</answer>")
    assert end["done"] and end["reward"] == 1.0
    env.close()


def test_an_action_text_task_ends_at_max_turns_with_its_reward() -> None:
    register_skyrl()
    task = {
        "id": "hello",
        "domain": "terminal",
        "instruction": "Write hello.",
        "max_turns": 2,
        "reward": [{"type": "file_contains", "path": "/app/h.txt", "text": "hi"}],
    }
    env = skyrl_gym.make("agentworld", env_config={}, extras={"task": task})
    env.init([])
    first = env.step('```json\n[{"keystrokes": "echo hi > /app/h.txt\\n", "duration": 0.1}]\n```')
    assert not first["done"]
    last = env.step('```json\n[{"keystrokes": "cat /app/h.txt\\n", "duration": 0.1}]\n```')
    assert last["done"] and last["reward"] == 1.0 and "hi" in last["observations"][0]["content"]


def test_init_with_the_dataset_prompt_tells_the_model_the_tools_and_the_call_format() -> None:
    """SkyRL's generator passes the row's prompt to ``init``: the environment keeps its messages
    and adds the tools and the ``<tool_call>`` format to the system message."""
    register_skyrl()
    env = skyrl_gym.make("agentworld", env_config={}, extras={"task": ISSUE})
    row = [{"role": "user", "content": "Open a bug."}]
    messages, info = env.init(row)
    assert info == {"task_id": "bug"} and row == [{"role": "user", "content": "Open a bug."}]
    assert [m["role"] for m in messages] == ["system", "user"] and messages[1] == row[0]
    system = messages[0]["content"]
    assert "<tool_call>" in system and "create_issue" in system and "<answer>" in system
    with_system = [{"role": "system", "content": "Be brief."}, *row]
    messages, _ = env.init(with_system)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("Be brief.\n\n") and "create_issue" in messages[0]["content"]
    end = env.step(_call("create_issue", {"owner": "a", "repo": "b", "title": "x", "labels": ["bug"]}))
    assert '"number": 1' in end["observations"][0]["content"]
    env.close()
