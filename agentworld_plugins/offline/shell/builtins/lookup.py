"""type and command: how a name would be run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..options import shopt_on
from ..pipes import delegating
from ..registry import BUILTINS, builtin
from ..simple import RESERVED

if TYPE_CHECKING:
    from ..proc import _Proc


def _describe(p: _Proc, name: str) -> str | None:
    vm = p.vm
    if name in vm.aliases and shopt_on(vm, "expand_aliases"):  # bash looks aliases up only then
        return f"{name} is aliased to `{vm.aliases[name]}'"
    if name in _KEYWORDS:
        return f"{name} is a shell keyword"
    if name in vm.functions:
        return f"{name} is a function"
    if name in BUILTINS:
        return f"{name} is a shell builtin"
    found = (
        vm.find_in_path(name)
        if "/" not in name
        else (name if vm.fs.is_file(vm.fs.normalize(name, vm.cwd)) else None)
    )
    return f"{name} is {found}" if found else None


#: what ``type`` calls a shell keyword: the reserved words and the ones that stand alone
_KEYWORDS = RESERVED | {"!", "[[", "]]", "{", "}"}


@builtin("type")
def _b_type(p: _Proc) -> int:
    status = 0
    names = [a for a in p.args if not a.startswith("-")]
    short = "-t" in p.args
    for name in names:
        text = _describe(p, name)
        if text is None:
            if not short:
                p.shell_err(f"type: {name}: not found")
            status = 1
            continue
        if short:
            kind = text.split(" is ", 1)[1]
            p.out(
                (
                    "alias"
                    if kind.startswith("aliased")
                    else "keyword"
                    if "keyword" in kind
                    else "function"
                    if "function" in kind
                    else "builtin"
                    if "builtin" in kind
                    else "file"
                )
                + "\n"
            )
        else:
            p.out(text + "\n")
    return status


@builtin("command")
@delegating
def _b_command(p: _Proc) -> int:
    args = list(p.args)
    if args and args[0] in ("-v", "-V"):
        verbose = args[0] == "-V"
        status = 0
        for name in args[1:]:
            vm = p.vm
            if verbose:
                text = _describe(p, name)
                if text is None:
                    p.shell_err(f"command: {name}: not found")
                    status = 1
                else:
                    p.out(text + "\n")
                continue
            if name in vm.aliases:
                p.out(f"alias {name}='{vm.aliases[name]}'\n")
            elif name in BUILTINS or name in vm.functions or name in _KEYWORDS:
                p.out(name + "\n")
            else:
                found = vm.find_in_path(name)
                if found:
                    p.out(found + "\n")
                else:
                    status = 1
        return status
    if args and args[0] == "-p":
        args = args[1:]
    if not args:
        return 0
    vm = p.vm
    builtin = BUILTINS.get(args[0])
    if builtin is not None:
        return vm._call(builtin, args[0], args[1:], p.ctx)
    found = vm._locate(args[0])
    if found is None:
        p.shell_err(f"{args[0]}: command not found")
        return 127
    return vm._exec_path(found, args, p.ctx)
