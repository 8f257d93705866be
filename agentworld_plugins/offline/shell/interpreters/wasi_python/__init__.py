"""Real Python in the offline shell: CPython 3.12 compiled to WASI, run under wasmtime.

``python3`` (and ``python``, ``python3.12``; ``-c``, scripts, ``-m``, stdin, ``-V``) runs the
interpreter of VMware Wasm Labs' ``python-3.12.0.wasm`` (``runtime``) over the machine's virtual
filesystem (``host``: the WASI calls served from :class:`~agentworld_plugins.offline.vfs.VirtualFS`,
never a host file), with the shell's exported variables and streams, no network and no
processes. Its instructions burn wasmtime fuel, counted as the step's work; its memory is capped
by the step's memory budget; what it writes is counted like any command's output (``guest``).
``pip`` answers as pip does on a machine without network access (``pip``); ``python3 -m venv``
makes venv's layout (``venv``), whose ``site-packages`` the guest uses while it is activated.

Without the optional extra (``pip install -e ".[python]"``) python3 keeps its old
answer: exit 126 with a notice, plus a line naming the extra.

    from agentworld_plugins.offline.shell import VirtualMachine
    VirtualMachine().run("python3 -c 'print(6*7)'").stdout     # '42\\n'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .pip import run_pip
from .runtime import INSTALL_HINT, PYTHON_VERSION, RuntimeUnavailable, missing
from .venv import make_venv

if TYPE_CHECKING:
    from ...proc import _Proc

__all__ = ["INSTALL_HINT", "PYTHON_VERSION", "RuntimeUnavailable", "available", "missing", "run_python"]


def available() -> bool:
    """Whether wasmtime and the WASI CPython are installed."""
    return missing() is None


def run_python(p: _Proc) -> int | None:
    """Run ``p`` (python3 and its arguments) in the WASI CPython; None where it is not installed
    (the caller answers as before, see :func:`hint`)."""
    if p.args[:2] == ["-m", "pip"]:
        return run_pip(p, p.args[2:])
    if p.args[:2] == ["-m", "venv"]:
        return make_venv(p, p.args[2:])
    if missing() is not None:
        return None
    from .guest import run

    try:
        return run(p, [p.name, *p.args])
    except RuntimeUnavailable as exc:
        p.err(str(exc))
        return 126


def hint(p: _Proc) -> None:
    """The line that says how to get a real Python here (after the exit-126 notice)."""
    if p.vm.limits.unknown_fails:
        p.ctx.err.write(f"{p.name}: a sandboxed CPython runs here once installed: {INSTALL_HINT}\n")
