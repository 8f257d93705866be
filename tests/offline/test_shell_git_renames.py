"""Rename detection in git's diffs, stats, name lists, commit summaries and status, compared
with the host's git: exact renames, renames with edits (git's similarity estimate and its 50%
threshold), ``-M<n>``, ``--no-renames``, ``diff.renames=false``, and random sets of files moved
and edited."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from git_lines import repo, same_as_git_each

from agentworld_plugins.offline.shell import VirtualMachine

_START = repo("mkdir -p src/old && seq 1 20 > src/old/a.py && seq 5 > c && printf 'x\\ny\\n' > src/k")

SAME_AS_GIT = [
    "git mv c d && git diff --cached --stat && git diff --cached --name-status && git diff --cached && "
    "git commit -m mv && git show --stat --format=%s && git log --name-status --format=%s -1 && "
    "git diff HEAD~1 --name-only && git log --oneline --stat -1",
    "git rm -q src/old/a.py && mkdir -p src/new && (seq 1 18; echo x; echo y) > src/new/a.py && git add src && "
    "git diff --cached --stat && git diff --cached --numstat && git diff --cached && git status && git status -s && "
    "git commit -m moved && git diff HEAD~1 --name-status -M90% && git diff HEAD~1 -M80 --name-status && "
    "git diff HEAD~1 --no-renames --name-status && git -c diff.renames=false diff HEAD~1 --stat && "
    "git diff HEAD~1 --find-renames=95% --name-status",
    "git rm -q c && seq 100 130 > e && git add e && git diff --cached --name-status && git diff --cached -M --stat",
    "git mv src/k src/k2 && git mv c src/old/c && chmod +x src/old/c && git add -A && git diff --cached && "
    "git commit -m two | tail -4",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_renames_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(_START + "{ " + command + "; }")


def test_copies_breaks_and_word_diffs_are_not_guessed(vm: VirtualMachine) -> None:
    vm.run(_START + "true")
    for command in (
        "git diff -C HEAD",
        "git log -B --stat",
        "git -c diff.renames=copies diff HEAD",
        "echo x >> c && git diff --word-diff",
        "git diff --color-words HEAD",
    ):
        assert vm.run(command).unknown_effect, command


def _moves(rng: random.Random) -> str:
    """Files of random lines committed, then some removed and written again elsewhere, edited a little."""

    def write(path: str, lines: list[str]) -> str:
        folder = path.rsplit("/", 1)[0] if "/" in path else "."
        return f"mkdir -p {folder} && printf '{''.join(x + chr(92) + 'n' for x in lines)}' > {path}"

    files = {
        f"d{k % 2}/f{k}.txt": [
            rng.choice(["alpha", "beta", "gamma line", "x" * rng.randint(1, 80), "}", ""])
            for _ in range(rng.randint(0, 12))
        ]
        for k in range(rng.randint(1, 4))
    }
    line = repo(" && ".join(write(path, lines) for path, lines in files.items()))
    moves = []
    for path, lines in files.items():
        if rng.random() < 0.7:
            target = rng.choice(
                [f"d{rng.randint(0, 2)}/g{rng.randint(0, 9)}.txt", f"h{rng.randint(0, 5)}.txt"]
            )
            edited = list(lines)
            for _ in range(rng.randint(0, 4)):
                if edited and rng.random() < 0.5:
                    edited[rng.randrange(len(edited))] = f"changed{rng.randint(0, 9)}"
                else:
                    edited.insert(rng.randint(0, len(edited)), f"new{rng.randint(0, 9)}")
            moves.append(f"git rm -q {path} && {write(target, edited)} && git add {target}")
    moves = moves or ["true"]
    return (
        line
        + " && ".join(moves)
        + (
            " ; git diff --cached --name-status; git diff --cached --stat; git diff --cached --numstat; git diff --cached; "
            "git commit -qm x && git show --stat --format= HEAD && git diff HEAD~1 -M90% --name-status"
        )
    )


@pytest.mark.parametrize("seed", range(3))
def test_random_moves_are_found_as_git_finds_them(
    seed: int, vm: VirtualMachine, real_bash_err: Callable[[str], tuple[str, str, int]]
) -> None:
    same_as_git_each(_moves, seed, vm, real_bash_err)
