"""fold, comm, split, nl, truncate, install, mktemp, nproc, setsid, shuf, column and sort -R, compared
with GNU coreutils / util-linux on the host where their output is deterministic."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits

AB = "printf 'a\\nb\\nc\\ne\\n' > a1; printf 'b\\nc\\nd\\ne\\nf\\n' > b1; "

SAME_AS_GNU = [
    "echo 'the quick brown fox jumps over the lazy dog' | fold -w 10",
    "echo 'the quick brown fox jumps over the lazy dog' | fold -sw 10",
    "printf 'abcdefghij\\tklm\\n' | fold -w 5",
    "printf 'abc\\bdefgh\\n' | fold -w 3",
    "printf 'abcdefgh' | fold -b3",
    "seq 3 | fold -w 1",
    "echo abc | fold -w 0; echo $?",
    AB + "comm a1 b1",
    AB + "comm -12 a1 b1",
    AB + "comm -3 a1 b1",
    AB + "comm -23 a1 b1",
    AB + "comm --output-delimiter=: a1 b1",
    AB + "comm --total a1 b1",
    "printf 'b\\na\\n' > a1; printf 'a\\nb\\n' > b1; comm a1 b1; echo $?",
    "printf 'b\\na\\n' > a1; printf 'a\\nb\\n' > b1; comm --nocheck-order a1 b1; echo $?",
    AB + "comm a1; echo $?",
    AB + "comm a1 nofile; echo $?",
    "seq 10 | split -l 3 && ls x* && cat xab",
    "seq 10 | split -l 4 -d - part_ && ls part_*",
    "printf 'abcdefghij' | split -b 4 && ls x* && cat xac",
    "seq 100 > f && split -n 3 f && wc -l x*",
    "seq 20 > f && split -l 5 -a 3 --additional-suffix=.txt f p_ && ls p_*",
    "seq 100 | split -n 3; echo $?",
    "split nosuch; echo $?",
    "printf 'hello' > f; truncate -s 10 f; wc -c f; od -c f",
    "printf 'hello world' > f; truncate -s 5 f; cat f",
    "printf 'hello' > f; truncate -s -2 f; cat f; truncate -s +3 f; wc -c f",
    "printf '123456789' > f; truncate -s '<5' f; cat f; truncate -s %4 f; wc -c f",
    "truncate -s 3 new.txt && wc -c new.txt",
    "truncate -c -s 3 nofile; ls nofile; echo $?",
    "truncate f; echo $?",
    "truncate -s 1; echo $?",
    "echo x > s; mkdir d && install -m 644 s d/ && stat -c '%a %s %n' d/s",
    "install -d a/b/c && stat -c %a a/b/c",
    "echo x > s; install -D s deep/dir/t && stat -c '%a' deep/dir/t",
    "echo x > s; echo y > t; mkdir d; install -m 600 -t d s t && stat -c '%a %n' d/s d/t",
    "install nofile d; echo $?",
    "echo x > s; install s; echo $?",
    "mktemp foo; echo $?",
    'mktemp -u XXXXXX | grep -c "^[A-Za-z0-9]\\{6\\}$"',
    't=$(mktemp) && test -f "$t" && stat -c %a "$t"',
    'd=$(mktemp -d) && test -d "$d" && stat -c %a "$d"',
    'mktemp -d tmp.XXXX | grep -c "^tmp\\."',
    "printf 'a b c\\nlonger word here\\nx y z\\n' | column -t",
    "printf 'name,age\\nalice,30\\n\\nbob,4\\n' | column -t -s,",
    "printf 'name,age\\nalice,30\\nbob,4\\n' | column -t -s, -o ' | '",
    "seq 30 | column",
    "seq 100 | column",
    "printf 'one\\ntwo\\nthree\\n' | column",
    "seq 5 | shuf | sort -n",
    "shuf -i 1-5 | sort",
    "shuf -e a b c | sort",
    "seq 10 | shuf -n 3 | wc -l",
    "shuf -i 5-1; echo $?",
    "setsid echo hi",
    "setsid sh -c 'exit 4'; echo $?",
    "printf 'b\\na\\nb\\nc\\na\\n' | sort -R | sort",
    "expr substr hello 2 3; expr substr hello 9 3; echo $?; expr index hello lo",
    "mkdir w && cd w && mkdir -p src/x tests && touch src/a.py src/x/b.py tests/c.py && find . -path ./src -prune -o -name '*.py' -print"
    " | sort && find . -name x -prune -o -type f -print | sort",
]


#: a file with blank lines and indentation, and a second one, for nl
NL = "printf 'import os\\n\\ndef add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a - b\\n' > c.py; printf '# T\\n\\ntext\\n' > r.md; "

NL_CASES = [
    NL + "nl c.py",
    NL + "nl -ba c.py",
    NL + "nl -bn c.py",
    NL + "nl -b pdef c.py",
    NL + "nl -bp'^ ' c.py",
    NL + "nl -n ln c.py",
    NL + "nl -n rz -w 3 c.py",
    NL + "nl -v 10 -i 5 c.py",
    NL + "nl -v -2 c.py",
    NL + "nl -n rz -v -2 c.py",
    NL + "nl -s ': ' c.py",
    NL + "nl -s '' -w 1 c.py",
    NL + "nl -ba -l 2 c.py",
    NL + "nl -ba -l 3 c.py",
    NL + "nl c.py r.md",
    NL + "nl -p c.py r.md",
    NL + "printf '  \\nx\\n' | nl",
    NL + "printf 'a\\nb' | nl",
    NL
    + "printf 'h1\\n\\\\:\\\\:\\\\:\\nhead\\n\\\\:\\\\:\\nbody\\n\\n\\\\:\\nfoot\\n\\\\:\\\\:\\\\:\\nhead2\\n\\\\:\\\\:\\nbody2\\n' | nl",
    NL
    + "printf 'h1\\n\\\\:\\\\:\\\\:\\nhead\\n\\\\:\\\\:\\nbody\\n\\\\:\\nfoot\\n\\\\:\\\\:\\\\:\\nhead2\\n\\\\:\\\\:\\nbody2\\n' | nl -ha -fa",
    NL
    + "printf 'h1\\n\\\\:\\\\:\\\\:\\nhead\\n\\\\:\\\\:\\nbody\\n\\\\:\\nfoot\\n\\\\:\\\\:\\\\:\\nhead2\\n\\\\:\\\\:\\nbody2\\n' | nl -p -ha",
    NL + "printf 'a\\n\\\\:\\\\:\\nb\\n\\\\:\\\\:\\nc\\n' | nl",
    NL + "printf 'a\\n@@@\\nb\\n@@\\nc\\n' | nl -d @",
    NL + "printf 'a\\nxyxyxy\\nb\\nxyxy\\nc\\n' | nl -d xy",
    NL + "printf 'a\\n\\\\:\\\\:\\nb\\n' | nl -d ''",
    NL + "nl --body-numbering=a --number-width=2 --number-separator=' ' c.py",
    NL + "nl -b x c.py; echo $?",
    NL + "nl -n q c.py; echo $?",
    NL + "nl -w 0 c.py; echo $?",
    NL + "nl -w x c.py; echo $?",
    NL + "nl -l 0 c.py; echo $?",
    NL + "nl -i x c.py; echo $?",
    NL + "nl -v 1.5 c.py; echo $?",
    NL + "nl -bp'a[' c.py; echo $?",
    NL + "nl nofile; echo $?",
    NL + "nl nofile c.py; echo $?",
    NL + "nl -z c.py; echo $?",
    # past intmax_t (or an int, for -w) is EOVERFLOW's message, below the least ERANGE's
    "for o in -v -i -l -w; do nl $o 99999999999999999999 /dev/null; nl $o 0 /dev/null; nl $o -5 /dev/null; done",
    "nl -w 3000000000 /dev/null; nl -v -9223372036854775808 /dev/null; echo $?; nl -v -9223372036854775809 /dev/null",
    NL + "cat c.py | nl -",
    # glibc calls a pattern that ends at `[` or `[^` invalid, not unmatched
    "echo x | grep 'a['; echo $?; echo x | grep -E '[^'; echo $?; echo x | grep 'a[b'; echo $?",
]


@pytest.mark.parametrize("command", SAME_AS_GNU + NL_CASES)
def test_the_text_utilities_answer_as_gnu(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(command)


def test_nproc_is_the_machine_s_and_honours_ignore() -> None:
    vm = VirtualMachine(interactive=False)
    assert vm.run("nproc").stdout == "4\n"
    assert vm.run("nproc --ignore=1; nproc --ignore=9; nproc --all").stdout == "3\n1\n4\n"


def test_sort_r_shuffles_per_world_and_keeps_equal_keys_together() -> None:
    lines = "".join(f"{k % 40}\n" for k in range(400))  # 40 keys, ten lines each
    orders = []
    for _ in range(2):
        vm = VirtualMachine(interactive=False)
        vm.fs.write("/app/k.txt", lines)
        first = vm.run("sort -R k.txt").stdout
        second = vm.run("sort -R k.txt").stdout
        orders.append((first, second))
        keys = first.split()
        assert sorted(keys) == sorted(lines.split())  # a permutation
        runs = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
        assert len(runs) == 40  # each key's lines adjacent, as GNU sort -R puts them
        assert first != second  # another run, another order (a new salt from the world's randomness)
        assert runs != sorted(runs) and runs != sorted(runs, key=int)
    assert orders[0] == orders[1]  # the same world gives the same orders: deterministic
    vm = VirtualMachine(interactive=False)
    vm.fs.write("/app/k.txt", "b 1\na 2\nb 3\na 4\n")
    keyed = vm.run("sort -R -k1,1 k.txt").stdout.split("\n")[:-1]
    assert [line.split()[0] for line in keyed] in (["a", "a", "b", "b"], ["b", "b", "a", "a"])


def test_sort_r_of_ten_million_lines_ends_with_the_budget_error() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=5, memory_mb=256)
    r = vm.run("seq 10000000 | sort -R | head -3")
    assert r.stdout == ""
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr
    r = vm.run("seq 200000 > /tmp/n && sort -R /tmp/n | wc -l")  # within the budget it finishes
    assert (r.stdout, r.exit_code) == ("200000\n", 0)


def test_shuf_and_mktemp_are_deterministic_per_world() -> None:
    def session() -> tuple[str, str]:
        vm = VirtualMachine(interactive=False)
        return vm.run("seq 20 | shuf | tr '\\n' ' '").stdout, vm.run("mktemp; mktemp -d").stdout

    first, second = session(), session()
    assert first == second
    assert first[0] != " ".join(str(k) for k in range(1, 21)) + " "
    names = first[1].split()
    assert len(names) == 2 and all(
        n.startswith("/tmp/tmp.") and len(n) == len("/tmp/tmp.") + 10 for n in names
    )
