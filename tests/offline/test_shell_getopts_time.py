"""``getopts`` and the ``time`` keyword, against the host's bash, and ``time``'s virtual clock.

Each script runs in a fresh folder at the same path on both sides. ``time``'s figures on the host
are its real clock, so those comparisons replace every digit with ``N`` on both sides (the
format, the lines, the order of the output and the statuses are compared, not the times); what
the offline clock says is asserted exactly below, where the host cannot show it.
"""

from __future__ import annotations

import re
import shutil

import pytest
from host_bash import both

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.timed import TimeFormatError, format_times

GETOPTS = [
    'while getopts ab:c o -a -b x -c -- y; do echo "o=$o A=${OPTARG-unset} I=$OPTIND"; done; echo "end o=$o A=${OPTARG-unset} I=$OPTIND"',
    'set -- -ab -cfoo -x z; while getopts ab:c: o; do echo "o=$o A=${OPTARG-unset} I=$OPTIND"; done; echo "rc=$? o=$o I=$OPTIND"',
    'set -- -ab -cfoo -x z; while getopts :ab:c: o; do echo "o=$o A=${OPTARG-unset} I=$OPTIND"; done; echo "rc=$? o=$o I=$OPTIND"',
    'getopts ab: o -b; echo "rc=$? o=$o A=${OPTARG-unset} I=$OPTIND"',
    'getopts :ab: o -b; echo "rc=$? o=$o A=${OPTARG-unset} I=$OPTIND"',
    'OPTERR=0; getopts ab: o -b; echo "rc=$? o=$o A=${OPTARG-unset} I=$OPTIND"; getopts a o -z; echo "rc=$? o=$o"',
    "getopts; echo $?; getopts a; echo $?",
    "getopts a 1x -a; echo $?",
    "getopts a o -a -a; getopts a o -a -a; echo $o $OPTIND; OPTIND=1; getopts a o -z; echo $o $OPTIND",
    "getopts abc o -abc; echo $o $OPTIND; getopts abc o -abc; echo $o $OPTIND; OPTIND=1; getopts abc o -abc; echo $o $OPTIND",
    "getopts abc o -abc; echo $o $OPTIND; OPTIND=$OPTIND; getopts abc o -abc; echo $o $OPTIND",
    'getopts a o x -a; echo "rc=$? o=$o I=$OPTIND"',
    'getopts a o - -a; echo "rc=$? o=$o I=$OPTIND"',
    'getopts a: o -a -- ; echo "rc=$? o=$o A=$OPTARG I=$OPTIND"',
    'getopts a o --; echo "rc=$? o=$o I=$OPTIND"; getopts a o --; echo "rc=$? o=$o I=$OPTIND"',
    "getopts a: o -a ''; echo \"rc=$? o=$o A=[$OPTARG] I=$OPTIND\"",
    "getopts 'a:' o -:; echo \"rc=$? o=$o A=${OPTARG-u}\"; getopts ':a' o -:; echo \"rc=$? o=$o A=${OPTARG-u}\"",
    'f() { local OPTIND; while getopts xy: o "$@"; do echo "$o ${OPTARG-}"; done; shift $((OPTIND-1)); echo "rest: $*"; }; f -x -y 1 a b; f -y2 c',
    "readonly o; getopts a o -a; echo $?",
    'OPTIND=5; getopts a o -a; echo "rc=$? o=$o I=$OPTIND"',
    'OPTIND=0; getopts a o -a; echo "rc=$? o=$o I=$OPTIND"',
    'OPTIND=x; getopts a o -a; echo "rc=$? o=$o I=$OPTIND"',
    'OPTIND=-3; getopts a o -a; echo "rc=$? o=$o I=$OPTIND"',
    'getopts a o -a; unset OPTIND; getopts a o -a; echo "rc=$? o=$o I=$OPTIND"',
    'getopts -a o -a; echo "rc=$? o=$o"; getopts -- a o -a; echo "rc=$? o=$o"',
    'getopts a o -b 2>&1 | cat; set -- ; getopts a o; echo "rc=$? o=$o I=$OPTIND"',
    'OPTARG=zz; getopts ab o -a; echo "A=${OPTARG-unset}"',
    "getopts 'a?' o '-?'; echo \"rc=$? o=$o A=${OPTARG-unset}\"",
    'getopts ab o -ba; echo "$o $OPTIND"; OPTIND=1; getopts ab o -a; echo "$o $OPTIND"',
    "cat > s.sh <<'X'\ngetopts a o -q\necho \"rc=$? o=$o\"\nX\nbash s.sh; bash s.sh 2>&1; chmod +x s.sh; ./s.sh",
    'getopts a: o -a; echo "rc=$? o=$o A=${OPTARG-unset}"; getopts :a: o -a; echo "rc=$? o=$o A=${OPTARG-unset}"',
    'cat > s.sh <<\'X\'\nusage() { echo "usage: $0 [-v] [-n N] file" >&2; exit 2; }\nv=0 n=1\nwhile getopts ":vn:" opt; do\n  case $opt in\n    v) v=1 ;;\n    n) n=$OPTARG ;;\n    :) echo "$0: -$OPTARG needs a value" >&2; exit 2 ;;\n    \\?) echo "$0: bad option -$OPTARG" >&2; usage ;;\n  esac\ndone\nshift $((OPTIND - 1))\necho "v=$v n=$n rest=$*"\nX\nbash s.sh -v -n 3 a b; bash s.sh -vn5 -- -x; bash s.sh -q; echo $?; bash s.sh -n; echo $?; bash s.sh a -v',
    'f() { while getopts "ab:" o; do echo "$o:${OPTARG-}"; done; echo "I=$OPTIND"; }; f -a -b 1; f -a; OPTIND=1; f -b 2 -a',
    "getopts abc o -abc; declare -p OPTIND; OPTIND+=; getopts abc o -abc; echo $o",
    "getopts abc o -abc; x=$OPTIND; getopts abc o -abc; echo $o $x; unset OPTIND; getopts abc o -abc; echo $o",
    'getopts a o -ab; echo "$o $OPTIND"; getopts a o -ab; echo "$o $OPTIND ${OPTARG-u}"; getopts a o -ab; echo "rc=$? $o $OPTIND"',
    'set -- -x -y; getopts xy o; getopts xy o other; echo "$o $OPTIND"',
    "getopts 'ab:' o -b; echo $?; getopts a o; echo \"$? $o $OPTIND\"",
    'OPTERR=0; getopts a o -b; echo "$o"; OPTERR=; getopts a o -c; echo "$o"; OPTERR=abc; getopts a o -d; echo "$o"',
    'OPTIND=2; getopts ab o -a -b; echo "$o $OPTIND"',
    'OPTIND=3abc; getopts ab o -a -b -a; echo "$o $OPTIND"',
    "getopts ab o -a 2>/dev/null; set -x; getopts ab o -b; set +x",
    "getopts ':' o -a; echo \"rc=$? o=$o A=${OPTARG-u}\"",
    "getopts '' o -a; echo \"rc=$? o=$o A=${OPTARG-u}\"",
    "getopts 'a::' o -a; echo \"rc=$? o=$o A=${OPTARG-u}\"; OPTIND=1; getopts 'a::' o -ax; echo \"rc=$? o=$o A=${OPTARG-u}\"",
]
TIMED = [
    "time true",
    "time -p true; echo rc=$?",
    "time false; echo rc=$?",
    "time ! false; echo rc=$?; ! time false; echo rc=$?",
    "time echo hi | tr a-z A-Z",
    "TIMEFORMAT=; time true; TIMEFORMAT=%Z; time true; TIMEFORMAT='x%l'; time true; TIMEFORMAT='%%|x%'; time true",
    "TIMEFORMAT='%3R %2U %1S %0R %lR %2lS %4R %E|%3lE'; time true",
    "{ time echo a; } 2>&1 | od -c",
    "time echo a 2>/dev/null",
    'f() { time "$@"; }; f echo z',
    "time -p -- echo q; time -- echo r; time  -p  ls /nope; echo $?",
    'echo "time x"; echo time; x=time; echo $x; a=1 time=2; echo $time',
    "if time true; then echo y; fi; while time false; do :; done; echo w",
    "time { echo a; echo b; } > out.txt; cat out.txt",
    "time ( exit 3 ); echo rc=$?",
    "set -e; time false; echo no",
    "set -e; time { false; echo x; }; echo after",
    "time { exit 3; }; echo no",
    "time exec echo replaced",
    "echo $(time echo sub 2>&1)",
    "time for i in 1 2; do echo $i; done; time ((1 + 1)); echo $?",
    "time case a in a) echo A;; esac; time [[ -n x ]] && echo k",
    "time for ((i = 0; i < 2; i++)); do echo $i; done",
    "cat > s.sh <<'X'\nTIMEFORMAT=%Q\ntime true\nX\nbash s.sh",
    "TIMEFORMAT=%Z\ntime true\ntime true",
    "type time",
]


def _digits_masked(result: tuple[str, str, int]) -> tuple[str, str, int]:
    out, err, status = result
    return re.sub(r"\d", "N", out), re.sub(r"\d", "N", err), status


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", GETOPTS)
def test_getopts_answers_as_the_hosts_bash(script: str) -> None:
    ours, host = both(script)
    assert ours == host


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", TIMED)
def test_time_reports_as_the_hosts_bash(script: str) -> None:
    ours, host = both(script)
    assert _digits_masked(ours) == _digits_masked(host)


def _run(script: str) -> tuple[str, str, int]:
    result = VirtualMachine(interactive=False).run(script)
    return result.stdout, result.stderr, result.exit_code


def test_time_reports_the_virtual_clock() -> None:
    assert _run("time sleep 2") == ("", "\nreal\t0m2.000s\nuser\t0m0.000s\nsys\t0m0.000s\n", 0)
    assert _run("time -p sleep 1.5") == ("", "real 1.50\nuser 0.00\nsys 0.00\n", 0)
    assert _run("TIMEFORMAT='%R|%U|%P'; time sleep 75.25") == ("", "75.250|0.000|0.00\n", 0)
    assert _run("TIMEFORMAT=%lR; time { sleep 60; sleep 65.5; }")[1] == "2m5.500s\n"


def test_time_counts_the_work_of_its_pipeline_as_user_time() -> None:
    out, err, status = _run("TIMEFORMAT='%3R %3U'; time for i in $(seq 20000); do :; done")
    real, user = err.split()
    assert status == 0 and real == user and float(user) > 0.01
    again = _run("TIMEFORMAT='%3R %3U'; time for i in $(seq 20000); do :; done")
    assert again == (out, err, status)  # the same work gives the same figures, at any load


def test_time_formats_truncate_as_bash_does() -> None:
    assert format_times("%R %1R %0R %lR", 1_999_999, 0, 0) == "1.999 1.9 1 0m1.999s"
    assert format_times("%2lU|%S|%%|%", 0, 125_500_000, 0) == "2m5.50s|0.000|%|%"
    assert format_times("%P", 2_000_000, 500_000, 250_000) == "37.50"
    assert format_times("%P", 0, 0, 0) == "0.00"
    assert format_times("%P", 1_000, 5_000, 0) == "100.00"
    with pytest.raises(TimeFormatError) as bad:
        format_times("%3P", 1, 1, 1)
    assert bad.value.letter == "P"
    with pytest.raises(TimeFormatError) as end:
        format_times("x%l", 1, 1, 1)
    assert end.value.letter == "\0"


def test_getopts_position_inside_a_word_lasts_across_runs_of_a_shell() -> None:
    vm = VirtualMachine(interactive=True)
    vm.run("set -- -ab -c")
    seen = [vm.run('getopts abc o; echo "$o $OPTIND"').stdout for _ in range(4)]
    assert seen == ["a 1\n", "b 2\n", "c 3\n", "? 3\n"]
    assert vm.run('OPTIND=1; getopts abc o; echo "$o $OPTIND"').stdout == "a 1\n"
