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


def test_grpo_trainer_takes_the_class_as_its_environment_factory(tmp_path, monkeypatch) -> None:
    """TRL's own GRPOTrainer, on a tiny random Qwen3 with TRL's Qwen3 chat template (no download):
    it probes the class, exposes its methods as tools and its get_reward as a reward source."""
    trl = pytest.importorskip("trl", reason="the rl extra (trl) is not installed")
    datasets = pytest.importorskip("datasets", reason="the rl extra (datasets) is not installed")
    from importlib.resources import files

    from agentworld_plugins.backends.tiny_model import build_tiny_qwen3

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = build_tiny_qwen3(
        corpus=["open a bug in the repo"],
        specials=["<unk>", "<pad>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>"],
        chat_template=(files("trl") / "chat_templates" / "qwen3.jinja").read_text(),
        eos="<|im_end|>",
        hidden_size=16, intermediate_size=32, layers=1, heads=2, kv_heads=1, silence=(),
    )  # fmt: skip
    with World(backend="offline", perturbations=[]) as world:
        Env = environment_class(task=TASK, world=world)
        trainer = trl.GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            args=trl.GRPOConfig(
                output_dir=str(tmp_path),
                max_steps=1,
                per_device_train_batch_size=2,
                num_generations=2,
                max_completion_length=4,
                report_to=[],
                use_cpu=True,
                save_strategy="no",
            ),
            train_dataset=datasets.Dataset.from_list(
                [{"prompt": [{"role": "user", "content": "open a bug"}]}] * 2
            ),
            environment_factory=Env,
        )
    pack = get_plugin_manager().registry.tool_pack("github-issues")
    assert sorted(tool.__name__ for tool in trainer.tools) == sorted(t["name"] for t in pack)
    assert Env.__name__ in trainer.reward_func_names
