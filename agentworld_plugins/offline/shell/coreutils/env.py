"""env and printenv."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..names import _valid_name
from ..pipes import delegating
from ..quoting import quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("env")
@delegating
def _u_env(p: _Proc) -> int:
    vm = p.vm
    args = list(p.args)
    ignore = False
    unset: list[str] = []
    while args and args[0].startswith("-") and args[0] != "-":
        a = args.pop(0)
        if a in ("-i", "--ignore-environment"):
            ignore = True
        elif a in ("-u", "--unset") and args:
            unset.append(args.pop(0))
        elif a == "--":
            break
    if args and args[0] == "-":
        ignore = True
        args.pop(0)
    env = {} if ignore else {k: vm.vars[k] for k in vm.exported if k in vm.vars}
    for name in unset:
        env.pop(name, None)
    assigns = []
    while args and "=" in args[0] and _valid_name(args[0].split("=", 1)[0]):
        name, _, value = args.pop(0).partition("=")
        env[name] = value
        assigns.append((name, value))
    if not args:
        order = [k for k in vm.vars if k in env] + [k for k in env if k not in vm.vars]
        for k in order:
            p.out(f"{k}={env[k]}\n")
        return 0
    saved = (dict(vm.vars), set(vm.exported))
    try:
        if ignore:
            for k in list(vm.exported):
                vm.vars.pop(k, None)
            vm.exported = set()
        for name, value in assigns:
            vm.vars[name] = value
            vm.exported.add(name)
        if "PATH" not in vm.vars:
            vm.vars["PATH"] = "/bin:/usr/bin"
        found = vm._locate(args[0])
        if found is None or not vm.fs.is_file(found):
            p.err(f"{quote_always(args[0])}: No such file or directory")
            return 127
        return vm._exec_path(found, args, p.ctx)
    finally:
        vm.vars, vm.exported = saved


@applet("printenv")
def _u_printenv(p: _Proc) -> int:
    vm = p.vm
    env = {k: vm.vars[k] for k in vm.vars if k in vm.exported}
    if not p.args:
        for k, v in env.items():
            p.out(f"{k}={v}\n")
        return 0
    status = 0
    for name in p.args:
        if name in env:
            p.out(env[name] + "\n")
        else:
            status = 1
    return status
