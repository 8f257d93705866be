"""bash's call-stack arrays, ``FUNCNAME``, ``BASH_SOURCE`` and ``BASH_LINENO``, and its other
variables about itself (``BASH_VERSINFO``, ``HOSTTYPE``, ``SHELLOPTS``, ``LINENO``, ...).

A frame is pushed for each function call and each ``source`` (``_frames``: name, the file its
code is in, the line it was called from). Read top first, as bash lists them: ``FUNCNAME`` names
the frames, and only while a function runs (a ``source`` frame shows as ``source``), ending in
``main`` when the shell runs a script file; ``BASH_SOURCE`` gives each frame's file (a function's
is where it was defined: the script or sourced file, ``main`` for one read from stdin,
``environment`` for ``bash -c``'s), then the script's; ``BASH_LINENO`` the line each was called
from, then 0 for the script. ``${BASH_SOURCE[0]}`` at a script's top level is the script, so
``$(dirname "${BASH_SOURCE[0]}")`` finds its folder.
"""

from __future__ import annotations

from typing import Any

from .constants import BASH_VERSION
from .options import SET_NAMES, SHOPT_NAMES, set_options, shopt_options

MACHTYPE = "x86_64-pc-linux-gnu"
#: variables bash sets about itself, the same in every shell here
FIXED = {"HOSTTYPE": "x86_64", "OSTYPE": "linux-gnu", "MACHTYPE": MACHTYPE}
_VERSION_PARTS = BASH_VERSION.replace("(", ".").replace(")-", ".").split(".")


def defined_in(vm: Any) -> str:
    """What ``BASH_SOURCE`` says of a function defined now."""
    kind, name = vm.reading()
    if kind in ("file", "source"):
        return str(name)
    return "main" if kind == "stdin" or vm.interactive else "environment"


def _script(vm: Any) -> str | None:
    """The script file the current bash process runs (None: ``-c``, stdin, a terminal)."""
    for kind, name in reversed(vm.__dict__.get("_reading", ())):
        if kind != "source":
            return str(name) if kind == "file" else None
    return None


def stack_array(vm: Any, name: str) -> list[str] | None:
    """The elements of one of bash's own arrays, or None when ``name`` is none of them."""
    if name == "BASH_VERSINFO":
        return [*_VERSION_PARTS, MACHTYPE]
    if name not in ("FUNCNAME", "BASH_SOURCE", "BASH_LINENO"):
        return None
    frames = list(reversed(vm.__dict__.get("_frames", ())))
    script = _script(vm)
    if name == "FUNCNAME":
        if all(frame[0] == "source" for frame in frames):
            return []
        return [frame[0] for frame in frames] + (["main"] if script is not None else [])
    if name == "BASH_SOURCE":
        return [frame[1] for frame in frames] + ([script] if script is not None else [])
    return [str(frame[2]) for frame in frames] + (["0"] if script is not None else [])


def shell_variable(vm: Any, name: str) -> str | None:
    """``LINENO``, ``SHELLOPTS``, ``BASHOPTS``, ``UID``/``EUID`` and the fixed ones; None for
    any other name."""
    if name == "LINENO":
        return str(vm._lineno)
    if name == "SHELLOPTS":
        on = set_options(vm)
        return ":".join(n for n in SET_NAMES if n in on)
    if name == "BASHOPTS":
        on = shopt_options(vm)
        return ":".join(n for n in SHOPT_NAMES if n in on)
    if name in ("UID", "EUID"):  # as `id -u` says
        return "0" if vm.user == "root" else "1000"
    return FIXED.get(name)
