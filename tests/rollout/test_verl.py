"""verl: the ``agentworld`` AgentLoop, run as verl runs it: verl's own ``AgentLoopBase`` (its
Continuous Token builder on a real chat-template tokenizer), verl's hermes tool parser and
``TokenOutput``, and an ``AgentLoopOutput`` whose response mask marks exactly the model's tokens and
whose reward is the task's checks on the world the tool calls changed.

verl 0.9.1 pins transformers below what the rest of the dev extra uses, so it is not in ``dev``:
when it is not importable, this module installs it (and the few pure-Python packages its agent
loop imports) ``--no-deps`` into the conformance cache once and puts that on ``sys.path``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

VERL = ["verl==0.9.1", "tensordict==0.10.0", "pyvers==0.1.0", "codetiming==1.4.0", "hydra-core==1.3.8"]
VERL += ["omegaconf==2.3.1", "antlr4-python3-runtime==4.9.3", "pylatexenc==2.11", "torchdata==0.11.0"]


def _verl_on_path() -> None:
    try:
        import verl  # noqa: F401
    except ImportError:
        cache = Path(
            os.environ.get("AGENTWORLD_CONFORMANCE_CACHE")
            or Path.home() / ".cache" / "agentworld-conformance"
        )
        target = cache / "verl-0.9.1"
        if not (target / "verl" / "experimental" / "agent_loop" / "agent_loop.py").exists():
            done = subprocess.run(
                [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *VERL],
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert done.returncode == 0, f"pip could not install verl: {done.stderr[-1000:]}"
        sys.path.insert(0, str(target))


_verl_on_path()
from omegaconf import OmegaConf  # noqa: E402
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, _agent_loop_registry  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

from agentworld_plugins.rollout.verl import AGENT_NAME, AgentWorldAgentLoop  # noqa: E402
from agentworld_plugins.session import World  # noqa: E402

# a ChatML template that renders tools and tool calls the way Qwen's does (hermes tool calls)
TEMPLATE = (
    "{% if tools %}<|im_start|>system\n# Tools\n<tools>\n{% for t in tools %}{{ t | tojson }}\n{% endfor %}"
    "</tools><|im_end|>\n{% endif %}"
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
    "{% for c in m.get('tool_calls') or [] %}<tool_call>\n"
    '{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}\n</tool_call>{% endfor %}'
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _tokenizer() -> Any:
    """A byte-level BPE tokenizer trained here (no download): decoding gives back the exact text."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
    corpus = ['{"name": "create_issue", "arguments": {"owner": "acme", "repo": "api", "title": "x"}}']
    trainer = trainers.BpeTrainer(
        special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    raw.train_from_iterator(corpus * 20, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=raw, eos_token="<|im_end|>", pad_token="<|endoftext|>", chat_template=TEMPLATE
    )


class ScriptedServer:
    """What the loop's ``server_manager`` is (verl's LLMServerClient): ``generate`` on token ids,
    answering with a script of assistant texts as tokens, recording the prompts it got."""

    def __init__(self, tokenizer: Any, replies: list[str]) -> None:
        self.tokenizer, self.replies, self.prompts = tokenizer, list(replies), []

    async def generate(
        self, request_id: str, *, prompt_ids: list[int], sampling_params: dict, **_: Any
    ) -> Any:
        self.prompts.append(list(prompt_ids))
        text = self.replies.pop(0)
        ids = [*self.tokenizer.encode(text, add_special_tokens=False), self.tokenizer.eos_token_id]
        return TokenOutput(token_ids=ids, log_probs=[-0.5] * len(ids), stop_reason="completed")


TASK = {
    "id": "open-bug",
    "domain": "mcp",
    "tool_pack": "github-issues",
    "instruction": "Open an issue titled 'crash on start' in acme/api.",
    "max_turns": 4,
    "reward": [
        {"type": "ledger_item", "resource": "issue", "where": {"title": "crash on start"}},
        {"type": "tool_called", "tool": "create_issue"},
    ],
}


def _play(tokenizer: Any, server: ScriptedServer, **row: Any) -> Any:
    """One ``run`` as verl's AgentLoopWorker makes it: the loop built inside the running event loop."""

    async def play() -> Any:
        return await _loop(tokenizer, server).run({"temperature": 1.0}, **row)

    return asyncio.run(play())


def _loop(tokenizer: Any, server: ScriptedServer) -> AgentWorldAgentLoop:
    config = OmegaConf.create(
        {"actor_rollout_ref": {"rollout": {"prompt_length": 8192, "response_length": 8192, "multi_turn": {}}}}
    )
    return AgentWorldAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=server,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap(OmegaConf.create({})),
    )


def test_the_agent_loop_plays_and_scores_an_episode_on_verls_own_classes() -> None:
    assert _agent_loop_registry[AGENT_NAME]["_target_"].endswith("AgentWorldAgentLoop")
    tokenizer = _tokenizer()
    call = {"name": "create_issue", "arguments": {"owner": "acme", "repo": "api", "title": "crash on start"}}
    server = ScriptedServer(tokenizer, [f"<tool_call>\n{json.dumps(call)}\n</tool_call>", "Opened it."])
    AgentWorldAgentLoop.world = World(backend="offline", perturbations=[])
    try:
        out = _play(tokenizer, server, extra_info={"task": TASK}, index=3)
    finally:
        AgentWorldAgentLoop.world.close()
        AgentWorldAgentLoop.world = None
    assert out.reward_score == 1.0, out.extra_fields["reward_breakdown"]
    assert out.extra_fields["world_steps"] == 1 and out.extra_fields["finish"] == "answer"
    # the model was told its tools, and the second prompt holds the world's answer to the call
    first = tokenizer.decode(server.prompts[0])
    assert "create_issue" in first and "<tools>" in first
    second = tokenizer.decode(server.prompts[1])
    assert "<|im_start|>tool" in second and "crash on start" in second.split("<|im_start|>tool")[1]
    # the response is the model's tokens (mask 1, their logprobs) and the tool turn's (mask 0)
    assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs)
    model_tokens = [t for t, m in zip(out.response_ids, out.response_mask) if m == 1]
    said = tokenizer.decode(model_tokens)
    assert "create_issue" in said and "Opened it." in said and "<|im_start|>tool" not in said
    assert 0 in out.response_mask and out.prompt_ids == server.prompts[0]
    # what the model saw on its second turn continues the episode's own tokens
    continued = server.prompts[1][len(out.prompt_ids) :]
    assert out.response_ids[: len(continued)] == continued


def test_an_episode_that_does_nothing_scores_zero_and_a_row_without_a_task_is_refused() -> None:
    import pytest

    from agentworld_plugins.errors import ConfigError

    tokenizer = _tokenizer()
    server = ScriptedServer(tokenizer, ["I will not."])
    AgentWorldAgentLoop.world = World(backend="offline", perturbations=[])
    try:
        out = _play(tokenizer, server, extra_info={"task": json.dumps(TASK)})
        with pytest.raises(ConfigError, match="has no task"):
            _play(tokenizer, server, extra_info={})
    finally:
        AgentWorldAgentLoop.world.close()
        AgentWorldAgentLoop.world = None
    assert out.reward_score == 0.0 and out.extra_fields["world_steps"] == 0
    assert set(out.response_mask) == {1}
