"""ulimit: the machine's resource limits as bash shows and sets them (``-a``, one letter, ``-S`` /
``-H``, ``unlimited``/``soft``/``hard``), kept per shell.

The offline world does not enforce them (its own step budget bounds every command), so a soft
limit lowered below the machine's is flagged as an unknown effect; raising one is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import builtin

if TYPE_CHECKING:
    from ..proc import _Proc

_UNLIMITED = -1
#: bash's table: letter, what ``-a`` calls it, its unit, the machine's soft and hard values
_LIMITS: tuple[tuple[str, str, str, int, int], ...] = (
    ("R", "real-time non-blocking time", "microseconds", _UNLIMITED, _UNLIMITED),
    ("c", "core file size", "blocks", 0, _UNLIMITED),
    ("d", "data seg size", "kbytes", _UNLIMITED, _UNLIMITED),
    ("e", "scheduling priority", "", 0, 0),
    ("f", "file size", "blocks", _UNLIMITED, _UNLIMITED),
    ("i", "pending signals", "", 63446, 63446),
    ("l", "max locked memory", "kbytes", 8192, 8192),
    ("m", "max memory size", "kbytes", _UNLIMITED, _UNLIMITED),
    ("n", "open files", "", 1024, 1048576),
    ("p", "pipe size", "512 bytes", 8, 8),
    ("q", "POSIX message queues", "bytes", 819200, 819200),
    ("r", "real-time priority", "", 0, 0),
    ("s", "stack size", "kbytes", 8192, _UNLIMITED),
    ("t", "cpu time", "seconds", _UNLIMITED, _UNLIMITED),
    ("u", "max user processes", "", 63446, 63446),
    ("v", "virtual memory", "kbytes", _UNLIMITED, _UNLIMITED),
    ("x", "file locks", "", _UNLIMITED, _UNLIMITED),
)
_BY_LETTER = {row[0]: row for row in _LIMITS}
#: the most open files the kernel lets even root have (``/proc/sys/fs/nr_open``)
_NR_OPEN = 1048576
_USAGE = "ulimit: usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]\n"


def _shown(value: int) -> str:
    return "unlimited" if value == _UNLIMITED else str(value)


def _below(a: int, b: int) -> bool:
    """``a < b`` where -1 is unlimited."""
    return a != _UNLIMITED and (b == _UNLIMITED or a < b)


def _label(letter: str) -> str:
    _, what, unit, _, _ = _BY_LETTER[letter]
    inside = f"({unit}, -{letter}) " if unit else f"(-{letter}) "
    return f"{what:<20} {inside:>20}"


def _table(p: _Proc) -> dict[str, list[int]]:
    """This shell's ``{letter: [soft, hard]}`` (the machine's until set)."""
    table = p.vm.__dict__.get("_ulimits")
    if table is None:
        table = p.vm.__dict__["_ulimits"] = {row[0]: [row[3], row[4]] for row in _LIMITS}
    return table


@builtin("ulimit")
def _b_ulimit(p: _Proc) -> int:
    args = list(p.args)
    which = ""  # S, H or both
    asked: list[tuple[str, str | None]] = []
    show_all = False
    while args:
        word = args.pop(0)
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            if asked:
                break
            asked.append(("f", word))  # a bare value sets the file size
            continue
        for letter in word[1:]:
            if letter in "SH":
                which += letter
            elif letter == "a":
                show_all = True
            elif letter in _BY_LETTER:
                asked.append((letter, None))
            else:
                p.shell_err(f"ulimit: -{letter}: invalid option")
                p.ctx.err.write(_USAGE)
                return 2
        if asked and asked[-1][1] is None and args and not args[0].startswith("-"):
            asked[-1] = (asked[-1][0], args.pop(0))
    table = _table(p)
    hard = "H" in which and "S" not in which
    if show_all:
        for letter, *_ in _LIMITS:
            p.out(f"{_label(letter)}{_shown(table[letter][1 if hard else 0])}\n")
        return 0
    asked = asked or [("f", None)]
    status = 0
    for letter, value in asked:
        if value is None:
            shown = _shown(table[letter][1 if hard else 0])
            p.out(f"{_label(letter)}{shown}\n" if len(asked) > 1 else f"{shown}\n")
            continue
        status |= _set(p, letter, value, which or "SH", table[letter])
    return status


def _set(p: _Proc, letter: str, value: str, which: str, current: list[int]) -> int:
    soft, hard = current
    if value == "unlimited":
        new = _UNLIMITED
    elif value in ("soft", "hard"):
        new = soft if value == "soft" else hard
    elif value.isdigit():
        new = int(value)
    else:
        p.shell_err(f"ulimit: {value}: invalid number")
        return 1
    what = _BY_LETTER[letter][1]
    problem = None
    if letter == "p":
        problem = "Invalid argument"
    elif letter == "n" and (new == _UNLIMITED or new > _NR_OPEN):
        problem = "Operation not permitted"
    elif "H" in which and "S" not in which and _below(new, soft):
        problem = "Invalid argument"  # a hard limit under the soft one
    elif "S" in which and "H" not in which and _below(hard, new):
        problem = "Invalid argument"
    if problem is not None:
        p.shell_err(f"ulimit: {what}: cannot modify limit: {problem}")
        return 1
    if "S" in which:
        current[0] = new
    if "H" in which:
        current[1] = new
    if _below(current[0], _BY_LETTER[letter][3]):  # not enforced here: say so
        p.unknown()
    return 0
