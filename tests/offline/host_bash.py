"""A script run by the host's bash and by a fresh offline machine, in a fresh folder at the same
path on both sides: the oracle of the tests that compare the two."""

from __future__ import annotations

import subprocess
import tempfile

from agentworld_plugins.offline.shell import VirtualMachine

Result = tuple[str, str, int]


def both(script: str) -> tuple[Result, Result]:
    """``(ours, host)``: each side's stdout, stderr and status."""
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    with tempfile.TemporaryDirectory() as host_dir:
        host = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", script],
            cwd=host_dir, env={**env, "HOME": host_dir}, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        ours = VirtualMachine(cwd=host_dir, env={**env, "HOME": host_dir}, interactive=False).run(script)
    return (ours.stdout, ours.stderr, ours.exit_code), (host.stdout, host.stderr, host.returncode)
