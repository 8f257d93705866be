"""The TRL environment class: TRL's own tool discovery and transformers' ``get_json_schema`` accept
it, each method is one world step, ``reset`` starts afresh and ``get_reward`` scores the state."""

from __future__ import annotations

import inspect

import pytest

from agentworld_plugins import World
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.rollout.trl import environment_class

get_json_schema = pytest.importorskip(
    "transformers.utils", reason="transformers is not installed"
).get_json_schema

TASK = {
    "id": "bug",
    "domain": "mcp",
    "tool_pack": "github-issues",
    "instruction": "Open a bug.",
    "reward": [{"type": "ledger_item", "resource": "issue", "where": {"labels": "bug"}}],
}


def _trl_tools(instance: object) -> dict[str, object]:
    """The methods GRPOTrainer exposes as tools: public functions of the class but reset/get_reward
    (trl/trainer/grpo_trainer.py, where it builds the per-rollout tool dicts)."""
    return {
        name: getattr(instance, name)
        for name, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    }


def test_transformers_reads_every_tool_schema() -> None:
    pack = get_plugin_manager().registry.tool_pack("github-issues")
    Env = environment_class(tool_pack="github-issues")
    env = Env()
    found = _trl_tools(env)
    assert set(found) == {t["name"] for t in pack}
    for tool in pack:
        schema = get_json_schema(found[tool["name"]])["function"]
        wanted = tool["inputSchema"]
        assert schema["name"] == tool["name"]
        assert set(schema["parameters"]["properties"]) == set(wanted.get("properties", {}))
        assert sorted(schema["parameters"].get("required", [])) == sorted(wanted.get("required", []))
        for prop, spec in wanted.get("properties", {}).items():
            got = schema["parameters"]["properties"][prop]
            if spec.get("type") in ("string", "integer", "boolean", "array"):
                assert got["type"] == spec["type"] or got.get("type") == [spec["type"]], (prop, got)
    create = get_json_schema(found["create_issue"])["function"]
    assert create["parameters"]["properties"]["labels"]["items"] == {"type": "string"}
    assert create["description"]


def test_methods_step_the_world_and_get_reward_reads_its_state() -> None:
    with World(backend="offline", perturbations=[]) as world:
        Env = environment_class(task=TASK, world=world)
        env = Env()
        assert env.reset() is None
        text = env.create_issue(owner="a", repo="b", title="Crash", labels=["bug"])
        assert '"number": 1' in text
        assert "Crash" in env.list_issues(owner="a", repo="b")
        assert env.get_reward() == 1.0 and env.reward_breakdown[0]["score"] == 1.0
        env.reset()  # a fresh world: the issue is gone
        assert env.get_reward() == 0.0
        other = dict(TASK, id="other", reward=[{"type": "tool_called", "tool": "list_issues"}])
        env.reset(task=other, prompt="ignored")
        env.list_issues(owner="a", repo="b")
        assert env.get_reward() == 1.0


def test_tools_that_cannot_be_methods_are_refused() -> None:
    from agentworld_plugins.errors import ConfigError

    with pytest.raises(ConfigError, match="not identifiers"):
        environment_class([{"name": "get-thing", "inputSchema": {"type": "object"}}])
    with pytest.raises(ConfigError, match="clash"):
        environment_class([{"name": "reset", "inputSchema": {"type": "object"}}])
