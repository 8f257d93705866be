"""git's diffs choose xdiff's edit script (Myers, git's line discarding, then the groups slid by
``xdl_change_compact`` and the indent heuristic) and print git's hunks, compared with the host's
git: hand-made cases that each show a rule, a seeded corpus of random edits, the options that
pick the algorithm (``--minimal``, patience, histogram, ``--anchored``), ignore changes
(``-w``, ``-b``, ``--ignore-blank-lines``) or widen hunks (``-W``), and a diff of two large files
bounded by the step's work budget."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from git_lines import repo

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits
from agentworld_plugins.offline.shell.xdiff import Options, git_hunks, split_lines

#: the fixed identities and dates (git_lines.py): commit ids are the same on both sides
FIXED = repo()


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _change(pairs: list[tuple[str, str]], show: str) -> str:
    """Commit the first texts of ``pairs`` (files f0, f1, ...), write the second ones, run ``show``."""
    first = " && ".join(f"printf %s {_q(a)} > f{k}" for k, (a, _) in enumerate(pairs))
    second = " && ".join(f"printf %s {_q(b)} > f{k}" for k, (_, b) in enumerate(pairs))
    return FIXED + first + " && git add . && git commit -qm one && " + second + " && { " + show + "; }"


PY = "def a():\n    pass\n\ndef c():\n    pass\n"
C_BLOCKS = "int f() {\n    if (x) {\n        a();\n    }\n    return 0;\n}\n"

CASES = {
    # the indent heuristic: a function added between two, a statement after a blank line,
    # blocks added after blocks like them
    "indent-python": (PY, "def a():\n    pass\n\ndef b():\n    pass\n\ndef c():\n    pass\n"),
    "indent-blank-split": (
        "def f():\n    if a:\n        b()\n\n    c()\n    return 1\n",
        "def f():\n    if a:\n        b()\n\n    c()\n\n    c()\n    return 1\n",
    ),
    "indent-braces": (
        C_BLOCKS,
        "int f() {\n    if (x) {\n        a();\n    }\n    if (y) {\n        a();\n    }\n    return 0;\n}\n",
    ),
    "indent-tabs": (
        "if a:\n\tb()\n\tif c:\n\t\td()\nend\n",
        "if a:\n\tb()\n\tif c:\n\t\td()\n\tif c:\n\t\td()\nend\n",
    ),
    "dedent-end": ("x {\n  y\n}\nz {\n  y\n}\n", "x {\n  y\n}\nw {\n  y\n}\nz {\n  y\n}\n"),
    # blank lines: a split next to a blank line scores better
    "blank-between": ("a\n\nb\n", "a\n\nx\n\nb\n"),
    "blank-runs": ("one\n\n\n\ntwo\n", "one\n\n\n\nmid\n\n\n\ntwo\n"),
    "blank-at-end": ("a\nb\n", "a\nb\n\n\n"),
    "blank-only": ("\n\n\n", "\n\n\n\n\n"),
    # sliding: a group slid as far as it goes merges with the next; lined up with the other side
    "slide-merge": ("a\nb\na\nb\nc\n", "a\nb\nc\n"),
    "slide-align": ("x\na\na\ny\n", "x\na\nz\ny\n"),
    "slide-align-other": ("a\nb\nb\nc\nd\n", "a\nb\nc\nB\nd\n"),
    # repeated lines: many identical lines, runs of them set aside among unmatched lines
    "repeated": ("a\n" * 10, "a\n" * 7),
    "repeated-pairs": ("ab\ncd\n" * 6, "ab\ncd\nab\nXX\ncd\n" * 3),
    "repeated-many": ("x\n" * 40 + "y\n" + "x\n" * 40, "x\n" * 20 + "q\n" * 5 + "x\n" * 59),
    "all-different": ("".join(f"old {k}\n" for k in range(12)), "".join(f"new {k}\n" for k in range(9))),
    # the last line without a newline, and lines cut at "\n" only
    "eol-added": ("a\nb", "a\nb\nc"),
    "eol-removed": ("a\nb\n", "a\nb"),
    "eol-only": ("x", "x\n"),
    "cr-and-formfeed": ("a\rb\nc\x0cd\ne\r\n", "a\rb\nc\x0cD\ne\r\n"),
    # the function line of the hunk header: found above the hunk's context, 80 bytes less blanks
    "funcname": (
        "def " + "x" * 74 + "   tail():\n" + "    pass\n" * 6,
        "def " + "x" * 74 + "   tail():\n" + "    pass\n" * 5 + "    return\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_rule_matches_the_host_git(name: str, same_as_bash: Callable[[str], None]) -> None:
    show = "git diff && git diff -U1 --no-indent-heuristic && git diff --numstat && git diff --stat"
    # (carriage returns shown as "~": the host's output is read as text, which would turn them to "\n")
    same_as_bash(_change([CASES[name]], "{ " + show + "; } | tr '\\r' '~'"))


def test_the_indent_heuristic_is_what_places_an_inserted_statement() -> None:
    """``c()`` and a blank line inserted after a blank line: the heuristic shows them before the
    old ``c()`` (a split above an outdented line after a blank); slid down, without it, the
    blank line comes first and the new ``c()`` right above ``return``."""
    a, b = (split_lines(text) for text in CASES["indent-blank-split"])
    assert git_hunks(a, b) == [(4, 4, 4, 6)]
    assert git_hunks(a, b, Options(indent_heuristic=False)) == [(5, 5, 5, 7)]


def _random_text(rng: random.Random, vocab: list[str], lines: int) -> str:
    return "".join(rng.choice(vocab) + "\n" for _ in range(lines))


def _random_edit(rng: random.Random, vocab: list[str], text: str) -> str:
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 6)):
        roll, at = rng.random(), rng.randint(0, len(lines))
        if roll < 0.4 and lines:
            at = min(at, len(lines) - 1)
            del lines[at : at + rng.randint(1, 3)]
        elif roll < 0.8:
            lines[at:at] = [rng.choice(vocab) + "\n" for _ in range(rng.randint(1, 3))]
        elif lines:
            lines[min(at, len(lines) - 1)] = rng.choice(vocab) + "\n"
    out = "".join(lines)
    return out.rstrip("\n") if rng.random() < 0.1 else out


VOCABULARIES = [
    [
        "",
        "}",
        "{",
        "    return x",
        "def f():",
        "    pass",
        "x = 1",
        "y = 2",
        "# note",
        "if a:",
        "        b()",
        "else:",
    ],
    [
        "",
        "",
        "}",
        "    }",
        "{",
        "int main() {",
        "    if (x) {",
        "        y++;",
        "\treturn 0;",
        "\t\tfoo();",
        "  bar();",
    ],
    ["a", "a", "a", "b", "", "c"],
    ["a b", "a  b", "a\tb", " a b", "a b ", "", " ", "x", "\tx", "x  "],
]


@pytest.mark.parametrize("batch", range(20))
def test_random_edits_match_the_host_git(batch: int, same_as_bash: Callable[[str], None]) -> None:
    """80 seeded random edits (four files a batch) of small files with repeated lines, blank
    lines, indentation and blanks that differ: the patch, the stats (also with whitespace
    ignored) and ``log -p`` as the host's git prints them."""
    rng = random.Random(batch)
    pairs = []
    for vocab in VOCABULARIES:
        before = _random_text(rng, vocab, rng.randint(3, 60))
        pairs.append((before, _random_edit(rng, vocab, before)))
    same_as_bash(
        _change(
            pairs,
            "git diff && git diff --numstat --shortstat && git commit -qam two && git log -1 -p -U1 --stat",
        )
    )


#: Bram Cohen's example for patience diff: a function added above one edited and one removed
COHEN_OLD = """#include <stdio.h>

// Frobs foo heartily
int frobnitz(int foo)
{
    int i;
    for(i = 0; i < 10; i++)
    {
        printf("Your answer is: ");
        printf("%d\\n", foo);
    }
}

int fact(int n)
{
    if(n > 1)
    {
        return fact(n-1) * n;
    }
    return 1;
}

int main(int argc, char **argv)
{
    frobnitz(fact(10));
}
"""
COHEN_NEW = """#include <stdio.h>

int fib(int n)
{
    if(n > 2)
    {
        return fib(n-1) + fib(n-2);
    }
    return 1;
}

// Frobs foo heartily
int frobnitz(int foo)
{
    int i;
    for(i = 0; i < 10; i++)
    {
        printf("%d\\n", foo);
    }
}

int main(int argc, char **argv)
{
    frobnitz(fib(10));
}
"""
#: texts whose Myers, patience and histogram scripts all differ; a moved function (for --anchored)
ALGORITHM_PAIRS = [
    (COHEN_OLD, COHEN_NEW),
    ("b\na\nc\n", "x\nc\nc\na\n"),
    (
        "int a() {\n    return 1;\n}\n\nint b() {\n    return 2;\n}\n",
        "int b() {\n    return 2;\n}\n\nint a() {\n    return 1;\n}\n",
    ),
]

ALGORITHMS = [
    "git diff --patience && git diff --histogram -U1 && git diff --diff-algorithm=Patience --stat",
    "git diff --diff-algorithm histogram --numstat && git -c diff.algorithm=patience diff --shortstat && "
    "git -c diff.algorithm=histogram diff && git diff --histogram --diff-algorithm=myers -U0",
    "git diff --anchored='int a' && git diff --anchored='int a' --patience && git diff --patience --anchored=}",
    "git diff --patience --minimal && git diff --histogram --no-indent-heuristic && git diff --patience -w",
    "git commit -qam two && git log -p --patience -1 --format=%s && git show --histogram --stat --format=%s",
]


def test_patience_and_histogram_choose_their_own_scripts() -> None:
    a, b = split_lines(COHEN_OLD), split_lines(COHEN_NEW)
    myers = git_hunks(a, b)
    patience = git_hunks(a, b, Options(algorithm="patience"))
    assert len(myers) == 9 and patience == [(2, 2, 2, 11), (8, 9, 17, 17), (13, 22, 21, 21), (24, 25, 23, 24)]
    a, b = split_lines(ALGORITHM_PAIRS[1][0]), split_lines(ALGORITHM_PAIRS[1][1])
    assert (
        len({tuple(git_hunks(a, b, Options(algorithm=name))) for name in ("myers", "patience", "histogram")})
        == 3
    )


@pytest.mark.parametrize("command", ALGORITHMS)
def test_patience_and_histogram_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    same_as_bash(_change(ALGORITHM_PAIRS, command))


OPTIONS = [
    "git diff --minimal && git diff --diff-algorithm=minimal -U0 && git diff --no-minimal --diff-algorithm myers",
    "git diff --diff-algorithm=Default && git -c diff.algorithm=minimal diff && git diff --indent-heuristic",
    "git -c diff.indentHeuristic=false diff && git -c diff.indentHeuristic=false diff --indent-heuristic",
    "git diff --diff-algorithm=fast; echo rc=$?; git diff --diff-algorithm; echo rc=$?",
    "git diff --numstat --stat --shortstat && git diff --shortstat -p && git diff --numstat --name-only",
    "git commit -qam two && git show --numstat --format=%s && git show --shortstat -p --oneline && "
    "git log --numstat --shortstat --format=%s && git show --stat --numstat -p --format=%s",
    "git stash -q && git stash show --numstat && git stash show --shortstat && git stash show -p --minimal",
]


@pytest.mark.parametrize("command", OPTIONS)
def test_the_options_that_pick_the_script_match_the_host_git(
    command: str, same_as_bash: Callable[[str], None]
) -> None:
    same_as_bash(_change([CASES["indent-python"], CASES["slide-align"]], command))


WHITESPACE = [
    "git diff -w; echo rc=$?; git diff -b --stat && git diff --ignore-space-at-eol --numstat && "
    "git diff --ignore-cr-at-eol -U1 && git diff -w -b --ignore-all-space --shortstat",
    "git diff -w -- f1 f2 --stat -p | od -c; git diff -w --numstat -U1 -- f1 | od -c; "
    "git diff -w --exit-code -- f1; echo rc=$?; git diff -w --quiet; echo rc=$?; git diff -b --quiet -- f2; "
    "echo rc=$?; git diff -w --name-only && git diff --ignore-space-change --name-status",
    "touch e && git add e && git diff --cached -w && chmod +x f1 && git diff -w -- f1 && git diff -w --stat",
    "git commit -qam two && git log -p -w -1 --format=%s && git show -w --stat --format=%s && "
    "printf 'a b\\nc\\n\\t d\\nE\\n' > f0 && git commit -qam blanks && git show -w --stat -p --format=%s | od -c && "
    "git show -w --oneline && git log -p -w -2 --format=%s && "
    "git show -b --shortstat --format=%s && git diff -b HEAD~1 --numstat && git stash list",
]


@pytest.mark.parametrize("command", WHITESPACE)
def test_ignored_whitespace_matches_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    """``-w``/``-b``/``--ignore-space-at-eol``/``--ignore-cr-at-eol``: lines that differ only in
    the ignored whitespace match (the context shown as the new file has it), and a file changed
    only so is left out of the patch, the stats and ``--exit-code``."""
    pairs = [
        ("a b\nc\n  d\ne\n", "a  b\nc\n\td\nE\n"),
        ("q\nr\n", "q \nr\r\n"),
        ("k\nl", "k\t\nl\n"),
        ("x y\n", "xy\n"),
    ]
    same_as_bash(_change(pairs, "{ " + command + "; } | tr '\\r' '~'"))


FUNCTIONS = [
    "git diff -W && git diff --function-context -U1 && git diff -W -U0 --stat && git diff -W --no-function-context",
    "git diff -W --ignore-blank-lines && git diff -W --ignore-blank-lines -U1 && git diff -W --histogram -U0",
    "git commit -qam two && git show -W --format=%s && git log -p -W -1 --oneline",
]


@pytest.mark.parametrize("command", FUNCTIONS)
def test_function_context_matches_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    """``-W``: each hunk reaches from its function's line (and the comment lines right above it)
    to the next function less its blank lines; hunks that then meet are one; an addition at the
    end that adds a whole function needs no more; the stats do not change."""
    pairs = [
        (
            PY + "\n# tail\ndef d():\n    x = 1\n    y = 2\n    return x\n",
            PY.replace("pass", "return 1", 1) + "\n# tail\ndef d():\n    x = 1\n\n    y = 3\n    return x\n",
        ),
        (
            "int f(void)\n{\n\treturn 0;\n}\n",
            "int f(void)\n{\n\treturn 0;\n}\n\nint g(void)\n{\n\treturn 1;\n}\n",
        ),
        (
            "// c\nstatic int x;\nint f(void)\n{\n\tx++;\n\n\tx--;\n}\n",
            "// c\nstatic int x;\nint f(void)\n{\n\tx += 2;\n\n\tx--;\n}\nint y;\n",
        ),
    ]
    same_as_bash(_change(pairs, command))


BLANK_LINES = [
    "git diff --ignore-blank-lines; echo rc=$?; git diff --ignore-blank-lines --stat && "
    "git diff --ignore-blank-lines --numstat -U0 && git diff --ignore-blank-lines --numstat -U5",
    "git diff --ignore-blank-lines --exit-code -- f1; echo rc=$?; git diff --ignore-blank-lines -U1 && "
    "git diff --ignore-blank-lines -U0 && git diff --ignore-blank-lines -w --shortstat",
    "git commit -qam two && git show --ignore-blank-lines --format=%s -U2 && "
    "git log -p --ignore-blank-lines --stat --format=%s -1",
]


@pytest.mark.parametrize("command", BLANK_LINES)
def test_ignored_blank_lines_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    """``--ignore-blank-lines``: a change of blank lines alone is left out unless it is near a
    change that is not (its nearness measured by the context, which therefore changes the stats);
    a file with only such changes is left out of the patch and the stats, not of ``--exit-code``."""
    pairs = [
        ("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "\na\nb\nc\n\nd\ne\nF\ng\nh\ni\n\nj\nk\nl\nm\n\n"),
        ("q\nr\n", "q\n\nr\n"),
        ("x\n\ny\n", "x\ny\n \nz\n"),
    ]
    same_as_bash(_change(pairs, command))


MATCHING = [
    "git diff -I'b|c' --stat && git diff -I '^$' --numstat; git diff --ignore-matching-lines '^d' --numstat && "
    "git diff --ignore-matching-lines=^[a-z]$ -U1 && git diff -I^$ -I'F' --shortstat",
    "git diff -I'^[a-z]$' --exit-code --stat -- f0; echo rc=$?; git diff -I'^[a-z]$' --exit-code; echo rc=$?; "
    "git diff -I'^[a-z]$' --quiet; echo rc=$?; git diff -w --exit-code --name-only; echo rc=$?; "
    "git diff -w --exit-code -s; echo rc=$?; git diff -w --exit-code --numstat -p >/dev/null; echo rc=$?",
    "git diff -I'('; echo rc=$?; git diff -I; echo rc=$?; git diff --ignore-matching-lines; echo rc=$?; "
    "git diff -I'['; echo rc=$?",
]


@pytest.mark.parametrize("command", MATCHING)
def test_ignored_matching_lines_match_the_host_git(command: str, same_as_bash: Callable[[str], None]) -> None:
    """``-I REGEX`` (POSIX extended, ``^``/``$`` at line ends): changes whose every line matches
    are left out as ``--ignore-blank-lines`` leaves out blank ones; a bad regex is refused in git's
    words. With ``-I`` or ``-w`` a file counts as changed by its diff, which git looks at only when
    it prints the patch (or nothing): ``--exit-code`` with ``--stat`` alone says "no change"."""
    pairs = [
        ("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", "\na\nb\nc\n\nd\ne\nF\ng\nh\ni\n\nj\nk\nl\nm\n\n"),
        ("q\nr\n", "q\n\nr\nd\n"),
        ("a b\n", "a  b\n"),
    ]
    same_as_bash(_change(pairs, command))


def test_an_algorithm_setting_git_refuses_answers_as_not_simulated(vm: VirtualMachine) -> None:
    """git refuses a ``diff.algorithm`` it does not know in words that name the file and line it
    read it from; the offline git answers as a program it cannot run (flagged), never with the
    default diff in its place."""
    vm.run(_change([CASES["indent-python"]], "true"))
    for command in ("git -c diff.algorithm=fast diff", "git -c diff.algorithm=fast log -p"):
        r = vm.run(command)
        assert r.unknown_effect and r.exit_code == 126 and r.stdout == "", command
    r = vm.run("git config diff.algorithm Patience && git diff --stat")
    assert not r.unknown_effect and r.stdout == " f0 | 3 +++\n 1 file changed, 3 insertions(+)\n"


def test_a_diff_of_two_large_files_ends_within_the_step_budget() -> None:
    """Two files of 50,000 lines that differ everywhere. Lines without a match are set aside
    before the search, so distinct lines cost little; lines of two letters, each matching
    thousands, make the search run past its cost bound many times, and the step ends with the
    shell's CPU-limit answer (the machine stays usable)."""
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=5, memory_mb=256)
    rng = random.Random(7)
    vm.fs.write("/app/seq_a", "".join(f"{k}\n" for k in range(0, 100_000, 2)))
    vm.fs.write("/app/seq_b", "".join(f"{k}\n" for k in range(1, 100_000, 2)))
    vm.fs.write("/app/ab_a", "".join(rng.choice("ab") + "\n" for _ in range(50_000)))
    vm.fs.write("/app/ab_b", "".join(rng.choice("ab") + "\n" for _ in range(50_000)))
    setup = vm.run(FIXED + "cp ../seq_a s && cp ../ab_a t && git add . && git commit -qm one")
    assert setup.exit_code == 0, setup.stderr
    r = vm.run("cd /app/repo && cp ../seq_b s && git diff --numstat")
    assert (r.stdout, r.exit_code) == ("50000\t50000\ts\n", 0)
    r = vm.run("cd /app/repo && git diff --numstat --patience && git diff --numstat --histogram")
    assert (r.stdout, r.exit_code) == ("50000\t50000\ts\n" * 2, 0)
    r = vm.run("cd /app/repo && cp ../ab_b t && git diff --numstat -- t")
    assert (r.stdout, r.exit_code) == ("", 152) and "CPU time limit exceeded" in r.stderr
    assert vm.run("echo still").stdout == "still\n"
