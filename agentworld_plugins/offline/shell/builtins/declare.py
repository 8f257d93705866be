"""declare, typeset, local, readonly and unset: variables with attributes and arrays.

The attributes are bash's letters: ``-a`` indexed array, ``-A`` associative array, ``-i``
integer (assignments are arithmetic), ``-l``/``-u`` lower/upper case, ``-r`` readonly, ``-x``
exported; ``+x`` takes one off (never ``+r``). ``-p`` prints declarations as bash does
(``declare -a a=([0]="x" [1]="y")``). Inside a function ``declare`` and ``local`` make the name
local: its value, elements and attributes come back when the function returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arrays import COMPOUND_MARKER, SUBSCRIPTED, Compound
from ..brackets import _match_closing
from ..errors import _ExpansionError
from ..funcprint import definition
from ..names import _valid_name
from ..proc import _Proc
from ..registry import BUILTINS, builtin
from ..transforms import declaration

if TYPE_CHECKING:
    pass

_SETTABLE = set("aAilrux")


def _parse_flags(p: _Proc) -> tuple[set[str], set[str], list[str], bool] | int:
    on: set[str] = set()
    off: set[str] = set()
    names: list[str] = []
    printing = False
    for a in p.args:
        if names or a[:1] not in ("-", "+") or a in ("-", "+"):
            names.append(a)
            continue
        if a == "--":
            names.append(a)
            continue
        for letter in a[1:]:
            if letter == "p":
                printing = True
            elif letter == "g":
                continue
            elif letter in ("f", "F") or letter in _SETTABLE or letter in "nt":
                (on if a[0] == "-" else off).add(letter)
            else:
                p.shell_err(f"{p.name}: {a[0]}{letter}: invalid option")
                p.ctx.err.write(
                    f"{p.name}: usage: {p.name} [-aAfFgiIlnrtux] [name[=value] ...] or {p.name} -p [-aAfFilnrtux] [name ...]\n"
                )
                return 2
    if names[:1] == ["--"]:
        names = names[1:]
    return on, off, names, printing


@builtin("declare", "typeset", "local", "readonly")
def _b_declare(p: _Proc) -> int:
    vm = p.vm
    if p.name == "local" and not vm._locals:
        p.shell_err(f"{p.name}: can only be used in a function")
        return 1
    parsed = _parse_flags(p)
    if isinstance(parsed, int):
        return parsed
    on, off, names, printing = parsed
    if on & {"f", "F"} and p.name != "local":
        return _functions(p, names, "F" in on, "x" in on)
    on -= {"f", "F"}
    off -= {"f", "F"}
    if p.name == "readonly":
        on.add("r")
    if printing or not names:
        return _print(p, names, on if (printing or p.name == "readonly" or on) else None)
    status = 0
    for word in names:
        try:
            status |= _declare_one(p, word, on, off)
        except _ExpansionError as exc:  # `declare: x: readonly variable`, a bad subscript
            p.shell_err(
                f"{p.name}: {exc.message}" if exc.message.endswith("readonly variable") else exc.message
            )
            status = 1
    return status


def _declare_one(p: _Proc, word: str, on: set[str], off: set[str]) -> int:
    vm = p.vm
    name, eq, value = word.partition("=")
    append = name.endswith("+")
    if append:
        name = name[:-1]
    target = name
    m = SUBSCRIPTED.match(name)
    if m and name.endswith("]") and _match_closing(name, m.end(), "[]") == len(name) - 1:
        name = m.group(1)
    if not _valid_name(name):
        p.shell_err(f"{p.name}: `{word}': not a valid identifier")
        return 1
    if vm._has_attr(name, "r") and (eq or off - {"x"} or on - {"r", "x"}):
        raise _ExpansionError(f"{name}: readonly variable")
    local = vm._locals and (p.name == "local" or (p.name in ("declare", "typeset") and "g" not in on))
    if local and name not in vm._locals[-1]:
        vm._locals[-1][name] = vm._snapshot_var(name)
    attrs = vm._attrs().setdefault(name, set())
    if "A" in on and name in vm._arrays() and not vm._is_assoc(name):
        p.shell_err(f"{p.name}: {name}: cannot convert indexed to associative array")
        return 1
    attrs |= on - {"r", "x"}
    attrs -= off
    if "l" in on:
        attrs.discard("u")
    if "u" in on:
        attrs.discard("l")
    if ("a" in on or "A" in on) and name not in vm._arrays():
        vm._to_array(name)
    if eq and "n" in attrs and target == name:  # `declare -n ref=var`: ref stands for var
        return _nameref(p, name, value)
    if eq:
        marker = value if COMPOUND_MARKER.fullmatch(value) and value in p.ctx.src.arith else None
        assigned: str = Compound.of(p.ctx.src.arith[marker], p.ctx) if marker else value
        vm._assign(target, assigned, append)
    elif name not in vm.vars and name not in vm._arrays() and not local:
        pass  # declared, not set (`declare -i n`: `declare -p n` shows it, `$n` is empty)
    if not vm._attrs().get(name):
        vm._attrs().pop(name, None)
    if "x" in on:
        vm.exported.add(name)
    if "x" in off:
        vm.exported.discard(name)
    if "r" in on:
        vm._attrs().setdefault(name, set()).add("r")
    return 0


def _functions(p: _Proc, names: list[str], names_only: bool, exported: bool) -> int:
    """``declare -f`` (definitions) and ``declare -F`` (names): the ones asked for (status 1 if
    one is no function, without a word), or all, sorted; ``-x``: the exported ones."""
    vm = p.vm
    listing = not names
    chosen = sorted(vm.functions) if listing else names
    if listing and exported:
        chosen = [name for name in chosen if name in vm.exported]
    status = 0
    for name in chosen:
        if name not in vm.functions:
            status = 1
            continue
        flags = "fx" if name in vm.exported else "f"
        if names_only:
            p.out(f"declare -{flags} {name}\n" if listing else f"{name}\n")
            continue
        text = definition(name, *vm.functions[name])
        if text is None:  # a body with compound commands: bash's layout of it is not simulated
            return p.not_simulated()
        p.out(text + "\n")
        if listing and name in vm.exported:
            p.out(f"declare -{flags} {name}\n")
    return status


def _nameref(p: _Proc, name: str, target: str) -> int:
    vm = p.vm
    problem = None
    if SUBSCRIPTED.match(target) and target.endswith("]"):  # `declare -n r='a[1]'`
        vm._attrs()[name].discard("n")
        return p.not_simulated()
    if not _valid_name(target):
        problem = f"`{target}': invalid variable name for name reference"
    elif target == name:
        problem = f"{name}: nameref variable self references not allowed"
    if problem is not None:
        p.shell_err(f"{p.name}: {problem}")
        vm._attrs()[name].discard("n")
        if not vm._attrs()[name]:
            del vm._attrs()[name]
        return 1
    vm.vars[name] = target
    return 0


def _print(p: _Proc, names: list[str], having: set[str] | None) -> int:
    vm = p.vm
    if names:
        status = 0
        for name in names:
            line = declaration(vm, name)
            if line is None:
                p.shell_err(f"{p.name}: {name}: not found")
                status = 1
            else:
                p.out(line + "\n")
        return status
    if having is None:  # plain `declare`: what `set` prints
        return BUILTINS["set"](_Proc(vm, "set", [], p.ctx))
    shown = sorted(set(vm.vars) | set(vm._arrays()) | set(vm._attrs()) | vm.exported)
    for name in shown:
        letters = vm._attrs().get(name, set()) | ({"x"} if name in vm.exported else set())
        if having - {"p"} <= letters:
            line = declaration(vm, name)
            if line is not None:
                p.out(line + "\n")
    return 0


@builtin("unset")
def _b_unset(p: _Proc) -> int:
    vm = p.vm
    functions = "-f" in p.args
    itself = "-n" in p.args  # a nameref itself, not what it stands for
    status = 0
    for word in p.args:
        if word in ("-f", "-v", "-n"):
            continue
        name, sub = word, None
        m = SUBSCRIPTED.match(word)
        if m and word.endswith("]"):
            name, sub = m.group(1), word[m.end() : -1]
        if not _valid_name(name):
            p.shell_err(f"unset: `{word}': not a valid identifier")
            status = 1
            continue
        if functions:
            vm.functions.pop(name, None)
            continue
        if not itself:
            name = vm._ref(name)
        if vm._has_attr(name, "r"):
            p.shell_err(f"unset: {name}: cannot unset: readonly variable")
            status = 1
            continue
        if sub is not None:
            if sub in ("@", "*"):
                vm._drop_array(name)
                vm.vars.pop(name, None)
            else:
                vm._array_unset(name, vm._array_key(name, sub, p.ctx))
        elif name in vm.vars or name in vm._arrays() or name in vm._attrs():
            vm._path_assigned(name)
            vm._drop_array(name)
            vm._attrs().pop(name, None)
            vm.vars.pop(name, None)
            vm.exported.discard(name)
        else:
            vm.functions.pop(name, None)
    return status
