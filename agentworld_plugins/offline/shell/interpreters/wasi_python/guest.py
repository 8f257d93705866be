"""One run of the WASI CPython: argv and environment from the shell, the virtual files, the budget.

The guest starts in ``/`` (WASI has no working directory of its own); a ``sitecustomize`` module
in a private tree preopened as the packed library's ``site-packages`` (``host.BOOT_DIR``) moves it
to the shell's directory, takes that folder out of ``sys.path``, names the interpreter
``/usr/bin/python3``, gives ``os`` the ``dup`` and ``dup2`` WASI lacks (pytest's output capture
needs them; they ask the host through ``posix_fadvise`` with a marker offset, which passes
wasi-vfs with the host's descriptor numbers), makes ``os.uname`` the box's and adds the Debian
``dist-packages`` folders found in the virtual filesystem, as Ubuntu's python3 has them. ``PYTHONHASHSEED`` is fixed (0) unless the shell sets
it, and randomness comes from the machine's seeded generator: the same input prints the same.
"""

from __future__ import annotations

import math
import posixpath
import time
from typing import TYPE_CHECKING, Any

from ....vfs import VirtualFS
from ...constants import KERNEL, KERNEL_VERSION
from ...limits import BYTES_PER_UNIT, current
from . import abi, runtime
from .host import BOOT_DIR, DUP_MARKER, FUEL_PER_UNIT, ProcExit, WasiHost
from .spawn import GUEST_MODULE, run_request

if TYPE_CHECKING:
    from ...proc import _Proc

#: where the binary was built: the standard library's file names in tracebacks start with it
BUILD_LIB = "/wlr/build-staging/python/v3.12.0-aio/checkout/Lib/"
#: where Ubuntu's python3.12 keeps the standard library
SYSTEM_LIB = "/usr/lib/python3.12/"
#: the Debian site folders of Ubuntu's python3 (user site is the interpreter's own)
DIST_PACKAGES = ("/usr/local/lib/python3.12/dist-packages", "/usr/lib/python3/dist-packages",
                 "/usr/lib/python3.12/site-packages")  # fmt: skip
#: status and stderr line of a guest that trapped: the signal a native CPython would have died of
SEGV = (139, "Segmentation fault (core dumped)\n")
ABORT = (134, "Aborted (core dumped)\n")

_BOOT = """\
import os as _os, sys as _sys


class _SubprocessHook:  # imports subprocess, then makes Popen run in the virtual shell (spawn.py)
    def __init__(self, source):
        self.source = source

    def find_spec(self, name, path=None, target=None):
        if name != "subprocess":
            return None
        _sys.meta_path.remove(self)
        from importlib.util import find_spec
        spec = find_spec(name)
        real, patch = spec.loader, self.source

        class Loader:
            def create_module(self, spec):
                return real.create_module(spec)

            def exec_module(self, module):
                real.exec_module(module)
                with open(patch) as f:
                    exec(compile(f.read(), patch, "exec"), {{"subprocess": module, "__file__": patch}})

        spec.loader = Loader()
        return spec
def _agentworld_boot(cwd, hashseed, dist, script, uname):
    _sys.meta_path.insert(0, _SubprocessHook({boot!r} + "/_agentworld_subprocess.py"))

    def system(command):
        import subprocess  # the hook replaces os.system with one that runs in the virtual shell
        return _os.system(command) if _os.system is not system else 127 << 8

    _os.system = system
    try:
        _sys.path.remove({boot!r})
    except ValueError:
        pass
    if hashseed is None:
        _os.environ.pop("PYTHONHASHSEED", None)
    _sys.executable = _sys._base_executable = "/usr/bin/python3"
    def dup(fd):
        _os.posix_fadvise(fd, {marker}, 1, 0)  # the host holds this descriptor's file
        return _os.open({boot!r} + "/dup", _os.O_RDONLY)  # and opens it again: a new descriptor

    def dup2(fd, fd2, inheritable=True):
        if fd != fd2:
            _os.posix_fadvise(fd, {marker}, 1, 0)
            _os.posix_fadvise(fd2, {marker}, 2, 0)  # fd2 now refers to what fd refers to
        return fd2

    _os.dup, _os.dup2 = dup, dup2
    _os.uname = lambda: _os.uname_result(uname)  # the box's kernel, not the WASI placeholder
    import site
    venv = _os.environ.get("VIRTUAL_ENV")
    if venv and _os.path.isdir(venv + "/lib/python3.12/site-packages"):  # activated: its packages
        _sys.prefix = _sys.exec_prefix = venv
        dist = [venv + "/lib/python3.12/site-packages"]
    for folder in dist:
        if _os.path.isdir(folder) and folder not in _sys.path:
            site.addsitedir(folder)
    if script is not None and _sys.argv:
        _sys.argv[0] = script
    try:
        _os.chdir(cwd)
    except OSError:
        pass
_agentworld_boot({cwd!r}, {hashseed!r}, {dist!r}, {script!r}, {uname!r})
"""


def _transform(text: str) -> str:
    """Guest output as a Linux CPython prints it: glibc errno numbers, the system's stdlib path."""
    text = abi.linux_errno_text(text)
    return text.replace(BUILD_LIB, SYSTEM_LIB) if BUILD_LIB in text else text


def _boot_fs(cwd: str, env: dict[str, str], script: str | None, hostname: str) -> VirtualFS:
    boot = VirtualFS()
    source = _BOOT.format(boot=BOOT_DIR, marker=DUP_MARKER, cwd=cwd,
                          hashseed=env.get("PYTHONHASHSEED"), dist=DIST_PACKAGES, script=script,
                          uname=("Linux", hostname, KERNEL, KERNEL_VERSION, "x86_64"))  # fmt: skip
    boot.write("/sitecustomize.py", source)
    boot.write("/_agentworld_subprocess.py", GUEST_MODULE)
    return boot


#: options of the python3 command line that take the next word as their value
_VALUED = {"-W", "-X", "--check-hash-based-pycs"}


def script_operand(args: list[str]) -> int | None:
    """The index of the script in python3's arguments (None: ``-c``, ``-m``, stdin, ``-V``...)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-" or a == "--":
            return i + 1 if a == "--" and i + 1 < len(args) and args[i + 1] != "-" else None
        if not a.startswith("-"):
            return i
        if a in _VALUED:
            i += 2
            continue
        if a.startswith("--"):
            return None  # --version, --help: nothing to run
        step = 1
        for k, flag in enumerate(a[1:], start=1):
            if flag in "cm":
                return None
            if flag in "WX":  # -Wignore, -Xdev: the value is the rest of the word, else the next
                step = 2 if k == len(a) - 1 else 1
                break
        i += step
    return None


def guest_env(p: _Proc) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The guest's environment: the shell's exported variables (and PYTHONHASHSEED, fixed)."""
    vm = p.vm
    env = {k: vm.vars[k] for k in vm.exported if k in vm.vars}
    guest = dict(env)
    guest.setdefault("PYTHONHASHSEED", "0")
    return list(guest.items()), env


def run(p: _Proc, argv: list[str]) -> int:
    """Run the guest with ``argv`` (``argv[0]`` is how it names itself) on ``p``'s machine."""
    import wasmtime

    engine, module = runtime.load()
    vm = p.vm
    env_pairs, env = guest_env(p)
    budget = current()
    argv = list(argv)
    at = script_operand(argv[1:])
    script = None
    if at is not None:  # CPython makes the script's path absolute against its cwd, before site
        script = argv[at + 1]
        argv[at + 1] = posixpath.join(vm.cwd, script)
    boot = _boot_fs(vm.cwd, env, script, vm.hostname)
    host = WasiHost(vm.fs, p.ctx, argv, env_pairs, boot, vm.device_random(), _transform)
    host.spawn = lambda request: run_request(p, request)
    store = wasmtime.Store(engine)
    store.set_limits(memory_size=budget.limits.memory_bytes)
    linker = wasmtime.Linker(engine)
    host.define(linker, module)
    budget.spend(1 + runtime.WASM_SIZE // (BYTES_PER_UNIT * 1024))  # mapping the module in
    try:
        instance = linker.instantiate(store, module)
    except wasmtime.WasmtimeError:
        p.ctx.err.write(f"{p.name}: cannot allocate the interpreter's memory "
                        f"(the offline step memory budget is {budget.limits.memory_mb} MB)\n")  # fmt: skip
        return 1
    host.mem = abi.Memory(instance.exports(store)["memory"])
    host.start(store)
    left = budget.wall_deadline - time.monotonic()
    store.set_epoch_deadline(max(1, math.ceil(min(left, 1e6) / runtime.EPOCH_SECONDS)))
    status, message = 0, ""
    try:
        start = instance.exports(store)["_start"]
        assert isinstance(start, wasmtime.Func)
        start(store)
    except BaseException as exc:
        status, message = _outcome(host.raised or exc, store)
    finally:
        _finish(host, store, status == -1)
    if message:
        p.ctx.err.write(message)
    return status


def _outcome(exc: BaseException, store: Any) -> tuple[int, str]:
    """What a guest that stopped with ``exc`` returns: its exit code, a signal, or -1 (out of
    fuel: the budget ends the step in :func:`_finish`). Budget errors and timeouts propagate."""
    import wasmtime

    if isinstance(exc, ProcExit):
        return exc.code, ""
    if isinstance(exc, wasmtime.ExitTrap):
        return exc.code, ""
    if not isinstance(exc, (wasmtime.Trap, wasmtime.WasmtimeError)):
        raise exc
    if store.get_fuel() < FUEL_PER_UNIT:
        return -1, ""
    if isinstance(exc, wasmtime.Trap) and exc.trap_code == wasmtime.TrapCode.INTERRUPT:
        budget = current()  # past the wall-clock safety limit: the budget says so in its words
        budget.wall_deadline = float("-inf")
        budget.wall_next = budget.stop_at = budget.work
        budget.spend(1)
    text = str(exc)
    if "call stack exhausted" in text or "stack overflow" in text:
        return SEGV
    return ABORT


def _finish(host: WasiHost, store: Any, out_of_fuel: bool) -> None:
    host.spawn = None
    try:
        host.finish(store, out_of_fuel)
    finally:
        for fd in host.fds.values():
            fd.close()
        host.fds.clear()
