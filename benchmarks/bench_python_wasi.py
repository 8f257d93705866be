"""Start-up cost of the offline shell's WASI python3, against the host's python3, in the same run.

Measured, interleaved round by round so load on the machine hits all alike:

* ``cold``: a new process runs ``python3 -c pass`` in a VirtualMachine with an empty module cache
  (the 26 MB module is compiled by wasmtime, then serialized into the cache);
* ``cached``: the same in a new process with the cache filled (``Module.deserialize_file``);
* ``import``: a new process that only imports the shell and makes a machine (the part of both
  above that is not Python's);
* ``in-process``: one more ``python3 -c pass`` in a process that has run one before;
* ``host``: the host's ``python3 -c pass`` (the baseline).

Ratios are printed against the baseline and against each other; the virtual time a start costs
(its fuel, as work units) is printed too.

    python benchmarks/bench_python_wasi.py [--rounds 5] [--inprocess 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUN = (
    "from agentworld_plugins.offline.shell import VirtualMachine\n"
    "vm = VirtualMachine(interactive=False)\n"
    "r = vm.run('python3 -c pass')\n"
    "assert r.exit_code == 0, r.stderr\n"
)
IMPORT = "from agentworld_plugins.offline.shell import VirtualMachine\nVirtualMachine(interactive=False)\n"


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--inprocess", type=int, default=20)
    args = parser.parse_args()
    host_python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    times: dict[str, list[float]] = {k: [] for k in ("cold", "cached", "import", "host")}
    with tempfile.TemporaryDirectory() as tmp:
        cached_env = {**os.environ, "XDG_CACHE_HOME": os.path.join(tmp, "warm")}
        timed([sys.executable, "-c", RUN], cached_env)  # fills the warm cache
        for i in range(args.rounds):
            cold_env = {**os.environ, "XDG_CACHE_HOME": os.path.join(tmp, f"cold{i}")}
            times["cold"].append(timed([sys.executable, "-c", RUN], cold_env))
            times["cached"].append(timed([sys.executable, "-c", RUN], cached_env))
            times["import"].append(timed([sys.executable, "-c", IMPORT], cached_env))
            times["host"].append(timed([host_python, "-c", "pass"]))
    from agentworld_plugins.offline.shell import VirtualMachine

    vm = VirtualMachine(interactive=False)
    vm.run("python3 -c pass")
    inproc, host = [], []
    for _ in range(args.inprocess):
        started = time.perf_counter()
        vm.run("python3 -c pass")
        inproc.append(time.perf_counter() - started)
        host.append(timed([host_python, "-c", "pass"]))
    med = {k: statistics.median(v) for k, v in times.items()}
    med["in-process"], med["host (interleaved with in-process)"] = (
        statistics.median(inproc),
        statistics.median(host),
    )
    for name, value in med.items():
        print(f"{name:38s} {value * 1000:8.1f} ms")
    print(f"cold / cached (what the module cache saves): {med['cold'] / med['cached']:.1f}x")
    print(f"cached - import (one python3 in a new process): {(med['cached'] - med['import']) * 1000:.0f} ms")
    print(
        f"in-process / host python3 -c pass: {med['in-process'] / med['host (interleaved with in-process)']:.1f}x"
    )
    vm.run("python3 -c pass")
    work = vm._budget.work  # the step's budget, read after it ran
    print(f"work of one python3 -c pass: {work} units = {work / 1e6:.3f} virtual s (fuel / FUEL_PER_UNIT)")


if __name__ == "__main__":
    main()
