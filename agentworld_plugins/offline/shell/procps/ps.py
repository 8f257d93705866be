"""ps and kill."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import applet, builtin
from ..signals import kill_shell, signal_of

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
