"""Scripts are read a complete command at a time, as bash reads them, and simple lines are split
without bashlex: long scripts fit the step budget, and what runs before a syntax error runs."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import bashlex
import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell import parser as shell_parser
from agentworld_plugins.offline.shell.parser import _prepare
from agentworld_plugins.offline.shell.reader import script_pieces
from agentworld_plugins.offline.shell.simple import simple_command


@pytest.fixture
def bashlex_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts bashlex is asked to parse (the parse cache is emptied first)."""
    calls: list[str] = []
    real = bashlex.parse

    def counting(text: str, *args: object, **kwargs: object) -> object:
        calls.append(text)
        return real(text, *args, **kwargs)

    shell_parser._PARSED.clear()
    monkeypatch.setattr(shell_parser.bashlex, "parse", counting)
    return calls


def _shape(node: Any) -> Any:
    """What the interpreter reads of a node: kinds, positions, operators, redirect fields."""
    shape: list[Any] = [node.kind, node.pos]
    if node.kind in ("command", "pipeline", "list", "if", "for", "while", "until"):
        shape.append([_shape(p) for p in node.parts])
    elif node.kind == "compound":
        shape += [[_shape(p) for p in node.list], [_shape(r) for r in getattr(node, "redirects", None) or []]]
    elif node.kind == "reservedword":
        shape.append(node.word)
    elif node.kind == "redirect":
        out = node.output
        shape += [node.type, node.input, out if isinstance(out, int) else _shape(out)]
    elif node.kind == "operator":
        shape.append(node.op)
    elif node.kind == "pipe":
        shape.append(node.pipe)
    return shape


def _same_as_bashlex(line: str) -> None:
    fast = simple_command(line)
    assert fast is not None, line
    nodes, text, arith = fast
    src = _prepare(line)  # the pre-pass the full parser runs before bashlex
    assert (text, arith) == (src.text, src.arith)
    assert [_shape(n) for n in nodes] == [_shape(n) for n in bashlex.parse(src.text)], line


@pytest.mark.parametrize(
    "line",
    [
        "echo $i",
        "x=$((x+1))",
        "x=$(($x * 2)) y=2 env",
        "echo \"$i done\" 'a b' *.py",
        "cp a.txt /tmp/",
        "[ -f x ] && echo y",
        "echo ${HOME} $? $# $1 $@",
        "a+=b",
        "ls -la ~/x",
        "FOO=bar make -j4 all",
        'echo "$((1+2))" x',
        "  echo   a  \n",
        "echo a=b",
        "x=\"a b\" y='c' cmd",
        "a | b && c; d || e;",
        "ls -la /tmp | grep -v '^d' | wc -l",
        'echo "a b" >> /tmp/log.txt; echo done',
        "x=1 y=2 cmd a b > out 2>&1",
        "cat<in >>out 2> err",
        "echo a>b 1>&2",
        "x &> f",
        "x=1 | y",
        "a&&b",
        "if [ $x -ge 0 ]; then x=1; fi",
        "if a; then b; c; elif d; then e; else f; fi",
        "for i in a b; do x; y; done",
        "while a; do b; done",
        "until a; do b; done",
        "if a; then b; fi > out; echo",
        "for i in; do x; done",
        "if a; then if b; then c; fi; fi",
        "x=1; for f in *.txt; do wc -l $f | cat; done 2>&1",
        "if a && b; then c || d; fi | cat",
        "echo done; echo if",
    ],
)
def test_plain_lines_split_as_bashlex_parses_them(line: str) -> None:
    _same_as_bashlex(line)


def test_random_plain_lines_split_as_bashlex_parses_them() -> None:
    rng = random.Random(7)
    words = ["a", "b.txt", "$x", "${HOME}", "'q w'", '"$i z"', "x=1", "$((i+1))", "-n", "2", "[", "]"]
    joins = [" | ", " && ", " || ", "; ", " ; "]
    redirects = ["> f", ">> /tmp/o", "2> e", "< in", "2>&1", ">&2", "&> all"]
    split = 0
    for _ in range(300):
        commands = []
        for _ in range(rng.randint(1, 3)):
            command = ["echo" if rng.random() < 0.5 else "y=$((y+2))", *rng.sample(words, rng.randint(0, 4))]
            commands.append(" ".join(command + rng.sample(redirects, rng.randint(0, 2))))
        line = commands[0] + "".join(rng.choice(joins) + c for c in commands[1:])
        if rng.random() < 0.3:  # inside a one-line compound
            shape = rng.choice(
                ["if {}; then {}; fi", "while {}; do {}; done", "for v in a $x; do {}; {}; done"]
            )
            line = shape.format(line, commands[-1])
        line += rng.choice(["", ";", "\n", " > f"])
        if simple_command(line) is not None:
            _same_as_bashlex(line)
            split += 1
    assert split > 200


@pytest.mark.parametrize(
    "line",
    [
        "a &",
        "a |& b",
        "a &&",
        "a |",
        "a;;",
        "echo a >& f",
        "a <> f",
        "> f x=1 y",
        "echo $(x)",
        "echo `x`",
        "if x",
        "done",
        "x=1 then",
        "if a then b; fi",
        "if a; then b fi",
        "for 1 in a; do b; done",
        "if a; then; fi",
        "while a; do b; done c",
        "x=1 if a; then b; fi",
        "for i; do a; done",
        "echo 'a$((1))'",
        "echo \\a",
        "echo a # c",
        "{ x; }",
        "(x)",
        "echo {a,b}",
        "echo !x",
        "a[1]=2",
        "[[ a ]]",
        "echo $",
        "x=$((1+(2)))",
        "cat <<EOF",
        "a\nb",
    ],
)
def test_anything_else_goes_to_bashlex(line: str) -> None:
    assert simple_command(line) is None


def test_a_long_script_of_simple_lines_never_calls_bashlex(
    vm: VirtualMachine, bashlex_calls: list[str]
) -> None:
    script = "x=0\n" + "".join(f"echo {i}\nx=$((x+1))\n" for i in range(2000)) + "echo done $x\n"
    vm.fs.write("/tmp/s.sh", script)
    r = vm.run("bash /tmp/s.sh | tail -2")
    assert (r.stdout, r.stderr, r.exit_code) == ("1999\ndone 2000\n", "", 0)
    assert bashlex_calls == []


def test_lines_that_repeat_are_parsed_once(vm: VirtualMachine, bashlex_calls: list[str]) -> None:
    script = "n=0\n" + "if [ $n -ge 0 ]; then n=$((n+1)); fi # count\n" * 500 + "echo $n\n"
    assert vm.run(script).stdout == "500\n"
    assert bashlex_calls == ["if [ $n -ge 0 ]; then n=${__AWARITH0}; fi # count\n"]


def test_a_100000_line_script_runs_to_its_end(vm: VirtualMachine) -> None:
    # the shape of the issue: `bash script.sh` of 100,000 lines (the budget here is generous:
    # how fast it runs is measured by benchmarks/bench_shell.py, never asserted)
    lines = ["x=0"] + [f"echo {i}" if i % 2 else "x=$((x+1))" for i in range(100_000)] + ["echo done $x"]
    vm.fs.write("/tmp/long.sh", "\n".join(lines) + "\n")
    r = vm.run("bash /tmp/long.sh | tail -1")
    assert (r.stdout, r.stderr, r.exit_code) == ("done 50000\n", "", 0)


def test_pieces_end_where_commands_do() -> None:
    text = (
        "echo a\n"
        "if true\nthen echo b\nfi\n"
        "cat <<EOF\nif\nEOF\n"
        "echo c \\\n  d\n"
        "f() {\n  echo e\n}\n"
        "[[ a == a &&\n  b == b ]] && echo g\n"
        "echo h |\n  cat\n"
        "echo i\n"
    )
    pieces = list(script_pieces(text))
    assert pieces[0].text == "echo a\n"  # a line that completes a command is a piece of its own
    covered = [n for p in pieces for n in range(p.first_line, p.first_line + p.text.count("\n"))]
    assert covered == list(range(1, 18))  # in order, every line once
    assert all(p.error is None and p.nodes for p in pieces)
    assert "".join(p.text for p in pieces) == text


SCRIPTS = [
    "echo a\necho )\necho b",
    "echo a\nfi\necho b",
    'echo a\necho "b',
    "echo a\nif true; then\necho b",
    "echo a; echo )",
    "echo a\n\nnope\necho $?",
    "echo a\nif true\nthen echo b\nfi\necho c \\\n d\n[[ a == a &&\n b == b ]] && echo yes",
    "f() { echo in f; }\necho a\nf\nf() { echo redefined; }\nf",
    "cat <<EOF\nx\nEOF\necho after",
    "x=1\nwhile [ $x -lt 4 ]\ndo\n  echo $x\n  x=$((x+1))\ndone\necho end",  # `do` on its own line
    "until true\n  do echo; done; for i in a b\ndo echo $i; done",
    "echo [[ a\necho ]] b",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_run_a_command_at_a_time_as_bash_does(
    vm: VirtualMachine, real_bash: Callable[[str], tuple[str, int]], script: str
) -> None:
    r = vm.run(script)
    assert (r.stdout, r.exit_code) == real_bash(script)


def test_syntax_errors_name_their_line_after_the_commands_before_them_ran(vm: VirtualMachine) -> None:
    r = vm.run("echo a\necho )\necho b")
    assert (r.stdout, r.exit_code) == ("a\n", 2)
    assert (
        r.stderr == "bash: -c: line 2: syntax error near unexpected token `)'\nbash: -c: line 2: `echo )'\n"
    )
    r = vm.run("echo a\n\nnope")
    assert r.stderr == "bash: line 3: nope: command not found\n"
    vm.fs.write("/tmp/s.sh", "echo a\necho )\necho b\n")
    assert vm.run("bash /tmp/s.sh").stdout == "a\n"


def test_a_here_document_to_the_end_of_the_text_still_runs(vm: VirtualMachine) -> None:
    r = vm.run("echo a\ncat <<EOF\nx\ny")
    assert (r.stdout, r.exit_code) == ("a\nx\ny\n", 0)
    assert "here-document at line 2 delimited by end-of-file (wanted `EOF')" in r.stderr


def test_unsupported_syntax_mid_script_is_reported_and_ends_the_text(vm: VirtualMachine) -> None:
    r = vm.run("echo a\nselect x in a b\ndo echo x\ndone\necho b")
    assert r.stdout == "a\n" and r.exit_code == 2
    assert "syntax not supported by the offline shell" in r.stderr
    assert r.unknown_effect
