"""A tiny random Qwen3 and its tokenizer, built in-process (no download), for the transformers
backend's tests and for ``benchmarks/gpu_check.py``.

>>> folder = tiny_qwen3(tmp / "tiny-qwen3")                          # doctest: +SKIP
>>> TransformersBackend(str(folder), device="cpu").complete(messages, sampling)  # doctest: +SKIP

The tokenizer is word-level, trained on ``corpus``; the model is initialised from a config with
a fixed seed. torch, tokenizers and transformers are imported when a model is built, never when
this module is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: a ChatML template (the shape Qwen's own templates render)
CHATML_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ("<unk>", "<pad>", "<eos>", "<|im_start|>", "<|im_end|>")
CORPUS = (
    "the tool returned a result with two items",
    "error unknown tool name in the request",
    "list issues for the repository acme api",
    "the file was written and the command exited with code zero",
    "search results show three pages about the weather today",
    "system user assistant turn action observation environment",
)


def build_tiny_qwen3(
    *,
    corpus: Sequence[str] = CORPUS,
    specials: Sequence[str] = SPECIAL_TOKENS,
    chat_template: str = CHATML_TEMPLATE,
    eos: str = "<eos>",
    hidden_size: int = 32,
    intermediate_size: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    head_dim: int = 8,
    max_positions: int = 2048,
    silence: Sequence[str] = ("<eos>",),
    seed: int = 0,
) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a random Qwen3 of the given size with a word-level tokenizer.

    The tokens in ``silence`` get an all-zero output row (a logit of 0), so random answers
    rarely stop early: they run to ``max_tokens``, which keeps tokens/s and length checks honest.
    """
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen3Config

    raw = Tokenizer(models.WordLevel(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    raw.train_from_iterator(list(corpus), trainers.WordLevelTrainer(special_tokens=list(specials)))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw, unk_token="<unk>", pad_token="<pad>", eos_token=eos, chat_template=chat_template
    )
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for token in silence:
            model.lm_head.weight[tokenizer.convert_tokens_to_ids(token)].zero_()
    return model, tokenizer


def tiny_qwen3(folder: str | Path, **options: Any) -> Path:
    """:func:`build_tiny_qwen3` saved to ``folder`` with ``save_pretrained`` (what
    ``TransformersBackend(str(folder))`` loads); returns the folder."""
    folder = Path(folder)
    model, tokenizer = build_tiny_qwen3(**options)
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


__all__ = ["CHATML_TEMPLATE", "CORPUS", "SPECIAL_TOKENS", "build_tiny_qwen3", "tiny_qwen3"]
