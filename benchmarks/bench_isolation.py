"""One session's hostile input against another session's `echo hi`, in one process (as the shell
helper serves its sessions: a thread each), in the same run.

For each hostile input of the shell issue (backtracking regexes, a 100,000-line script, memory
doublings, `yes`, `sort -R` of ten million lines, ...), a thread runs it on one machine while the
main thread times `echo hi` on another; the baseline is `echo hi` with nothing else running.
Target: `echo hi` stays under 50 ms at every percentile reported while any of them runs.

    python benchmarks/bench_isolation.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.vfs import VirtualFS

HOSTILE = {
    "grep (a|aa)+$": "printf 'a%.0s' {1..5000} > /tmp/a; grep -E '^(a|aa)+$' /tmp/a | wc -c",
    "sed (.*a){25}x": "printf 'a%.0s' {1..3000} | sed -E 's/(.*a){25}x/y/' | wc -c",
    "100k-line case": 'for i in $(seq 100000); do echo "  x$i) echo $i;;"; done > /tmp/c; '
    "{ echo 'case z in'; cat /tmp/c; echo esac; } > /tmp/s.sh; bash /tmp/s.sh",
    "x=$x$x doubling": 'x=a; for i in $(seq 40); do x="$x$x"; done; echo ${#x}',
    "yes | head": "yes | head -c 500000000 | wc -c",
    "sort -R 10M": "seq 10000000 | sort -R | head -1",
    "busy loop": "while :; do :; done",
}


def _machine() -> VirtualMachine:
    return VirtualMachine(VirtualFS.from_seed({}, base="/app"), "/app", interactive=False)


def _echo_times(vm: VirtualMachine, rounds: int, stop: threading.Event | None = None) -> list[float]:
    """``echo hi`` timed ``rounds`` times, or (with ``stop``) every 2 ms until it is set, so the
    samples cover the whole hostile run."""
    times = []
    while len(times) < (rounds if stop is None else 100_000):
        started = time.perf_counter()
        vm.run("echo hi")
        times.append(time.perf_counter() - started)
        if stop is not None:
            if stop.is_set():
                break
            time.sleep(0.002)
    return times


def _summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return (
        f"n={len(times):4d} p50 {statistics.median(times) * 1000:7.2f} ms  p95 {p95 * 1000:7.2f} ms  "
        f"max {ordered[-1] * 1000:7.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    quiet = _machine()
    print(f"{'alone':<18} {_summary(_echo_times(quiet, args.rounds))}")
    for name, command in HOSTILE.items():
        busy = _machine()
        stop = threading.Event()
        outcome: dict[str, object] = {}

        def hostile(
            vm: VirtualMachine = busy,
            text: str = command,
            into: dict[str, object] = outcome,
            stop: threading.Event = stop,
        ) -> None:
            started = time.perf_counter()
            result = vm.run(text)
            into["status"], into["seconds"] = result.exit_code, time.perf_counter() - started
            stop.set()

        worker = threading.Thread(target=hostile, daemon=True)
        worker.start()
        time.sleep(0.01)  # let it get going
        times = _echo_times(quiet, args.rounds, stop) if not stop.is_set() else []
        worker.join()
        ran = f"(exit {outcome.get('status')}, {float(outcome.get('seconds', 0.0)):.1f} s)"
        print(f"{name:<18} {_summary(times) if times else 'finished before the first echo'} {ran}")


if __name__ == "__main__":
    main()
