"""Values as bash shows them again: ``declare -p``'s lines and the ``${name@OP}`` transforms.

``@Q`` quotes the value for reuse (``'it'\\''s'``, ``$'a\\nb'`` when it holds a control
character), ``@E`` expands its backslash escapes as ``$'...'`` does, ``@U``/``@u``/``@L`` change
its case (all of it, the first character, all of it to lower), ``@a`` gives the attribute
letters, ``@A`` an assignment that recreates it (``x='1'``, ``declare -i n='3'``, a whole
array's ``declare -a a=(...)`` for ``${a[@]@A}``), ``@K`` the keys and values of an array (a
scalar as ``@Q``). An unset value gives nothing. ``@P`` (prompt strings) is not simulated.
"""

from __future__ import annotations

import re
from typing import Any

from .assoc import listing_order
from .escapes import _ansi_c
from .quoting import single_quoted

#: the attribute letters, in the order bash prints them
LETTERS = "aAilnrtux"
#: what follows ``@`` in a transform bash knows (``P`` among them: not simulated here)
TRANSFORMS = frozenset("QEPAaULuKk")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ANSI_C = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
           "\x1b": "\\E", "'": "\\'", "\\": "\\\\"}  # fmt: skip


def ansi_c_quoted(value: str) -> str:
    """``value`` as a ``$'...'`` word, escaped as bash's ``ansic_quote`` escapes it."""
    return (
        "$'" + "".join(_ANSI_C.get(c) or (f"\\{ord(c):03o}" if _CONTROL.match(c) else c) for c in value) + "'"
    )


def reusable(value: str) -> str:
    """``@Q``: single quotes, or ``$'...'`` when the value holds a control character."""
    return ansi_c_quoted(value) if _CONTROL.search(value) else single_quoted(value)


def declared_value(value: str) -> str:
    """A value as ``declare -p`` shows it: double quotes, or ``$'...'`` as :func:`reusable`."""
    if _CONTROL.search(value):
        return ansi_c_quoted(value)
    return '"' + re.sub(r'([\\"$`])', r"\\\1", value) + '"'


def attribute_letters(vm: Any, name: str) -> str:
    """``name``'s attributes as ``declare`` lists them (``ai``, ``x``), export included."""
    letters = {*vm._attrs().get(name, ())} | ({"x"} if name in vm.exported else set())
    return "".join(c for c in LETTERS if c in letters)


def declaration(vm: Any, name: str) -> str | None:
    """``declare -p name``'s line, or None when ``name`` is neither set nor declared."""
    flags = attribute_letters(vm, name) or "-"
    items = vm._arrays().get(name)
    if items is not None:
        if not items:
            return f"declare -{flags} {name}"
        keys = listing_order(items)
        body = " ".join(f"[{k}]={declared_value(items[k])}" for k in keys)
        return f"declare -{flags} {name}=({body}{' ' if vm._is_assoc(name) else ''})"
    if name in vm.vars:
        return f"declare -{flags} {name}={declared_value(vm.vars[name])}"
    if flags != "-":
        return f"declare -{flags} {name}"
    return None


def transform(vm: Any, name: str, value: str | None, op: str) -> str:
    """``${name@op}`` of one value (``name``: the variable, for ``@a`` and ``@A``)."""
    if op == "a":
        return attribute_letters(vm, name) if name.isidentifier() else ""
    if value is None:  # declared, not set: `declare -a e` for @A
        flags = attribute_letters(vm, name) if op == "A" and name.isidentifier() else ""
        return f"declare -{flags} {name}" if flags else ""
    if op in ("Q", "K", "k"):
        return reusable(value)
    if op == "E":
        return "'".join(_ansi_c(piece + "'", 0)[0] for piece in value.split("'"))
    if op == "U":
        return value.upper()
    if op == "L":
        return value.lower()
    if op == "u":
        return value[:1].upper() + value[1:]
    if op == "A":
        if not name.isidentifier():  # a positional parameter: nothing, as in bash
            return ""
        flags = attribute_letters(vm, name)
        return f"{'declare -' + flags + ' ' if flags else ''}{name}={reusable(value)}"
    raise ValueError(op)


def array_transform(vm: Any, name: str, op: str) -> list[str] | None:
    """The transforms of ``${name[@]@op}`` that see the whole array (``@A``, ``@K``, ``@k``),
    as its words; None for the others, which apply to each element."""
    if op == "A":  # an array's `declare` line in three words; a scalar's assignment in one
        if name not in vm._arrays():
            value = vm.vars.get(name)
            return [] if value is None else [transform(vm, name, value, "A")]
        line = declaration(vm, name)
        return line.split(" ", 2) if line is not None else []
    if op not in ("K", "k"):
        return None
    items = vm._arrays().get(name)
    if items is None:
        return [reusable(vm.vars[name])] if name in vm.vars else []
    assoc = vm._is_assoc(name)
    keys = listing_order(items)
    if op == "k":  # bash 5.2: each key and value a word of its own
        return [word for k in keys for word in (str(k), items[k])]
    return [" ".join(f"{k} {declared_value(items[k])}" for k in keys) + (" " if assoc else "")]


def positional_assignment(values: list[str]) -> str:
    """``${@@A}``: the ``set --`` that gives the positional parameters back."""
    return " ".join(["set --", *(reusable(v) for v in values)])
