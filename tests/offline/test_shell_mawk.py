"""awk is mawk 1.3.4, Ubuntu's and Debian's default awk: compared with the host's mawk where the
host's (Debian 12's 20200120) and Ubuntu 24.04's (20240123) answer alike, and checked against
20240123's answers (built from its source by hand) where they differ."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.interpreters.awk.arrays import MawkArray

#: ``for (k in a)`` walks mawk's hash table: string lists by FNV-1a, integer lists by value, the
#: move-to-front of every lookup, the split array, doubling past 12 keys a slot
LOOP_ORDER = [
    "printf 'b\\na\\nc\\nzz\\nq\\n' | awk '{c[$1]++} END {for (k in c) print k, c[k]}'",
    'awk \'BEGIN {for (i = 1; i <= 20; i++) a[i] = i; for (k in a) printf "%s ", k; print ""}\'',
    'awk \'BEGIN {a["x"]; a["y"]; a["apple"]; a["10"]; a["2"]; for (k in a) print k}\'',
    "awk 'BEGIN {for (i = 1; i <= 2000; i++) a[i] = i; for (k in a) printf \"%s \", k}' | md5sum",
    'awk \'BEGIN {for (i = 1; i <= 2000; i++) a["k" i] = i; for (k in a) printf "%s ", k}\' | md5sum',
    'awk \'BEGIN {for (i = 1; i <= 3000; i++) {a["k" (i % 700)]++; b[i % 900]++}'
    ' for (k in a) printf "%s ", k; for (k in b) printf "%s ", k}\' | md5sum',
    'awk \'BEGIN {split("a b c d e f g h i j k l m n o p", p); for (k in p) printf "%s ", k}\'',
    'awk \'BEGIN {split("a b c d e", p); p[9] = 1; for (k in p) printf "%s ", k}\'',
    'awk \'BEGIN {split("a b c d e", p); delete p[2]; for (k in p) printf "%s ", k}\'',
    'awk \'BEGIN {split("a b c d e", p); if ("3" in p) print "in"; for (k in p) printf "%s ", k}\'',
    'seq 1 200 | awk \'{a[$1] = 1; b[NR] = 1} END {for (k in a) printf "%s ", k;'
    ' for (k in b) printf "%s ", k}\' | md5sum',
    "seq 1 50 | awk '{a[$1 % 7]++; a[$1 % 5]++} END {for (k in a) print k, a[k]}'",
    "printf 'x y\\ny z\\nx z\\n' | awk '{a[$1, $2] = 1} END {for (k in a) {split(k, p, SUBSEP); print p[1], p[2]}}'",
    "awk 'BEGIN {a[1]; a[2]; a[3]; for (k in a) {print k; delete a}; print length(a)}'",
    'awk \'BEGIN {a[10]; a[9]; for (k in a) if (k < 9) print "lt", k; else print "ge", k}\'',
    "awk 'BEGIN {a[0.5]; a[1e20]; a[-3]; for (k in a) print k}'",
    'WHINY_USERS=1 awk \'BEGIN {a["b"]; a["a"]; a["c"]; for (k in a) print k}\'',
    "awk 'BEGIN {for (i = 0; i < 100; i++) a[i]; for (i = 0; i < 100; i += 3) delete a[i];"
    ' for (i = 0; i < 50; i++) if (i in a) x++; a["z"]; for (k in a) printf "%s ", k; print x}\'',
    "printf 'GET /a\\nPOST /b\\nGET /c\\nGET /a\\nDELETE /a\\n' | awk '{m[$1]++; p[$2]++}"
    " END {for (k in m) print k, m[k]; for (k in p) print k, p[k]}'",
    'awk \'function f(arr, k) {for (k in arr) printf "%s ", k; print ""}'
    ' BEGIN {x["one"]; x["two"]; x["three"]; f(x)}\'',
]


@pytest.mark.parametrize("command", LOOP_ORDER)
def test_for_in_visits_keys_in_mawks_order(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_big_whole_numbers_are_integer_subscripts() -> None:
    # 20240123's integers are 64 bits (the host's 20200120 writes 2^40 by CONVFMT: 1.09951e+12)
    r = VirtualMachine(interactive=False).run("awk 'BEGIN {a[2^40]; a[2^70]; for (k in a) print k}'")
    assert r.stdout == "1099511627776\n1.18059e+21\n"


def test_the_order_follows_lookups_not_insertion() -> None:
    arr = MawkArray()
    for key in ("al", "be", "aw"):  # FNV-1a puts al and be in slot 0 of 64, aw in slot 1
        arr.find(key, True)
    assert arr.loop_keys() == ["be", "al", "aw"]  # the newest first in a slot
    arr.find("al", False)  # a lookup moves the key to the front of its list
    assert arr.loop_keys() == ["al", "be", "aw"]
    arr.remove("al")
    assert sorted(arr) == ["aw", "be"] and arr.loop_keys() == ["be", "aw"]
