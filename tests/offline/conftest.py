"""Fixtures for the offline worlds' tests: real bash as a reference, where the machine has it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def real_bash(tmp_path: Path) -> Callable[[str], tuple[str, int]]:
    """Run a harmless command line with the host's bash (GNU tools), for comparison only:
    ``(stdout, exit status)``. Skips where there is no bash or no GNU userland."""
    bash = shutil.which("bash", path="/usr/bin:/bin")
    if bash is None or not sys.platform.startswith("linux") or shutil.which("seq") is None:
        pytest.skip("no bash with GNU coreutils on this machine to compare with")

    def run(command: str) -> tuple[str, int]:
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
        done = subprocess.run(
            [bash, "--norc", "--noprofile", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.stdout, done.returncode

    return run
