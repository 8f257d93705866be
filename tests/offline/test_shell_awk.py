"""awk in the offline shell: POSIX programs compared with the host's awk (the lines below are ones
every POSIX awk answers alike), mawk's rules where awks differ, and the budgets; mawk's own
behaviour is compared in ``test_shell_mawk.py``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

DATA = "printf 'alice 30 paris\\nbob 25 london\\ncarol 35 paris\\ndave 40 berlin\\n' > d.txt; "
CSV = "printf 'id,name,score\\n1,ann,90\\n2,ben,85\\n3,cat,77\\n' > c.csv; "
NUMS = "printf '3\\n1\\n2\\n10\\n5\\n' > n.txt; "

SAME_AS_AWK = [
    DATA + "awk '{print $1}' d.txt",
    DATA + "awk '{print $2, $1}' d.txt",
    CSV + "awk -F, '{print $2}' c.csv",
    CSV + "awk -F, 'NR>1 {s+=$3} END {print s}' c.csv",
    DATA + "awk 'NR==2' d.txt",
    DATA + "awk '/paris/' d.txt",
    DATA + "awk '$2 > 28 {print $1}' d.txt",
    DATA + "awk '{print NF, $NF}' d.txt",
    DATA + "awk 'END {print NR}' d.txt",
    DATA + "awk '{c[$3]++} END {for (k in c) print k, c[k]}' d.txt | sort",
    'awk \'BEGIN {printf "%5.2f|%-5s|%03d|%x|%o|%e|%c\\n", 3.14159, "ab", 7, 255, 8, 12345.678, 65}\'',
    'awk \'BEGIN {x = "abc"; print length(x), substr(x, 2), index(x, "c"), toupper(x), tolower("QR")}\'',
    DATA + "awk '{sub(/a/, \"A\"); print}' d.txt",
    DATA + "awk '{gsub(/a/, \"[&]\"); print}' d.txt",
    'awk \'BEGIN {n = split("a:b:c", arr, ":"); print n, arr[1], arr[3]}\'',
    "awk -v x=5 'BEGIN {print x * 2}'",
    "awk 'BEGIN {print 1/3, 2^10, 7%3, int(-3.7), -2^2, 2^3^2, 1 - -1}'",
    DATA + "awk '{$2 = $2 * 2; print}' d.txt",
    DATA + "awk 'BEGIN {OFS=\"-\"} {$1 = $1; print}' d.txt",
    NUMS + "awk 'NR % 2 == 0' n.txt",
    NUMS + 'awk \'{if ($1 > 4) print "big", $1; else print "small", $1}\' n.txt',
    "awk 'BEGIN {while (i < 3) {print i; i++}; do {j++} while (j < 5); print j}'",
    'awk \'BEGIN {for (i = 0; i < 3; i++) printf "%d ", i; print ""}\'',
    'awk \'function f(a, b) {return a * b} function g(arr) {arr["k"] = 1} BEGIN {print f(3, 4); g(m); print m["k"]}\'',
    NUMS + "awk '{s = s $1} END {print s}' n.txt",
    "printf 'x\\ny\\nx\\nz\\nx\\n' | awk '!seen[$0]++'",
    "awk 'BEGIN {if (match(\"foobar\", /ob/)) print RSTART, RLENGTH}'",
    "echo 'a b c' | awk '{$5 = \"e\"; print; print NF}'",
    "echo 'a b c d' | awk '{NF = 2; print}'",
    "printf 'x\\ny\\n' | awk '{print NR \": \" $0}'",
    "awk 'BEGIN {\"echo hello\" | getline v; print v}'",
    NUMS + "awk 'BEGIN {while ((getline line < \"n.txt\") > 0) s += line; print s}'",
    DATA + "awk '/bob/,/dave/ {print $1}' d.txt",
    'awk \'BEGIN {x["a"] = 1; delete x["a"]; if (!("a" in x)) print "gone"}\'',
    NUMS
    + 'awk \'{print > "o.txt"} END {close("o.txt"); while ((getline l < "o.txt") > 0) print "got", l}\' n.txt',
    "awk 'BEGIN {print 1e6, 0.1 + 0.2, 3.0, 17 / 4}'",
    "awk 'BEGIN {a = \"10\"; b = 9; print (a < b)}'",
    "echo '10 9' | awk '{print ($1 < $2)}'",
    'awk \'BEGIN {system("echo hi"); print "after"}\'',
    NUMS + "awk '{print | \"sort -n\"}' n.txt",
    'awk \'BEGIN {s = "a.b.c"; gsub(/\\./, "-", s); print s}\'',
    'awk \'BEGIN {s = "aaa"; n = gsub(/x*/, "-", s); print n, s}\'',
    NUMS + "awk '{print $1 > \"/dev/stderr\"}' n.txt",
    "awk 'BEGIN {exit 3} END {print \"end\"}'; echo $?",
    NUMS + "awk '{exit} END {print NR}' n.txt",
    NUMS + "awk 'BEGIN {getline; print \"first:\", $0}' n.txt",
    'printf \'a b\\nc\\n\\nd e\\n\' | awk \'BEGIN {RS = ""} {print NR ": " $1 "/" NF}\'',
    "printf 'a,b;c,d;' | awk 'BEGIN {RS = \";\"; FS = \",\"} {print $2}'",
    'awk \'BEGIN {print index("abc", ""), substr("hello", 2, 100), length()}\' < /dev/null',
    NUMS + "awk '{print; next; print \"never\"}' n.txt",
    "awk 'BEGIN {x = 1; x += 2; x *= 3; x -= 1; x /= 2; x ^= 2; x %= 5; print x}'",
    "awk 'BEGIN {a[1, 2] = 3; for (k in a) {split(k, p, SUBSEP); print p[1], p[2]}}'",
    DATA + "awk '{printf \"%-10s%5d\\n\", $1, $2}' d.txt",
    'awk \'BEGIN {printf "%*d|%-*d|%.3s|\\n", 5, 42, 4, 7, "abcdef"}\'',
    NUMS + "awk '{n[NR] = $0} END {for (i = NR; i > 0; i--) print n[i]}' n.txt",
    "echo '  lead  trail  ' | awk '{print \"[\" $1 \"]\" NF}'",
    "echo 'a:b::c' | awk -F: '{print NF, $3, $4}'",
    "printf 'a\\tb c\\td\\n' | awk -F'\\t' '{print $2}'",
    "echo 'a1b22c333' | awk -F'[0-9]+' '{print $3, NF}'",
    DATA + 'awk \'BEGIN {ORS = ";"} {print $1} END {printf "\\n"}\' d.txt',
    DATA + "awk '$3 ~ /^p/ {print $1} $3 !~ /^p/ {print \"-\" $1}' d.txt",
    'awk \'BEGIN {print (1 == 1.0), ("a" < "b"), ("abc" ~ "b"), 10 % 3, -10 % 3}\'',
    "awk 'BEGIN {print sqrt(16), exp(0), log(1), sin(0), cos(0), atan2(0, 1)}'",
    NUMS + "awk 'FNR == 1 {print FILENAME}' n.txt n.txt",
    "awk 'BEGIN {print ARGC, ARGV[1]}' hello",
    NUMS + "awk '{s += $1} END {print s}' n.txt x=1 n.txt",
    "FOO=bar awk 'BEGIN {print ENVIRON[\"FOO\"]}'",
    'awk \'BEGIN {CONVFMT = "%.2g"; x = 3.14159; y = x ""; print y; OFMT = "%.1f"; print x}\'',
    'awk \'BEGIN {printf "%d %d\\n", "3abc", " 12 "}\'',
    "awk 'BEGIN {print length(12345), substr(12345, 2, 3)}'",
    "awk 'BEGIN {x = \"A\"; y = x x x; print y, y ~ /^A+$/}'",
    "awk 'BEGIN {n = split(\"  a  b  \", w); print n, w[1], w[2]}'",
    'awk \'BEGIN {s = "hello world"; sub(/o/, "\\\\&", s); print s}\'',
    "awk -f /dev/null; echo $?",
]


@pytest.mark.parametrize("command", SAME_AS_AWK)
def test_awk_answers_as_the_host_awk(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


@pytest.fixture
def awk() -> Callable[[str], tuple[str, str, int]]:
    vm = VirtualMachine(interactive=False)

    def run(command: str) -> tuple[str, str, int]:
        r = vm.run(command)
        return r.stdout, r.stderr, r.exit_code

    return run


def test_awk_is_bounded_by_the_step_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.5, memory_mb=64)
    for program in ("BEGIN {while (1) ;}", "BEGIN {for (;;) n++}", "BEGIN {while (1) a[i++] = i}"):
        r = vm.run(f"awk '{program}'")
        assert (r.exit_code, r.stderr) == (
            152,
            "bash: CPU time limit exceeded (the offline step budget is 0.5 s of work)\n",
        )
    vm.limits = StepLimits(seconds=5, memory_mb=64)  # the memory budget ends this one first
    r = vm.run("awk 'BEGIN {s = \"x\"; while (1) s = s s}'")
    assert r.exit_code == 2 and "xmalloc: cannot allocate" in r.stderr
    r = vm.run("awk 'function f(n) {return f(n + 1)} BEGIN {f(1)}'")
    assert r.exit_code == 2 and "called too deeply" in r.stderr
    assert vm.run("echo ok").stdout == "ok\n"  # the machine stays usable


def test_awk_reads_a_pipe_only_as_far_as_it_needs() -> None:
    vm = VirtualMachine(interactive=False)
    r = vm.run("yes | awk 'NR > 3 {exit} {print NR}'")
    assert (r.stdout, r.exit_code) == ("1\n2\n3\n", 0)
    r = vm.run("seq 5 | awk '{print $1 * 2}' | tail -1")
    assert r.stdout == "10\n"
