"""env and printenv."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..getopt import _getopt
from ..names import _valid_name
from ..pipes import delegating
from ..quoting import locale_quote, quote_always
from ..registry import applet

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("env")
@delegating
def _u_env(p: _Proc) -> int:
    vm = p.vm
    try:
        opts, args = _getopt(
            p.args,
            "i0u:C:S:v",
            {
                "ignore-environment": "i",
                "null": "0",
                "unset=": "u",
                "chdir=": "C",
                "split-string=": "S",
                "debug": "v",
            },
            status=125,
            stop_at_operand=True,
        )
    except _UsageError as exc:
        p.err(exc.message)
        p.try_help()
        return exc.status
    if "S" in opts:  # -S 'cmd args': the string split into words before the rest
        args = shlex.split(opts["S"][-1]) + args
    ignore = "i" in opts
    if args and args[0] == "-":
        ignore = True
        args.pop(0)
    if "v" in opts:
        p.unknown()  # its trace of what it does is not simulated
    env = {} if ignore else {k: vm.vars[k] for k in vm.vars if k in vm.exported}
    for name in opts.get("u", []):
        if not name or "=" in name:
            p.err(f"cannot unset {locale_quote(name)}: Invalid argument")
            return 125
        env.pop(name, None)
    while args and "=" in args[0] and _valid_name(args[0].split("=", 1)[0]):
        name, _, value = args.pop(0).partition("=")
        env[name] = value
    if not args:
        if "C" in opts:
            p.err("must specify command with --chdir (-C)")
            p.try_help()
            return 125
        end = "\0" if "0" in opts else "\n"
        p.out("".join(f"{k}={v}{end}" for k, v in env.items()))
        return 0
    if "0" in opts:
        p.err("cannot specify --null (-0) with command")
        p.try_help()
        return 125
    saved = (dict(vm.vars), set(vm.exported), vm.cwd)
    try:
        # the command's environment is exactly `env`; the shell's own variables are not passed on
        vm.vars = {k: v for k, v in vm.vars.items() if k not in vm.exported and not ignore}
        vm.vars.update(env)
        vm.exported = set(env)
        if "C" in opts:
            target = vm.fs.normalize(opts["C"][-1], vm.cwd)
            if not vm.fs.is_dir(target):
                p.err(f"cannot change directory to {quote_always(opts['C'][-1])}: No such file or directory")
                return 125
            vm.cwd = target
        search = vm.vars.get("PATH")
        if search is None:
            vm.vars["PATH"] = "/bin:/usr/bin"  # execvp's default, not exported to the command
        found = vm._locate(args[0])
        if search is None:
            del vm.vars["PATH"]
        if found is None or not vm.fs.exists(found):
            p.err(f"{locale_quote(args[0])}: No such file or directory")
            return 127
        if not vm.fs.is_file(found):
            p.err(f"{locale_quote(args[0])}: Permission denied")
            return 126
        return vm._exec_path(found, args, p.ctx)
    finally:
        vm.vars, vm.exported, vm.cwd = saved


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
