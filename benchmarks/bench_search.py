"""The offline search world's cost: this tree against a baseline tree, in the same run.

Each round starts, in turn, a fresh Python for this tree and for ``--baseline`` (a checkout put on
``PYTHONPATH``, such as the main worktree), so machine load hits both alike. Each measures the
first index build of the bundled corpus and the median ``web_search`` step over ten queries (factual,
programming and one the corpus does not hold), after one warm-up pass.

    python benchmarks/bench_search.py --baseline /path/to/other/checkout [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, time
from agentworld_plugins.offline.search_world import load_corpus, search_step
QUERIES = ["who wrote Pride and Prejudice", "what does HTTP 404 mean", "git undo last commit",
           "speed of light", "python KeyError", "capital of France", "sourdough starter",
           "chmod 755", "how to tune a ukulele", "when did World War I begin"]
start = time.perf_counter()
corpus, _ = load_corpus({})
build = time.perf_counter() - start
for q in QUERIES:
    search_step({}, "web_search", {"query": q}, {})
passes = []
for _ in range(30):
    start = time.perf_counter()
    for q in QUERIES:
        search_step({}, "web_search", {"query": q}, {})
    passes.append((time.perf_counter() - start) / len(QUERIES))
passes.sort()
print(json.dumps({"step_ms": passes[len(passes) // 2] * 1000, "build_ms": build * 1000,
                  "pages": len(corpus.pages)}))
"""


def _measure(tree: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, cwd="/")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout of the tree to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    runs: dict[str, list[dict[str, float]]] = {"baseline": [], "this tree": []}
    for _ in range(args.rounds):
        runs["baseline"].append(_measure(args.baseline))
        runs["this tree"].append(_measure(here))
    base = statistics.median(r["step_ms"] for r in runs["baseline"])
    base_build = statistics.median(r["build_ms"] for r in runs["baseline"])
    for name, found in runs.items():
        step = statistics.median(r["step_ms"] for r in found)
        build = statistics.median(r["build_ms"] for r in found)
        print(
            f"{name:10} pages {int(found[0]['pages']):4}  step {step:.2f} ms (x{step / base:.2f})  "
            f"first build {build:.0f} ms (x{build / base_build:.2f})"
        )


if __name__ == "__main__":
    main()
