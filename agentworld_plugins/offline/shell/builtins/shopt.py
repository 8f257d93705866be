"""shopt: bash 5.2's optional behaviours, shown and set as bash shows and sets them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..options import (
    READ_ONLY_SHOPT,
    SET_NAMES,
    SHOPT_NAMES,
    set_option,
    set_options,
    set_shopt,
    shopt_options,
)
from ..registry import builtin

if TYPE_CHECKING:
    from ..proc import _Proc

_USAGE = "shopt: usage: shopt [-pqsu] [-o] [optname ...]\n"


def _line(name: str, on: bool, as_command: bool, set_o: bool) -> str:
    if as_command:
        return f"set {'-' if on else '+'}o {name}\n" if set_o else f"shopt {'-s' if on else '-u'} {name}\n"
    return f"{name:<15}\t{'on' if on else 'off'}\n"


@builtin("shopt")
def _b_shopt(p: _Proc) -> int:
    flags: set[str] = set()
    names: list[str] = []
    args = list(p.args)
    while args and args[0].startswith("-") and len(args[0]) > 1:
        arg = args.pop(0)
        if arg == "--":
            break
        for letter in arg[1:]:
            if letter not in "pqsuo":
                p.shell_err(f"shopt: -{letter}: invalid option")
                p.ctx.err.write(_USAGE)
                return 2
            flags.add(letter)
    names = args
    if "s" in flags and "u" in flags:
        p.shell_err("shopt: cannot set and unset shell options simultaneously")
        return 1
    vm = p.vm
    set_o = "o" in flags
    known = SET_NAMES if set_o else SHOPT_NAMES

    def current() -> frozenset[str]:
        return set_options(vm) if set_o else shopt_options(vm)

    status = 0
    if names and ("s" in flags or "u" in flags):
        on = "s" in flags
        for name in names:
            if name not in known:
                p.shell_err(f"shopt: {name}: invalid {'option' if set_o else 'shell option'} name")
                status = 1
            elif not set_o and name in READ_ONLY_SHOPT:
                continue  # bash says nothing and changes nothing
            elif not (set_option(vm, name, on) if set_o else set_shopt(vm, name, on)):
                p.unknown()  # accepted; what it changes is not simulated
        return status
    on_now = current()
    if "s" in flags or "u" in flags:  # `shopt -s`: the options that are on (-u: off)
        wanted_on = "s" in flags
        chosen = [name for name in known if (name in on_now) == wanted_on]
    else:
        chosen = []
        for name in names or list(known):
            if name not in known:
                p.shell_err(f"shopt: {name}: invalid {'option' if set_o else 'shell option'} name")
                status = 1
                continue
            chosen.append(name)
            if name not in on_now and names:
                status = 1  # a named option that is off: status 1, as for -q
    if "q" in flags:
        return status
    p.out("".join(_line(name, name in on_now, "p" in flags, set_o) for name in chosen))
    return status
