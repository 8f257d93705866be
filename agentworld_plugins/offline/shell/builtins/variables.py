"""Builtins over variables: export, set, shift, let (declare, local, unset: ``declare``)."""

from __future__ import annotations

from ..errors import _ExpansionError
from ..names import _valid_name
from ..options import SET_LETTERS, SET_NAMES, set_option, set_options
from ..proc import _Proc
from ..quoting import _SAFE_NAME, single_quoted
from ..registry import builtin


@builtin("export")
def _b_export(p: _Proc) -> int:
    vm = p.vm
    args = [a for a in p.args if a not in ("-n", "-f")]
    if not args or args == ["-p"]:
        for name in sorted(vm.exported):
            if name in vm.vars:
                value = vm.vars[name].replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                p.out(f'declare -x {name}="{value}"\n')
            else:
                p.out(f"declare -x {name}\n")
        return 0
    status = 0
    for a in args:
        name, eq, value = a.partition("=")
        append = name.endswith("+")
        if append:
            name = name[:-1]
        if not _valid_name(name):
            p.shell_err(f"export: `{a}': not a valid identifier")
            status = 1
            continue
        if "-n" in p.args:
            vm.exported.discard(name)
            continue
        if eq:
            try:
                vm._assign(name, value, append)
            except _ExpansionError as exc:  # readonly
                p.shell_err(exc.message)
                status = 1
                continue
        vm.exported.add(name)
    return status


@builtin("set")
def _b_set(p: _Proc) -> int:
    vm = p.vm
    if not p.args:
        for name in sorted(vm.vars):
            value = vm.vars[name]
            shown = value if _SAFE_NAME.fullmatch(value or "x") else single_quoted(value)
            p.out(f"{name}={shown}\n")
        return 0
    args = p.args
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or a == "-":
            vm.positional = args[i + 1 :]
            return 0
        if len(a) < 2 or a[0] not in "-+":
            vm.positional = args[i:]  # `set a b c`
            return 0
        on = a[0] == "-"
        for flag in a[1:]:
            if flag == "o":
                i += 1
                if i >= len(args):  # `set -o` / `set +o`: the options and their values
                    _list_options(p, as_commands=not on)
                    continue
                if args[i] not in SET_NAMES:
                    p.shell_err(f"set: {args[i]}: invalid option name")
                    return 2
                if not set_option(vm, args[i], on):
                    p.unknown()  # accepted; what it changes is not simulated
            elif flag not in SET_LETTERS:
                p.shell_err(f"set: {a[0]}{flag}: invalid option")
                p.ctx.err.write(f"set: usage: {_SET_USAGE}\n")
                return 2
            elif not set_option(vm, SET_LETTERS[flag], on):
                p.unknown()
        i += 1
    return 0


_SET_USAGE = "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]"


def _list_options(p: _Proc, *, as_commands: bool) -> None:
    """``set -o`` (a table) or ``set +o`` (commands that restore the options), as bash prints them."""
    on = set_options(p.vm)
    for name in SET_NAMES:
        if as_commands:
            p.out(f"set {'-' if name in on else '+'}o {name}\n")
        else:
            p.out(f"{name:<15}\t{'on' if name in on else 'off'}\n")


@builtin("shift")
def _b_shift(p: _Proc) -> int:
    n = int(p.args[0]) if p.args and p.args[0].isdigit() else 1
    if n > len(p.vm.positional):
        return 1
    p.vm.positional = p.vm.positional[n:]
    return 0


@builtin("let")
def _b_let(p: _Proc) -> int:
    """Each argument an arithmetic expression (assignments kept); 1 when the last is 0 or an
    expression is bad (``let: y=1/0: division by 0 (error token is "0")``)."""
    if not p.args:
        p.shell_err("let: expression expected")
        return 1
    value = 0
    for expr in p.args:
        try:
            value = p.vm._arith_expanded(expr)
        except _ExpansionError as exc:
            if exc.unbound:
                raise
            p.shell_err(f"let: {exc.message}")
            return 1
    return 0 if value else 1
