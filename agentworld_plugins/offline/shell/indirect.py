"""Indirect expansion: ``${!name}`` and ``${!prefix*}``.

``${!p...}`` takes the value of the parameter ``p`` (``r``, ``a[0]``, ``a[@]`` joined with
spaces, ``#``, ``1``) as the name of another one and expands that with the rest of the text:
``r=foo; ${!r:1}`` is ``${foo:1}``, ``r='a[@]'; "${!r}"`` the elements of ``a``, a word each,
``${!#}`` the last positional parameter. The value must be a parameter's name (``bad name:
invalid variable name``); ``p`` unset is ``p: invalid indirect expansion``; both end a ``bash
-c`` script with status 1, as in bash 5.2. ``${!prefix*}`` and ``${!prefix@}`` are the names of
the set variables that start with ``prefix``, sorted. ``${!a[@]}`` (the keys of ``a``) and
``${!ref}`` of a nameref (the name it stands for) are not indirection; they are answered
elsewhere (:mod:`.arrays`, :mod:`.params`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from .brackets import _match_closing
from .errors import _ExpansionError, _unbound

if TYPE_CHECKING:
    from .proc import _Ctx

_PREFIX = re.compile(r"!([A-Za-z_][A-Za-z0-9_]*)([*@])")
_NAME_AT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the parameter after the ``!``: a name (a subscript may follow), a positional one, a special one
_PARAM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!-]")
#: what the value of the first parameter may be: a name (with a subscript), digits, a special one
_TARGET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.+\])?|[0-9]+|[#?$!@*-]", re.S)
#: bash's own variables (bash 5.2 under ``bash -c``), which ${!prefix*} lists beside the ones set
_OWN = frozenset((
    "BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV", "BASH_ARGV0",
    "BASH_CMDS", "BASH_COMMAND", "BASH_EXECUTION_STRING", "BASH_LINENO", "BASH_LOADABLES_PATH",
    "BASH_SOURCE", "BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "COMP_WORDBREAKS",
    "DIRSTACK", "EPOCHREALTIME", "EPOCHSECONDS", "EUID", "GROUPS", "HISTCMD", "HOSTTYPE",
    "LINENO", "MACHTYPE", "OPTERR", "OSTYPE", "PIPESTATUS", "PPID", "SECONDS", "SHELLOPTS",
    "SRANDOM", "UID", "_",
))  # fmt: skip


class Indirection(NamedTuple):
    """``${!p rest}`` resolved: ``target`` is the parameter ``p``'s value, to be expanded with
    ``rest``; ``written`` is ``!p`` as written (``set -u`` names it)."""

    target: str
    rest: str
    written: str


def prefix_names(vm: Any, prefix: str) -> list[str]:
    """``${!prefix*}``: the names of the variables that are set (an array when it has elements)
    and start with ``prefix``, in byte order."""
    names = set(vm.vars) | {name for name, items in vm._arrays().items() if items}
    names |= _OWN
    if vm._locals:  # inside a function
        names.add("FUNCNAME")
    return sorted(name for name in names if name.startswith(prefix))


def indirection(vm: Any, inner: str, ctx: _Ctx) -> Indirection | list[str] | None:
    """``inner`` (``!...``, the text of ``${...}``) as an indirection, the names of
    ``${!prefix*}`` (a list), or None when it is neither (``${!a[@]}``, a nameref's
    ``${!ref}``, or no parameter after the ``!``)."""
    m = _PREFIX.fullmatch(inner)
    if m:
        return prefix_names(vm, m.group(1))
    param, rest = _split(inner)
    if param is None:
        return None
    name, _, sub = param.partition("[")
    if sub:
        sub = sub[:-1]
        if sub in ("@", "*") and not rest:
            return None  # the keys of an array
        if sub in ("@", "*"):
            values = vm._array_values(name)
            value = " ".join(values) if values else None
        else:
            value = vm._array_get(name, vm._array_key(name, sub, ctx))
        if value is None:  # an unset element names nothing: empty (set -u: unbound)
            if vm.nounset:
                raise _unbound("!" + param)
            return Indirection("", "", "!" + param)
    else:
        if vm._has_attr(name, "n"):
            return None
        value = vm._value(name)
        if value is None:
            raise _ExpansionError(f"{param}: invalid indirect expansion", fatal=True)
    if not _TARGET.fullmatch(value) or (
        "[" in value and _match_closing(value, value.index("[") + 1, "[]") < len(value) - 1
    ):
        raise _ExpansionError(f"{value}: invalid variable name", fatal=True)
    return Indirection(value, rest, "!" + param)


def _split(inner: str) -> tuple[str | None, str]:
    """``!p rest`` as (``p``, ``rest``); (None, inner) when no parameter follows the ``!``."""
    m = _PARAM.match(inner, 1)
    if m is None:
        return None, inner
    end = m.end()
    if _NAME_AT.fullmatch(m.group()) and inner[end : end + 1] == "[":
        close = _match_closing(inner, end + 1, "[]")
        if close >= len(inner):
            return None, inner
        end = close + 1
    return inner[1:end], inner[end:]
