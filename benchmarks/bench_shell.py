"""Per-command wall time of the bash shim against starting Python, in the same run.

Each round runs, one after the other (interleaved, so load on the machine hits both alike):

* ``bash -c true`` through the shim (offline world, helper process already running): the
  process start, the request, one ``run_shell_command`` step with the session stored in SQLite;
* ``python3 -I -c pass`` with this interpreter (the baseline: isolated mode, no ``site``, as
  cheap as a Python start gets; target: the shim within 1.3x);
* the real ``/bin/bash -c true``, for scale.

Then a few rounds with ``AGENTWORLD_SHIM_DAEMON=0`` (the shim serving itself in-process, which
imports the whole simulation every time), and one-off costs: the helper's start.

    python benchmarks/bench_shell.py [--rounds 200] [--inprocess-rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentworld_plugins.adapters.shell.daemon import stop
from agentworld_plugins.adapters.shell.shim import install


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--inprocess-rounds", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        install(str(root / "bin"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
        env.update(
            PATH=f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            AGENTWORLD_HOME=str(root / "home"),
            AGENTWORLD_SESSION="bench",
        )
        shim = str(root / "bin" / "bash")
        real_bash = shutil.which("bash", path="/usr/bin:/bin") or "/bin/bash"
        try:
            helper_start = timed([shim, "-c", "true"], env)  # starts the helper
            for _ in range(10):
                timed([shim, "-c", "true"], env)
            shim_times, python_times, bash_times = [], [], []
            for _ in range(args.rounds):
                shim_times.append(timed([shim, "-c", "true"], env))
                python_times.append(timed([sys.executable, "-I", "-c", "pass"], env))
                bash_times.append(timed([real_bash, "-c", "true"], env))
            local_env = {**env, "AGENTWORLD_SHIM_DAEMON": "0"}
            local_times = [timed([shim, "-c", "true"], local_env) for _ in range(args.inprocess_rounds)]
        finally:
            stop(str(root / "home"))

    shim_ms = statistics.median(shim_times) * 1000
    python_ms = statistics.median(python_times) * 1000
    bash_ms = statistics.median(bash_times) * 1000
    print(f"{args.rounds} interleaved rounds; session 'bench' grew to {args.rounds + 11} stored turns\n")
    print("| | median per command |")
    print("|---|---|")
    print(f"| `python3 -I -c pass` (baseline) | {python_ms:.1f} ms |")
    print(f"| `bash -c true` through the shim | {shim_ms:.1f} ms |")
    print(f"| real `/bin/bash -c true` | {bash_ms:.1f} ms |")
    print(f"| **shim / python3** | **{shim_ms / python_ms:.2f}** (target < 1.3) |")
    if local_times:
        print(
            f"| shim in-process (`AGENTWORLD_SHIM_DAEMON=0`) | {statistics.median(local_times) * 1000:.0f} ms |"
        )
    print(f"\nOne-off: the first call, which starts the helper process, took {helper_start:.2f} s.")


if __name__ == "__main__":
    main()
