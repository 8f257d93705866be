"""Session builtins: history, alias, unalias, umask and the accepted no-ops (jobs, wait, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import builtin

if TYPE_CHECKING:
    from ..proc import _Proc


@builtin("history")
def _b_history(p: _Proc) -> int:
    vm = p.vm
    if p.args and p.args[0] == "-c":
        vm.history.clear()
        return 0
    items = list(enumerate(vm.history, 1))
    if p.args and p.args[0].isdigit():
        items = items[-int(p.args[0]) :] if int(p.args[0]) else []
    for number, line in items:
        p.out(f"{number:5d}  {line}\n")
    return 0


@builtin("alias")
def _b_alias(p: _Proc) -> int:
    vm = p.vm
    if not p.args or p.args == ["-p"]:
        for name in sorted(vm.aliases):
            p.out(f"alias {name}='{vm.aliases[name]}'\n")
        return 0
    status = 0
    for a in p.args:
        name, eq, value = a.partition("=")
        if eq:
            vm.aliases[name] = value
        elif name in vm.aliases:
            p.out(f"alias {name}='{vm.aliases[name]}'\n")
        else:
            p.shell_err(f"alias: {name}: not found")
            status = 1
    return status


@builtin("unalias")
def _b_unalias(p: _Proc) -> int:
    vm = p.vm
    if p.args == ["-a"]:
        vm.aliases.clear()
        return 0
    status = 0
    for name in p.args:
        if vm.aliases.pop(name, None) is None:
            p.shell_err(f"unalias: {name}: not found")
            status = 1
    return status


@builtin("wait", "jobs", "hash", "ulimit", "disown")
def _b_noop(p: _Proc) -> int:
    return 0


@builtin("umask")
def _b_umask(p: _Proc) -> int:
    if not p.args:
        p.out("0022\n")
    return 0
