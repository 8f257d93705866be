"""git blame compared with the host's git: the columns and options on a fixed history, then
random histories (lines from a small alphabet, so diffs have ties to break; a side branch merged
back) whose every line must be blamed on the commit git blames it on."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from git_lines import IDENTITY, same_as_git_each

from agentworld_plugins.offline.shell import VirtualMachine

#: a commit function with dates a hundred seconds apart, in a new repository
_START = (
    IDENTITY + 't=1700000000; c() { t=$((t+100)); GIT_AUTHOR_DATE="@$t +0100" '
    'GIT_COMMITTER_DATE="@$t +0000" git commit -q "$@"; }; mkdir -p repo && cd repo && git init -q && '
)
FIXED = (
    _START + "printf 'a\\nb\\n' > f && git add f && c -m one && echo c >> f && c -am two && "
    "sed -i 1s/a/A/ f && GIT_AUTHOR_NAME='Somebody Longer' c -am three && "
)

SAME_AS_GIT = [
    "git blame f; git blame -s f; git blame -L 2,3 f; git blame -e f",
    "git blame --porcelain f; git blame --line-porcelain -L 2,3 f; git blame -p -L 3 f",
    "git blame -n -f f; git blame -t f; git blame --date=short f; git blame --date=relative f | cut -c1-9",
    "git blame -L 2,+1 f; git blame -L /b/,+2 f; git blame -L 3,-2 f; git blame -L 2,3 -L 1,1 f; git blame -L 5,6 f; "
    "echo rc=$?; git blame nope; echo rc=$?",
    "git blame -b f; git blame --root f; git blame -l f; git blame --abbrev=4 f",
    "git blame HEAD~1 f; git blame HEAD~2 -- f; git blame nope -- f; echo rc=$?",
    # the work tree: lines not committed yet (their date is now, so cut away)
    "echo new >> f && git blame f | cut -c1-30 && git blame -s f && git blame -p f | grep -c 'Not Committed Yet'",
    "echo x > u && git blame u; echo rc=$?; git add u && git blame -s u; rm f; git blame f; echo rc=$?",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_blame_columns_and_options_match_the_host_git(
    command: str, same_as_bash: Callable[[str], None]
) -> None:
    same_as_bash(FIXED + "{ " + command + "; }")


def _history(rng: random.Random) -> str:
    alphabet = ["a", "b", "}", "", "  x", "c"]
    lines = [rng.choice(alphabet) for _ in range(rng.randint(1, 8))]

    def write(content: list[str]) -> str:
        return f"printf '{''.join(x + chr(92) + 'n' for x in content)}' > f && " if content else ": > f && "

    line = _START + write(lines) + "git add f && c -m c0 && "
    branched = False
    for k in range(1, rng.randint(2, 7)):
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(lines))
            roll = rng.random()
            if roll < 0.4 or not lines:
                lines.insert(at, rng.choice([*alphabet, f"d{k}"]))
            elif roll < 0.7:
                del lines[min(at, len(lines) - 1)]
            else:
                lines[min(at, len(lines) - 1)] = f"e{k}"
        if k == 2 and rng.random() < 0.4:
            line += "git checkout -qb side && "
            branched = True
        line += write(lines) + f"c -am c{k} && "
    if branched:  # master changes too, then the side branch is merged (its text wins a conflict)
        line += (
            "git checkout -q master && echo zz >> f && c -am m1 && { git merge -q side -m merged >/dev/null 2>&1 || { "
            + write([*lines, "zz"])
            + "git add f && c -m merged; }; } && "
        )
    return line + "git blame -s f && git blame --porcelain f"


@pytest.mark.parametrize("seed", range(3))
def test_random_histories_are_blamed_as_git_blames_them(
    seed: int, vm: VirtualMachine, real_bash_err: Callable[[str], tuple[str, str, int]]
) -> None:
    same_as_git_each(_history, seed, vm, real_bash_err)
