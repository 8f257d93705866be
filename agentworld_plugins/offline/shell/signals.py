"""Signal names and numbers, and what ``kill`` does to the shell itself (``kill -SIG $$``):
shared by the ``trap`` and ``kill`` builtins."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .proc import _Proc

#: the signals a trap may name, by number (bash's names; EXIT is 0)
# fmt: off
SIGNALS = {
    0: "EXIT", 1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE",
    9: "KILL", 10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM",
    16: "STKFLT", 17: "CHLD", 18: "CONT", 19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU",
    23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF", 28: "WINCH", 29: "IO",
    30: "PWR", 31: "SYS",
}
# fmt: on
NUMBERS = {name: number for number, name in SIGNALS.items()}
#: traps that are no signal (listed after the signals, in this order)
PSEUDO = ("DEBUG", "ERR", "RETURN")


def signal_table() -> str:
    """``kill -l`` / ``trap -l``: bash's table of every signal, real-time ones included, five to
    a line."""
    names = [f"SIG{SIGNALS[n]}" for n in range(1, 32)]
    names += ["SIGRTMIN"] + [f"SIGRTMIN+{k}" for k in range(1, 16)]
    names += [f"SIGRTMAX-{k}" for k in range(14, 0, -1)] + ["SIGRTMAX"]
    numbers = [*range(1, 32), *range(34, 65)]
    cells = [
        f"{n:2d}) {name}" + ("\n" if k % 5 == 4 else "\t") for k, (n, name) in enumerate(zip(numbers, names))
    ]
    return "".join(cells) + ("\n" if len(cells) % 5 else "")


def signal_name(spec: str) -> str | None:
    """The trap key of ``spec`` (``EXIT``, ``INT``, ``SIGTERM``, ``15``, ``err``), or None."""
    if spec.isdigit():
        return SIGNALS.get(int(spec))
    upper = spec.upper()
    upper = upper[3:] if upper.startswith("SIG") else upper
    if upper in NUMBERS or upper in PSEUDO:
        return upper
    return None


#: signals whose default action is not to end a process (or to stop it, which is not simulated)
_HARMLESS = frozenset({0, 17, 18, 19, 20, 21, 22, 23, 28})


def signal_of(p: _Proc) -> tuple[int | None, list[str]]:
    """``kill``'s signal (``-9``, ``-KILL``, ``-SIGTERM``, ``-s INT``, ``-n 2``; TERM by default)
    and its targets; None (said on stderr) for a signal bash does not know."""
    args = list(p.args)
    signal = 15
    targets: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            targets.extend(args[i + 1 :])
            break
        if a in ("-s", "-n") and i + 1 < len(args):
            spec = args[i + 1]
            i += 2
        elif a.startswith("-") and len(a) > 1 and not targets:
            spec = a[1:]
            i += 1
        else:
            targets.append(a)
            i += 1
            continue
        key = signal_name(spec)
        if key is None or key in PSEUDO:
            p.shell_err(f"kill: {spec}: invalid signal specification")
            return None, []
        signal = NUMBERS[key]
    return signal, targets


def kill_shell(p: _Proc, signal: int) -> int:
    """``kill -SIG $$``: a trap set for the signal runs (an empty one ignores it); else the
    shell ends as the signal would end it (``_Killed``: 128 + SIG; SIGKILL runs no EXIT trap)."""
    from .errors import _Killed

    vm = p.vm
    key = SIGNALS.get(signal, "")
    traps = vm.__dict__.get("_traps") or {}
    if signal not in (9, 19) and key in traps:
        if traps[key]:
            vm._run_status(traps[key], p.ctx)
        return 0
    if signal in _HARMLESS:
        return 0
    raise _Killed(signal)
