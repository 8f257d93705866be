"""git apply compared with the host's git: the same command lines give the same stdout, stderr
and status (git's own diffs, ``diff -u``'s, renames, modes, offsets, failures, options)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import TEN_LINE_REPO

from agentworld_plugins.offline.shell import VirtualMachine

#: the fixed identity and clock (git_lines.py), a repository with a ten-line file and b.txt
FIXED = TEN_LINE_REPO

RENAME = (
    "printf 'diff --git a/a.txt b/d/c.txt\\nsimilarity index 90%%\\nrename from a.txt\\nrename to d/c.txt\\n"
    "index 1111111..2222222 100644\\n--- a/a.txt\\n+++ b/d/c.txt\\n@@ -1,3 +1,3 @@\\n one\\n-two\\n+TWO\\n three\\n'"
    " > ../p.patch"
)

SAME_AS_GIT = [
    # git's own diff, applied, checked, reported and reversed
    "sed -i 's/four/FOUR/' a.txt && git diff > ../p.patch && git checkout -q a.txt && git apply --check ../p.patch;"
    " echo rc=$?; git apply --stat ../p.patch; git apply --numstat ../p.patch; git apply --summary ../p.patch;"
    " git apply -v ../p.patch; git apply ../p.patch; echo rc=$?; git apply -R -v ../p.patch; cat a.txt",
    # an added line ending in a blank: git's warning (and none with --whitespace=nowarn or --check)
    "sed -i 's/four/FOUR /' a.txt && git diff > ../p.patch && git checkout -q a.txt && git apply ../p.patch;"
    " echo rc=$?; git checkout -q a.txt; git apply --whitespace=nowarn ../p.patch; echo rc=$?;"
    " git checkout -q a.txt; git apply --check ../p.patch; echo rc=$?",
    # nothing to apply, garbage, a missing patch file
    "echo | git apply; echo rc=$?; printf 'garbage\\n' | git apply; echo rc=$?; git apply nope.patch; echo rc=$?;"
    " git apply --allow-empty </dev/null; echo rc=$?",
    # hunks found some lines away from where the patch says
    "sed -i 's/two/TWO/; s/nine/NINE/' a.txt && git diff > ../p.patch && git checkout -q a.txt &&"
    " printf 'zero\\nzero2\\n' | cat - a.txt > t && mv t a.txt && git apply -v ../p.patch; echo rc=$?; cat a.txt",
    # context that no longer matches: nothing is applied
    "sed -i 's/five/FIVE/' a.txt && git diff > ../p.patch && git checkout -q a.txt && sed -i 's/six/SIX/' a.txt &&"
    " git apply ../p.patch; echo rc=$?; git apply -v ../p.patch; echo rc=$?; git diff --stat",
    "sed -i 's/one/ONE/' a.txt && echo bb >> b.txt && git diff > ../p.patch && git checkout -q . && echo zz > b.txt"
    " && git apply ../p.patch; echo rc=$?; head -1 a.txt; git apply --check -v ../p.patch; echo rc=$?",
    "sed -i 's/ten/TEN/' a.txt && echo eleven >> a.txt && git diff > ../p.patch && git checkout -q a.txt &&"
    " echo more >> a.txt && git apply ../p.patch; echo rc=$?",
    # diff -u output: the strip level guessed as git guesses it, or given with -p
    "cp a.txt a.orig && sed -i 's/one/ONE/' a.txt && diff -u a.orig a.txt > ../p.patch; cp a.orig a.txt;"
    " git apply ../p.patch; echo rc=$?; git apply -p0 ../p.patch; echo rc=$?; cat a.txt",
    "mkdir -p x && cp a.txt x/a.txt && cp a.txt x/a.new && sed -i 's/one/ONE/' x/a.new &&"
    " diff -u x/a.txt x/a.new > ../p.patch; git apply ../p.patch; echo rc=$?; git apply -R ../p.patch; echo rc=$?",
    "mkdir -p x && cp a.txt x/a.txt && cp a.txt x/a.new && sed -i 's/one/ONE/' x/a.new &&"
    " diff -u x/a.txt x/a.new | sed 's,x/a.new,y/a.txt,' > ../p.patch; cd x && git apply -p1 ../../p.patch;"
    " echo rc=$?; cd .. && git apply ../p.patch; echo rc=$?; git status --short",
    # --cached and --index
    "sed -i 's/one/ONE/' a.txt && git add a.txt && git diff --cached > ../p.patch && git reset -q --hard &&"
    " git apply --cached ../p.patch && git status --short && git diff --cached --stat && git reset -q --hard &&"
    " echo junk >> a.txt && git apply --index ../p.patch; echo rc=$?; git checkout -q a.txt;"
    " git apply --index ../p.patch && git status --short",
    # no newline at the end of a file, on either side
    "printf 'x' > nonl && git add nonl && git commit -qm nonl && printf 'y' > nonl && git diff > ../p.patch &&"
    " git checkout -q nonl && git apply ../p.patch && od -c nonl && printf 'x\\n' > nonl && git diff > ../p2.patch"
    " && git checkout -q nonl && git apply ../p2.patch && od -c nonl",
    # deleted and new files
    "git rm -q b.txt && git diff --cached > ../p.patch && git reset -q --hard && git apply ../p.patch && ls &&"
    " git apply -R ../p.patch && cat b.txt && git apply -R ../p.patch; echo rc=$?",
    "printf 'diff --git a/b.txt b/b.txt\\nnew file mode 100644\\n--- /dev/null\\n+++ b/b.txt\\n@@ -0,0 +1 @@\\n+b\\n'"
    " > ../n.patch; git apply --index ../n.patch; echo rc=$?; rm b.txt; git apply --index ../n.patch; echo rc=$?;"
    " git apply ../n.patch; echo rc=$?; git rm -q --cached b.txt; git apply ../n.patch; echo rc=$?; git status --short",
    # a rename with a mode change and no hunk; a rename with a hunk
    "printf 'diff --git a/a.txt b/c.txt\\nold mode 100644\\nnew mode 100755\\nsimilarity index 100%%\\n"
    "rename from a.txt\\nrename to c.txt\\n' > ../p.patch && git apply --stat --summary ../p.patch &&"
    " git apply --numstat ../p.patch && git apply -v ../p.patch && ls -l | cut -c1-10,40- ; git apply -R ../p.patch && ls",
    RENAME + " && git apply --stat --summary ../p.patch && git apply ../p.patch && ls d && head -3 d/c.txt",
    # git diff --no-index of two files, in a repository and outside one; the hunk's function line
    "printf 'a\\nb\\nc\\n' > x && printf 'a\\nB\\nc\\n' > y && git diff --no-index x y; echo rc=$?;"
    " git diff --no-index x x; echo rc=$?; git diff --no-index x nope; echo rc=$?; cd .. &&"
    " git diff --no-index repo/x repo/y; echo rc=$?; sed 's/seven/7/' repo/a.txt > b && git diff --no-index repo/a.txt b",
    # a truncated hunk, a hunk with a stray line
    "printf 'diff --git a/a.txt b/a.txt\\n--- a/a.txt\\n+++ b/a.txt\\n@@ -1,3 +1,3 @@\\n one\\n-two\\n+TWO\\n' |"
    " git apply; echo rc=$?; printf 'diff --git a/a.txt b/a.txt\\n--- a/a.txt\\n+++ b/a.txt\\n@@ -1,3 +1,3 @@\\n"
    " one\\n-two\\n+TWO\\nxthree\\n' | git apply; echo rc=$?; cat a.txt | head -2",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_git_apply_matches_the_host_git(
    command: str, same_as_bash: Callable[[str], None], vm: VirtualMachine
) -> None:
    vm.run("mkdir -p /work && cd /work")
    same_as_bash(FIXED + "{ " + command + "; }")


def test_options_git_apply_does_not_simulate_say_so(vm: VirtualMachine) -> None:
    vm.run("git init -q /r && cd /r && echo a > a && git add a")
    r = vm.run("git apply --3way p.patch")
    assert r.unknown_effect and r.exit_code == 126
    r = vm.run("git apply --reject -C1 p.patch")
    assert r.unknown_effect and r.exit_code == 126
