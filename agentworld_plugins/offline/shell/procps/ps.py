"""ps and kill."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import applet, builtin
from ..signals import NUMBERS, SIGNALS, kill_shell, signal_name, signal_of, signal_table

if TYPE_CHECKING:
    from ..proc import _Proc


@applet("ps")
def _u_ps(p: _Proc) -> int:
    if any(a in ("aux", "-ef", "-aux", "-e", "ax", "-A") for a in p.args):
        if "-ef" in p.args or "-e" in p.args or "-A" in p.args:
            p.out("UID          PID    PPID  C STIME TTY          TIME CMD\n")
            p.out("root           1       0  0 09:30 pts/0    00:00:00 /bin/bash\n")
            p.out("root          42       1  0 09:30 pts/0    00:00:00 ps " + " ".join(p.args) + "\n")
        else:
            p.out("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n")
            p.out("root           1  0.0  0.0   4588  3840 pts/0    Ss   09:30   0:00 /bin/bash\n")
            p.out(
                "root          42  0.0  0.0   7888  3968 pts/0    R+   09:30   0:00 ps "
                + " ".join(p.args)
                + "\n"
            )
        return 0
    p.out("    PID TTY          TIME CMD\n      1 pts/0    00:00:00 bash\n     42 pts/0    00:00:00 ps\n")
    return 0


@builtin("kill")
@applet("kill")
def _u_kill(p: _Proc) -> int:
    if p.args[:1] in (["-l"], ["-L"]):
        return _list_signals(p, p.args[1:])
    signal, targets = signal_of(p)
    if signal is None:
        return 1
    if "1" in targets:  # $$: the shell itself
        return kill_shell(p, signal)
    if not targets:
        p.ctx.err.write(
            "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n"
        )
        return 2
    status = 0
    for t in targets:
        if t not in ("1", "42"):
            p.shell_err(f"kill: ({t}) - No such process")
            status = 1
    return status


def _list_signals(p: _Proc, specs: list[str]) -> int:
    """``kill -l``: the table; ``kill -l N`` a number's name (an exit status over 128 names the
    signal that caused it), ``kill -l NAME`` a name's number."""
    if not specs:
        p.out(signal_table())
        return 0
    status = 0
    for spec in specs:
        if spec.isdigit():
            number = int(spec) - 128 if int(spec) > 128 else int(spec)
            name = SIGNALS.get(number)
            if name is not None:
                p.out(name + "\n")
                continue
        else:
            name = signal_name(spec)
            if name is not None and name in NUMBERS:
                p.out(f"{NUMBERS[name]}\n")
                continue
        p.shell_err(f"kill: {spec}: invalid signal specification")
        status = 1
    return status
