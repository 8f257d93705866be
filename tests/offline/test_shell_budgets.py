"""Work budgets, not wall-clock ones: the same input gives the same answer at any load; time is
virtual (``sleep``, ``timeout``) and exact."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import WORK_PER_SECOND, Budget, StepLimits


def run(vm: VirtualMachine, command: str) -> tuple[str, str, int]:
    r = vm.run(command)
    return r.stdout, r.stderr, r.exit_code


@pytest.mark.parametrize(
    "command",
    [
        "while :; do :; done",
        "yes | wc -l",
        "cat /dev/zero | wc -c",
        "seq 1 100000000 | wc -l",
        "echo {1..3000000} | wc -c",
        "x=a; for i in $(seq 40); do x=${x//a/aa}; done",
    ],
)
def test_a_runaway_step_ends_after_the_same_work_every_time(command: str) -> None:
    answers = set()
    works = set()
    for _ in range(2):
        vm = VirtualMachine(interactive=False)
        vm.limits = StepLimits(seconds=0.3, memory_mb=64)
        answers.add(run(vm, command))
        works.add(vm._budget.work)
    assert len(answers) == 1 and len(works) == 1
    (_, err, code), work = answers.pop(), works.pop()
    assert code in (2, 152) and err.startswith("bash: ")
    assert work >= 0.3 * WORK_PER_SECOND or code == 2


def test_the_budget_is_counted_in_work_and_the_clock_is_only_a_safety_limit() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2)
    r = vm.run("while :; do :; done")
    assert r.exit_code == 152 and "CPU time limit exceeded" in r.stderr and "s of work" in r.stderr
    assert not r.unknown_effect  # a deterministic outcome
    budget = Budget(StepLimits(seconds=0.2))
    budget.wall_deadline = 0.0  # a host so loaded that the far-off wall-clock limit has passed
    budget.wall_next = 0
    budget.stop_at = 0
    vm._budget = budget
    from agentworld_plugins.offline.shell.limits import ResourceLimit

    with pytest.raises(ResourceLimit) as stopped:
        budget.spend(1)
    assert stopped.value.wall_clock and "wall-clock safety limit" in stopped.value.message


@pytest.mark.parametrize(
    "command",
    [
        "timeout 0.2 sleep 5; echo $?",
        "timeout 5 sleep 0.1; echo $?",
        "timeout --preserve-status 0.2 sleep 3; echo $?",
        "timeout -v 0.2 sleep 3; echo $?",
        "timeout 1 nope-not-here; echo $?",
        "timeout x sleep 1; echo $?",
        "timeout; echo $?",
        "timeout 1; echo $?",
        "timeout 0.4 timeout 0.2 sleep 5; echo $?",
        "timeout 0.2 timeout 5 sleep 5; echo $?",
        "timeout 1 echo hi | cat; echo $?",
        "timeout 1 yes | head -2",
        "timeout 0.2 bash -c 'sleep 3; echo no'; echo $?",
        "timeout 0 sleep 0.1; echo $?",
        "sleep 0.1 0.1; echo $?",
        "sleep x; echo $?",
        "sleep; echo $?",
    ],
)
def test_timeout_and_sleep_answer_as_bash_does(same_as_bash: Callable[[str], None], command: str) -> None:
    same_as_bash(command)


def test_virtual_time_is_instant_and_exact() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=1.0)
    assert run(vm, "timeout 1 sleep 5; echo $?") == ("124\n", "", 0)
    assert vm._budget.now == pytest.approx(1.0, abs=0.01)
    assert run(vm, "timeout -s KILL 1 sleep 3 2>/dev/null; echo $?") == ("137\n", "", 0)
    assert run(vm, "sleep 100000; echo done") == ("done\n", "", 0)  # sleeping is not work
    # a busy loop under `timeout` ends when its work reaches the deadline, not the step's budget
    assert run(vm, "timeout 0.1 bash -c 'while :; do :; done'; echo $?") == ("124\n", "", 0)
    assert 0.1 * WORK_PER_SECOND <= vm._budget.work < 0.2 * WORK_PER_SECOND


MEMORY_MB = 16


@pytest.mark.parametrize(
    "command",
    [
        'x=a; while :; do x="$x$x"; done; echo never',
        'x=a; while :; do x="${x}${x}"; done; echo never',
        'x=a; while :; do x+="$x"; done; echo never',
        "x=a; while :; do x=$x$x; done; echo never",
        "yes",
        "x=$(yes); echo never",
        'x=a; for i in $(seq 22); do x="$x$x"; done; cat <<< "$x$x$x$x" | wc -c; echo never',
        'x=a; for i in $(seq 22); do x="$x$x"; done; for i in $(seq 30); do printf -v y$i "%s$i" "$x"; done; echo never',
        'x=a; for i in $(seq 22); do x="$x$x"; done; for i in $(seq 30); do read y$i <<< "$x$i"; done; echo never',
        'x=a; for i in $(seq 22); do x="$x$x"; done; for i in $(seq 30); do declare y$i="$x$i"; done; echo never',
        "yes | sort",
        "cat /dev/zero | sed p",
        "echo x | sed ':a;h;G;ba'",
        "yes | tr -d '\\n' | wc -l",
    ],
)
def test_no_input_holds_more_than_the_memory_budget(command: str) -> None:
    import tracemalloc

    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=5, memory_mb=MEMORY_MB)
    tracemalloc.start()
    try:
        out, err, code = run(vm, command)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "never" not in out and code in (2, 152)
    assert err.startswith("bash: ") and err.count("\n") == 1  # one line, bash's own where it has one
    assert "xmalloc: cannot allocate" in err or "CPU time limit exceeded" in err
    assert peak < 6 * MEMORY_MB * 1024 * 1024, peak  # the value, its copy, the output: not more
    assert run(vm, "echo ok") == ("ok\n", "", 0)


def test_a_session_step_never_raises_memory_error() -> None:
    from agentworld_plugins import World
    from agentworld_plugins.config import load_settings

    world = World(backend="offline", settings=load_settings(offline_step_memory_mb=MEMORY_MB))
    session = world.session("terminal")
    for keys in ("yes\n", 'x=a; while :; do x="$x$x"; done\n', "cat /dev/zero | sort\n"):
        observation = session.step([{"keystrokes": keys}])
        assert observation.text.endswith("root@agentworld:/app#")
        assert "xmalloc: cannot allocate" in observation.text or "CPU time limit" in observation.text
    assert session.step([{"keystrokes": "echo ok\n"}]).text.endswith("ok\nroot@agentworld:/app#")


LONG = "a" * 5000


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        (f"echo {LONG}b | grep -cE '^(a|aa)+$'", ("0\n", "", 1)),
        (f"echo {LONG} | grep -cE '^(a|aa)+$'", ("1\n", "", 0)),
        (f"echo {LONG} | grep -cE '(a|a)*b$'", ("0\n", "", 1)),
        (f"echo {LONG} | grep -cE '(.*a){{25}}x'", ("0\n", "", 1)),
        (f"echo {LONG} | grep -cP '(a|a)*b$'", ("0\n", "", 1)),
        (f"echo {LONG} | sed -E 's/(a|a)*b$/X/' | wc -c", ("5001\n", "", 0)),
        (f"[[ {LONG} =~ ^(a|aa)+b$ ]]; echo $?", ("1\n", "", 0)),
        (f"case {LONG} in *a*a*a*a*a*a*a*b) echo y;; *) echo n;; esac", ("n\n", "", 0)),
        (f"x={LONG}; y=${{x##*a*a*a*a*b}}; echo ${{#y}}", ("5000\n", "", 0)),
    ],
)
def test_backtracking_patterns_answer_at_once(command: str, answer: tuple[str, str, int]) -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=1)
    assert run(vm, command) == answer
    assert vm._budget.work < 0.5 * WORK_PER_SECOND  # linear: far below the budget


@pytest.mark.parametrize(
    "command",
    [
        "echo 'abc abc x' | grep -oE '(abc) \\1'",
        "echo 'foo foobar foo_x foo' | grep -ow foo",
        "printf '55\\na55\\n55b\\n 55 \\n' | grep -w 55",
        "seq 1000 | grep -cP '(5)\\1'",
        "seq 1000 | grep -cP '(?<=5)6'",
        "seq 1000 | grep -cP '^(?!1)5'",
        "echo hello hello | sed -E 's/(h[a-z]+) \\1/twice:\\1/'",
        "printf 'abc\\n' | sed 's/x*/-/g'",
        "echo aXbXc | sed 's/X/-/2'",
        "[[ abc123 =~ ^[a-z]+([0-9]+)$ ]] && echo $?",
    ],
)
def test_matching_agrees_with_gnu(same_as_bash: Callable[[str], None], command: str) -> None:
    same_as_bash(command)


def test_backreferences_that_would_backtrack_for_ever_end_at_the_budget() -> None:
    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2)
    for command in (f"echo {LONG} | grep -cP '(a*)*\\1b$'", f"echo {LONG} | grep -c '\\(a*\\)*\\1b$'"):
        out, err, code = run(vm, command)
        assert (out, code) == ("", 152) and "CPU time limit exceeded" in err
        assert vm._budget.work > vm._budget.work_limit


def test_swe_grep_search_and_glob_are_linear_and_bounded() -> None:
    from agentworld_plugins.offline.swe_tools import SweTools

    vm = VirtualMachine(interactive=False)
    vm.limits = StepLimits(seconds=0.2)
    vm.fs.write("/app/long.txt", LONG + "\n")
    tools = SweTools(vm, "/app")
    assert "No matches" in tools.call("grep_search", {"pattern": "^(a|aa)+b$"}).text
    slow = tools.call("grep_search", {"pattern": r"(a*)*\1b$"})
    assert slow.is_error and "CPU time limit exceeded" in slow.text
    vm.fs.write("/app/" + "a" * 200, "")
    found = tools.call("glob", {"pattern": "*a*a*a*a*a*a*a*a*b"})
    assert found.text.startswith("No files found matching pattern")


LONG_SCRIPTS = {
    "case": "x=5\ncase $x in\n" + "".join(f"{i}) echo {i};;\n" for i in range(100_000)) + "esac\n",
    "if without fi": "if true; then\n" + "echo x\n" * 100_000,
}


@pytest.mark.parametrize("name", sorted(LONG_SCRIPTS))
def test_a_100000_line_compound_ends_at_the_budget_every_time(name: str) -> None:
    """A 100,000-line `case` (its pre-pass was quadratic and undercharged) and an `if` without
    `fi` (read again and again as the reader grows its piece) end with the budget's error, after
    the same work each time; the pre-pass reads at most a few times the script's length."""
    from agentworld_plugins.offline.shell import parser

    script = LONG_SCRIPTS[name]
    prepared: list[int] = []
    original = parser._prepare

    def counting(text: str) -> parser._Source:
        prepared.append(len(text))
        return original(text)

    answers, works = set(), set()
    for _ in range(2):
        vm = VirtualMachine(interactive=False)
        vm.limits = StepLimits(seconds=1)
        parser._PARSED.clear()
        prepared.clear()
        parser._prepare = counting  # type: ignore[assignment]
        try:
            answers.add(run(vm, script))
        finally:
            parser._prepare = original  # type: ignore[assignment]
        works.add(vm._budget.work)
        assert sum(prepared) <= 3 * len(script)
    assert len(answers) == 1 and len(works) == 1
    out, err, code = answers.pop()
    assert (out, code) == ("", 152) and err.startswith("bash: CPU time limit exceeded")
