"""Here-documents in the offline shell: at top level and inside compound commands (if, loops,
functions, case, pipelines), checked against the host's bash and, where it is absent, against the
answers written here."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

CASES = [
    ("cat <<EOF\nhello $HOME\nEOF\necho after", None),
    ("cat <<'EOF'\nhello $HOME\nEOF", "hello $HOME\n"),
    ("cat <<-EOF\n\thello\n\tEOF\necho x", "hello\nx\n"),
    ('cat <<"E F"\nq $x\nE F', "q $x\n"),
    ("if true; then cat <<EOF\nin if\nEOF\nfi", "in if\n"),
    ("if true; then\n  cat <<EOF\nindented\nEOF\nfi; echo done", "indented\ndone\n"),
    ("f() {\ncat <<EOF\nin f $1\nEOF\n}\nf one; f two", "in f one\nin f two\n"),
    ("for i in 1 2; do cat <<EOF\nv$i\nEOF\ndone", "v1\nv2\n"),
    ("while read -r w; do echo got $w; done <<EOF\na\nb\nEOF", "got a\ngot b\n"),
    ("case a in a) cat <<EOF\nin case\nEOF\n;; esac", "in case\n"),
    ("cat <<A <<B\na\nA\nb\nB", "b\n"),
    ("cat <<EOF | wc -l\na\nb\nEOF", "2\n"),
    ("cat > notes.txt <<EOF\nline1\nEOF\ncat notes.txt", "line1\n"),
    ("echo $((1<<3))", "8\n"),
]


@pytest.mark.parametrize(("script", "stdout"), CASES)
def test_heredocs_answer_as_written(vm: VirtualMachine, script: str, stdout: str | None) -> None:
    result = vm.run(script)
    assert (result.stderr, result.exit_code) == ("", 0)
    assert result.stdout == (stdout if stdout is not None else "hello /root\nafter\n")


@pytest.mark.parametrize("script", [script for script, _ in CASES if "$HOME" not in script])
def test_heredocs_answer_as_the_host_bash(
    vm: VirtualMachine, same_as_bash: Callable[[str], None], script: str
) -> None:
    vm.run("cd /tmp")
    same_as_bash(script)
