"""Redaction's cost against a linear baseline, and its growth when the input doubles (same run).

For each hostile shape (runs the old URL pattern rescanned from every position) the text is
redacted at 40, 80 and 160 KB; the baseline is ``str.lower`` plus one ``re.sub`` of a trivial
pattern over the same text, which is linear. Printed: milliseconds, the ratio against the
baseline, and the growth per doubling (2.0 is linear, 4.0 quadratic).

    python benchmarks/bench_redaction.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

from agentworld_plugins.redaction import redact_text

SHAPES = {
    "a.a.a.": "a.",
    "sk-sk-": "sk-",
    "a://a://": "a://",
    "password=": "password=",
    '"token": "': '"token": "',
    "prose": "the agent lists files and reads the password hint ",
}
_TRIVIAL = re.compile(r"\d")


def _best(fn, text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - start)
    return min(times)


def _baseline(text: str) -> str:
    return _TRIVIAL.sub("", text.lower())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| shape | 80 KB | / baseline | growth 40->80 KB | growth 80->160 KB |")
    print("|---|---|---|---|---|")
    for name, unit in SHAPES.items():
        sizes = [40_000, 80_000, 160_000]
        texts = [unit * (size // len(unit)) for size in sizes]
        took = [_best(redact_text, text, args.repeat) for text in texts]
        base = statistics.median(_best(_baseline, texts[1], args.repeat) for _ in range(3))
        print(
            f"| `{name}` | {took[1] * 1000:.1f} ms | {took[1] / base:.1f} | "
            f"{took[1] / took[0]:.2f} | {took[2] / took[1]:.2f} |"
        )


if __name__ == "__main__":
    main()
