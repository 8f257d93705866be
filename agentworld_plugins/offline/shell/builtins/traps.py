"""trap (``EXIT`` runs as the shell ends; signal traps as ``kill`` sends them) and
mapfile/readarray (lines of stdin into an array)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import _UsageError
from ..getopt import _getopt
from ..registry import builtin
from ..signals import NUMBERS, PSEUDO, signal_name, signal_table

if TYPE_CHECKING:
    from ..proc import _Proc


def _shown(key: str) -> str:
    return key if key == "EXIT" or key in PSEUDO else "SIG" + key


def _order(key: str) -> int:
    return NUMBERS[key] if key in NUMBERS else 100 + PSEUDO.index(key)


def _listing(action: str, key: str) -> str:
    return "trap -- '" + action.replace("'", "'\\''") + f"' {_shown(key)}\n"


@builtin("trap")
def _b_trap(p: _Proc) -> int:
    traps: dict[str, str] = p.vm.__dict__.setdefault("_traps", {})
    args = list(p.args)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or args[0] == "-p":
        wanted = args[1:]
        keys = sorted(traps, key=_order)
        if wanted:
            keys = []
            for spec in wanted:
                key = signal_name(spec)
                if key is None:
                    p.shell_err(f"trap: {spec}: invalid signal specification")
                    return 1
                if key in traps:
                    keys.append(key)
        for key in keys:
            p.out(_listing(traps[key], key))
        return 0
    if args[0] == "-l":
        p.out(signal_table())
        return 0
    # `trap - SIG...` / `trap SIG` (one signal alone): back to the default
    reset = args[0] == "-" or (len(args) == 1 and signal_name(args[0]) is not None)
    action = None if reset else args[0]
    specs = args[1:] if args[0] == "-" or not reset else args
    status = 0
    for spec in specs:
        key = signal_name(spec)
        if key is None:
            p.shell_err(f"trap: {spec}: invalid signal specification")
            status = 1
            continue
        if action is None:
            traps.pop(key, None)
        else:
            traps[key] = action
    return status


@builtin("mapfile", "readarray")
def _b_mapfile(p: _Proc) -> int:
    """``mapfile [-t] [-n N] [-s N] [-O I] [-d D] [ARRAY]``: stdin's lines as the elements."""
    try:
        opts, names = _getopt(p.args, "tn:s:O:d:u:c:C:", status=2)
    except _UsageError as exc:
        p.shell_err(f"{p.name}: {exc.message}")
        p.ctx.err.write(
            f"{p.name}: usage: {p.name} [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] "
            "[-C callback] [-c quantum] [array]\n"
        )
        return 2
    name = names[0] if names else "MAPFILE"
    numbers = {}
    for letter in "nsO":
        given = opts.get(letter, "0")
        text = str(given[-1] if isinstance(given, list) else given)
        if not text.lstrip("-").isdigit():
            p.shell_err(f"{p.name}: {text}: invalid {'line count' if letter != 'O' else 'array origin'}")
            return 1
        numbers[letter] = int(text)
    given = opts.get("d", "\n")
    delim = str(given[-1] if isinstance(given, list) else given)[:1] or "\0"
    given = opts.get("u")
    stdin = p.input_fd(str(given[-1]) if given else None)
    if stdin is None:
        return 1
    text = stdin.read()
    lines = text.split(delim)
    pieces = [line + delim for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    pieces = pieces[numbers["s"] :]
    if numbers["n"] > 0:
        pieces = pieces[: numbers["n"]]
    if "t" in opts:
        pieces = [piece[:-1] if piece.endswith(delim) else piece for piece in pieces]
    vm = p.vm
    origin = numbers["O"]
    if origin == 0:
        vm._array_replace(name, pieces)
    else:
        vm._to_array(name)
        for k, piece in enumerate(pieces):
            vm._array_set(name, origin + k, piece)
    return 0
