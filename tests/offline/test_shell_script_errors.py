"""Syntax errors as bash reports them, against the host's bash: the same broken script run as a
file (``bash s.sh``, ``./s.sh``), sourced, read from stdin, given to ``bash -c`` and checked with
``bash -n``, in a folder at the same path on both sides. Each names its source (``s.sh: line N:``,
``bash: line N:``, ``bash: -c: line N:``) and the line bash names: where an unclosed quote
opened, past the last line for an unfinished command, the last line read for a here-document
that ran to the end."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine

SCRIPTS = [
    "echo a\nfi\necho c\n",
    "echo a\nif true; then\n",
    "echo a\nif true; then\n  echo b\n",
    "echo a\necho 'b\n",
    "echo a\necho 'b\nc\nd\n",
    "echo a\ndone\n",
    "echo a\n(\n",
    'echo a\necho "b',
    "x=1\nwhile true; do\n",
    "echo $(\n",
    "cat <<EOF\nhi\n",
    "echo one\n\n\nfor i in 1 2\n",
]
WAYS = [
    "bash s.sh; echo rc=$?",
    "bash < s.sh; echo rc=$?",
    'bash -c "$(cat s.sh)"; echo rc=$?',
    'bash -c "$(cat s.sh)\n"; echo rc=$?',
    "source ./s.sh; echo rc=$?",
    "chmod +x s.sh; ./s.sh; echo rc=$?",
    "bash -n s.sh; echo rc=$?",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the host's bash is the oracle")
@pytest.mark.parametrize("script", SCRIPTS)
def test_a_broken_script_is_reported_as_the_hosts_bash_reports_it(script: str, tmp_path: Path) -> None:
    (tmp_path / "s.sh").write_text(script)
    for way in WAYS:
        host = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", way],
            cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        vm = VirtualMachine(interactive=False, cwd=str(tmp_path))
        vm.fs.write(f"{tmp_path}/s.sh", script)
        ours = vm.run(way)
        assert (ours.stdout, ours.stderr) == (host.stdout, host.stderr), way


def test_an_interactive_shell_sourcing_a_broken_file_names_itself_first() -> None:
    vm = VirtualMachine(interactive=True, cwd="/tmp")
    vm.fs.write("/tmp/s.sh", "echo a\nfi\n")
    r = vm.run("source /tmp/s.sh")
    assert r.stdout == "a\n"
    assert r.stderr == (
        "bash: /tmp/s.sh: line 2: syntax error near unexpected token `fi'\nbash: /tmp/s.sh: line 2: `fi'\n"
    )
    vm.fs.write("/tmp/r.sh", "true\nnope\n")
    assert vm.run("source /tmp/r.sh").stderr == "bash: /tmp/r.sh: line 2: nope: command not found\n"
