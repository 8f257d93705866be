"""Session builtins: history, alias, unalias and umask."""

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


@builtin("umask")
def _b_umask(p: _Proc) -> int:
    """``umask [-p] [-S] [MODE]``: octal or symbolic (``u=rwx,g=rx,o=``, ``g-w``, ``+x``), as
    bash reads and prints it. The mask is kept per machine; files here are still made with the
    default modes (644, 755), so a mask other than 022 is flagged as an unknown effect."""
    vm = p.vm
    args = list(p.args)
    flags = set()
    while args and args[0].startswith("-") and len(args[0]) > 1:
        word = args.pop(0)
        if word == "--":
            break
        for letter in word[1:]:
            if letter not in "pS":
                p.shell_err(f"umask: -{letter}: invalid option")
                p.ctx.err.write("umask: usage: umask [-p] [-S] [mode]\n")
                return 2
            flags.add(letter)
    mask = vm.__dict__.get("_umask", 0o022)
    if not args:
        shown = _symbolic(mask) if "S" in flags else f"{mask:04o}"
        p.out(("umask -S " if "S" in flags else "umask ") + shown + "\n" if "p" in flags else shown + "\n")
        return 0
    mode = args[0]
    if mode[:1].isdigit():
        if not all(c in "01234567" for c in mode):
            p.shell_err(f"umask: {mode}: octal number out of range")
            return 1
        new = int(mode, 8) & 0o777
    else:
        try:
            new = 0o777 & ~_apply_symbolic(mode, 0o777 & ~mask)
        except ValueError as exc:
            p.shell_err(f"umask: `{exc.args[0]}': {exc.args[1]}")
            return 1
    vm.__dict__["_umask"] = new
    if new != 0o022:
        vm._unknown.append(f"umask {mode}")
    if "S" in flags:
        p.out(_symbolic(new) + "\n")
    return 0


_WHO = {"u": 0o700, "g": 0o070, "o": 0o007, "a": 0o777}
_PERM = {"r": 0o444, "w": 0o222, "x": 0o111}


def _symbolic(mask: int) -> str:
    allowed = 0o777 & ~mask
    parts = []
    for who, shift in (("u", 6), ("g", 3), ("o", 0)):
        bits = (allowed >> shift) & 7
        parts.append(who + "=" + "".join(c for c, b in (("r", 4), ("w", 2), ("x", 1)) if bits & b))
    return ",".join(parts)


def _apply_symbolic(mode: str, perms: int) -> int:
    """The permissions ``mode`` makes of ``perms`` (bash's ``symbolic_umask``); raises
    ``ValueError((character, what is wrong))``."""
    i, n = 0, len(mode)
    while True:
        who = 0
        while i < n and mode[i] in _WHO:
            who |= _WHO[mode[i]]
            i += 1
        who = who or 0o777
        op = mode[i] if i < n else "\0"
        if op not in "+-=":
            raise ValueError(op, "invalid symbolic mode operator")
        i += 1
        bits = 0
        while i < n and mode[i] != ",":
            if mode[i] not in _PERM:
                raise ValueError(mode[i], "invalid symbolic mode character")
            bits |= _PERM[mode[i]]
            i += 1
        bits &= who
        if op == "+":
            perms |= bits
        elif op == "-":
            perms &= ~bits
        else:
            perms = (perms & ~who) | bits
        if i >= n:
            break
        i += 1  # past the comma
    return perms
