"""GNU patch in the offline shell, compared with the host's GNU patch 2.7.6."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

#: a diff of ``a`` (seq 1 10) with line 5 changed, with a header free of timestamps
FIVE = "seq 1 10 > a; seq 1 10 | sed 's/5/five/' > b; { printf -- '--- a\\n+++ a\\n'; diff -u a b | tail -n +3; } > d; "
FORTY = (
    "seq 1 40 > c; seq 1 40 | sed 's/^5$/five\\nfive2\\nfive3/; s/^30$/thirty/' > c3; "
    "{ printf -- '--- c\\n+++ c\\n'; diff -u c c3 | tail -n +3; } > dc; "
)
HUNK = "printf -- '--- a\\n+++ a\\n@@ -2,7 +2,7 @@\\n 2\\n 3\\n 4\\n-5\\n+V\\n 6\\n 7\\n 8\\n' > d; seq 1 20 > a; "

APPLYING = [
    FIVE + "patch < d; echo rc=$?; cat a",
    FIVE + "patch a < d; echo rc=$?; cat a; patch --dry-run a d; echo $?",
    FIVE + "patch -s < d; echo rc=$?; patch -R < d; cat a",
    FIVE + "patch -o out < d; echo rc=$?; cat out a; patch -o - a d",
    FIVE + "patch -b < d; cat a.orig; ls",
    FIVE + "patch --dry-run < d; cat a",
    "mkdir x; seq 1 10 > x/a; seq 1 10 | sed 's/5/five/' > b; printf -- '--- x/a\\n+++ x/a\\n' > d; "
    "diff -u x/a b | tail -n +3 >> d; patch -p0 -i d; echo rc=$?; cat x/a",
    "mkdir -p src; seq 1 10 > src/m.c; seq 1 10 | sed 's/7/seven/' > m2; "
    "printf 'diff --git a/src/m.c b/src/m.c\\nindex 111..222 100644\\n--- a/src/m.c\\n+++ b/src/m.c\\n' > g; "
    "diff -u src/m.c m2 | tail -n +3 >> g; patch -p1 < g; echo $?; cat src/m.c",
    "seq 1 10 > a; seq 1 10 > b; seq 1 10 | sed 's/3/x/' > a2; seq 1 10 | sed 's/8/y/' > b2; "
    "{ echo '--- a'; echo '+++ a'; diff -u a a2 | tail -n +3; echo '--- b'; echo '+++ b'; diff -u b b2 | tail -n +3; } > d; "
    "patch < d; echo $?; cat a b",
    "printf -- '--- /dev/null\\n+++ b/new\\n@@ -0,0 +1,2 @@\\n+x\\n+y\\n' > d; patch -p1 < d; cat new; patch -p1 < d; echo rc=$?; ls",
    "mkdir sub; printf -- '--- /dev/null\\n+++ b/new\\n@@ -0,0 +1,2 @@\\n+x\\n+y\\n' > sub/dd; patch -d sub -p1 -i dd; echo $?; ls sub",
    "seq 1 3 > a; printf -- '--- a\\n+++ /dev/null\\n@@ -1,3 +0,0 @@\\n-1\\n-2\\n-3\\n' > d; patch --dry-run < d; ls; patch < d; ls",
    "seq 1 3 > a; printf -- '--- a\\n+++ a\\n@@ -1,3 +0,0 @@\\n-1\\n-2\\n-3\\n' > d; patch < d; echo rc=$?; ls; patch -E -R < d; cat a",
    "printf '1\\n2\\n3\\n4\\n5' > a; printf '1\\n2\\n3\\n4\\n55' > b; { printf -- '--- a\\n+++ a\\n'; diff -u a b | tail -n +3; } > d; "
    "patch < d; echo rc=$?; od -c a",
    "seq 1 10 > a; printf 'Index: a\\n===\\n--- a.orig\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; patch -p0 < d; cat a",
    "seq 1 10 > a; seq 1 10 | sed 's/4/four/; 7d' > b; diff a b > d; cat d; patch a < d; echo $?; cat a",
    "seq 1 10 > a; printf -- '*** a\\n--- a\\n***************\\n*** 3,5 ****\\n  3\\n! 4\\n  5\\n--- 3,5 ----\\n  3\\n! four\\n  5\\n' > d; "
    "patch < d; echo $?; cat a",
]

OFFSETS = [
    FORTY + "(echo x; echo y; echo z; seq 1 40) > c; patch < dc; echo rc=$?; cat c",
    HUNK + "sed -i 's/^2$/two/;s/^8$/eight/' a; patch < d; echo $?; cat a",
    HUNK + "sed -i 's/^2$/two/;s/^3$/three/;s/^8$/eight/' a; patch < d; echo $?; cat a",
    HUNK + "sed -i 's/^2$/two/;s/^3$/three/;s/^8$/eight/' a; patch -F3 < d; echo $?; cat a",
    HUNK + "sed -i '1,3d' a; patch < d; echo $?; cat a",
    HUNK + "sed -i '1i\\\\\\nq\\nr' a; sed -i 's/^8$/eight/' a; patch < d; cat a",
    "seq 1 20 > a; printf -- '--- a\\n+++ a\\n@@ -1,4 +1,4 @@\\n-1\\n+one\\n 2\\n 3\\n 4\\n' > d; sed -i '1i\\\\\\n0' a; patch < d; echo $?; head -3 a",
    "seq 1 20 > a; printf -- '--- a\\n+++ a\\n@@ -17,4 +17,4 @@\\n 17\\n 18\\n 19\\n-20\\n+XX\\n' > d; echo 21 >> a; patch < d; echo $?; tail -3 a",
    "seq 1 20 > a; printf -- '--- a\\n+++ a\\n@@ -10,3 +10,3 @@\\n 10\\n-11\\n+XI\\n 12\\n' > d; sed -i '1,2d' a; "
    "sed -i '1i\\\\\\n10\\n11\\n12' a; patch < d; echo $?; grep -n XI a",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n' > d; patch < d; echo $?",
]

MORE = [
    "seq 1 40 > c; seq 1 40 | sed 's/^5$/five/; s/^30$/thirty/' > c3; "
    "{ printf -- '--- c\\n+++ c\\n'; diff -u c c3 | tail -n +3; } > dc; (echo x; seq 1 40) > c; patch < dc; ls",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -3,2 +3,2 @@\\n-2\\n+one\\n 3\\n' > d; "
    "patch --no-backup-if-mismatch < d; ls",
    "mkdir -p p q; seq 1 5 > p/f; seq 1 6 > q/g; printf 'diff --git a/p/f b/p/f\\nindex 1..2 100644\\n--- a/p/f\\n"
    "+++ b/p/f\\n@@ -1,3 +1,3 @@\\n 1\\n-2\\n+two\\n 3\\ndiff --git a/q/g b/q/g\\ndeleted file mode 100644\\n"
    "index 1..0\\n--- a/q/g\\n+++ /dev/null\\n@@ -1,6 +0,0 @@\\n-1\\n-2\\n-3\\n-4\\n-5\\n-6\\n"
    "diff --git a/n/h b/n/h\\nnew file mode 100644\\nindex 0..1\\n--- /dev/null\\n+++ b/n/h\\n@@ -0,0 +1 @@\\n+hello\\n' > g; "
    "patch -p1 < g; echo $?; ls -R p q n; cat n/h p/f; patch -p1 -R < g; echo $?; ls q; cat q/g",
    "printf 'a\\nb' > f; printf 'a\\nb\\n' > f2; { printf -- '--- f\\n+++ f\\n'; diff -u f f2 | tail -n +3; } > d; "
    "cat d; patch < d; od -c f; patch -R < d; od -c f",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; "
    "patch -N -R < d; echo $?; patch -f -R < d; echo $?; patch -R -t < d; echo $?; cat a",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; patch --quiet < d; "
    "echo $?; patch --silent --reverse < d; echo $?; patch --forward --dry-run < d; echo $?",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; "
    "patch --strip=0 --input=d --backup; ls a*; patch -p0 -r rej.txt < d; cat rej.txt",
    "seq 1 100 > a; printf -- '--- a\\n+++ a\\n@@ -80,3 +80,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; patch < d; sed -n 1,4p a",
]

FAILURES = [
    FIVE + "patch < d; patch < d; echo rc=$?; cat a.rej; cat a",
    FIVE + "patch < d; patch -N < d; echo rc=$?; cat a.rej",
    FIVE + "patch < d; patch -t < d; echo rc=$?; cat a",
    FIVE + "patch < d; patch -f < d; echo rc=$?; cat a.rej",
    FIVE + "patch < d; patch --dry-run -N < d; echo rc=$?; ls",
    FORTY + "(echo x; echo y; echo z; seq 1 40) | sed 's/^30$/XX/' > c; patch < dc; echo rc=$?; cat c.rej",
    FORTY + "(echo x; echo y; echo z; seq 1 40) | sed 's/^27$/XX/;s/^4$/yy/' > c; patch < dc; cat c.rej; "
    "patch -s -F3 -R < dc; echo rc=$?",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,2 +2,2 @@\\n-2\\n+one\\n 3\\n@@ -6,2 +6,2 @@\\n-X\\n+one\\n 7\\n' > d; "
    "patch --dry-run < d; echo $?; patch -o o < d; ls; cat o.rej",
    "printf '1\\n2\\n3\\n4\\n5' > a; printf '1\\n2\\n3\\n4\\n55' > b; { printf -- '--- a\\n+++ a\\n'; diff -u a b | tail -n +3; } > d; "
    "printf '1\\n2\\n3\\n4\\n5\\n' > a; patch < d; echo rc=$?; od -c a.rej",
    "seq 1 10 > a; printf 'some text\\n--- x/y/a\\n+++ x/y/b\\n@@ -2,2 +2,2 @@\\n-2\\n+3\\n 3\\n' > d; "
    "patch -p5 < d; echo rc=$?; patch -p2 < d; echo rc=$?; patch -s -p3 < d",
    "printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\n 4\\n' > d; patch < d; echo $?; patch -s < d; echo $?",
    "seq 1 10 > a; printf -- '--- a\\n+++ a\\n@@ -2,3 +2,3 @@\\n 2\\n-3\\n+three\\nzz\\n' > d; patch < d; echo $?; cat a",
    "echo garbage | patch; echo $?",
    "patch < /dev/null; echo $?",
    "patch -Q; echo $?",
    "patch --foo < /dev/null; echo $?",
    "patch -p < /dev/null; echo $?",
    "patch -F x < /dev/null; echo $?",
    "patch -i nonexist; echo $?",
    "patch -d nodir < /dev/null; echo $?",
    "touch d; patch a d extra; echo $?",
]


@pytest.mark.parametrize("command", APPLYING + OFFSETS + MORE + FAILURES)
def test_patch_answers_as_gnu_patch(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash("mkdir w && cd w && " + command)


def test_patch_of_a_huge_file_ends_with_the_budget_error() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=5, memory_mb=256)
    r = vm.run(
        "seq 3000000 > a; printf -- '--- a\\n+++ a\\n@@ -1,3 +1,3 @@\\n x\\n-y\\n+z\\n w\\n' > d; patch < d"
    )
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr
    r = vm.run(
        "seq 1000 > b; printf -- '--- b\\n+++ b\\n@@ -1,3 +1,3 @@\\n x\\n-y\\n+z\\n w\\n' > d; patch < d; echo $?"
    )
    assert r.stdout.endswith("1\n")
