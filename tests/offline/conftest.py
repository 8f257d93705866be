"""Fixtures for the offline worlds' tests: real bash as a reference, where the machine has it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentworld_plugins.offline.shell import VirtualMachine
from agentworld_plugins.offline.shell.limits import StepLimits


@pytest.fixture
def real_bash_err(tmp_path: Path) -> Callable[[str], tuple[str, str, int]]:
    """Run a harmless command line with the host's bash (GNU tools), for comparison only:
    ``(stdout, stderr, exit status)``. Skips where there is no bash or no GNU userland."""
    bash = shutil.which("bash", path="/usr/bin:/bin")
    if bash is None or not sys.platform.startswith("linux") or shutil.which("seq") is None:
        pytest.skip("no bash with GNU coreutils on this machine to compare with")

    def run(command: str) -> tuple[str, str, int]:
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
        done = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", command],  # $0 (in messages) is `bash`
            executable=bash,
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.stdout, done.stderr, done.returncode

    return run


@pytest.fixture
def real_bash(real_bash_err: Callable[[str], tuple[str, str, int]]) -> Callable[[str], tuple[str, int]]:
    """:func:`real_bash_err` without stderr: ``(stdout, exit status)``."""

    def run(command: str) -> tuple[str, int]:
        stdout, _, status = real_bash_err(command)
        return stdout, status

    return run


@pytest.fixture
def vm() -> VirtualMachine:
    """A non-interactive machine with generous limits (the suite shares its CPUs); test files that
    need another machine define their own ``vm``."""
    machine = VirtualMachine(interactive=False)
    machine.limits = StepLimits(seconds=120, memory_mb=256)
    return machine


@pytest.fixture
def same_as_bash(
    vm: VirtualMachine, real_bash_err: Callable[[str], tuple[str, str, int]]
) -> Callable[[str], None]:
    """``check(command)``: the offline shell answers ``command`` as the host's bash does (stdout,
    stderr, status), with nothing it could not simulate."""

    def check(command: str) -> None:
        r = vm.run(command)
        assert not r.unknown_effect
        assert (r.stdout, r.stderr, r.exit_code) == real_bash_err(command)

    return check
