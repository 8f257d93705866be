"""git merge (and the commit that concludes one) compared with the host's git: fast-forwards,
true merges with their commit ids, conflicts with git's markers and messages, the state a
conflict leaves (``git status``, ``MERGE_HEAD``, ``MERGE_MSG``), ``--abort``; and what is not
simulated says so."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from git_lines import IDENTITY, TEN_LINE_REPO

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.vcs.git.merge3 import merge_lines

#: the fixed identity and clock (git_lines.py), a repository with a ten-line file and b.txt
FIXED = TEN_LINE_REPO

#: a branch ``feat`` whose commit changes two (to 2) and adds c.txt, master's commit changing two
#: to TWO: a conflict in a.txt
CONFLICT = (
    "git checkout -qb feat && sed -i 's/two/2/' a.txt && echo c > c.txt && git add c.txt && git commit -qam two2"
    " && git checkout -q master && sed -i 's/two/TWO/' a.txt && git commit -qam two && "
)

SAME_AS_GIT = [
    # fast-forward, then nothing left to merge
    "git checkout -qb feat && echo c > c.txt && git add c.txt && git commit -qm addc && git checkout -q master &&"
    " git merge feat; echo rc=$?; git merge feat; echo rc=$?; git log --oneline; cat .git/ORIG_HEAD",
    # a true merge: git's message, the merge commit (its id, two parents), the diffstat
    "git checkout -qb feat && echo c > c.txt && git add c.txt && git commit -qm addc && git checkout -q master &&"
    " sed -i 's/two/TWO/' a.txt && git commit -qam two && git merge feat; echo rc=$?;"
    " git log --format='%H %P %s' -2; git cat-file -p HEAD",
    # both sides changed one file in places apart: merged line by line
    "git checkout -qb feat && sed -i 's/nine/NINE/' a.txt && git commit -qam nine && git checkout -q master &&"
    " sed -i 's/two/TWO/' a.txt && git commit -qam two && git merge feat; echo rc=$?; cat a.txt;"
    " git log --format='%h %p %s'",
    # a conflict: the markers, git status, the state files, commit refused until resolved
    CONFLICT + "git merge feat; echo rc=$?; cat a.txt; git status; git status --short; cat .git/MERGE_MSG;"
    " cat .git/MERGE_HEAD; git commit --no-edit; echo rc=$?; git merge feat; echo rc=$?;"
    " git add a.txt && git status && git commit --no-edit && git log --format='%s|%P' -1 && git status --short",
    CONFLICT
    + "git merge -q feat; echo rc=$?; sed -i '/^[<=>]/d' a.txt && git commit -am 'resolved' && git status",
    # --abort puts HEAD's files back; without a merge it is refused
    CONFLICT
    + "git merge feat; git merge --abort; echo rc=$?; git status --short; git merge --abort; echo rc=$?;"
    " head -3 a.txt; ls .git | grep MERGE; echo done",
    # default messages: into another branch, a commit id; -m, -q
    "git checkout -qb feat && echo c > c.txt && git add c.txt && git commit -qm addc && git checkout -qb dev master &&"
    " echo d > d.txt && git add d.txt && git commit -qm d && git merge -q feat; git log -1 --format=%B;"
    " git merge nope; echo rc=$?; git reset -q --hard HEAD~1; git merge --no-ff -m 'my msg' feat;"
    " git log -1 --format=%B; git reset -q --hard HEAD~1; git merge $(git rev-parse feat) >/dev/null;"
    " git log -1 --format=%B",
    # what a merge would overwrite: untracked files, local changes
    "git checkout -qb feat && echo c > c.txt && git add c.txt && git commit -qm addc && git checkout -q master &&"
    " echo dirty > c.txt; git merge feat; echo rc=$?; rm c.txt; echo x >> b.txt; git merge feat; echo rc=$?;"
    " git merge --no-ff feat; echo rc=$?",
    "git checkout -qb feat && echo y > b.txt && git commit -qam by && git checkout -q master && echo dirty >> b.txt;"
    " git merge feat; echo rc=$?; git checkout -q b.txt; sed -i 's/one/1/' a.txt; git commit -qam one;"
    " echo dirty >> b.txt; git merge feat; echo rc=$?; git status --short",
    # a conflict beside a deletion; --ff-only, a merge of nothing
    "git checkout -qb feat && echo y > b.txt && git commit -qam by && git rm -q a.txt && git commit -qm rma &&"
    " git checkout -q master && echo x > b.txt && git commit -qam bx && git merge feat; echo rc=$?;"
    " git status --short; cat b.txt",
    "git checkout -qb feat && echo y > b.txt && git commit -qam by && git checkout -q master && sed -i 's/one/1/' a.txt"
    " && git commit -qam one && git merge --ff-only feat; echo rc=$?; git merge; echo rc=$?;"
    " git merge --no-ff -q feat; echo rc=$?; git log --format='%h %p %s'",
    # conflicts narrowed to the lines that differ; changes that touch conflict; add/add
    "git checkout -qb feat && sed -i 's/three/3/; s/four/4/' a.txt && git commit -qam f && git checkout -q master &&"
    " sed -i 's/three/3/; s/five/5/' a.txt && git commit -qam m && git merge feat; echo rc=$?; cat a.txt",
    "git checkout -qb feat && sed -i 's/ten/10/' a.txt && echo 11 >> a.txt && git commit -qam f &&"
    " git checkout -q master && echo eleven >> a.txt && git commit -qam m && git merge feat; echo rc=$?; cat a.txt",
    "git checkout -qb feat && echo n1 > n.txt && git add n.txt && git commit -qm f && git checkout -q master &&"
    " echo n2 > n.txt && git add n.txt && git commit -qm m && git merge feat; echo rc=$?; cat n.txt;"
    " git status --short; git status",
    # the same change on both sides merges cleanly
    "git checkout -qb feat && sed -i 's/two/2/; s/ten/10/' a.txt && git commit -qam f && git checkout -q master &&"
    " sed -i 's/two/2/' a.txt && git commit -qam m && git merge feat && cat a.txt",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_git_merge_matches_the_host_git(
    command: str, same_as_bash: Callable[[str], None], vm: VirtualMachine
) -> None:
    vm.run("mkdir -p /work && cd /work")
    same_as_bash(FIXED + "{ " + command + "; }")


def test_what_merge_does_not_simulate_says_so(vm: VirtualMachine) -> None:
    vm.run(
        "git init -q /r && cd /r && git config user.name A && git config user.email a@x && echo a > a &&"
        " git add a && git commit -qm a && git branch feat"
    )
    for line in (
        "git merge -s octopus feat",
        "git merge --squash feat",
        "git merge a b",
        "git merge -X ours feat",
    ):
        r = vm.run(line)
        assert r.unknown_effect and r.exit_code == 126, line
    # during a conflict git diff shows a combined diff, which is not simulated
    vm.run(
        "git checkout -qb side && echo b > a && git commit -qam b && git checkout -q master && echo c > a &&"
        " git commit -qam c && git merge side"
    )
    assert vm.run("git diff").unknown_effect


def test_the_line_merge_takes_each_side_once_and_marks_what_clashes() -> None:
    base = "".join(f"{n}\n" for n in range(1, 10))
    ours, theirs = base.replace("2\n", "two\n"), base.replace("8\n", "eight\n")
    assert merge_lines(base, ours, theirs, "HEAD", "x") == (
        base.replace("2\n", "two\n").replace("8\n", "eight\n"),
        0,
    )
    text, conflicts = merge_lines(base, ours, base.replace("2\n", "TWO\n"), "HEAD", "x")
    assert conflicts == 1 and text.startswith("1\n<<<<<<< HEAD\ntwo\n=======\nTWO\n>>>>>>> x\n3\n")
    # a side without a final newline still gets whole marker lines
    text, conflicts = merge_lines("a\n", "b", "c", "HEAD", "x")
    assert (text, conflicts) == ("<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> x\n", 1)


#: the lines random files are made of: code-like, indented, blank, repeated (where diffs can choose)
_LINES = ["a", "b", "  x", "    y", "", "}", "{", "def f():", "  return 1"]


def _edited(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        kind = rng.random()
        if kind < 0.4 and out:
            out[min(at, len(out) - 1)] = rng.choice(_LINES) + "\n"
        elif kind < 0.7:
            out[at:at] = [rng.choice(_LINES) + "\n" for _ in range(rng.randint(1, 3))]
        else:
            del out[at : at + rng.randint(1, 3)]
    return out


def test_the_line_merge_is_the_host_gits_on_random_edits(
    real_bash: Callable[[str], tuple[str, int]], tmp_path: Path
) -> None:
    """200 files, each edited at random on two branches, merged by one ``git merge`` of the host:
    every merged text (clean or with conflicts) is what :func:`merge_lines` gives. Git diffs each
    side with the histogram algorithm, narrows each conflict to the lines that differ, and joins
    conflicts at most three lines apart (the gnu or Myers diffs agreed on ~95 % only)."""
    rng = random.Random(7)
    cases = {}
    for side in ("repo", "ours", "theirs"):
        (tmp_path / side).mkdir()
    for n in range(200):
        base = [rng.choice(_LINES) + "\n" for _ in range(rng.randint(3, 15))]
        cases[f"f{n:03}"] = texts = ["".join(base), "".join(_edited(rng, base)), "".join(_edited(rng, base))]
        for side, text in zip(("repo", "ours", "theirs"), texts):
            (tmp_path / side / f"f{n:03}").write_text(text)
    out, _ = real_bash(
        IDENTITY + "cd repo && git init -q -b main && git add . && git commit -qm base && git checkout -qb t"
        " && cp ../theirs/* . && git commit -qam t && git checkout -q main && cp ../ours/* . &&"
        " git commit -qam o && git merge -q t >/dev/null; git ls-files -u | wc -l"
    )
    assert int(out) > 30  # conflicts were made (three index lines for each)
    differ = [
        name
        for name, (base, ours, theirs) in cases.items()
        if merge_lines(base, ours, theirs, "HEAD", "t")[0] != (tmp_path / "repo" / name).read_text()
    ]
    assert differ == []


#: cherry-pick and revert: commit ids, kept authors, git's messages, conflicts, --abort, -n
PICKS = [
    "git checkout -qb feat && sed -i 's/nine/NINE/' a.txt && git commit -qam nine && echo c > c.txt && git add c.txt && GIT_AUTHOR_NAME=Zed git commit -qm addc && git checkout -q master && git cherry-pick feat; echo rc=$?; git log -1 --format='%H %an|%cn|%s'; git cherry-pick feat~1; echo rc=$?; tail -2 a.txt; git revert HEAD --no-edit; echo rc=$?; git log -1 --format=%B; git rev-parse HEAD",
    "git checkout -qb feat && sed -i 's/nine/NINE/' a.txt && git commit -qam nine && git checkout -q master && sed -i 's/nine/9/' a.txt && git commit -qam 9 && git cherry-pick feat; echo rc=$?; git status; cat a.txt; cat .git/MERGE_MSG; git add a.txt; git status; git commit --no-edit; git log -1 --format='%an|%s|%P'",
    "sed -i 's/nine/NINE/' a.txt && git commit -qam nine && sed -i 's/NINE/9/' a.txt && git commit -qam 9 && git revert --no-edit HEAD~1; echo rc=$?; git status; tail -6 a.txt; cat .git/MERGE_MSG; git revert --abort; echo rc=$?; git status --short; git log --oneline",
    "sed -i 's/nine/NINE/' a.txt && git commit -qam nine && git revert -n HEAD; echo rc=$?; git status --short; git cherry-pick nope; echo rc=$?",
]


@pytest.mark.parametrize("command", PICKS)
def test_cherry_pick_and_revert_match_the_host_git(
    command: str, same_as_bash: Callable[[str], None], vm: VirtualMachine
) -> None:
    vm.run("mkdir -p /work && cd /work")
    same_as_bash(FIXED + "{ " + command + "; }")
