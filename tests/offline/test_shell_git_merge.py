"""git merge (and the commit that concludes one) compared with the host's git: fast-forwards,
true merges with their commit ids, conflicts with git's markers and messages, the state a
conflict leaves (``git status``, ``MERGE_HEAD``, ``MERGE_MSG``), ``--abort``; and what is not
simulated says so."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import TEN_LINES, repo

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.vcs.git.merge3 import merge_lines

#: the fixed identity and clock (git_lines.py), a repository with a ten-line file and b.txt
FIXED = repo(TEN_LINES + " && echo b > b.txt")

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
