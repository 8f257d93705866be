"""GPU check of the transformers backend: device choice, seeded sampling on CUDA, memory released
on close, tokens per second.

    python benchmarks/gpu_check.py                       # a tiny random Qwen3 built here (no download)
    python benchmarks/gpu_check.py --model /path/to/model --max-tokens 256
    python benchmarks/gpu_check.py --device cpu          # dry run of the script itself, no GPU

Exits 0 when every check passes, 1 when one fails, 2 when there is no CUDA device (with a
message saying so). Prints one line per check and a JSON summary (record it in BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: the words of the tiny model's tokenizer (its answers are random strings of them)
WORDS = "the world model predicts the next observation of a terminal screen file list issue tracker"


def tiny_model(folder: Path) -> Path:
    """A 4-layer random Qwen3 (a few MB) saved to ``folder`` (no download); its stop tokens get a
    zero logit, so timed answers seldom stop before --max-tokens."""
    from agentworld_plugins.backends.tiny_model import tiny_qwen3

    return tiny_qwen3(
        folder,
        corpus=[WORDS] * 4,
        hidden_size=256,
        intermediate_size=512,
        layers=4,
        head_dim=64,
        max_positions=4096,
        silence=("<eos>", "<|im_end|>"),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model folder or hub id (default: a tiny random model built here)")
    parser.add_argument(
        "--device", default=None, help="cuda (default when available), cuda:1, or cpu for a dry run"
    )
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--runs", type=int, default=3, help="timed generations for tokens/s")
    args = parser.parse_args()

    import torch

    from agentworld_plugins.backends import Sampling
    from agentworld_plugins.backends.transformers_local import TransformersBackend

    if args.device != "cpu" and not torch.cuda.is_available():
        print(
            "gpu_check: no CUDA device (torch.cuda.is_available() is False; "
            f"torch {torch.__version__}, CUDA build {torch.version.cuda}). Run it on a machine with an "
            "NVIDIA GPU and a CUDA build of torch, or pass --device cpu for a dry run.",
            file=sys.stderr,
        )
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    results: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.version.cuda}
    failures: list[str] = []

    def check(name: str, ok: bool, detail: str) -> None:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        results[name] = {"ok": ok, "detail": detail}
        if not ok:
            failures.append(name)

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or str(tiny_model(Path(tmp) / "tiny-qwen3"))
        messages = [{"role": "user", "content": "the world model predicts the next observation"}]
        cuda = args.device != "cpu"
        if cuda:
            torch.cuda.synchronize()
            baseline = torch.cuda.memory_allocated()
        backend = TransformersBackend(model, device=args.device)
        first = backend.complete(messages, Sampling(temperature=0.0, max_tokens=8))
        described = backend.describe()
        wanted = "cuda" if cuda else "cpu"
        check("device", f"device={wanted}" in described, described)
        if cuda:
            results["gpu"] = torch.cuda.get_device_name()
            loaded = torch.cuda.memory_allocated()
            check(
                "weights_on_gpu",
                loaded > baseline,
                f"{(loaded - baseline) / 2**20:.1f} MiB allocated by the model",
            )

        seeded = Sampling(temperature=1.0, max_tokens=32, seed=1234)
        a = backend.complete(messages, seeded).text
        b = backend.complete(messages, seeded).text
        c = backend.complete(messages, seeded.model_copy(update={"seed": 99})).text
        check("seeded_sampling", a == b, "same seed, same text" if a == b else f"{a!r} != {b!r}")
        check(
            "seeds_differ", a != c, "another seed, another text" if a != c else "two seeds gave the same text"
        )

        timed = Sampling(temperature=1.0, max_tokens=args.max_tokens, seed=7)
        tokens = seconds = 0.0
        for _ in range(args.runs):
            started = time.perf_counter()
            completion = backend.complete(messages, timed)
            if cuda:
                torch.cuda.synchronize()
            seconds += time.perf_counter() - started
            tokens += (completion.usage or {}).get("completion_tokens", args.max_tokens)
        results["tokens_per_s"] = round(tokens / seconds, 1)
        print(
            f"INFO tokens/s: {tokens / seconds:.1f} ({int(tokens)} tokens in {seconds:.2f}s, first answer {first.text[:30]!r})"
        )

        backend.close()
        if cuda:
            torch.cuda.synchronize()
            after = torch.cuda.memory_allocated()
            check(
                "memory_released",
                after <= baseline + 2**20,
                f"{(after - baseline) / 2**20:.1f} MiB left after close",
            )
    print(json.dumps(results))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
