"""Control builtins: exit, return, break, continue, true, false, source, eval, exec."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...vfs import FsError
from ..errors import _ExitShell, _LoopControl, _Replaced, _Return
from ..pipes import delegating
from ..registry import BUILTINS, applet, builtin

if TYPE_CHECKING:
    from ..proc import _Proc


@builtin("exit", "logout")
def _b_exit(p: _Proc) -> int:
    if not p.args:
        raise _ExitShell(p.vm.last_status)
    try:
        code = int(p.args[0]) & 0xFF
    except ValueError:
        p.shell_err(f"exit: {p.args[0]}: numeric argument required")
        raise _ExitShell(2) from None
    if len(p.args) > 1:
        p.shell_err("exit: too many arguments")
        return 1
    raise _ExitShell(code)


@builtin("return")
def _b_return(p: _Proc) -> int:
    code = p.vm.last_status
    if p.args:
        try:
            code = int(p.args[0]) & 0xFF
        except ValueError:
            p.shell_err(f"return: {p.args[0]}: numeric argument required")
            code = 2
    raise _Return(code)


def _loop_control(is_break: bool) -> Callable[[_Proc], int]:
    def run(p: _Proc) -> int:
        if p.vm._loop_depth == 0:
            p.shell_err(f"{p.name}: only meaningful in a `for', `while', or `until' loop")
            return 0
        levels = 1
        if p.args:
            try:
                levels = max(1, int(p.args[0]))
            except ValueError:
                p.shell_err(f"{p.name}: {p.args[0]}: numeric argument required")
                return 1
        raise _LoopControl(levels, is_break)

    return run


builtin("break")(_loop_control(True))
builtin("continue")(_loop_control(False))


@builtin("true", ":")
@applet("true")
def _b_true(p: _Proc) -> int:
    return 0


@builtin("false")
@applet("false")
def _b_false(p: _Proc) -> int:
    return 1


@builtin("source", ".")
def _b_source(p: _Proc) -> int:
    if not p.args:
        p.shell_err(f"{p.name}: filename argument required")
        return 2
    vm = p.vm
    name = p.args[0]
    path = vm.fs.normalize(name, vm.cwd) if "/" in name else None
    if path is None:
        path = vm.fs.normalize(name, vm.cwd)
        if not vm.fs.is_file(path):
            path = vm.find_in_path(name) or path
    try:
        text = vm.fs.read_text(path)
    except FsError as exc:
        p.shell_err(f"{name}: {exc.strerror}")
        return 1
    return vm._run_script(text, p.args, p.ctx, source=True)


@builtin("eval")
def _b_eval(p: _Proc) -> int:
    return p.vm._run_status(" ".join(p.args), p.ctx)


@builtin("exec")
@delegating
def _b_exec(p: _Proc) -> int:
    """``exec CMD``: CMD takes the shell's place, which ends with its status (no EXIT trap);
    ``exec`` with only redirections changes nothing here (the step is flagged: not simulated). An interactive shell's ``exec bash``
    (a fresh login shell in its place) goes on as this one."""
    if not p.args:
        return 0
    vm = p.vm
    name = p.args[0]
    if (
        vm.interactive
        and not vm._scripts
        and name in ("bash", "sh", "-bash")
        and not {"-c"} & set(p.args[1:])
    ):
        return 0
    known = name in vm.functions or name in BUILTINS or vm._locate(name) is not None
    if not known:
        p.shell_err(f"exec: {name}: not found")
        if vm.interactive and not vm._scripts:
            return 127
        raise _Replaced(127)
    raise _Replaced(vm._invoke(list(p.args), p.ctx))
