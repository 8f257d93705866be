"""cd, pwd, and the directory stack: pushd, popd, dirs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError
from ..registry import applet, builtin

if TYPE_CHECKING:
    from ..proc import _Proc


@builtin("cd")
def _b_cd(p: _Proc) -> int:
    args = [a for a in p.args if a not in ("-L", "-P", "--")]
    if len(args) > 1:
        p.shell_err("cd: too many arguments")
        return 1
    return 0 if _change_dir(p, args, "cd") else 1


def _change_dir(p: _Proc, args: list[str], name: str) -> bool:
    """``cd``'s work (``name``: the builtin its errors name); whether the directory changed."""
    vm = p.vm
    if not args:
        target = vm.vars.get("HOME")
        if not target:
            p.shell_err("cd: HOME not set")
            return False
    elif args[0] == "-":
        if vm.oldpwd is None:
            p.shell_err("cd: OLDPWD not set")
            return False
        target = vm.oldpwd
        p.out(target + "\n")
    else:
        target = args[0]
    path = vm.fs.normalize(target, vm.cwd)
    try:
        node = vm.fs.stat(path)
    except FsError as exc:
        p.shell_err(f"{name}: {target}: {exc.strerror}")
        return False
    if not isinstance(node, DirNode):
        p.shell_err(f"{name}: {target}: Not a directory")
        return False
    vm.oldpwd = vm.cwd
    vm.vars["OLDPWD"] = vm.cwd
    vm.cwd = path
    vm.vars["PWD"] = path
    return True


@builtin("pwd")
@applet("pwd")
def _b_pwd(p: _Proc) -> int:
    if "-P" in p.args:
        p.out(p.fs.realpath(p.vm.cwd) + "\n")
    else:
        p.out(p.vm.cwd + "\n")
    return 0


_USAGES = {
    "dirs": "dirs [-clpv] [+N] [-N]",
    "pushd": "pushd [-n] [+N | -N | dir]",
    "popd": "popd [-n] [+N | -N]",
}


class _StackError(Exception):
    """A directory-stack builtin's error: its message and status (2 with the usage line)."""

    def __init__(self, message: str, status: int = 1) -> None:
        self.message, self.status = message, status


def _stack(p: _Proc) -> list[str]:
    """The directory stack below the working directory (bash's DIRSTACK without element 0)."""
    stack: list[str] = p.vm.__dict__.setdefault("_dirstack", [])
    return stack


def _shown(p: _Proc, path: str, long: bool) -> str:
    home = p.vm.vars.get("HOME", "")
    if long or not home or home == "/":
        return path
    if path == home:
        return "~"
    return "~" + path[len(home) :] if path.startswith(home + "/") else path


def _print_stack(p: _Proc, flags: str = "") -> None:
    entries = [_shown(p, d, "l" in flags) for d in [p.vm.cwd, *_stack(p)]]
    if "v" in flags:
        p.out("".join(f"{k:2d}  {d}\n" for k, d in enumerate(entries)))
    elif "p" in flags:
        p.out("".join(d + "\n" for d in entries))
    else:
        p.out(" ".join(entries) + "\n")


def _index(p: _Proc, name: str, spec: str) -> int:
    """``+N`` (from the left, 0 the working directory) or ``-N`` (from the right) as an index
    into the working directory and the stack; bash's errors where there is none."""
    if not spec[1:].isdigit():
        raise _StackError(f"{name}: {spec}: invalid number", 2)
    size = 1 + len(_stack(p))
    n = int(spec[1:])
    k = n if spec[0] == "+" else size - 1 - n
    if size == 1 and (name != "dirs" or n):
        raise _StackError(f"{name}: directory stack empty")
    if not 0 <= k < size:
        shown = spec[1:] if name == "dirs" else spec
        raise _StackError(f"{name}: {shown}: directory stack index out of range")
    return k


def _stack_builtin(fn: Callable[[_Proc, list[str], bool], int]) -> Callable[[_Proc], int]:
    """``-n`` taken off, and a _StackError said as bash says it."""

    def run(p: _Proc) -> int:
        args = [a for a in p.args if a != "-n"]
        try:
            return fn(p, args, len(args) != len(p.args))
        except _StackError as exc:
            p.shell_err(exc.message)
            if exc.status == 2:
                p.ctx.err.write(f"{p.name}: usage: {_USAGES[p.name]}\n")
            return exc.status

    return run


@builtin("dirs")
def _b_dirs(p: _Proc) -> int:
    flags = ""
    try:
        for arg in p.args:
            if arg.startswith("-") and arg[1:] and set(arg[1:]) <= set("clpv"):
                flags += arg[1:]
                continue
            if arg[:1] not in ("+", "-"):
                raise _StackError(f"dirs: {arg}: invalid number", 2)
            k = _index(p, "dirs", arg)
            p.out(_shown(p, [p.vm.cwd, *_stack(p)][k], "l" in flags) + "\n")
            return 0
    except _StackError as exc:
        p.shell_err(exc.message)
        if exc.status == 2:
            p.ctx.err.write(f"dirs: usage: {_USAGES['dirs']}\n")
        return exc.status
    if "c" in flags:
        _stack(p).clear()
        return 0
    _print_stack(p, flags)
    return 0


@builtin("pushd")
@_stack_builtin
def _b_pushd(p: _Proc, args: list[str], no_cd: bool) -> int:
    stack = _stack(p)
    entries = [p.vm.cwd, *stack]
    turning = bool(args) and args[0][:1] in ("+", "-") and args[0] != "-"  # +N / -N, not `cd -`
    if no_cd and (not args or turning):
        p.unknown()  # bash's rotation without cd keeps a stack of its own making: not simulated
        return 0
    if not args:  # the two top entries change places
        if not stack:
            raise _StackError("pushd: no other directory")
        turned = [stack[0], entries[0], *stack[1:]]
    elif turning:  # the stack turned until that entry is on top
        k = _index(p, "pushd", args[0])
        turned = entries[k:] + entries[:k]
    elif no_cd:
        stack.insert(0, args[0])
        _print_stack(p)
        return 0
    else:
        here = p.vm.cwd
        if not _change_dir(p, args[:1], "pushd"):
            return 1
        stack.insert(0, here)
        _print_stack(p)
        return 0
    if not _change_dir(p, [turned[0]], "pushd"):
        return 1
    stack[:] = turned[1:]
    _print_stack(p)
    return 0


@builtin("popd")
@_stack_builtin
def _b_popd(p: _Proc, args: list[str], no_cd: bool) -> int:
    stack = _stack(p)
    if not stack and not args:
        raise _StackError("popd: directory stack empty")
    k = _index(p, "popd", args[0]) if args else 0
    if k == 0 and not no_cd:
        if not _change_dir(p, [stack[0]], "popd"):
            return 1
        del stack[0]
    else:
        del stack[max(k - 1, 0)]
    _print_stack(p)
    return 0
