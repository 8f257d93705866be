"""``-U<n>`` / ``--unified=<n>`` in git diff, diff --cached, diff TARGET, show, log -p and stash
show, with the output formats it combines with (``--stat``, ``--name-only``, ``-s``), compared
with the host's git: the same command lines, the same stdout, stderr and status (the dates and
identities are fixed, so the commit ids are the same too)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from git_lines import repo

from agentworld_plugins.offline.shell import VirtualMachine

#: a repository of three files, one commit: functions (for the hunk headers' function lines),
#: thirty numbered lines, and a file whose last line has no newline
FIXED = repo(
    "printf 'def f():\\n    a = 1\\n    b = 2\\n    return a\\n\\n\\ndef g():\\n    c = 3\\n    return c\\n' > m.py && "
    "seq 1 30 > n.txt && printf 'one\\ntwo\\nlast' > t.txt"
)
#: changes 8 lines apart, then 3 apart, then 2 apart: -U1 splits the first pair, -U2 merges the
#: second, -U1 merges the last (context that touches is one hunk)
SPREAD = "sed -i '4s/$/!/;12s/$/!/;16s/$/!/;19s/$/!/' n.txt && "

SAME_AS_GIT = [
    # pure insertions and deletions: git's ``-N,0`` / ``+N,0`` ranges, a one-line count omitted
    "printf 'def f():\\n    z = 0\\n' > x && tail -n +2 m.py >> x && mv x m.py && git diff -U0",
    "sed -i '5d;12s/.*/twelve/' n.txt && git diff --unified=0",
    "sed -i '1i zero' n.txt && sed -i '$a end' n.txt && git diff -U0 && git diff -U1",
    "sed -i '1d;$d' n.txt && git diff -U0 && git diff --unified=2",
    "sed -i '7,9d' m.py && git diff -U0 && git diff -U1",
    "{ head -1 m.py; echo '    a = b = 0'; tail -n +4 m.py; } > x && mv x m.py && git diff -U0",
    # where hunks merge, and a context larger than the file
    SPREAD + "git diff -U0 && git diff -U1 && git diff -U2",
    SPREAD + "git diff -U3 && git diff -U4 && git diff -U100",
    SPREAD + "git diff -U && git diff --unified && git diff -U00 && git diff -U+1 && git diff --unified=",
    "sed -i '5s/$/ # f/' m.py && git diff -U20 && git diff -U0",
    # the last line without a newline
    "printf 'one\\ntwo\\nLAST' > t.txt && git diff -U0 && git diff -U1",
    "printf 'one\\nTWO\\nlast' > t.txt && git diff -U0 && git diff -U1",
    "printf 'one\\ntwo\\nlast\\n' > t.txt && git diff -U0",
    # the index, a commit, paths
    "sed -i '3s/2/22/' m.py && git add m.py && sed -i '10s/0/X/' n.txt && git diff -U0 --cached && "
    "git diff --cached -U1 && git diff -U0 HEAD && git diff --unified=1 HEAD -- n.txt",
    "echo new > new.txt && git add new.txt && git rm -q t.txt && git diff --cached -U0 && git diff HEAD -U1",
    SPREAD + "git commit -qam second && git diff -U0 HEAD~1 && git diff -U1 HEAD~1 HEAD -- n.txt",
    # show and log
    SPREAD
    + "git commit -qam second && git show -U0 && git show --unified=1 --format=%s && git show -U2 HEAD~1",
    SPREAD + "git commit -qam second && git log -p -U0 && git log -U1 --oneline && git log --format= -U0",
    SPREAD + "git commit -qam second && git log --stat -U0 -1 && git log -1 --stat -p --format=%s && "
    "git log -1 --stat --format=%s",
    SPREAD + "git commit -qam second && git show --stat -p && git show --oneline --stat -U0 && "
    "git show --format= --stat -p && git show --stat",
    SPREAD + "git commit -qam second && git show -s -U0 && git show -U0 -s && git show -U0 --no-patch && "
    "git show --name-only -U0 && git show --oneline --name-status -U1",
    # the formats -U combines with in git diff
    SPREAD
    + "git diff --stat -U0 && git diff -U0 --stat && git diff -U0 --name-only && git diff --name-status -U1",
    # values git refuses, and a value as its own word (a revision to git)
    "git diff -Ux; echo rc=$?; git diff -U5x; echo rc=$?; git diff -U 0; echo rc=$?; git diff --unified 1; echo rc=$?",
    "git show -Uz; echo rc=$?; git log -p --unified=one; echo rc=$?",
    # stash show
    SPREAD + "git stash -q && git stash show -U0 && git stash show -p -U1 && git stash show --stat -p && "
    "git stash show",
]


@pytest.mark.parametrize("command", SAME_AS_GIT)
def test_context_lines_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(FIXED + "{ " + command + "; }")


def test_a_negative_context_is_noted_as_not_simulated(vm: VirtualMachine) -> None:
    """git prints malformed hunk headers (``@@ -6,1- +6,1- @@``) for ``-U-1``; the offline git
    shows no context and notes the line as one it did not simulate."""
    vm.run(FIXED + "sed -i '5s/.*/five/' n.txt")
    r = vm.run("git diff -U-1")
    assert r.unknown_effect
    assert "@@ -5 +5 @@\n-5\n+five\n" in r.stdout
