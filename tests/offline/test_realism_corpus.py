"""Realism against the host: every line of :mod:`realism_corpus` run by the host's bash (GNU
userland, real git) and by the offline shell, each in a folder holding the same files at the same
absolute path, with the same environment; a line counts as identical when stdout, stderr and the
exit status all are. The figures per category are printed (``-s``) and each category holds its
floor. ``python tests/offline/test_realism_corpus.py`` prints the table for BENCHMARKS.md and,
with ``-v``, every line that differs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from realism_corpus import CORPUS, EXECUTABLE, GIT_ENV, GIT_SETUP, SEED_FILES

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

#: one worker measures the corpus (the module fixture ``results``) for every category
pytestmark = pytest.mark.xdist_group("realism")

#: the share of each category's lines that must be identical; pip is measured, not held (the
#: host's pip answers by its own version and index configuration)
FLOORS = {
    "coreutils": 0.90,
    "text tools": 0.90,
    "git": 0.85,
    "shell syntax": 0.90,
    "python3 -c": 0.90,
    "pip": None,
    "held out (2026-12-02)": None,  # measured (BENCHMARKS.md), not held: not fitted to
}
OVERALL_FLOOR = 0.90
#: the categories the overall figure is held on (the ones with a floor)
HELD = [name for name, floor in FLOORS.items() if floor is not None]

Outcome = tuple[str, str, int]


def _environment(folder: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "LC_ALL": "C.UTF-8",
        "HOME": folder,
        "TMPDIR": folder,
        "USER": "root",
        "LOGNAME": "root",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INDEX": "1",
        **GIT_ENV,
    }


def _line(category: str, command: str) -> str:
    return GIT_SETUP + command if category == "git" else command


def _seed_host(folder: Path) -> None:
    for rel, text in SEED_FILES.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel in EXECUTABLE:
        (folder / rel).chmod(0o755)


def run_host(command: str, folder: Path) -> Outcome:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", command],
        cwd=folder,
        env=_environment(str(folder)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    decode = lambda data: data.decode("utf-8", "surrogateescape")  # noqa: E731
    return decode(done.stdout), decode(done.stderr), done.returncode


def run_offline(command: str, folder: Path) -> Outcome:
    vm = VirtualMachine(cwd=str(folder), env=_environment(str(folder)), interactive=False)
    vm.limits = StepLimits(seconds=60, memory_mb=256)
    for rel, text in SEED_FILES.items():
        path = f"{folder}/{rel}"
        vm.fs.mkdir(path.rsplit("/", 1)[0], parents=True)
        vm.fs.write(path, text)
    for rel in EXECUTABLE:
        vm.fs.chmod(f"{folder}/{rel}", 0o755)
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


def measure(root: Path) -> dict[str, list[tuple[str, Outcome, Outcome]]]:
    """``{category: [(command, host outcome, offline outcome)]}``."""
    results: dict[str, list[tuple[str, Outcome, Outcome]]] = {}
    n = 0
    for category, commands in CORPUS.items():
        rows = results.setdefault(category, [])
        for command in commands:
            n += 1
            folder = root / f"case{n:03d}"
            folder.mkdir()
            _seed_host(folder)
            line = _line(category, command)
            host = run_host(line, folder)
            shutil.rmtree(folder)
            folder.mkdir()
            rows.append((command, host, run_offline(line, folder)))
    return results


def figures(results: dict[str, list[tuple[str, Outcome, Outcome]]]) -> dict[str, tuple[int, int]]:
    return {cat: (sum(1 for _, h, o in rows if h == o), len(rows)) for cat, rows in results.items()}


def table(results: dict[str, list[tuple[str, Outcome, Outcome]]]) -> str:
    counts = figures(results)
    lines = ["| category | identical | share | floor |", "|---|---|---|---|"]
    for cat, (same, total) in counts.items():
        floor = FLOORS[cat]
        lines.append(
            f"| {cat} | {same}/{total} | {same / total:.1%} | {'-' if floor is None else f'{floor:.0%}'} |"
        )
    same = sum(counts[c][0] for c in counts)
    total = sum(counts[c][1] for c in counts)
    held_same = sum(counts[c][0] for c in HELD)
    held_total = sum(counts[c][1] for c in HELD)
    lines.append(f"| **all** | {same}/{total} | {same / total:.1%} | |")
    lines.append(f"| **all but python3 -c and pip** | {held_same}/{held_total} | {held_same / held_total:.1%} | "
                 f"{OVERALL_FLOOR:.0%} |")  # fmt: skip
    return "\n".join(lines)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, Outcome, Outcome]]]:
    bash = shutil.which("bash", path="/usr/bin:/bin")
    if (
        bash is None
        or shutil.which("git", path="/usr/bin:/bin") is None
        or not sys.platform.startswith("linux")
    ):
        pytest.skip("no bash, GNU userland and git on this machine to compare with")
    return measure(tmp_path_factory.mktemp("realism"))


def test_the_corpus_is_large_and_every_line_is_unique() -> None:
    lines = [(cat, cmd) for cat, cmds in CORPUS.items() for cmd in cmds]
    assert len(lines) >= 300
    assert len(set(lines)) == len(lines)
    assert set(CORPUS) == set(FLOORS)


@pytest.mark.parametrize("category", list(FLOORS))
def test_each_category_holds_its_floor(
    category: str, results: dict[str, list[tuple[str, Outcome, Outcome]]], capsys: pytest.CaptureFixture[str]
) -> None:
    same, total = figures(results)[category]
    with capsys.disabled():
        print(f"\nrealism {category}: {same}/{total} identical ({same / total:.1%})")
    floor = FLOORS[category]
    if floor is None:  # measured and reported only
        assert total > 0
        return
    differing = [cmd for cmd, h, o in results[category] if h != o]
    assert same / total >= floor, f"{category}: {same}/{total}; differing: {differing}"


def test_the_corpus_is_ninety_percent_identical_overall(
    results: dict[str, list[tuple[str, Outcome, Outcome]]], capsys: pytest.CaptureFixture[str]
) -> None:
    counts = figures(results)
    same = sum(counts[c][0] for c in HELD)
    total = sum(counts[c][1] for c in HELD)
    with capsys.disabled():
        print("\n" + table(results))
    assert same / total >= OVERALL_FLOOR


def _main() -> None:
    verbose = "-v" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        results = measure(Path(os.path.realpath(tmp)))
    if verbose:
        for cat, rows in results.items():
            for cmd, host, mine in rows:
                if host != mine:
                    print(f"[{cat}] {cmd}\n  host:    {host!r}\n  offline: {mine!r}")
    print(table(results))


if __name__ == "__main__":
    _main()
