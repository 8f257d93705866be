"""The transformers backend against a tiny random Qwen3 model built in a temporary folder.

Nothing is downloaded: the tokenizer is trained in-process and the model is initialised from a
config, both saved with ``save_pretrained``; HF_HUB_OFFLINE keeps the hub out of reach.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentworld_plugins.backends import Completion, Sampling
from agentworld_plugins.backends.tiny_model import tiny_qwen3
from agentworld_plugins.backends.transformers_local import TransformersBackend, render_plain
from agentworld_plugins.errors import ConfigError

MESSAGES = [
    {"role": "system", "content": "You simulate an MCP server."},
    {"role": "user", "content": "list issues for the repository acme api"},
]
TOOLS = [{"name": "x", "description": "a tool", "inputSchema": {"type": "object", "properties": {}}}]


def _go_offline(mp: pytest.MonkeyPatch) -> None:
    mp.setenv("HF_HUB_OFFLINE", "1")
    mp.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    mp.setenv("TRANSFORMERS_VERBOSITY", "error")
    # huggingface_hub reads HF_HUB_OFFLINE once, at import: set the constant too
    import huggingface_hub.constants

    mp.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    _go_offline(monkeypatch)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer Qwen3 with a WordLevel tokenizer and a chat template, saved to a folder."""
    with pytest.MonkeyPatch.context() as mp:
        _go_offline(mp)
        return tiny_qwen3(tmp_path_factory.mktemp("tiny-qwen3"))


@pytest.fixture(scope="module")
def backend(tiny_model: Path) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        _go_offline(mp)
        b = TransformersBackend(str(tiny_model), device="cpu")
        yield b
        b.close()


def greedy(max_tokens: int = 8, **kw: Any) -> Sampling:
    return Sampling(temperature=0, max_tokens=max_tokens, **kw)


def test_complete_returns_a_completion(backend: TransformersBackend, tiny_model: Path) -> None:
    out = backend.complete(MESSAGES, greedy())
    assert isinstance(out, Completion)
    assert isinstance(out.text, str)
    assert out.model == str(tiny_model)
    usage = out.usage
    assert usage is not None
    assert usage["prompt_tokens"] > 0
    assert 0 < usage["completion_tokens"] <= 8
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert out.finish_reason == ("length" if usage["completion_tokens"] == 8 else "stop")
    assert out.reasoning is None  # no think tags here; inline ones stay in the text anyway


def test_greedy_is_deterministic(backend: TransformersBackend) -> None:
    first = backend.complete(MESSAGES, greedy())
    second = backend.complete(MESSAGES, greedy())
    assert first.text == second.text
    assert first.usage == second.usage


def test_seeded_sampling_repeats_and_leaves_the_global_rng_alone(backend: TransformersBackend) -> None:
    import torch

    sampling = Sampling(temperature=1.0, top_p=0.95, max_tokens=8, seed=1234)
    state = torch.get_rng_state()
    first = backend.complete(MESSAGES, sampling)
    second = backend.complete(MESSAGES, sampling)
    assert first.text == second.text
    assert torch.equal(state, torch.get_rng_state())
    others = {backend.complete(MESSAGES, sampling.model_copy(update={"seed": s})).text for s in range(6)}
    assert len(others) > 1  # the seed does change the answer


def test_stop_strings_truncate_and_stop_early(backend: TransformersBackend) -> None:
    full = backend.complete(MESSAGES, greedy())
    words = full.text.split()  # WordLevel decodes to space-separated words (specials skipped)
    assert len(words) >= 3
    stop = words[1]
    out = backend.complete(MESSAGES, greedy(stop=[stop]))
    assert out.text == full.text[: full.text.find(stop)]
    assert out.usage is not None
    # at least the words after the stop string were never generated
    assert out.usage["completion_tokens"] <= 8 - (len(words) - 2)
    assert out.finish_reason == "stop"


def test_template_free_tokenizer_gets_the_plain_rendering(tiny_model: Path, tmp_path: Path) -> None:
    copy = tmp_path / "no-template"
    shutil.copytree(tiny_model, copy)
    (copy / "chat_template.jinja").unlink(missing_ok=True)
    config_file = copy / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config.pop("chat_template", None)
    config_file.write_text(json.dumps(config))
    plain = TransformersBackend(str(copy), device="cpu")
    try:
        out = plain.complete(MESSAGES, greedy(4))
    finally:
        plain.close()
    assert out.usage is not None
    assert out.usage["completion_tokens"] <= 4
    assert render_plain(MESSAGES) == (
        "<|system|>\nYou simulate an MCP server.\n"
        "<|user|>\nlist issues for the repository acme api\n<|assistant|>\n"
    )


def test_acomplete_runs_in_a_thread(backend: TransformersBackend) -> None:
    sync = backend.complete(MESSAGES, greedy())
    out = asyncio.run(backend.acomplete(MESSAGES, greedy()))
    assert out.text == sync.text


def test_concurrent_first_use_loads_once(tiny_model: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    b = TransformersBackend(str(tiny_model), device="cpu")
    loads = []
    original = b._load

    def counting_load() -> None:
        loads.append(1)
        original()

    b._load = counting_load  # type: ignore[method-assign]
    try:
        with ThreadPoolExecutor(4) as pool:
            texts = {out.text for out in pool.map(lambda _: b.complete(MESSAGES, greedy(4)), range(4))}
    finally:
        b.close()
    assert len(loads) == 1
    assert len(texts) == 1


def test_describe_and_close(tiny_model: Path) -> None:
    b = TransformersBackend(str(tiny_model), device="cpu")
    assert b.describe() == f"transformers({tiny_model}, device=cpu)"
    b.complete(MESSAGES, greedy(2))
    assert b.describe() == f"transformers({tiny_model}, device=cpu)"
    b.close()
    assert b._model is None


def test_through_the_registry_and_a_session(tiny_model: Path, tmp_path: Path) -> None:
    from agentworld_plugins.session import Observation, World

    prompts = tmp_path / "prompts"
    (prompts / "mcp").mkdir(parents=True)
    (prompts / "mcp" / "system_prompt.txt").write_text("You simulate an MCP server.\n{tool_definitions}\n")
    world = World(backend="transformers:" + str(tiny_model), prompts_dir=prompts)
    try:
        session = world.session("mcp", tools=TOOLS, sampling={"max_tokens": 8, "temperature": 0})
        obs = session.step({"tool_name": "x", "arguments": {}})
        assert isinstance(world.backend, TransformersBackend)
    finally:
        world.close()
    assert isinstance(obs, Observation)
    assert isinstance(obs.text, str)
    assert isinstance(obs.raw, str)
    assert "transformers" in obs.metadata["backend"]
    assert obs.metadata["usage"]["completion_tokens"] <= 8
    assert obs.metadata["finish_reason"] in ("stop", "length")


def test_missing_folder_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(ConfigError, match="nowhere") as info:
        TransformersBackend(str(missing)).complete(MESSAGES, greedy())
    assert info.value.hint


def test_folder_without_a_model_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Could not load") as info:
        TransformersBackend(str(tmp_path)).complete(MESSAGES, greedy())
    assert "config.json" in (info.value.hint or "")


def test_uncached_hub_id_offline_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="agentworld-test/no-such-model") as info:
        TransformersBackend("agentworld-test/no-such-model").complete(MESSAGES, greedy())
    assert "HF_HUB_OFFLINE" in (info.value.hint or "")


def test_empty_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        TransformersBackend("")
    assert "transformers:/path/to/model" in (info.value.hint or "")
    assert "AGENTWORLD_MODEL" in (info.value.hint or "")


def test_unknown_dtype_is_a_config_error(tiny_model: Path) -> None:
    with pytest.raises(ConfigError, match="dtype"):
        TransformersBackend(str(tiny_model), dtype="float7").complete(MESSAGES, greedy())


def test_missing_runtime_is_a_config_error(monkeypatch: pytest.MonkeyPatch, tiny_model: Path) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # makes ``import torch`` raise ImportError
    with pytest.raises(ConfigError, match="needs torch and transformers") as info:
        TransformersBackend(str(tiny_model)).complete(MESSAGES, greedy())
    assert info.value.hint.endswith('pip install -e ".[transformers]"')


def test_importing_the_module_does_not_import_torch() -> None:
    code = (
        "import sys, agentworld_plugins.backends.transformers_local as m; "
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules, sorted(sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
