"""cd and pwd."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vfs import DirNode, FsError
from ..registry import applet, builtin

if TYPE_CHECKING:
    from ..proc import _Proc


@builtin("cd")
def _b_cd(p: _Proc) -> int:
    vm = p.vm
    args = [a for a in p.args if a not in ("-L", "-P", "--")]
    if len(args) > 1:
        p.shell_err("cd: too many arguments")
        return 1
    if not args:
        target = vm.vars.get("HOME")
        if not target:
            p.shell_err("cd: HOME not set")
            return 1
    elif args[0] == "-":
        if vm.oldpwd is None:
            p.shell_err("cd: OLDPWD not set")
            return 1
        target = vm.oldpwd
        p.out(target + "\n")
    else:
        target = args[0]
    path = vm.fs.normalize(target, vm.cwd)
    try:
        node = vm.fs.stat(path)
    except FsError as exc:
        p.shell_err(f"cd: {target}: {exc.strerror}")
        return 1
    if not isinstance(node, DirNode):
        p.shell_err(f"cd: {target}: Not a directory")
        return 1
    vm.oldpwd = vm.cwd
    vm.vars["OLDPWD"] = vm.cwd
    vm.cwd = path
    vm.vars["PWD"] = path
    return 0


@builtin("pwd")
@applet("pwd")
def _b_pwd(p: _Proc) -> int:
    if "-P" in p.args:
        p.out(p.fs.realpath(p.vm.cwd) + "\n")
    else:
        p.out(p.vm.cwd + "\n")
    return 0
