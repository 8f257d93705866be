"""diff chooses GNU diff's edit script among the shortest ones: random files (seeded, so the same
cases each run) compared line for line with the host's diff, normal and unified."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.gnu_diff import gnu_hunks
from agentworld_plugins.offline.shell.limits import StepLimits


def _pair(rng: random.Random, longest: int) -> tuple[str, str]:
    alphabet = rng.choice(["ab", "abc", "abcde", "abcdefghij"])
    a = [rng.choice(alphabet) + "\n" for _ in range(rng.randint(0, longest))]
    if rng.random() < 0.5:
        b = list(a)
        for _ in range(rng.randint(1, max(1, longest // 4))):
            roll = rng.random()
            if roll < 0.4 and b:
                b.pop(rng.randrange(len(b)))
            elif roll < 0.8:
                b.insert(rng.randint(0, len(b)), rng.choice(alphabet) + "\n")
            elif b:
                b[rng.randrange(len(b))] = rng.choice(alphabet) + "\n"
    else:
        b = [rng.choice(alphabet) + "\n" for _ in range(rng.randint(0, longest))]
    return "".join(a), "".join(b)


@pytest.mark.parametrize("seed,longest,cases", [(1, 14, 120), (2, 40, 60), (3, 300, 12)])
def test_diff_prints_what_gnu_diff_prints(seed: int, longest: int, cases: int, tmp_path: Path) -> None:
    diff = shutil.which("diff", path="/usr/bin:/bin")
    if diff is None:
        pytest.skip("no GNU diff on this machine to compare with")
    rng = random.Random(seed)
    for _ in range(cases):
        a, b = _pair(rng, longest)
        (tmp_path / "a").write_text(a)
        (tmp_path / "b").write_text(b)
        vm = VirtualMachine(interactive=False)
        vm.fs.write("/app/a", a)
        vm.fs.write("/app/b", b)
        for flags in ([], ["-u"]):
            host = subprocess.run([diff, *flags, "a", "b"], cwd=tmp_path, capture_output=True, text=True)
            mine = vm.run(" ".join(["diff", *flags, "a", "b"]))
            skip = 2 if flags else 0  # the --- / +++ lines carry the files' times
            assert mine.stdout.split("\n")[skip:] == host.stdout.split("\n")[skip:], (a, b, flags)
            assert mine.exit_code == host.returncode


def test_hunks_are_a_shortest_edit_script() -> None:
    a = ["5\n", "3\n", "10\n", "1\n", "7\n", "3\n"]
    b = sorted(a)
    assert gnu_hunks(a, b) == [(0, 3, 0, 0), (4, 5, 1, 3), (6, 6, 4, 6)]  # GNU's 1,3d0 / 5c2,3 / 6a5,6
    assert gnu_hunks(a, a) == [] and gnu_hunks([], b) == [(0, 0, 0, 6)]


def test_a_huge_diff_is_bounded_by_the_step_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=1, memory_mb=256)
    vm.run("seq 0 2 40000 > a; seq 1 2 40000 > b; seq 0 3 40000 >> a; seq 0 5 40000 >> b")
    r = vm.run("diff a b | wc -l")  # about 30,000 lines, no two files alike: D is in the thousands
    assert (r.stdout, r.exit_code) == ("", 152) and "CPU time limit exceeded" in r.stderr
    assert vm.run("echo still").stdout == "still\n"
